"""Signature regexes rebuilt from the cache of their compiled form (explain/precompiled.py)
are the patterns ``re.compile`` makes, and anything odd falls back to ``re.compile``."""

from __future__ import annotations

import re

import pytest

from envdoctor.explain import precompiled
from envdoctor.explain.signatures import all_patterns, load_signatures


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """An empty cache folder and a module state of its own."""
    monkeypatch.delenv("ENVDOCTOR_NO_CACHE", raising=False)
    monkeypatch.setenv("ENVDOCTOR_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(precompiled, "_sources", frozenset())
    monkeypatch.setattr(precompiled, "_table", None)
    monkeypatch.setattr(precompiled, "_compiled", 0)
    return tmp_path


def _sources() -> list[str]:
    return sorted({p.source for sig in load_signatures() for p in all_patterns(sig)})


@pytest.mark.skipif(not precompiled._USABLE, reason="not CPython's regex engine")
def test_every_signature_pattern_rebuilds_equal_to_re_compile(fresh):
    sources = _sources()
    precompiled.register(sources)
    cold = precompiled.load()
    assert list(fresh.glob("regexes-*.json")), "the table was cached"
    precompiled._table = None
    warm = precompiled.load()  # read back from the cache
    assert set(warm) == set(cold) == set(sources)
    for source in sources:
        rebuilt = precompiled._build(source, warm[source])
        assert rebuilt == re.compile(source), source
        assert rebuilt.pattern == source and rebuilt.groupindex == re.compile(source).groupindex
    named = [s for s in sources if re.compile(s).groupindex]
    probe = "CUDA error: out of memory; RuntimeError: CUDA out of memory. Tried to allocate"
    for source in sources[:300] + named:
        assert [m.span() for m in precompiled.compile(source).finditer(probe)] == \
            [m.span() for m in re.compile(source).finditer(probe)]


def test_few_compiles_never_read_the_cache(fresh, monkeypatch):
    precompiled.register(["boom (\\d+)", "bang"])
    monkeypatch.setattr(precompiled, "load", lambda: pytest.fail("the cache was read"))
    assert precompiled.compile("boom (\\d+)").search("a boom 12").group(1) == "12"


def test_a_bad_entry_falls_back_to_re_compile(fresh):
    precompiled.register(["boom (\\d+)"])
    precompiled._table = {"boom (\\d+)": (0, 2, "not base64 zlib!", {})}
    assert precompiled.compile("boom (\\d+)") == re.compile("boom (\\d+)")
    precompiled._table = {"boom (\\d+)": (32, 2, "", {})}  # an empty code: refused by _sre
    assert precompiled.compile("boom (\\d+)") == re.compile("boom (\\d+)")


def test_a_pattern_outside_the_table_is_compiled(fresh, monkeypatch):
    precompiled.register(["boom"])
    monkeypatch.setattr(precompiled, "LOAD_AFTER", 0)
    assert precompiled.compile("not registered \\w+") == re.compile("not registered \\w+")


def test_no_table_is_built_when_caching_is_off(fresh, monkeypatch):
    monkeypatch.setenv("ENVDOCTOR_NO_CACHE", "1")
    precompiled.register(["boom (\\d+)"])
    monkeypatch.setattr(precompiled, "_entries", lambda _s: pytest.fail("built without a cache"))
    assert precompiled.load() == {}
    assert precompiled.compile("boom (\\d+)") == re.compile("boom (\\d+)")
