"""Near-misses of the plain words that signatures read, as the program printed them.

A report typed by hand misspells the words of the error it retells (``CUDA out of mempry``,
``insufficient shared memery (shm)``, ``Torch not complied with CUDA``); a signature that reads
``out of memory`` then matches nothing. The words are not a list kept here: they are the words
inside what each signature's patterns match in its own matching examples (``memory``,
``shared``, ``insufficient`` …), so a new signature brings its words with it. A word that two
or more example texts spell, matching or not, is a word as programs and people write it and is
never corrected (``loader`` stays ``loader`` although ``loaded`` is read); one that a single
example spells may be its reporter's typo (``avaliable``) and is not protected.

A word of the text (six to twenty letters, all lower case or capitalised, not such a word) is read as a signature word when exactly one such word is one edit away (a letter
changed, added, dropped, or two neighbours swapped) with the same first letter; a tie is no
answer.

This is part of explain's second reading (``unwrap.second_reading``): only a text that explained
nothing as given is read this way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

MAX_TEXT = 4 << 20
MIN_LEN = 6
MAX_LEN = 20
_WORD = re.compile(r"[A-Za-z]{%d,%d}" % (MIN_LEN, MAX_LEN))
# a word of the text: letters only, not glued to a digit, underscore or another letter
_TOKEN = re.compile(r"(?<![\w])[A-Za-z]{%d,%d}(?![\w])" % (MIN_LEN, MAX_LEN))

_Known = tuple[dict[tuple[str, int], tuple[str, ...]], frozenset[str]]
_CACHE: dict[int, _Known] = {}


def _known(signatures: Sequence[Any]) -> _Known:
    """(the words signatures read by first letter and length, every word of every example
    and every word they read), lower case. Cached beside the signatures (the ``sigwords``
    entry, keyed as they are): reading every example costs ~0.1 s, and every text that
    explained nothing as given asks for them."""
    key = id(signatures)
    if key in _CACHE:
        return _CACHE[key]
    store_key = _store_key(signatures)
    if store_key is None:
        buckets, seen = _build(signatures)
    else:
        from envdoctor.rulefiles import cached_json
        value, _ = cached_json("sigwords", [WORDS_VERSION, store_key],
                               lambda: list(_build(signatures)), _valid)
        buckets, seen = value
    _CACHE.clear()
    _CACHE[key] = ({(w[0], len(w)): tuple(ws) for ws in buckets for w in ws[:1]},
                   frozenset(seen))
    return _CACHE[key]


WORDS_VERSION = 1


def _store_key(signatures: Sequence[Any]) -> Any:
    """The cache key the signatures' own entries were read under, or None (built afresh)."""
    from envdoctor.explain.signatures import CachedExamples
    for sig in signatures[:1]:
        examples = getattr(sig, "examples", None)
        if isinstance(examples, CachedExamples):
            return examples.store_key
    return None


def _valid(value: Any) -> bool:
    return (isinstance(value, list) and len(value) == 2
            and all(isinstance(ws, list) and ws and all(isinstance(w, str) and w for w in ws)
                    for ws in value[0])
            and all(isinstance(w, str) for w in value[1]))


def _build(signatures: Sequence[Any]) -> tuple[list[list[str]], list[str]]:
    """The words of ``_known`` as JSON-able lists: groups of read words sharing first letter
    and length, and the words no correction may touch."""
    read: set[str] = set()
    counts: dict[str, int] = {}
    for sig in signatures:
        for ex in getattr(sig, "examples", ()):
            text = ex.text[:20_000]
            for word in {w.lower() for w in _WORD.findall(text)}:
                counts[word] = counts.get(word, 0) + 1
            if not ex.matches:
                continue
            for pattern in sig.patterns:
                for m in pattern.regex.finditer(text):
                    read.update(w.lower() for w in _WORD.findall(m.group(0)))
    buckets: dict[tuple[str, int], list[str]] = {}
    for word in sorted(read):
        buckets.setdefault((word[0], len(word)), []).append(word)
    # a word two or more example texts spell is a word as written; one that a single text
    # spells may be that reporter's own typo ("avaliable") and protects nothing
    seen = {w for w, n in counts.items() if n >= 2}
    return [buckets[k] for k in sorted(buckets)], sorted(seen | read)


def one_edit(a: str, b: str) -> bool:
    """Are ``a`` and ``b`` (different) one letter changed, added, dropped or swapped apart?"""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        if len(diff) == 1:
            return True
        return (len(diff) == 2 and diff[1] == diff[0] + 1
                and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long_[i]:
        i += 1
    return short[i:] == long_[i + 1:]


def nearest_word(low: str, buckets: dict[tuple[str, int], tuple[str, ...]]) -> str | None:
    """The one word signatures read that ``low`` is one edit from (same first letter), or None."""
    found = [w for n in (len(low) - 1, len(low), len(low) + 1)
             for w in buckets.get((low[0], n), ()) if one_edit(low, w)]
    return found[0] if len(found) == 1 else None


def correct_words(text: str, signatures: Sequence[Any] | None = None) -> str:
    """The text with misspelt words of the signatures' own wording written as meant (the text
    itself when it has none)."""
    if len(text) > MAX_TEXT:
        return text
    if signatures is None:
        from envdoctor.explain.signatures import load_signatures
        signatures = load_signatures()
    buckets, seen = _known(signatures)
    if not buckets:
        return text
    done: dict[str, str | None] = {}

    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        if not (word.islower() or (word[0].isupper() and word[1:].islower())):
            return word
        low = word.lower()
        if low in seen:
            return word
        if low not in done:
            done[low] = nearest_word(low, buckets)
        near = done[low]
        if near is None:
            return word
        return near if word.islower() else near.capitalize()

    return _TOKEN.sub(fix, text)


PATTERNS = (_WORD, _TOKEN)
