"""probes -> facts -> rules -> findings: the flow that `check` and later commands share."""

from __future__ import annotations

from envdoctor import engine
from envdoctor.engine.loader import RuleFileError
from envdoctor.errors import BadInput, load_json_file
from envdoctor.facts import Facts, FactsError
from envdoctor.outputs.report import Report


def load_facts_file(path: str) -> Facts:
    """Read a saved snapshot (or a whole `check --format json` output); BadInput on failure."""
    data = load_json_file(path, "a facts file")  # size, depth, FIFO and device capped
    try:
        facts = Facts.from_dict(data)
    except FactsError as exc:
        raise BadInput(f"{path}: {exc}") from None
    return facts


def load_checks() -> list[engine.Check]:
    try:
        return engine.load_checks()
    except RuleFileError as exc:
        raise BadInput(f"invalid rule file: {exc}") from None


def diagnose(facts: Facts, intent: str = "auto", fail_on: str = "error") -> Report:
    results = engine.evaluate(facts, load_checks(), intent)
    return Report.build(facts, results, engine.findings_of(results), intent, fail_on)
