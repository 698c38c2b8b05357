"""Findings: what a rule says about a machine, in the public JSON contract's shape."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]


FAIL_ON = {"error": 3, "warning": 2, "info": 1, "never": 99}


@dataclass(frozen=True)
class Finding:
    """One problem (or noteworthy fact), with its evidence, fix and sources."""

    code: str
    id: str
    severity: Severity
    title: str
    why: str = ""
    fix: str = ""
    references: tuple[str, ...] = ()
    evidence: dict[str, Any] = field(default_factory=dict)
    area: str = ""
    # other summary areas the finding is about (INTENT002 on the CPU-only frameworks' lines):
    # the per-area summary marks each of them from this finding, not from a judgement of its own
    about: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # a title is one line in every output (text, fleet, diff, annotations): a line break
        # that a GPU name or a hostname brought into it is shown, never a line of its own
        _one_line(self, "title")

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "id": self.id, "severity": self.severity.value,
                "title": self.title, "why": self.why, "fix": self.fix,
                "references": list(self.references), "evidence": self.evidence,
                "area": self.area, "about": list(self.about)}


@dataclass(frozen=True)
class CheckResult:
    """The outcome of evaluating one check: fired, passed, unknown (facts missing) or error."""

    code: str
    id: str
    state: str          # fired | passed | unknown | error
    finding: Finding | None = None
    detail: str = ""    # why unknown / what went wrong

    def __post_init__(self) -> None:
        _one_line(self, "detail")


def _one_line(obj: Any, name: str) -> None:
    from envdoctor.outputs.sanitise import flat, has_break
    value = getattr(obj, name)
    if isinstance(value, str) and has_break(value):
        object.__setattr__(obj, name, flat(value))


def worst(findings: Iterable[Finding]) -> Severity | None:
    return max((f.severity for f in findings), key=lambda s: s.rank, default=None)


def exit_code(findings: Iterable[Finding], fail_on: str) -> int:
    """0 when nothing is at or above ``fail_on``, else 1 (see README, "Exit codes")."""
    threshold = FAIL_ON[fail_on]
    return 1 if any(f.severity.rank >= threshold for f in findings) else 0
