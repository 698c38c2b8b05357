"""Top-1 of `envdoctor explain` on the ROCm held-out texts (tests/corpus/explain/rocm_heldout).

Collected from public threads before any ROCm signature but EROCM001 existed (first run: 1/13,
tests/heldout/ROCM.md); labels follow what each thread established. The primary diagnosis must
carry one of the labelled cause's codes. Its threads are quoted in no signature example.
"""

from __future__ import annotations

from pathlib import Path

from tests.explain_sets import assert_sourced_labelled_unquoted, load_set, wrong_answers

SET = Path(__file__).parent / "corpus" / "explain" / "rocm_heldout"
CASES, CAUSES = load_set(SET, "h*.toml")
FLOOR = 0.85


def test_rocm_heldout_is_sourced_labelled_and_unquoted():
    assert_sourced_labelled_unquoted(CASES, CAUSES)


def test_rocm_heldout_top1():
    wrong = wrong_answers(CASES, CAUSES)
    assert 1 - len(wrong) / len(CASES) >= FLOOR, wrong
