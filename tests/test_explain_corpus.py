"""Top-1 accuracy of `envdoctor explain` on real error texts (tests/corpus/explain).

Each case is one real text from a public issue or forum with its URL and the code a maintainer
would name (``"none"``: nothing to fix in the environment or no error at all). The primary
diagnosis is the first one that is not a harmless warning.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.signatures import load_signatures
from envdoctor.rulefiles import is_url, load_toml

CORPUS = sorted((Path(__file__).parent / "corpus" / "explain").glob("*.toml"))
CASES = [(p.name, load_toml(p)) for p in CORPUS]
CATEGORY = {s.code: s.category for s in load_signatures()}


def top1(text: str) -> str:
    main = primary(diagnose_text(text))
    return main.code if main else "none"


def test_corpus_is_big_and_sourced():
    assert len(CASES) >= 80
    for name, case in CASES:
        assert is_url(case.get("source")), f"{name}: source must be a URL"
        assert case.get("text", "").strip(), f"{name}: empty text"
        assert case.get("expect") == "none" or case.get("expect") in CATEGORY, \
            f"{name}: expect {case.get('expect')!r} is not a signature code"
    not_env = [n for n, c in CASES
               if CATEGORY.get(c["expect"], "benign") in ("benign", "user_code")]
    assert len(not_env) >= 15, f"only {len(not_env)} not-environment texts"


def test_corpus_top1_accuracy():
    misses = []
    for name, case in CASES:
        got = top1(case["text"])
        if got != case["expect"]:
            misses.append(f"  {name}: expected {case['expect']}, got {got}")
    accuracy = 1 - len(misses) / len(CASES)
    print(f"\nexplain corpus top-1 accuracy: {accuracy:.1%} ({len(CASES) - len(misses)}/"
          f"{len(CASES)})", *misses, sep="\n", file=sys.stderr)
    assert accuracy >= 0.90, "\n".join(misses)


@pytest.mark.parametrize("name,case", [c for c in CASES if c[1]["expect"] != "none"][:1])
def test_a_buried_error_is_still_found(name, case):
    """The same text inside 5,000 lines of healthy training log: the same answer."""
    filler = "".join(f"epoch 3 step {i} loss=0.{i % 97:02d} lr=3e-4\n" for i in range(2500))
    assert top1(filler + case["text"] + "\n" + filler) == case["expect"]
