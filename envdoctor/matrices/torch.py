"""PyTorch wheels: releases and CUDA variants with their arch lists (torch.toml)."""

from __future__ import annotations

import re
from typing import Any

from envdoctor.matrices import matrix
from envdoctor.versions import cuda_of_tag, in_range, series, tag_of_cuda, ver


def torch_variant_name(version: Any, cuda: Any) -> str | None:
    """``2.6.0+cu124`` -> ``cu124``; without a local label, built from torch.version.cuda."""
    v = ver(version)
    if v is not None and v.local and cuda_of_tag(v.local) is not None \
            and len(v.local) >= 5:
        return v.local
    return tag_of_cuda(cuda)


def wheel_platform(arch: Any) -> str:
    """The torch wheel platform tag family of a CPU architecture: ``aarch64``/``arm64`` ->
    ``linux-aarch64``; anything else (x86_64, unknown) -> ``default`` (the x86_64/Windows rows)."""
    return "linux-aarch64" if str(arch or "").lower() in ("aarch64", "arm64", "sbsa") else "default"


def lookup_torch_variant(version: Any, cuda: Any, arch: Any = None) -> dict[str, Any] | None:
    """The ``[[variant]]`` row (bundled cuDNN, arch list) of a torch CUDA wheel, or None.

    aarch64 wheels are built with their own TORCH_CUDA_ARCH_LIST (.ci/aarch64_linux/), so a row
    applies only to the platform it names (``platform = "linux-aarch64"``; no field: x86_64 and
    Windows). An aarch64 wheel without its own row has no known arch list: None, no verdict.
    """
    v, name = ver(version), torch_variant_name(version, cuda)
    if v is None or name is None:
        return None
    want = wheel_platform(arch)
    for row in matrix("torch").get("variant", []):
        if (row.get("cuda") == name and in_range(v, row.get("torch", ""))
                and row.get("platform", "default") == want):
            return row
    return None


def lookup_binary_floor(version: Any) -> dict[str, Any] | None:
    """The ``[[binary_floor]]`` row of an official torch release: the oldest compute capability
    any of its CUDA builds has code for. None for a pre-release or source build (``a0``,
    ``dev``, a ``+git…`` label: their builders chose their own arch lists) or a release no row
    covers."""
    v = ver(version)
    if v is None or v.is_prerelease or v.is_devrelease or (
            v.local is not None and not re.fullmatch(r"cu\d+|cpu", v.local)):
        return None
    return next((r for r in matrix("torch").get("binary_floor", [])
                 if in_range(v, str(r.get("torch", "")))), None)


def lookup_torch_release(version: Any) -> dict[str, Any] | None:
    """The RELEASE.md row of a torch version (matched on major.minor)."""
    want = series(version)
    return next((r for r in matrix("torch").get("release", [])
                 if want is not None and ver(r["torch"]) == want), None)


def lookup_torch_pypi_legacy(version: Any) -> dict[str, Any] | None:
    """PyPI's default CUDA build of a torch release older than RELEASE.md's matrix (1.2-1.11,
    ``[[pypi_legacy]]``): {"torch", "pypi_default", "source"}; None otherwise."""
    want = series(version)
    return next((r for r in matrix("torch").get("pypi_legacy", [])
                 if want is not None and ver(r["torch"]) == want), None)


