"""Top-1 of `envdoctor explain` on Apple (MPS, Metal, Rosetta) error texts
(tests/corpus/explain/apple_heldout), one per public thread, labelled from what each thread
established; the figures are in tests/heldout/APPLE.md. The primary diagnosis must carry one of
the labelled cause's codes ("none": no root cause claimed, for a warning that says the CPU
fallback works). Its threads are quoted in no signature example.
"""

from __future__ import annotations

from pathlib import Path

from tests.explain_sets import assert_sourced_labelled_unquoted, load_set, wrong_answers

SET = Path(__file__).parent / "corpus" / "explain" / "apple_heldout"
CASES, CAUSES = load_set(SET, "h*.toml")
FLOOR = 0.85


def test_apple_heldout_is_sourced_labelled_and_unquoted():
    assert_sourced_labelled_unquoted(CASES, CAUSES)


def test_apple_heldout_top1():
    wrong = wrong_answers(CASES, CAUSES)
    assert 1 - len(wrong) / len(CASES) >= FLOOR, wrong
