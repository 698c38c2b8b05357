"""Versions that compare like ``packaging`` versions but print as they were written.

NVIDIA driver versions have zero-padded parts (``535.104.05``); PEP 440 normalises that to
``535.104.5``, which no one recognises and which does not match ``nvidia-smi``. Facts keep the
original text for display and JSON while comparisons stay numeric.
"""

from __future__ import annotations

import re

from packaging.version import Version


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
