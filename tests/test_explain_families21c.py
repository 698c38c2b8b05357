"""Top-1 of `envdoctor explain` on the families21c blind set (tests/corpus/explain/families21c).

Texts collected by phenomenon from threads no project file quoted (Windows CUDA-library DLLs
named by other loaders, bitsandbytes' old CUDA_SETUP logs, Keras 3, architecture floors, ports,
CPU features, TensorRT libraries, Paddle's cuDNN notes, missing compiled ops, onnxruntime's
CUDA provider, protobuf's generated code, Python headers, ROCm on Polaris, CMake finding
cuDNN, and harmless warnings), each labelled from what its thread established before
envdoctor was run on it. A label is a signature code, a list of acceptable codes, or
``none``/``user`` (a trap: right when the answer is no environment claim). The first-run
figure is in the set's README.
"""

from __future__ import annotations

import sys
from pathlib import Path

from envdoctor.explain import diagnose_text, primary
from envdoctor.rulefiles import is_url, load_toml

SET = Path(__file__).parent / "corpus" / "explain" / "families21c"
CASES = [(p.name, load_toml(p)) for p in sorted(SET.glob("[a-z]*.toml"))]
TRAPS = ("none", "user")
FIRST_RUN = (34, 75)  # before any change (README.md)
FLOOR = 0.9


def _right(label: str | list[str], code: str, category: str) -> bool:
    if isinstance(label, list):
        return code in label
    if label in TRAPS:
        return category != "environment"
    return code == label


def test_families21c_is_sourced_and_labelled():
    assert len(CASES) >= 60
    for name, case in CASES:
        assert is_url(case["source"]) and case["source"].startswith("https://github.com/"), name
        assert case["text"].strip() and case["note"].strip() and case["phenomenon"], name
    sources = [case["source"] for _, case in CASES]
    assert len(set(sources)) == len(sources), "one text per thread"
    assert sum(case["label"] in TRAPS for _, case in CASES) >= 5


def test_families21c_top1():
    misses = []
    for name, case in CASES:
        d = primary(diagnose_text(case["text"]))
        code, category = (d.code, d.category) if d else ("none", "")
        if not _right(case["label"], code, category):
            misses.append(f"  {name}: label {case['label']}, got {code}")
    right = len(CASES) - len(misses)
    print(f"\nexplain families21c top-1: {right}/{len(CASES)} (first run {FIRST_RUN[0]}/{FIRST_RUN[1]})",
          *misses, sep="\n", file=sys.stderr)
    assert right / len(CASES) >= FLOOR, "\n".join(misses)


def test_no_trap_gets_an_environment_claim():
    for name, case in CASES:
        if case["label"] in TRAPS:
            d = primary(diagnose_text(case["text"]))
            assert d is None or d.category != "environment", f"{name}: {d.code if d else ''}"
