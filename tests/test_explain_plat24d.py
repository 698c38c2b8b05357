"""Top-1 of `envdoctor explain` on the plat24d platform batch (tests/corpus/explain/plat24d).

Thirty-five texts from containers (c*), WSL / Docker Desktop (w*), ROCm (r*), Jetson (j*) and
Apple silicon (a*), each from a thread no project file quoted at collection, labelled from what
the thread established before envdoctor was run on them. A label is a signature code or a list
of acceptable codes. The first-run figure is in the set's README.
"""

from __future__ import annotations

import sys
from pathlib import Path

from envdoctor.explain import diagnose_text, primary
from envdoctor.rulefiles import is_url, load_toml

SET = Path(__file__).parent / "corpus" / "explain" / "plat24d"
CASES = [(p.name, load_toml(p)) for p in sorted(SET.glob("*.toml"))]
FIRST_RUN = (4, 35)  # (right, texts) before any change (README.md); 34/35 after
FLOOR = 0.95


def _right(label: str | list[str], code: str) -> bool:
    return code in label if isinstance(label, list) else code == label


def test_plat24d_is_sourced_and_labelled():
    assert len(CASES) >= 30
    for name, case in CASES:
        assert is_url(case["source"]) and case["source"].startswith("https://github.com/"), name
        assert case["text"].strip() and case["note"].strip() and case["phenomenon"], name
    sources = [case["source"] for _, case in CASES]
    assert len(set(sources)) == len(sources), "one text per thread"


def test_plat24d_top1():
    misses = []
    for name, case in CASES:
        d = primary(diagnose_text(case["text"]))
        code = d.code if d else "none"
        if not _right(case["label"], code):
            misses.append(f"  {name}: label {case['label']}, got {code}")
    right = len(CASES) - len(misses)
    print(f"\nexplain plat24d top-1: {right}/{len(CASES)} (first run {FIRST_RUN[0]}/{FIRST_RUN[1]})",
          *misses, sep="\n", file=sys.stderr)
    assert right / len(CASES) >= FLOOR, "\n".join(misses)
