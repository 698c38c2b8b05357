"""The parsed-rules cache: faster start, never stale, never hides a bad rule file."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from envdoctor import engine
from envdoctor import rulefiles as knowledge
from envdoctor.rulefiles import RuleFileError

RULES = Path(__file__).resolve().parents[2] / "rules"


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A private copy of two checks and a private cache folder."""
    root = tmp_path / "rules"
    (root / "checks" / "host").mkdir(parents=True)
    for code in ("HOST001", "CUDA001"):
        src = next(RULES.glob(f"checks/*/{code}.toml"))
        shutil.copy(src, root / "checks" / "host" / src.name)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("ENVDOCTOR_NO_CACHE", raising=False)
    return root


def _touch_later(path: Path) -> None:
    later = time.time() + 5
    os.utime(path, (later, later))


def test_second_load_comes_from_the_cache_and_matches(tree):
    first, cached_first = knowledge.load_tree_cached("checks", tree)
    second, cached_second = knowledge.load_tree_cached("checks", tree)
    assert (cached_first, cached_second) == (False, True)
    assert second == first
    assert [c.code for c in engine.load_checks(tree)] == ["CUDA001", "HOST001"]


def test_an_edited_file_is_read_again(tree):
    engine.load_checks(tree)
    path = tree / "checks" / "host" / "HOST001.toml"
    path.write_text(path.read_text().replace(
        'severity = { auto = "warning", gpu = "error", cpu = "warning" }', 'severity = "error"'))
    _touch_later(path)
    host = next(c for c in engine.load_checks(tree) if c.code == "HOST001")
    assert host.severity_for("auto") == "error"


def test_a_bad_file_fails_every_time_and_is_never_cached(tree):
    engine.load_checks(tree)
    path = tree / "checks" / "host" / "HOST001.toml"
    path.write_text(path.read_text().replace('when = "', 'when = "__import__(1) or '))
    _touch_later(path)
    for _ in range(2):
        with pytest.raises(RuleFileError, match="HOST001.toml: when"):
            engine.load_checks(tree)


def test_caching_can_be_switched_off(tree, monkeypatch):
    monkeypatch.setenv("ENVDOCTOR_NO_CACHE", "1")
    knowledge.load_tree_cached("checks", tree)
    assert knowledge.load_tree_cached("checks", tree)[1] is False
