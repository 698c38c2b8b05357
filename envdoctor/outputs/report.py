"""A report: facts + every check's outcome + findings + the per-area summary.

This is what renderers format and what ``--format json`` publishes. The JSON contract
(``REPORT_SCHEMA_VERSION``) is documented in README.md; later stages add keys, never rename.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from envdoctor import __version__
from envdoctor.engine.findings import CheckResult, Finding, exit_code
from envdoctor.facts import SCHEMA_VERSION, Facts
from envdoctor.outputs.summary import AreaLine, summarize

REPORT_SCHEMA_VERSION = 1


@dataclass
class Report:
    facts: Facts
    results: list[CheckResult]
    findings: list[Finding]
    intent: str = "auto"
    fail_on: str = "error"
    areas: list[AreaLine] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # later stages: "smoke", "policy" …

    @classmethod
    def build(cls, facts: Facts, results: list[CheckResult], findings: list[Finding],
              intent: str = "auto", fail_on: str = "error") -> Report:
        return cls(facts, results, findings, intent, fail_on, summarize(facts, findings))

    @property
    def exit_code(self) -> int:
        return exit_code(self.findings, self.fail_on)

    def counts(self) -> dict[str, int]:
        out = {"error": 0, "warning": 0, "info": 0}
        for f in self.findings:
            out[f.severity.value] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        states: dict[str, int] = {}
        for r in self.results:
            states[r.state] = states.get(r.state, 0) + 1
        data = {
            "schema_version": REPORT_SCHEMA_VERSION,
            "facts_schema_version": SCHEMA_VERSION,
            "envdoctor_version": __version__,
            "facts": self.facts.to_dict(),
            "findings": [f.to_dict() for f in self.findings],
            "summary": {
                **self.counts(),
                "exit_code": self.exit_code,
                "intent": self.intent,
                "fail_on": self.fail_on,
                "checks": {"evaluated": len(self.results), **states},
                "areas": [a.to_dict() for a in self.areas],
            },
            "checks": [{"code": r.code, "id": r.id, "state": r.state, "detail": r.detail}
                       for r in self.results],
        }
        data.update(self.extra)
        return data
