"""One line for a scheduler: NHC / Slurm (``--format nhc``) and node-problem-detector (``npd``).

Both conventions read a verdict from the exit status and show one short message:

* LBNL NHC prints nothing and exits 0 when the node is healthy; a failed check ``die``s with a
  message that becomes the node's note (Slurm: ``scontrol update ... State=DRAIN
  Reason="NHC: <message>"``). Slurm's HealthCheckProgram must drain the node itself; a
  Prolog that exits non-zero drains it. ``nhc`` prints nothing when the check passes and the
  reason line otherwise; the exit code is envdoctor's own (1 = findings at ``--fail-on``).
* node-problem-detector's custom plugin protocol: exit 0 OK, 1 NonOK, any other status
  Unknown, the message is stdout cut at ``max_output_length`` (80 bytes by default). ``npd``
  always prints a line, and exits 2 (Unknown) when nothing fails but the verdict cannot be
  trusted: a probe failed (the PROBE checks) or a check could not be evaluated.

The line itself is made safe by the ``reason`` sink (``sanitise.reason``: printable ASCII, no
quotes, at most 80 characters); this module only chooses what it says, worst first.
"""

from __future__ import annotations

from envdoctor.engine.findings import FAIL_ON, Finding
from envdoctor.outputs.report import Report

UNKNOWN = 2  # node-problem-detector's Unknown; envdoctor's exit 2, "could not be judged"


def _failing(report: Report) -> list[Finding]:
    threshold = FAIL_ON[report.fail_on]
    found = [f for f in report.findings if f.severity.rank >= threshold]
    return sorted(found, key=lambda f: -f.severity.rank)


def undecided(report: Report) -> list[str]:
    """Why the verdict cannot be trusted (empty when it can): a probe that failed, so what it
    reads is unknown, or a check that could not be evaluated."""
    why = [f"{f.code} {f.title}" for f in report.findings if f.code.startswith("PROBE")]
    why += [f"{r.code} could not be evaluated" for r in report.results if r.state == "error"]
    return why


def _listing(findings: list[Finding]) -> str:
    return "; ".join(f"{f.code} {' '.join(f.title.split())}" for f in findings)


def _problem(report: Report, failing: list[Finding]) -> str:
    """The worst first; a count only when there are several (80 characters go fast)."""
    count = "" if len(failing) == 1 else f"{len(failing)} problems: "
    return f"envdoctor: {count}{_listing(failing)}"


def render_nhc(report: Report, color: bool = False) -> str:
    """Nothing when the check passes (NHC's healthy run); else the reason, one line."""
    failing = _failing(report)
    return _problem(report, failing) + "\n" if failing else ""


def render_npd(report: Report, color: bool = False) -> str:
    """Always one line: the problem, why the verdict is unknown, or OK with the counts."""
    failing = _failing(report)
    if failing:
        return _problem(report, failing) + "\n"
    why = undecided(report)
    if why:
        return "envdoctor: unknown: " + "; ".join(why) + "\n"
    counts = report.counts()
    return (f"envdoctor: OK ({_count(counts['error'], 'error')}, "
            f"{_count(counts['warning'], 'warning')}, fail-on {report.fail_on})\n")


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def npd_exit(report: Report) -> int:
    """node-problem-detector's status: 1 when a finding fails, 2 when undecided, else 0."""
    if report.exit_code:
        return report.exit_code
    return UNKNOWN if undecided(report) else 0
