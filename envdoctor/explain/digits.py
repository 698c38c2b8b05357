"""Which regexes cannot tell one ASCII digit from another, and the line mask that relies on it.

A training log repeats a few line shapes whose numbers change on every line (steps, losses,
timestamps, memory sizes). When such a line holds an anchor, the scanner decodes it and runs
the patterns of that anchor on it, line after line, although nothing but the digits differs.
For a pattern that treats every ASCII digit alike, the outcome (whether and where it matches)
is the same on the line and on its *digit mask* (every ASCII digit replaced by ``0``, so the
length and every other character stay): ``\\d``, ``\\w``, ``\\b``, ``.`` and classes holding
all ten digits or none of them cannot tell ``7`` from ``0``. A literal digit, a class holding
some digits but not others, or a back-reference can, so such a pattern is never *blind*.

The scanner remembers the masks of lines on which every pattern it ran was blind and nothing
matched (``scan._State``): a later line with the same mask would match nothing either, so it
is skipped without decoding it.
"""

from __future__ import annotations

import sys
from typing import Any

if sys.version_info >= (3, 11):
    from re import _constants as sre_constants
    from re import _parser as sre_parse
else:  # pragma: no cover - Python 3.10
    import sre_constants
    import sre_parse

DIGITS = frozenset(range(ord("0"), ord("9") + 1))
# raw line bytes -> the same bytes with every ASCII digit as "0" (one C-level translate)
MASK = bytes(48 if b in DIGITS else b for b in range(256))


# pattern source -> blind, for the patterns of the rules loaded (``signatures`` fills it from
# the parse it makes anyway, or from its cache); others are parsed on first use
_KNOWN: dict[str, bool] = {}


def remember(source: str, value: bool) -> None:
    """Record what ``blind`` answers for ``source`` (from a parse made elsewhere, or a cache)."""
    _KNOWN[source] = value


def blind(source: str) -> bool:
    """True if the regex ``source`` matches a line exactly where it matches its digit mask."""
    got = _KNOWN.get(source)
    if got is None:
        try:
            got = blind_tree(sre_parse.parse(source))
        except (RecursionError, OverflowError, ValueError, TypeError):  # re.error: ValueError
            got = False
        _KNOWN[source] = got
    return got


def blind_tree(tree: Any) -> bool:
    """``blind`` of a parsed regex (``sre_parse.parse``)."""
    return _blind(tree)


def _blind(items: Any) -> bool:
    for op, av in items:
        if op in (sre_constants.LITERAL, sre_constants.NOT_LITERAL):
            if av in DIGITS:
                return False
        elif op is sre_constants.IN:
            if not _blind_set(av):
                return False
        elif op in (sre_constants.GROUPREF, sre_constants.GROUPREF_EXISTS):
            return False  # compares the text of a group: "12 12" and "12 34" mask alike
        elif op is sre_constants.SUBPATTERN:
            if not _blind(av[-1]):
                return False
        elif op is sre_constants.BRANCH:
            if not all(_blind(branch) for branch in av[1]):
                return False
        elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT,
                    getattr(sre_constants, "POSSESSIVE_REPEAT", None)):
            if not _blind(av[2]):
                return False
        elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            if not _blind(av[1]):
                return False
        elif op is getattr(sre_constants, "ATOMIC_GROUP", None):
            if not _blind(av):
                return False
        elif op not in (sre_constants.ANY, sre_constants.AT, sre_constants.CATEGORY):
            return False  # an operator not listed here: not known to be blind
    return True


def _blind_set(items: Any) -> bool:
    """A character class holds all ten digits or none (its NEGATE flips both alike)."""
    held: set[int] = set()
    for op, av in items:
        if op is sre_constants.LITERAL:
            if av in DIGITS:
                held.add(av)
        elif op is sre_constants.RANGE:
            lo, hi = av
            held.update(d for d in DIGITS if lo <= d <= hi)
        elif op not in (sre_constants.NEGATE, sre_constants.CATEGORY):
            return False
    return not held or held == DIGITS
