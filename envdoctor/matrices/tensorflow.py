"""TensorFlow: tested build configurations, the Windows GPU cut-off, its pip distributions
(tensorflow.toml)."""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from envdoctor.matrices import matrix
from envdoctor.versions import series, ver


def lookup_tf_release(version: Any) -> dict[str, Any] | None:
    """The tested-build-configuration row of a TensorFlow version (major.minor)."""
    want = series(version)
    return next((r for r in matrix("tensorflow").get("release", [])
                 if want is not None and ver(r["tensorflow"]) == want), None)


def last_windows_gpu() -> Version | None:
    """The last TensorFlow with GPU support on native Windows (2.10)."""
    return ver(matrix("tensorflow").get("windows", {}).get("last_native_gpu"))


def no_cuda_distributions() -> tuple[str, ...]:
    """TensorFlow distributions that cannot use an NVIDIA GPU whatever CUDA is installed
    (``[distributions] no_cuda`` in tensorflow.toml)."""
    return tuple(matrix("tensorflow").get("distributions", {}).get("no_cuda", ()))


def cpu_only_distributions() -> tuple[str, ...]:
    """Distributions that are CPU-only builds by name (``tensorflow-cpu``, ``tf-nightly-cpu``)."""
    return tuple(matrix("tensorflow").get("distributions", {}).get("cpu_only", ()))
