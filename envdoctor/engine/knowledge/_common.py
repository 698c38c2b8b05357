"""Helpers every knowledge module shares: version parsing, matrix rows, CUDA tags."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from envdoctor.versions import DisplayVersion, cuda_of_tag, tag_of_cuda  # noqa: F401


def ver(value: Any) -> Version | None:
    """A Version from a Version, a string or a number; None when it does not parse."""
    if isinstance(value, Version):
        return value
    if value is None or isinstance(value, bool):
        return None
    return _parse(str(value).strip())


@lru_cache(maxsize=4096)
def _parse(text: str) -> Version | None:
    """Parsing is most of a rule's cost: the same few strings are read by many checks on every
    snapshot of a fleet. A Version is immutable, so one instance per text can be shared."""
    try:
        return Version(text)
    except InvalidVersion:
        return None


def driver_ver(value: Any) -> Version | None:
    """A driver version from the matrices that prints as NVIDIA writes it (``560.28.03``, not
    PEP 440's ``560.28.3``) and compares numerically."""
    if value is None or isinstance(value, (bool, Version)):
        return value if isinstance(value, Version) else None
    try:
        return DisplayVersion(str(value).strip())
    except InvalidVersion:
        return None


def series(value: Any) -> Version | None:
    """``12.4.131`` -> ``12.4``: the major.minor series of a version."""
    v = ver(value)
    return _parse(f"{v.major}.{v.minor}") if v is not None else None


def confirmed(row: dict[str, Any] | None) -> bool:
    """A matrix row counts as confirmed unless it says ``confirmed = false``."""
    return row is not None and bool(row) and row.get("confirmed", True) is not False


def with_confirmed(row: dict[str, Any] | None) -> dict[str, Any] | None:
    """A row for rule expressions: always has a boolean ``confirmed``."""
    return None if row is None else {**row, "confirmed": confirmed(row)}


def in_range(value: Version, spec: str) -> bool:
    """``value`` (its release part, without +local) inside a specifier like ``>=2.4,<2.7``."""
    try:
        return SpecifierSet(spec).contains(Version(value.base_version), prereleases=True)
    except InvalidSpecifier:
        return False


def name_matches(name: str, pattern: str) -> bool:
    """Case-insensitive substring match on word boundaries ("A10" does not match "A100")."""
    low, pat = name.lower(), pattern.lower().strip()
    start = low.find(pat)
    while start >= 0:
        end = start + len(pat)
        before_ok = start == 0 or not low[start - 1].isalnum()
        after_ok = end == len(low) or not low[end].isalnum()
        if before_ok and after_ok:
            return True
        start = low.find(pat, start + 1)
    return False


# ---------------------------------------------------------------------------- CUDA tags
# cuda_of_tag / tag_of_cuda live in envdoctor.versions (parsers and probes use them too).


def platform_of(os_name: str) -> str:
    """The column of a driver table: ``windows`` or ``linux``."""
    return "windows" if (os_name or "").lower().startswith("win") else "linux"


def counted(items: list[str]) -> list[str]:
    """Repeated entries once, with their count: eight identical B200s read as
    ``"8 × NVIDIA B200 (sm_100)"``, not eight times the same text. Order kept."""
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return [item if n == 1 else f"{n} × {item}" for item, n in counts.items()]
