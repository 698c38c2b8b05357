"""Look-ups in rules/matrices/jetson.toml: what an L4T release is part of (JetPack, CUDA,
cuDNN, Python), a Tegra SoC's GPU architecture and last JetPack, NVIDIA's wheels per JetPack."""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from envdoctor.matrices import matrix


def l4t_row(l4t: Version | None) -> dict[str, Any] | None:
    """The row of an L4T release's series (36.4.3 -> "36.4"); None when the matrix has none."""
    if l4t is None:
        return None
    series = f"{l4t.major}.{l4t.minor}"
    return next((r for r in matrix("jetson").get("l4t", []) if r.get("l4t") == series), None)


def soc_row(soc: str) -> dict[str, Any] | None:
    return next((r for r in matrix("jetson").get("soc", []) if r.get("soc") == soc), None)


def wheel_row(jetpack_major: int | None, cuda: str | None = None) -> dict[str, Any] | None:
    """NVIDIA's torch for a JetPack major; a row that names its CUDA counts only for a board
    whose JetPack has that CUDA (JetPack 6.0's CUDA 12.2 is not 6.1's 12.6)."""
    if jetpack_major is None:
        return None
    row = next((r for r in matrix("jetson").get("wheels", [])
                if r.get("jetpack") == str(jetpack_major)), None)
    if row is not None and row.get("cuda") and cuda and row["cuda"] != cuda:
        return None
    return row
