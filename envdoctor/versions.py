"""Versions that compare like ``packaging`` versions but print as they were written.

NVIDIA driver versions have zero-padded parts (``535.104.05``); PEP 440 normalises that to
``535.104.5``, which no one recognises and which does not match ``nvidia-smi``. Facts keep the
original text for display and JSON while comparisons stay numeric.
"""

from __future__ import annotations

import re

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
