"""The pasted reports of ``tests/corpus/reports/paste1`` to ``paste4`` through the ``check --from`` reading
(``parse_pasted``: the paste's facts and its error lines, one engine): labelled from their
threads before envdoctor saw them (README there). Healthy ones get no error and no warning;
problem ones a finding that names the cause (``expected_any``); ``caught = false`` ones are
strict expected failures, so a fix says so here."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib

from envdoctor import pipeline
from envdoctor.parsers import parse_pasted

ROOT = Path(__file__).resolve().parent / "corpus" / "reports" / "paste1"
SECOND = ROOT.parent / "paste2"  # collected by phenomenon after paste1's fixes (README there)
THIRD = ROOT.parent / "paste3"  # collected after paste2's fixes (paste2/README.md)
FOURTH = ROOT.parent / "paste4"  # collected by phenomenon for paste3's misses (README there)
PLATFORMS = ROOT.parent / "plat24c"  # Jetson/ROCm/Apple/WSL pastes, mostly prose (README there)
LOUD = ("error", "warning")
FILES = [p for d in (ROOT, SECOND, THIRD, FOURTH, PLATFORMS) for p in sorted(d.glob("*.toml"))]


def load(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def loud(text: str) -> list:
    facts = parse_pasted(text)
    return [] if facts is None else [f for f in pipeline.diagnose(facts).findings
                                     if f.severity.value in LOUD]


def test_set_size_and_sources():
    first = [load(p) for p in sorted(ROOT.glob("*.toml"))]
    second = [load(p) for p in sorted(SECOND.glob("*.toml"))]
    third = [load(p) for p in sorted(THIRD.glob("*.toml"))]
    fourth = [load(p) for p in sorted(FOURTH.glob("*.toml"))]
    platforms = [load(p) for p in sorted(PLATFORMS.glob("*.toml"))]
    assert len(first) >= 25 and sum(d["healthy"] for d in first) >= 8
    assert len(second) >= 15 and sum(d["healthy"] for d in second) >= 5
    assert len(third) >= 6 and sum(d["healthy"] for d in third) >= 1
    assert len(fourth) >= 28 and sum(d["healthy"] for d in fourth) >= 10
    assert len(platforms) >= 12 and sum(d["healthy"] for d in platforms) >= 6
    data = first + second + third + fourth + platforms
    assert all(d["source"].startswith("https://github.com/") for d in data)
    sources = [d["source"] for d in data]
    assert len(set(sources)) == len(sources), "one paste per thread"
    tuning = {load(p)["source"] for p in ROOT.parent.glob("*.toml")}
    assert not (set(sources) & tuning)


@pytest.mark.parametrize("path", [p for p in FILES if load(p)["healthy"]], ids=lambda p: p.stem)
def test_healthy_paste_is_clean(path):
    assert not [(f.code, f.title) for f in loud(load(path)["text"])]


def _problems():
    for path in FILES:
        data = load(path)
        if not data["healthy"]:
            marks = () if data["caught"] else (pytest.mark.xfail(strict=True,
                                                                 reason="not caught yet"),)
            yield pytest.param(path, marks=marks, id=path.stem)


@pytest.mark.parametrize("path", list(_problems()))
def test_problem_paste_names_the_cause(path):
    data = load(path)
    fired = {name for f in loud(data["text"]) for name in (f.id, f.code)}
    assert fired & set(data["expected_any"]), f"fired {sorted(fired)}"
