"""Top-1 of `envdoctor explain` on the families21d batches (tests/corpus/explain/families21d/*/).

Each subfolder is one batch collected by phenomenon family (ROCm, Windows, packaging, JAX and
the other frameworks, containers and schedulers, Apple silicon ...) from threads no project file
quoted, each text labelled from what its thread established before envdoctor was run on it. A
label is a signature code, a list of acceptable codes, or ``none``/``user`` (a trap: right when
the answer is no environment claim). ``batch.toml`` in each folder records the first-run figure
(``first_run = [right, total]``, taken before the batch's own fixes, with the commit it ran on)
and the floor it is held to now; its README.md says what was collected and what still misses.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from envdoctor.explain import diagnose_text, primary
from envdoctor.rulefiles import is_url, load_toml

ROOT = Path(__file__).parent / "corpus" / "explain" / "families21d"
TRAPS = ("none", "user")
BATCHES = sorted(p for p in ROOT.iterdir() if p.is_dir()) if ROOT.is_dir() else []


def _cases(folder: Path) -> list[tuple[str, dict[str, Any]]]:
    return [(p.name, load_toml(p)) for p in sorted(folder.glob("[a-z0-9]*.toml"))
            if p.name != "batch.toml"]


def _right(label: str | list[str], code: str, category: str) -> bool:
    if isinstance(label, list):
        return code in label
    if label in TRAPS:
        return category != "environment"
    return code == label


def _answer(text: str) -> tuple[str, str]:
    d = primary(diagnose_text(text))
    return (d.code, d.category) if d else ("none", "")


def test_every_batch_is_sourced_labelled_and_one_text_per_thread():
    seen: dict[str, str] = {}
    for folder in BATCHES:
        meta = load_toml(folder / "batch.toml")
        right, total = meta["first_run"]
        assert 0 <= right <= total and meta["first_run_commit"] and 0 <= meta["floor"] <= 1
        cases = _cases(folder)
        assert len(cases) >= 10 and (folder / "README.md").is_file(), folder.name
        for name, case in cases:
            assert is_url(case["source"]) and case["source"].startswith("https://github.com/"), name
            assert case["text"].strip() and case["note"].strip() and case["phenomenon"], name
            assert isinstance(case["label"], (str, list)), name
            key = case["source"].rstrip("/").lower()
            assert key not in seen, f"{folder.name}/{name}: thread also in {seen.get(key)}"
            seen[key] = f"{folder.name}/{name}"


@pytest.mark.parametrize("folder", BATCHES, ids=[p.name for p in BATCHES])
def test_batch_top1_holds_its_floor(folder: Path):
    meta = load_toml(folder / "batch.toml")
    cases = _cases(folder)
    misses = []
    for name, case in cases:
        code, category = _answer(case["text"])
        if not _right(case["label"], code, category):
            misses.append(f"  {name}: label {case['label']}, got {code}")
    right = len(cases) - len(misses)
    first, total = meta["first_run"]
    print(f"\nexplain families21d/{folder.name} top-1: {right}/{len(cases)} (first run "
          f"{first}/{total} on {meta['first_run_commit']})", *misses, sep="\n", file=sys.stderr)
    assert right / len(cases) >= meta["floor"], "\n".join(misses)


@pytest.mark.parametrize("folder", BATCHES, ids=[p.name for p in BATCHES])
def test_no_trap_gets_an_environment_claim(folder: Path):
    for name, case in _cases(folder):
        if case["label"] in TRAPS:
            code, category = _answer(case["text"])
            assert category != "environment", f"{folder.name}/{name}: {code}"
