"""Environment variables that change how CUDA and the frameworks behave.

Only allowlisted names are recorded, and a value that looks like a credential never is, even
under an allowlisted name (``NCCL_…`` or ``TF_…`` variables can hold tokens in some setups).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from envdoctor.facts import EnvFacts, Status
from envdoctor.probes._base import Trail
from envdoctor.secrets import REDACTED, SECRET_NAME, SECRET_VALUE

SECTION = "env"

EXACT = frozenset("""
CUDA_VISIBLE_DEVICES NVIDIA_VISIBLE_DEVICES NVIDIA_DRIVER_CAPABILITIES NVIDIA_REQUIRE_CUDA
CUDA_DEVICE_ORDER CUDA_LAUNCH_BLOCKING CUDA_MODULE_LOADING CUDA_CACHE_DISABLE
CUDA_CACHE_PATH CUDA_HOME CUDA_PATH CUDA_ROOT CUDNN_PATH CUDNN_HOME LD_LIBRARY_PATH
LD_PRELOAD HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES KERAS_BACKEND KERAS_HOME OMP_NUM_THREADS
MKL_NUM_THREADS OPENBLAS_NUM_THREADS CONDA_PREFIX CONDA_DEFAULT_ENV VIRTUAL_ENV PYTHONPATH
WORLD_SIZE RANK LOCAL_RANK MASTER_ADDR MASTER_PORT
""".split())
PREFIXES = ("PYTORCH_", "TORCH_", "TORCHINDUCTOR_", "TF_", "XLA_", "JAX_", "NCCL_", "CUBLAS_",
            "CUDNN_", "FLAGS_", "MXNET_", "MS_", "GLOG_")


def looks_secret(name: str, value: str) -> bool:
    return bool(SECRET_NAME.search(name) or SECRET_VALUE.search(value))


def wanted(name: str) -> bool:
    return name in EXACT or name.startswith(PREFIXES)


def select(environ: Mapping[str, str]) -> dict[str, str]:
    """The allowlisted variables, with credential-like values replaced by ``<redacted>``."""
    return {name: (REDACTED if looks_secret(name, value) else value)
            for name, value in sorted(environ.items()) if wanted(name)}


def probe() -> EnvFacts:
    trail = Trail()
    trail.ran.append("read environment (allowlist)")
    return EnvFacts(vars=select(os.environ), probe=trail.info(Status.OK, source="environ"))
