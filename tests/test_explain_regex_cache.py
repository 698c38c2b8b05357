"""Signature regexes rebuilt from the cached engine code are the patterns re.compile gives."""

from __future__ import annotations

import re

import pytest

from envdoctor.explain import regex_cache
from envdoctor.explain.signatures import all_patterns, load_signatures


def _pairs():
    for sig in load_signatures():
        lines = [line for ex in sig.examples for line in ex.text.splitlines()]
        for p in all_patterns(sig):
            yield p.source, lines


def test_every_signature_pattern_rebuilt_from_its_cached_code_matches_like_re_compile(
        tmp_path, monkeypatch):
    monkeypatch.setenv("ENVDOCTOR_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("ENVDOCTOR_NO_CACHE", raising=False)
    monkeypatch.setattr(regex_cache, "_parts", None)
    parts = regex_cache._cached_parts()
    assert list(tmp_path.glob("regex-code-*.json"))  # written once, read from then on
    n = 0
    for source, lines in _pairs():
        assert source in parts, source
        fast, plain = regex_cache.from_parts(source, parts[source]), re.compile(source)
        assert (fast.pattern, fast.flags, fast.groups, fast.groupindex) == \
            (plain.pattern, plain.flags, plain.groups, plain.groupindex)
        for line in lines:
            a, b = fast.search(line), plain.search(line)
            assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups())), source
            n += 1
    assert n > 1000
    monkeypatch.setattr(regex_cache, "_parts", None)
    assert regex_cache._cached_parts() == parts  # the second process reads the same


def test_a_bad_cache_entry_falls_back_to_re_compile(monkeypatch):
    source = next(_pairs())[0]
    good = regex_cache.engine_parts(source)
    broken = [good[0], regex_cache._packed([99999, 1, 2]), good[2], good[3], good[4]]
    with pytest.raises(Exception):  # noqa: B017 - the engine rejects code it cannot run
        regex_cache.from_parts(source, broken)
    monkeypatch.setattr(regex_cache, "_parts", {source: broken})
    monkeypatch.setattr(regex_cache, "_compiled", regex_cache.COMPILE_DIRECT)
    assert regex_cache.compile_pattern(source).pattern == source


def test_a_short_input_never_reads_the_cache(monkeypatch):
    """The first COMPILE_DIRECT patterns of a process are compiled as usual."""
    monkeypatch.setattr(regex_cache, "_compiled", 0)
    monkeypatch.setattr(regex_cache, "_parts", None)
    monkeypatch.setattr(regex_cache, "_load", lambda: pytest.fail("cache read"))
    for i in range(regex_cache.COMPILE_DIRECT):
        regex_cache.compile_pattern(rf"x{i}y")
    assert regex_cache._parts is None


def test_no_cache_when_caching_is_off(monkeypatch):
    monkeypatch.setenv("ENVDOCTOR_NO_CACHE", "1")
    monkeypatch.setattr(regex_cache, "_parts", None)
    assert regex_cache._cached_parts() == {}
