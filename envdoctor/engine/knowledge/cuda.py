"""CUDA and the driver: which driver a CUDA release needs (cuda_driver.toml, NVIDIA's CUDA
Toolkit release notes, Table 3, and the CUDA Compatibility guide)."""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from envdoctor.engine.knowledge._reads import optional, reads
from envdoctor.facts import CudaFacts
from envdoctor.matrices.cuda import lookup_compat_floor, lookup_max_cuda, lookup_min_driver

# ---------------------------------------------------------------------------- rule functions
# An unknown OS reads the Linux column: the Windows cells differ by a few minor releases.
OS_READ = optional("host.os", "linux")


@reads(os=OS_READ)
def min_driver(cuda: Any, *, os: str) -> Version | None:
    """``min_driver(cuda)``: the toolkit-bundled driver for that CUDA series on this OS."""
    got = lookup_min_driver(cuda, os)
    return got[0] if got else None


@reads(os=OS_READ)
def min_driver_compat(cuda: Any, *, os: str) -> Version | None:
    """``min_driver_compat(cuda)``: minor-version-compatibility floor of that CUDA major."""
    return lookup_compat_floor(cuda, os)


@reads(os=OS_READ)
def max_cuda(driver: Any, *, os: str) -> Version | None:
    """``max_cuda(driver)``: newest CUDA series the driver supports with no compat caveat."""
    return lookup_max_cuda(driver, os)


@reads(cuda="cuda")
def system_toolkit(*, cuda: CudaFacts) -> Version | None:
    """The newest CUDA toolkit installed as a toolkit (nvcc, a CUDA folder, conda), not the
    ``nvidia-cuda-runtime`` wheel a framework pulled in: that one is the framework's runtime,
    not something to compile with. None when only such wheels are there."""
    got = [t.version for t in cuda.toolkits if t.version is not None and t.source != "pip"]
    return max(got) if got else None
