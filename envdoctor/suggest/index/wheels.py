"""Which wheels fit a machine profile: its platform and Python, by the wheel's tags.

The profile may be another machine (a pasted report, a saved snapshot), so the supported tags
are built from the profile's Python and platform with ``packaging.tags``, never from this
interpreter. glibc and macOS versions are not in the facts: every manylinux tag (up to glibc
2.40) and every macOS 11+ (arm64) / 10.9+ (x86_64) tag counts.
"""

from __future__ import annotations

from functools import lru_cache

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.tags import Tag, compatible_tags, cpython_tags, mac_platforms
from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import Version

PY_MINORS = range(6, 21)    # CPython 3.6 .. 3.20: the interpreters a wheel's tags are read for


def _linux(arch: str) -> list[str]:
    legacy = {"x86_64": ["manylinux2014", "manylinux2010", "manylinux1"],
              "aarch64": ["manylinux2014"]}.get(arch, [])
    return ([f"manylinux_2_{g}_{arch}" for g in range(40, 4, -1)]
            + [f"{p}_{arch}" for p in legacy]
            + [f"linux_{arch}"])


PLATFORM_TAGS: dict[str, list[str]] = {
    "linux_x86_64": _linux("x86_64"),
    "linux_aarch64": _linux("aarch64"),
    "win_amd64": ["win_amd64"],
    "win_arm64": ["win_arm64"],
    "macos_arm64": list(mac_platforms((15, 0), "arm64")),
    "macos_x86_64": list(mac_platforms((15, 0), "x86_64")),
}


@lru_cache(maxsize=64)
def supported(platform: str, python: tuple[int, int]) -> frozenset[Tag]:
    """The tags a CPython ``python`` interpreter on ``platform`` installs, as pip ranks them."""
    plats = PLATFORM_TAGS.get(platform, [])
    abi = f"cp{python[0]}{python[1]}"
    return frozenset([*cpython_tags(python, [abi], plats),
                      *compatible_tags(python, abi, plats)])


@lru_cache(maxsize=65536)
def parse(filename: str) -> tuple[str, Version, frozenset[Tag]] | None:
    """(project, version, tags) of a wheel file name; None for an sdist or a bad name."""
    if not filename.endswith(".whl"):
        return None
    try:
        name, version, _build, tags = parse_wheel_filename(filename)
    except (InvalidWheelFilename, ValueError):
        return None
    return str(name), version, tags


def macos_min(tag_sets: list[frozenset[Tag]], platform: str, py: int | None) -> str | None:
    """The oldest macOS ("14.0") any of these wheels installs on, by their macosx_X_Y tags
    against the tags ``packaging.tags.mac_platforms`` gives each release (for this Python
    when it is known); None when no wheel has a macOS tag for ``platform``."""
    arch = {"macos_arm64": "arm64", "macos_x86_64": "x86_64"}.get(platform)
    if arch is None:
        return None
    best: tuple[int, int] | None = None
    for tags in tag_sets:
        if py is not None and not fits(tags, platform, (3, py)):
            continue
        for major, minor in _MAC_RELEASES:
            if not {t.platform for t in tags}.isdisjoint(mac_platforms((major, minor), arch)):
                if best is None or (major, minor) < best:
                    best = (major, minor)
                break
    return f"{best[0]}.{best[1]}" if best else None


# the macOS releases a wheel's tag is tried against, oldest first
_MAC_RELEASES = [(10, m) for m in range(9, 16)] + [(v, 0) for v in range(11, 27)]


def fits(tags: frozenset[Tag], platform: str, python: tuple[int, int]) -> bool:
    return not tags.isdisjoint(supported(platform, python))


def pythons(tags: frozenset[Tag], platform: str, requires_python: str | None) -> set[int]:
    """The CPython 3 minors on ``platform`` this wheel installs on (and its requires-python
    allows)."""
    spec = spec_of(requires_python)
    return {minor for minor in PY_MINORS if fits(tags, platform, (3, minor))
            and (spec is None or spec.contains(f"3.{minor}", prereleases=True))}


def spec_of(text: str | None) -> SpecifierSet | None:
    if not text:
        return None
    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        return None


def range_of(minors: set[int]) -> str:
    """``{11, 12, 13}`` -> ``>=3.11,<3.14``; holes become ``!=3.X.*``."""
    if not minors:
        return "<0"
    low, high = min(minors), max(minors)
    holes = [f"!=3.{m}.*" for m in range(low, high) if m not in minors]
    return ",".join([f">=3.{low}", f"<3.{high + 1}", *holes])
