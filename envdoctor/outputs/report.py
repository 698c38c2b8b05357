"""A report: facts + every check's outcome + findings + the per-area summary.

This is what renderers format and what ``--format json`` publishes. The JSON contract
(``REPORT_SCHEMA_VERSION``) is documented in README.md; later stages add keys, never rename.
A report is built once (``envdoctor.pipeline.build``) and frozen: its fields are tuples and a
read-only mapping, assigning to one raises, and a later stage that needs a different report
(redaction) makes a new one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from envdoctor import __version__
from envdoctor.engine.findings import CheckResult, Finding, exit_code
from envdoctor.facts import SCHEMA_VERSION, Facts
from envdoctor.outputs.summary import AreaLine, summarize

REPORT_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Report:
    facts: Facts
    results: tuple[CheckResult, ...]
    findings: tuple[Finding, ...]
    intent: str = "auto"
    fail_on: str = "error"
    areas: tuple[AreaLine, ...] = ()
    # more blocks of the JSON contract: "smoke", "policy", "redacted" (read-only)
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        for name in ("results", "findings", "areas"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))

    @classmethod
    def build(cls, facts: Facts, results: Iterable[CheckResult], findings: Iterable[Finding],
              intent: str = "auto", fail_on: str = "error",
              extra: Mapping[str, Any] | None = None,
              more_areas: Iterable[AreaLine] = ()) -> Report:
        """The report of evaluated results: the summary lines come from the findings."""
        findings = tuple(findings)
        return cls(facts, tuple(results), findings, intent, fail_on,
                   (*summarize(facts, list(findings)), *more_areas), extra or {})

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
