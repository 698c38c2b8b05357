"""Top-1 of `envdoctor explain` on Apple (MPS, Metal, Rosetta) error texts
(tests/corpus/explain/apple_heldout), one per public thread, labelled from what each thread
established; the figures are in tests/heldout/APPLE.md. The primary diagnosis must carry one of
the labelled cause's codes ("none": no root cause claimed, for a warning that says the CPU
fallback works). Its threads are quoted in no signature example.
"""

from __future__ import annotations

from pathlib import Path

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.signatures import load_signatures
from envdoctor.rulefiles import is_url, load_toml

SET = Path(__file__).parent / "corpus" / "explain" / "apple_heldout"
CASES = [(p.name, load_toml(p)) for p in sorted(SET.glob("h*.toml"))]
CAUSES = load_toml(SET / "causes.toml")
FLOOR = 0.85


def test_apple_heldout_is_sourced_labelled_and_unquoted():
    assert len(CASES) >= 10
    held = set()
    for name, case in CASES:
        assert is_url(case["source"]) and case["label"] in CAUSES and case["text"].strip(), name
        held.add(case["source"].rstrip("/"))
    assert len(held) == len(CASES), "one text per thread"
    examples = {e.source.rstrip("/") for s in load_signatures() for e in s.examples}
    assert not held & examples, sorted(held & examples)


def test_apple_heldout_top1():
    wrong = []
    for name, case in CASES:
        d = primary(diagnose_text(case["text"]))
        code = d.code if d else "none"
        if code not in CAUSES[case["label"]]["codes"]:
            wrong.append((name, case["label"], code))
    assert 1 - len(wrong) / len(CASES) >= FLOOR, wrong
