"""Look-ups in rules/matrices/apple.toml: the macOS a torch release needs for MPS, the macOS
wheels torch ships, and the jax / TensorFlow releases each Metal plugin runs with."""

from __future__ import annotations

from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from envdoctor.matrices import confirmed, matrix
from envdoctor.versions import ver


def _rows(table: str) -> list[dict[str, Any]]:
    return list(matrix("apple").get(table, []))


def _holds(spec: str, version: Version) -> bool:
    try:
        return SpecifierSet(spec).contains(Version(version.base_version), prereleases=True)
    except InvalidSpecifier:
        return False


def mps_floors() -> list[dict[str, Any]]:
    """The MPS macOS floor rows, oldest torch first."""
    return _rows("mps_floor")


def mps_floor(torch: Version) -> dict[str, Any] | None:
    """The row giving the macOS torch ``torch``'s MPS backend needs (``macos``, ``source``)."""
    return next((r for r in _rows("mps_floor") if _holds(str(r.get("torch", "")), torch)), None)


def last_intel_torch() -> Version | None:
    return ver(matrix("apple").get("intel", {}).get("last_torch"))


def tf_plugin_first() -> Version | None:
    """The first TensorFlow that loads a device plugin such as tensorflow-metal."""
    return ver(matrix("apple").get("pluggable_device", {}).get("first_tensorflow"))


def torch_wheel_floor(torch: Version, arch: str = "arm64") -> Version | None:
    """The oldest macOS whose pip finds torch ``torch``'s ``arch`` wheel, or None (no row)."""
    row = next((r for r in _rows("torch_wheel") if r.get("arch") == arch
                and _holds(str(r.get("torch", "")), torch)), None)
    return ver(row.get("macos")) if row else None


def plugin_row(table: str, version: Version | None) -> dict[str, Any] | None:
    """The ``jax_metal`` / ``tensorflow_metal`` row of a plugin release (release part only)."""
    if version is None:
        return None
    base = Version(version.base_version)
    return next((r for r in _rows(table) if ver(r.get("version")) == base), None)


def outside(row: dict[str, Any], field: str, version: Version | None) -> bool | None:
    """Whether ``version`` falls outside the row's ``field`` specifier: True/False, or None
    when the row is unconfirmed or has no such cell (a hint is not a finding)."""
    if version is None or not confirmed(row) or not row.get(field):
        return None
    return not _holds(str(row[field]), version)
