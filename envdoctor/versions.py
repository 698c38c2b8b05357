"""Versions that compare like ``packaging`` versions but print as they were written.

NVIDIA driver versions have zero-padded parts (``535.104.05``); PEP 440 normalises that to
``535.104.5``, which no one recognises and which does not match ``nvidia-smi``. Facts keep the
original text for display and JSON while comparisons stay numeric. ``ver`` / ``series`` /
``in_range`` are the one way matrix cells, facts and rule arguments become versions.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version


class DisplayVersion(Version):
    """A ``Version`` whose ``str()`` is the text it was parsed from."""

    __slots__ = ("_text",)

    def __init__(self, version: str) -> None:
        super().__init__(version)
        self._text = version.strip()

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"<Version('{self._text}')>"


_SEPARATORS = re.compile(r"[-_.]+")


def canonical_name(name: str) -> str:
    """A distribution name normalised per PEP 503 (``Tensorflow_CPU`` -> ``tensorflow-cpu``).

    The same rule as ``packaging.utils.canonicalize_name``, written out because importing
    ``packaging.utils`` pulls in ``packaging.tags`` and ``sysconfig`` (~30 ms, a tenth of
    `check --static`). Spec: https://peps.python.org/pep-0503/#normalized-names
    """
    return _SEPARATORS.sub("-", name).lower()


_CU_TAG = re.compile(r"^cu(\d{2,4})$")


def cuda_of_tag(tag: object) -> Version | None:
    """The CUDA version a wheel tag names: ``cu124`` -> 12.4, ``cu92`` -> 9.2, ``cu130`` ->
    13.0; None for ``cpu``, ``rocm6.2``, a git hash or anything else. The one parser of
    ``cuNNN`` tags (local version labels, index URLs, matrix cells)."""
    m = _CU_TAG.match(str(tag or "").strip().lower())
    if not m:
        return None
    digits = m.group(1)
    return Version(f"{digits[:-1]}.{digits[-1]}")


def tag_of_cuda(cuda: object) -> str | None:
    """``12.4`` (or 12.4.131) -> ``cu124``: the wheel tag of a CUDA series."""
    if cuda is None:
        return None
    try:
        v = cuda if isinstance(cuda, Version) else Version(str(cuda).strip())
    except InvalidVersion:
        return None
    return f"cu{v.major}{v.minor}"


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


def in_range(value: Version, spec: str) -> bool:
    """``value`` (its release part, without +local) inside a specifier like ``>=2.4,<2.7``."""
    try:
        return SpecifierSet(spec).contains(Version(value.base_version), prereleases=True)
    except InvalidSpecifier:
        return False


def named(name: str, version: object) -> str:
    """``"tensorflow 2.16"``, or ``"tensorflow (version not shown)"`` when the version is not
    known: a missing value never reads as the word None in a sentence."""
    return f"{name} {version}" if version not in (None, "") else f"{name} (version not shown)"
