"""Which wheels fit a machine profile: its platform and Python, by the wheel's tags.

The profile may be another machine (a pasted report, a saved snapshot), so the supported tags
are built from the profile's Python, platform and C library with ``packaging.tags``' rules,
never from this interpreter (``packaging.tags.sys_tags`` would read this host's glibc). A
Linux profile gets the manylinux tags PEP 600 allows its glibc (``manylinux_2_Y`` for Y up to
its minor, and the legacy aliases manylinux2014 = 2.17, manylinux2010 = 2.12, manylinux1 =
2.5); one whose glibc is not stated gets every tag up to glibc 2.40 (a current glibc assumed).
Every macOS 11+ (arm64) / 10.9+ (x86_64) tag counts.
"""

from __future__ import annotations

from functools import lru_cache

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.tags import Tag, compatible_tags, cpython_tags, mac_platforms
from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import Version

PY_MINORS = range(6, 21)    # CPython 3.6 .. 3.20: the interpreters a wheel's tags are read for


GLIBC_ASSUMED = (2, 40)      # the newest glibc a profile without one is taken to have
# PEP 600's legacy aliases: the glibc each one stands for (packaging.tags' own table)
_LEGACY = {"manylinux2014": (2, 17), "manylinux2010": (2, 12), "manylinux1": (2, 5)}
_LEGACY_ARCHS = {"x86_64": ["manylinux2014", "manylinux2010", "manylinux1"],
                 "aarch64": ["manylinux2014"]}


def _linux(arch: str, glibc: tuple[int, int] = GLIBC_ASSUMED) -> list[str]:
    """The Linux platform tags a glibc ``glibc`` machine of ``arch`` installs, newest first."""
    major, top = glibc
    minors = range(top, 4, -1) if major == 2 else range(0)
    legacy = [p for p in _LEGACY_ARCHS.get(arch, []) if _LEGACY[p] <= glibc]
    return ([f"manylinux_2_{g}_{arch}" for g in minors]
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


def glibc_key(version: object) -> tuple[int, int] | None:
    """A glibc version (``Version("2.17")``) as the ``(major, minor)`` the tag functions take."""
    release = getattr(version, "release", None)
    return (int(release[0]), int(release[1]) if len(release) > 1 else 0) if release else None


@lru_cache(maxsize=64)
def supported(platform: str, python: tuple[int, int],
              glibc: tuple[int, int] | None = None) -> frozenset[Tag]:
    """The tags a CPython ``python`` interpreter on ``platform`` installs, as pip ranks them;
    on Linux only the manylinux tags a ``glibc`` (major, minor) C library loads (None: a
    current glibc)."""
    if glibc is not None and platform.startswith("linux_"):
        plats = _linux(platform.split("_", 1)[1], glibc)
    else:
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


def fits(tags: frozenset[Tag], platform: str, python: tuple[int, int],
         glibc: tuple[int, int] | None = None) -> bool:
    return not tags.isdisjoint(supported(platform, python, glibc))


def pythons(tags: frozenset[Tag], platform: str, requires_python: str | None,
            glibc: tuple[int, int] | None = None) -> set[int]:
    """The CPython 3 minors on ``platform`` (with a ``glibc`` C library, None: a current one)
    this wheel installs on (and its requires-python allows)."""
    spec = spec_of(requires_python)
    return {minor for minor in PY_MINORS if fits(tags, platform, (3, minor), glibc)
            and (spec is None or spec.contains(f"3.{minor}", prereleases=True))}


def linux_floor(tags: frozenset[Tag]) -> str | None:
    """The manylinux tag of a wheel, as the glibc it needs says it ("manylinux_2_28"); None
    for a wheel without one."""
    best: tuple[int, int] | None = None
    for tag in tags:
        plat = tag.platform
        got = next((g for p, g in _LEGACY.items() if plat.startswith(p + "_")), None)
        if got is None and plat.startswith("manylinux_"):
            parts = plat.split("_")
            if len(parts) > 3 and parts[1].isdigit() and parts[2].isdigit():
                got = (int(parts[1]), int(parts[2]))
        if got is not None and (best is None or got < best):
            best = got
    return None if best is None else f"manylinux_{best[0]}_{best[1]}"


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
