"""Module-level regular expressions compiled on first use, so a command pays only for those it runs.

``re.compile`` is Python code (~50-300 us a pattern); a module that defines twenty patterns
makes every importer pay for all twenty, although ``explain`` on a plain traceback uses two of
them and ``check --static`` none. ``lazy(source, flags)`` returns a stand-in with the same
``pattern``/``flags`` and every method of ``re.Pattern`` (``search``, ``sub``, ``finditer``…),
compiled once, when a method is first called. Free of other envdoctor imports.
"""

from __future__ import annotations

import re
from typing import Any


class LazyPattern:
    """A ``re.Pattern`` compiled on first use (``compiled``); other attributes delegate to it."""

    __slots__ = ("pattern", "flags", "_compiled")

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern, self.flags = pattern, flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    # the methods envdoctor calls, spelled out: ``__getattr__`` costs ~1 us a call
    def search(self, *args: Any) -> re.Match[str] | None:
        return (self._compiled or self.compiled).search(*args)

    def match(self, *args: Any) -> re.Match[str] | None:
        return (self._compiled or self.compiled).match(*args)

    def fullmatch(self, *args: Any) -> re.Match[str] | None:
        return (self._compiled or self.compiled).fullmatch(*args)

    def sub(self, *args: Any) -> str:
        return (self._compiled or self.compiled).sub(*args)

    def finditer(self, *args: Any) -> Any:
        return (self._compiled or self.compiled).finditer(*args)

    def __getattr__(self, name: str) -> Any:  # findall, split, groups, groupindex …
        return getattr(self.compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r})"


def lazy(pattern: str, flags: int = 0) -> LazyPattern:
    return LazyPattern(pattern, flags)


def compiled(value: Any) -> re.Pattern[str] | None:
    """The compiled pattern of a ``re.Pattern`` or ``LazyPattern`` (None for anything else)."""
    if isinstance(value, re.Pattern):
        return value
    if isinstance(value, LazyPattern):
        return value.compiled
    return None
