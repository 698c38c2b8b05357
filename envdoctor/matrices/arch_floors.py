"""Third-party packages' architecture floors (arch_floors.toml): the lowest NVIDIA compute
capability a release of flash-attn, vLLM, FlashInfer, bitsandbytes … has kernels for."""

from __future__ import annotations

from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from envdoctor.matrices import matrix
from envdoctor.versions import canonical_name, ver


def arch_floor(package: str, version: Version) -> dict[str, Any] | None:
    """The ``[[floor]]`` row for that distribution and version: of the rows whose ``versions``
    hold it, the one with the highest ``min_cc``; None when no row does."""
    name = canonical_name(package)
    best: tuple[Version, dict[str, Any]] | None = None
    for row in matrix("arch_floors").get("floor", []):
        if canonical_name(str(row.get("package", ""))) != name:
            continue
        try:
            spec = SpecifierSet(str(row.get("versions", "")))
        except InvalidSpecifier:
            continue
        floor = ver(row.get("min_cc"))
        if floor is None or not spec.contains(version, prereleases=True):
            continue
        if best is None or floor > best[0]:
            best = (floor, row)
    return best[1] if best else None


def floor_packages() -> set[str]:
    """The distributions arch_floors.toml has rows for (canonical names)."""
    return {canonical_name(str(r.get("package", "")))
            for r in matrix("arch_floors").get("floor", [])}
