"""The corpus of real pasted reports (tests/corpus/reports): parse, run every rule, compare.

Each file has the collector's ``labels``, the check ids those map to (``expected``) and the
labels no check covers yet (``unmapped``, listed for the knowledge base). Healthy reports must
yield no error and no warning; problem reports must yield every expected check.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib

from envdoctor import pipeline
from envdoctor.engine import load_checks
from envdoctor.parsers import parse_text

REPORTS = sorted((Path(__file__).resolve().parent / "corpus" / "reports").glob("*.toml"))


def load(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def test_corpus_size():
    data = [(p, load(p)) for p in REPORTS]
    complete = [d for p, d in data if "note: the search excerpt" not in p.read_text()]
    assert len(complete) >= 30
    assert sum(1 for d in complete if d["healthy"]) >= 6
    assert all(d["source"].startswith("https://") for _, d in data)


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: p.stem)
def test_report(path):
    data = load(path)
    ids = {c.id for c in load_checks()}
    for check_id in data["expected"]:
        assert check_id in ids, f"{check_id} is not a check id"
    facts = parse_text(data["text"])
    if facts is None:
        assert not data["expected"], "no report found, but findings were expected"
        return
    assert facts.origin == "report"
    findings = pipeline.diagnose(facts).findings
    if data["healthy"]:
        loud = [(f.code, f.title) for f in findings if f.severity.value in ("error", "warning")]
        assert not loud
    fired = {f.id for f in findings}
    assert set(data["expected"]) <= fired, f"fired {sorted(fired)}"
