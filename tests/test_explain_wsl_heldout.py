"""Top-1 of `envdoctor explain` on the WSL / container held-out texts
(tests/corpus/explain/wsl_heldout): the primary diagnosis must carry one of the codes of the
cause each thread established. Labels were written before explain was run on them."""

from __future__ import annotations

from pathlib import Path

import pytest

from envdoctor.explain import diagnose_text, primary
from envdoctor.rulefiles import is_url, load_toml

SET = Path(__file__).parent / "corpus" / "explain" / "wsl_heldout"
CASES = [(p.name, load_toml(p)) for p in sorted(SET.glob("h*.toml"))]
CAUSES = load_toml(SET / "causes.toml")
FLOOR = 0.85


def _right(case: dict) -> bool:
    """The primary diagnosis carries a code of the cause; for a harmless line (``benign``), no
    root cause is claimed and the harmless note is among the diagnoses."""
    cause = CAUSES[case["label"]]
    found = diagnose_text(case["text"])
    if cause.get("benign"):
        return primary(found) is None and any(d.code in cause["codes"] for d in found)
    d = primary(found)
    return d is not None and d.code in cause["codes"]


def test_set_is_sourced_and_labelled():
    assert len(CASES) >= 10
    for name, case in CASES:
        assert is_url(case["source"]), name
        assert case["label"] in CAUSES, name


def test_named_at_floor():
    right = [name for name, case in CASES if _right(case)]
    wrong = sorted({name for name, _ in CASES} - set(right))
    assert len(right) / len(CASES) >= FLOOR, (len(right), len(CASES), wrong)


@pytest.mark.parametrize("name,case", CASES, ids=[n for n, _ in CASES])
def test_case(name, case):
    assert _right(case), name
