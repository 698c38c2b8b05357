"""cuDNN: which GPUs a cuDNN release supports (cudnn.toml, NVIDIA's cuDNN support matrix)."""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from envdoctor.matrices import matrix
from envdoctor.versions import series, ver


def series_range(text: str) -> tuple[Version, Version] | None:
    """``"9.1-9.4"`` -> (9.1, 9.4); ``"9.10"`` -> (9.10, 9.10)."""
    parts = [ver(p) for p in str(text).split("-")]
    if not parts or None in parts or len(parts) > 2:
        return None
    return parts[0], parts[-1]  # type: ignore[return-value]


def lookup_cudnn(version: Any) -> dict[str, Any] | None:
    """The cuDNN support-matrix row covering a version (``9.13.0.50`` -> the "9.11-9.16" row)."""
    want = series(version)
    if want is None:
        return None
    for row in matrix("cudnn").get("release", []):
        rng = series_range(row.get("cudnn", ""))
        if rng and rng[0] <= want <= rng[1]:
            return row
    return None


def lookup_cudnn_min_cc(version: Any, cuda_major: int | None = None) -> Version | None:
    """Oldest compute capability a cuDNN release supports (CUDA-11 packages may differ)."""
    row = lookup_cudnn(version)
    if row is None:
        return None
    if cuda_major == 11 and row.get("min_cc_cuda11"):
        return ver(row["min_cc_cuda11"])
    return ver(row.get("min_cc"))
