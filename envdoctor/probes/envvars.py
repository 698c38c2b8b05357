"""Environment variables that change how CUDA and the frameworks behave.

Only allowlisted names are recorded, and a value that looks like a credential never is, even
under an allowlisted name (``NCCL_…`` or ``TF_…`` variables can hold tokens in some setups).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from envdoctor.bounded import environ
from envdoctor.facts import EnvFacts, Status
from envdoctor.probes._base import Trail
from envdoctor.probes._root import SYSTEM
from envdoctor.secrets import REDACTED, SECRET_VALUE, credential_name, scrub

SECTION = "env"

EXACT = frozenset("""
CUDA_VISIBLE_DEVICES NVIDIA_VISIBLE_DEVICES NVIDIA_DRIVER_CAPABILITIES NVIDIA_REQUIRE_CUDA
CUDA_DEVICE_ORDER CUDA_LAUNCH_BLOCKING CUDA_MODULE_LOADING CUDA_CACHE_DISABLE
CUDA_CACHE_PATH CUDA_HOME CUDA_PATH CUDA_ROOT CUDNN_PATH CUDNN_HOME LD_LIBRARY_PATH
LD_PRELOAD HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES KERAS_BACKEND KERAS_HOME OMP_NUM_THREADS
MKL_NUM_THREADS OPENBLAS_NUM_THREADS CONDA_PREFIX CONDA_DEFAULT_ENV VIRTUAL_ENV PYTHONPATH
WORLD_SIZE RANK LOCAL_RANK MASTER_ADDR MASTER_PORT
HSA_OVERRIDE_GFX_VERSION GPU_DEVICE_ORDINAL ROCM_PATH ROCM_HOME HIP_PATH PYTORCH_ROCM_ARCH
TPU_ACCELERATOR_TYPE TPU_VISIBLE_CHIPS TPU_PROCESS_BOUNDS TPU_CHIPS_PER_PROCESS_BOUNDS PJRT_DEVICE
TPU_LIBRARY_PATH
""".split())
# TensorFlow's own variables by family; a bare "TF_" would also collect Terraform's
# (TF_VAR_*, TF_CLI_CONFIG_FILE, TF_TOKEN_*), which say nothing about training.
TF_PREFIXES = ("TF_CPP_", "TF_GPU_", "TF_XLA_", "TF_CUDA_", "TF_CUDNN_", "TF_ENABLE_",
               "TF_FORCE_", "TF_NUM_", "TF_USE_", "TF_DETERMINISTIC", "TF_MIN_GPU_",
               "TF_DISABLE_", "TF_KERAS")
EXACT = EXACT | {"TF_CONFIG"}
PREFIXES = ("PYTORCH_", "TORCH_", "TORCHINDUCTOR_", *TF_PREFIXES, "XLA_", "JAX_", "NCCL_",
            "CUBLAS_", "CUDNN_", "FLAGS_", "MXNET_", "MS_", "GLOG_", "MIOPEN_", "ROCBLAS_",
            "HIPBLASLT_", "AMD_LOG_", "AMD_SERIALIZE_")


def looks_secret(name: str, value: str) -> bool:
    return bool(credential_name(name, value) or SECRET_VALUE.search(value))


def wanted(name: str) -> bool:
    return name in EXACT or name.startswith(PREFIXES)


def select(environ: Mapping[str, str]) -> dict[str, str]:
    """The allowlisted variables, with credential-like values replaced by ``<redacted>`` and
    secrets inside other values (TF_CONFIG's ``auth_token``, a presigned URL's signature)
    replaced in place."""
    return {name: (REDACTED if looks_secret(name, value) else scrub(value))
            for name, value in sorted(environ.items()) if wanted(name)}


def probe(root: Path = SYSTEM) -> EnvFacts:
    """The variables of this process (``root`` reads no file: accepted for the registry)."""
    trail = Trail()
    trail.ran.append("read environment (allowlist)")
    return EnvFacts(vars=select(environ()), probe=trail.info(Status.OK, source="environ"))
