"""probes -> facts -> rules -> findings: the flow that `check` and later commands share."""

from __future__ import annotations

import json
from pathlib import Path

from envdoctor import engine
from envdoctor.engine.loader import RuleFileError
from envdoctor.errors import BadInput, reading
from envdoctor.facts import Facts, FactsError
from envdoctor.outputs.report import Report


def load_facts_file(path: str) -> Facts:
    """Read a saved snapshot (or a whole `check --format json` output); BadInput on failure."""
    with reading(path, "a facts file"):
        text = Path(path).read_text(encoding="utf-8") if path != "-" else _stdin()
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise BadInput(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    try:
        facts = Facts.from_dict(data)
    except FactsError as exc:
        raise BadInput(f"{path}: {exc}") from None
    return facts


def _stdin() -> str:
    import sys
    return sys.stdin.read()


def load_checks() -> list[engine.Check]:
    try:
        return engine.load_checks()
    except RuleFileError as exc:
        raise BadInput(f"invalid rule file: {exc}") from None


def diagnose(facts: Facts, intent: str = "auto", fail_on: str = "error") -> Report:
    results = engine.evaluate(facts, load_checks(), intent)
    return Report.build(facts, results, engine.findings_of(results), intent, fail_on)
