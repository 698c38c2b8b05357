"""The pure matrix look-ups under their historical import path.

Tests and parsers call these with plain values (``lookup_gpu(name)``,
``lookup_torch_release(version)``); the knowledge functions rules call are in the family
modules of this package and in its ``REGISTRY``.
"""

from __future__ import annotations

from envdoctor.engine.knowledge._common import (  # noqa: F401
    confirmed,
    cuda_of_tag,
    driver_ver,
    in_range,
    series,
    tag_of_cuda,
    ver,
    with_confirmed,
)
from envdoctor.engine.knowledge.cuda import (  # noqa: F401
    FIRST_MINOR_COMPAT_MAJOR,
    cuda_fits,
    hard_floor,
    lookup_compat_floor,
    lookup_max_cuda,
    lookup_min_driver,
)
from envdoctor.engine.knowledge.cudnn import (  # noqa: F401
    lookup_cudnn,
    lookup_cudnn_min_cc,
    series_range,
)
from envdoctor.engine.knowledge.driver import framework_cudas  # noqa: F401
from envdoctor.engine.knowledge.env import alloc_conf_problem, hides_every_gpu  # noqa: F401
from envdoctor.engine.knowledge.gpu import (  # noqa: F401
    arch_cc,
    archs_run_on,
    gpu_cc_of,
    lookup_arch,
    lookup_datasheet,
    lookup_gpu,
    sm_of,
)
from envdoctor.engine.knowledge.jax import (  # noqa: F401
    jax_plugin_major,
    lookup_jax_plugin,
    lookup_jax_release,
)
from envdoctor.engine.knowledge.packages import nvidia_wheel_major  # noqa: F401
from envdoctor.engine.knowledge.tensorflow import lookup_tf_release  # noqa: F401
from envdoctor.engine.knowledge.torch import (  # noqa: F401
    archs_in_range,
    driver_supports_arch,
    gpus_newer_than_build_cuda,
    local_variant,
    lookup_torch_release,
    lookup_torch_variant,
    torch_variant_name,
    wheel_platform,
)
from envdoctor.matrices.check import matrix_problems  # noqa: F401
