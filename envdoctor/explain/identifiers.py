"""Near-misses of the status and error identifiers that signatures read, as the program wrote them.

A title typed by hand misspells an identifier (``miOpenStatusUknownError``) or writes it as
words (``miopen status unknown error``); a signature that reads ``miopenStatusUnknownError``
then matches nothing. The identifiers are not a list kept here: they are the identifier-shaped
words of the signatures' own matching examples that the signature's patterns match
(``hipErrorNoBinaryForGpu``, ``miopenStatusUnknownError``, ``CUBLAS_STATUS_NOT_SUPPORTED`` …),
so a new signature brings its identifiers with it. A word of the text is read as one of them
when it is that identifier in another case or within a bounded edit distance of exactly one of
them (one edit up to 15 characters, two beyond; a tie is no answer), or when two to six words in
a row spell it out.

This is part of explain's second reading (``unwrap.second_reading``): only a text that explained
nothing as given is read this way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

MAX_TEXT = 4 << 20
MIN_LEN = 12
MAX_LEN = 60
# camelCase of three humps or more, or CAPS_WITH_TWO_UNDERSCORES
_IDENT = re.compile(r"(?<![\w])(?:[a-z][a-z0-9]{1,20}(?:[A-Z][a-z0-9]{0,20}){2,8}"
                    r"|[A-Z][A-Z0-9]{1,20}(?:_[A-Z0-9]{1,20}){2,8})(?![\w])")
_WORD_TOKEN = re.compile(rf"(?<![\w])[A-Za-z][A-Za-z0-9_]{{{MIN_LEN - 3},{MAX_LEN}}}(?![\w])")
# two to six words in a row: "miopen status unknown error"
_WORDS = re.compile(r"(?<![\w-])[A-Za-z]{2,20}(?:[ _-][A-Za-z]{2,20}){1,11}(?![\w-])")

_CACHE: dict[int, tuple[dict[str, str], dict[str, list[str]]]] = {}


def _known(signatures: Sequence[Any]) -> tuple[dict[str, str], dict[str, list[str]]]:
    """(lowercase -> identifier, first three letters -> lowercase identifiers)."""
    key = id(signatures)
    if key in _CACHE:
        return _CACHE[key]
    exact: dict[str, str] = {}
    for sig in signatures:
        for ex in getattr(sig, "examples", ()):
            if not ex.matches:
                continue
            for word in _IDENT.findall(ex.text[:20_000]):
                if not MIN_LEN <= len(word) <= MAX_LEN:
                    continue
                if any(p.regex.search(word) for p in sig.patterns):
                    exact.setdefault(word.lower(), word)
    buckets: dict[str, list[str]] = {}
    for low in exact:
        buckets.setdefault(_bucket(low), []).append(low)
    _CACHE.clear()
    _CACHE[key] = (exact, buckets)
    return exact, buckets


def _bucket(low: str) -> str:
    return low.replace("_", "")[:3]


def _nearest(word: str, exact: dict[str, str], buckets: dict[str, list[str]]) -> str | None:
    from envdoctor.explain.textfacts import edit_distance
    low = word.lower()
    if low in exact:
        return exact[low] if exact[low] != word else None
    limit = 1 if len(low) <= 15 else 2
    best: list[tuple[int, str]] = []
    for cand in buckets.get(_bucket(low), ()):
        d = edit_distance(low, cand, limit)
        if d <= limit:
            best.append((d, cand))
    if not best:
        return None
    best.sort()
    if len(best) > 1 and best[0][0] == best[1][0]:
        return None
    return exact[best[0][1]]


def correct_identifiers(text: str, signatures: Sequence[Any] | None = None) -> str:
    """The text with near-misses of the signatures' identifiers written as the program
    prints them (the text itself when it has none)."""
    if len(text) > MAX_TEXT:
        return text
    if signatures is None:
        from envdoctor.explain.signatures import load_signatures
        signatures = load_signatures()
    exact, buckets = _known(signatures)
    if not exact:
        return text
    firsts = {low.replace("_", "")[:3] for low in exact}

    def fix_word(m: re.Match[str]) -> str:
        word = m.group(0)
        if word.lower().replace("_", "")[:3] not in firsts:
            return word
        return _nearest(word, exact, buckets) or word

    def fix_words(m: re.Match[str]) -> str:
        words = re.split(r"[ _-]", m.group(0))
        out: list[str] = []
        i = 0
        while i < len(words):
            done = False
            if words[i][:3].lower() in firsts:
                for j in range(min(len(words), i + 6), i + 1, -1):
                    joined = "".join(words[i:j]).lower()
                    if len(joined) >= MIN_LEN and joined in exact:
                        out.append(exact[joined])
                        i, done = j, True
                        break
            if not done:
                out.append(words[i])
                i += 1
        return " ".join(out) if len(out) != len(words) else m.group(0)

    fixed = _WORD_TOKEN.sub(fix_word, text)
    return _WORDS.sub(fix_words, fixed)


PATTERNS = (_IDENT, _WORD_TOKEN, _WORDS)
