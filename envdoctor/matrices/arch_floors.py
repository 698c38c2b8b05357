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


def lowest_floor(package: str) -> tuple[str, dict[str, Any]] | None:
    """(min_cc, row) of the row with the lowest floor of that distribution, over all its
    releases: what a text that names the package without its version is sure of. None when
    the rows leave its first releases out (bitsandbytes before 0.39.1 had Kepler binaries:
    an unstated release may have no floor)."""
    name = canonical_name(package)
    best: tuple[Version, dict[str, Any]] | None = None
    first_covered = False
    for row in matrix("arch_floors").get("floor", []):
        if canonical_name(str(row.get("package", ""))) != name:
            continue
        try:
            first_covered = first_covered or SpecifierSet(str(row.get("versions", ""))).contains(
                Version("0.1"), prereleases=True)
        except InvalidSpecifier:
            continue
        floor = ver(row.get("min_cc"))
        if floor is not None and (best is None or floor < best[0]):
            best = (floor, row)
    return (str(best[1]["min_cc"]), best[1]) if best and first_covered else None


def text_rows() -> list[dict[str, Any]]:
    """One row per distribution of arch_floors.toml (the first), in file order: the package
    names a text may use for it (``names``, else the distribution name) and how it must be
    named (``text_named``: "word" anywhere, or "frames": only a traceback frame under it)."""
    seen: dict[str, dict[str, Any]] = {}
    for row in matrix("arch_floors").get("floor", []):
        name = canonical_name(str(row.get("package", "")))
        if name and name not in seen:
            seen[name] = row
    return list(seen.values())


def floor_packages() -> set[str]:
    """The distributions arch_floors.toml has rows for (canonical names)."""
    return {canonical_name(str(r.get("package", "")))
            for r in matrix("arch_floors").get("floor", [])}
