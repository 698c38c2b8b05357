"""Lines pasted with a space between every character, read as the program printed them.

A log copied out of some consoles, or out of a viewer that showed a UTF-16 file byte by byte,
arrives letter-spaced: ``L o a d L i b r a r y f a i l e d w i t h e r r o r 1 2 6``. No
signature reads that. The structure is plain: a long run of single characters, each followed by
one space. ``despace`` takes the spaces of such runs out, and where two or three spaces separate
two characters (the word spaces of a UTF-16 view) puts one space back.

Some consoles drop the word spaces as well (``LoadLibraryfailedwitherror126``). The words are
put back only where the letters are, in full, a sequence of words that the signatures' own
matching examples use (``LoadLibrary``, ``failed``, ``with``, ``error``): the fewest such words
win, a run that is not fully covered stays as it is, and a run inside a path or an identifier
(next to ``\\ / _ . -``) is never split. The vocabulary is data, like ``identifiers``': a new
signature brings its words with it.

This is part of explain's second reading (``unwrap.second_reading``): only a text that explained
nothing as given is read this way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

MIN_PAIRS = 12        # "x " pairs in a row before a run counts as letter-spaced
MIN_LETTERS = 6       # a run of digits and punctuation only (a printed matrix) is left alone
MAX_WORD = 24
MAX_RUN = 400         # letters of one run split at most (the DP is O(run x MAX_WORD))
# one character, then one space (or two or three: a word space), again and again
_SPACED = re.compile(rf"(?<!\S)\S(?: {{1,3}}\S){{{MIN_PAIRS},}}(?!\S)")
_WORD_SPACE = re.compile(r" {2,3}")
_LETTERS = re.compile(r"[A-Za-z]+")
_VOCAB_WORD = re.compile(rf"[A-Za-z]{{2,{MAX_WORD}}}")
_KEEP_NEXT_TO = frozenset("\\/_.-")

_CACHE: dict[int, frozenset[str]] = {}


def has_spaced_line(text: str) -> bool:
    """Does the text hold a letter-spaced run (cheap: one search)?"""
    return _spaced_runs(text) is not None


def _spaced_runs(text: str) -> re.Match[str] | None:
    for m in _SPACED.finditer(text):
        if sum(ch.isalpha() for ch in m.group(0)) >= MIN_LETTERS:
            return m
    return None


def despace(text: str, signatures: Sequence[Any] | None = None) -> str:
    """The text with each letter-spaced line read as its characters (the text itself if none)."""
    if _spaced_runs(text) is None:
        return text
    vocab = _vocabulary(signatures)
    return "\n".join(_despace_line(line, vocab) for line in text.split("\n"))


def _despace_line(line: str, vocab: frozenset[str]) -> str:
    runs = [m for m in _SPACED.finditer(line)
            if sum(ch.isalpha() for ch in m.group(0)) >= MIN_LETTERS]
    if not runs:
        return line
    out: list[str] = []
    done = 0
    for m in runs:
        out.append(line[done:m.start()])
        words = _WORD_SPACE.split(m.group(0))
        out.append(" ".join(_words(w.replace(" ", ""), vocab) for w in words))
        done = m.end()
    out.append(line[done:])
    return "".join(out)


def _words(collapsed: str, vocab: frozenset[str]) -> str:
    """Put word spaces back into each run of letters that is exactly a sequence of known words."""
    if not vocab:
        return collapsed
    out: list[str] = []
    done = 0
    for m in _LETTERS.finditer(collapsed):
        start, end = m.start(), m.end()
        before = collapsed[start - 1] if start else " "
        after = collapsed[end] if end < len(collapsed) else " "
        if before in _KEEP_NEXT_TO or after in _KEEP_NEXT_TO or end - start > MAX_RUN:
            continue
        split = _split(m.group(0), vocab)
        if split is None:
            continue
        out.append(collapsed[done:start])
        out.append(" ".join(split))
        done = end
        # "error126"": a number after the words, ending where a word ends, is a word of its own
        if after.isdigit():
            tail = end
            while tail < len(collapsed) and collapsed[tail].isdigit():
                tail += 1
            if tail == len(collapsed) or not (collapsed[tail].isalnum()
                                              or collapsed[tail] in _KEEP_NEXT_TO):
                out.append(" ")
    out.append(collapsed[done:])
    return "".join(out)


def _split(run: str, vocab: frozenset[str]) -> list[str] | None:
    """The fewest known words that spell ``run`` exactly (two or more), or None."""
    low = run.lower()
    if low in vocab or len(low) < 2 * 2:
        return None
    n = len(low)
    best: list[int | None] = [0] + [None] * n   # fewest words spelling low[:i]
    back = [0] * (n + 1)
    for i in range(1, n + 1):
        for j in range(max(0, i - MAX_WORD), i):
            prev = best[j]
            if prev is None or (prev + 1 >= (best[i] or n + 1)):
                continue
            if low[j:i] in vocab:
                best[i], back[i] = prev + 1, j
    if best[n] is None or (best[n] or 0) < 2:
        return None
    pieces: list[str] = []
    i = n
    while i:
        pieces.append(run[back[i]:i])
        i = back[i]
    return pieces[::-1]


def _vocabulary(signatures: Sequence[Any] | None) -> frozenset[str]:
    """The words (lower case) of every signature's matching examples, and "a"."""
    if signatures is None:
        from envdoctor.explain.signatures import load_signatures
        signatures = load_signatures()
    key = id(signatures)
    if key in _CACHE:
        return _CACHE[key]
    words = {"a"}
    for sig in signatures:
        for ex in getattr(sig, "examples", ()):
            if ex.matches:
                words.update(w.lower() for w in _VOCAB_WORD.findall(ex.text[:20_000]))
    _CACHE.clear()
    _CACHE[key] = frozenset(words)
    return _CACHE[key]
