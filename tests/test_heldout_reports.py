"""Held-out pasted reports (tests/corpus/reports/heldout): labelled before envdoctor saw them.

Healthy ones must get no error and no warning. Problem ones must get a check that expresses the
label (``expected_any``) at warning or above; the ones envdoctor still misses (``caught =
false``) are strict expected failures, so catching one makes this test say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib

from envdoctor import pipeline
from envdoctor.parsers import parse_text

HELDOUT = sorted((Path(__file__).resolve().parent / "corpus" / "reports" / "heldout")
                 .glob("*.toml"))
LOUD = ("error", "warning")


def load(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def findings(text: str) -> list:
    facts = parse_text(text)
    return [] if facts is None else pipeline.diagnose(facts).findings


def test_heldout_size_and_sources():
    data = [load(p) for p in HELDOUT]
    assert len(data) >= 30 and sum(d["healthy"] for d in data) >= 12
    assert all(d["source"].startswith("https://github.com/") for d in data)
    repos = {"/".join(d["source"].split("/")[3:5]) for d in data}
    assert len(repos) >= 20  # many repositories, a few reports each


@pytest.mark.parametrize("path", [p for p in HELDOUT if load(p)["healthy"]], ids=lambda p: p.stem)
def test_healthy_report_is_clean(path):
    loud = [(f.code, f.title) for f in findings(load(path)["text"]) if f.severity.value in LOUD]
    assert not loud


def _problem_cases():
    for path in HELDOUT:
        data = load(path)
        if data["healthy"]:
            continue
        marks = () if data["caught"] else (pytest.mark.xfail(strict=True,
                                                             reason="not caught yet"),)
        yield pytest.param(path, marks=marks, id=path.stem)


@pytest.mark.parametrize("path", list(_problem_cases()))
def test_problem_report_is_found(path):
    data = load(path)
    fired = {f.id for f in findings(data["text"]) if f.severity.value in LOUD}
    assert fired & set(data["expected_any"]), f"fired {sorted(fired)}"
