"""What the small per-platform explain sets (rocm_heldout, apple_heldout, tegra) check alike:
every case sourced and labelled, one text per thread, none quoted by a signature example, and
the primary diagnosis carrying one of the labelled cause's codes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.signatures import load_signatures
from envdoctor.rulefiles import is_url, load_toml


def load_set(folder: Path, pattern: str) -> tuple[list[tuple[str, dict[str, Any]]], dict]:
    """(cases as (file name, case), causes) of one set folder."""
    return ([(p.name, load_toml(p)) for p in sorted(folder.glob(pattern))],
            load_toml(folder / "causes.toml"))


def assert_sourced_labelled_unquoted(cases: list[tuple[str, dict]], causes: dict,
                                     at_least: int = 10) -> None:
    assert len(cases) >= at_least
    held = set()
    for name, case in cases:
        assert is_url(case["source"]) and case["label"] in causes and case["text"].strip(), name
        held.add(case["source"].rstrip("/"))
    assert len(held) == len(cases), "one text per thread"
    examples = {e.source.rstrip("/") for s in load_signatures() for e in s.examples}
    assert not held & examples, sorted(held & examples)


def wrong_answers(cases: list[tuple[str, dict]], causes: dict) -> list[tuple[str, str, str]]:
    """(file, label, code answered) of every case whose primary diagnosis is not its cause's."""
    wrong = []
    for name, case in cases:
        d = primary(diagnose_text(case["text"]))
        code = d.code if d else "none"
        if code not in causes[case["label"]]["codes"]:
            wrong.append((name, case["label"], code))
    return wrong
