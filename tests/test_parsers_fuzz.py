"""Fuzzed, truncated and mangled reports never crash the parsers."""

from __future__ import annotations

from pathlib import Path

import tomllib
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envdoctor import pipeline
from envdoctor.facts import Facts
from envdoctor.parsers import parse_text

ROOT = Path(__file__).resolve().parent
SAMPLES = [tomllib.loads(p.read_text(encoding="utf-8"))["text"]
           for p in sorted((ROOT / "corpus" / "reports").glob("*.toml"))]
SAMPLES += [p.read_text(encoding="utf-8") for p in sorted((ROOT / "data" / "tools").rglob("*.txt"))]
LINES = [ln for s in SAMPLES for ln in s.splitlines() if ln.strip()]


def _ok(text: str) -> None:
    facts = parse_text(text)
    assert facts is None or isinstance(facts, Facts)
    if facts is not None:
        Facts.from_dict(facts.to_dict())  # what --format json publishes reads back


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=2000))
def test_random_text(text):
    _ok(text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(LINES), max_size=40), st.sampled_from(["\n", "\r\n", "\n> "]),
       st.text(alphabet="`<>|:=#-_ .0123456789abcXYZ", max_size=12))
def test_shuffled_real_lines(lines, sep, junk):
    _ok(sep.join(junk + ln for ln in lines))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SAMPLES), st.floats(min_value=0, max_value=1), st.floats(0, 1))
def test_truncated_reports(text, start, end):
    a, b = sorted((int(start * len(text)), int(end * len(text))))
    _ok(text[a:b])


def test_every_truncation_of_one_report_runs_the_rules():
    text = SAMPLES[13]
    checks = pipeline.load_checks()
    for cut in range(0, len(text), max(1, len(text) // 60)):
        facts = parse_text(text[:cut])
        if facts is not None:
            from envdoctor import engine
            results = engine.evaluate(facts, checks)
            assert not [r for r in results if r.state == "error"]
