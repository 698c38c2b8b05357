"""Non-English wordings of core causes, read as the English tokens the signatures match.

Many reports state the cause in Chinese, Japanese, Russian, Spanish… prose or in a localised
OS message (``DLL load failed: 找不到指定的模块``, ``[WinError 112] 磁盘空间不足``) with little
or none of the English error. Rather than a hand-written CJK pattern in every signature, the
vocabulary in ``rules/phrases/*.toml`` (data, each entry with a source) maps such phrases to
the canonical English the existing signatures already read, in place, so the exception
type, library and path around the phrase stay and the signatures decide as in English.

``normalise`` is part of the second reading (``envdoctor.explain.unwrap``): it runs only on
a text that explained nothing as given, and an all-ASCII text is returned untouched after one
``str.isascii`` check, so English logs pay nothing. Every pattern is linear (regex audit).

An entry with ``ascii = true`` reads ASCII text too: a cause stated only as a number (CUDA's
``cuda runtime error (100)``, Caffe's ``(0 vs. 38)``) is read as the message NVIDIA's enum gives
that number, so the signatures that read the message decide. Those entries are the only ones an
ASCII text is read with, still only in the second reading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from envdoctor.rulefiles import RuleFileError, is_url, load_toml, rules_dir, toml_files


@dataclass(frozen=True)
class Phrase:
    """One cause's non-English wordings and the English that replaces them."""

    id: str
    canonical: str
    source: str
    patterns: tuple[re.Pattern[str], ...]
    fire: tuple[str, ...]
    quiet: tuple[str, ...]
    ascii: bool = False


def normalise(text: str, phrases: tuple[Phrase, ...] | None = None) -> str:
    """The text with every known non-English phrase (and every ``ascii`` entry's wording)
    replaced by its canonical English."""
    vocabulary = load_phrases() if phrases is None else phrases
    if text.isascii():
        vocabulary = tuple(p for p in vocabulary if p.ascii)
        if not vocabulary:
            return text
    for phrase in vocabulary:
        for pattern in phrase.patterns:
            # spaced: a CJK character is a word character, so "提示CUDA" would defeat a \b
            text = pattern.sub(f" {phrase.canonical} ", text)
    return text


def all_patterns() -> list[re.Pattern[str]]:
    """Every compiled phrase pattern (for the regex audit)."""
    return [p for phrase in load_phrases() for p in phrase.patterns]


def load_phrases(root: Path | None = None) -> tuple[Phrase, ...]:
    """Every entry under ``rules/phrases`` (cached per folder; none when the folder is absent)."""
    return _load(str(root or rules_dir()))


@lru_cache(maxsize=4)
def _load(root: str) -> tuple[Phrase, ...]:
    if not (Path(root) / "phrases").is_dir():
        return ()
    return tuple(parse_phrase(entry, path) for path in toml_files("phrases", Path(root))
                 for entry in load_toml(path).get("phrase", []))


def parse_phrase(raw: dict[str, object], path: Path) -> Phrase:
    for name in ("id", "canonical", "source"):
        if not isinstance(raw.get(name), str) or not str(raw[name]).strip():
            raise RuleFileError(path, name, "every phrase needs a non-empty string")
    if not is_url(str(raw["source"])):
        raise RuleFileError(path, "source", "a phrase must cite a URL")
    patterns = raw.get("patterns")
    if not isinstance(patterns, list) or not patterns:
        raise RuleFileError(path, "patterns", "a phrase needs at least one pattern")
    try:
        compiled = tuple(re.compile(p) for p in patterns)
    except (re.error, TypeError) as err:
        raise RuleFileError(path, "patterns", f"bad regex: {err}") from None
    ascii_too = raw.get("ascii", False)
    if not isinstance(ascii_too, bool):
        raise RuleFileError(path, "ascii", "must be true or false")
    return Phrase(str(raw["id"]), str(raw["canonical"]), str(raw["source"]), compiled,
                  _strings(raw, "fire", path), _strings(raw, "quiet", path), ascii_too)


def _strings(raw: dict[str, object], name: str, path: Path) -> tuple[str, ...]:
    value = raw.get(name, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RuleFileError(path, name, "must be a list of strings")
    return tuple(value)
