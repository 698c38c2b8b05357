"""Human text: a flutter-doctor style summary per area, then each finding with its fix.

Colour only when asked (a TTY without NO_COLOR), with ``sanitise.style``: envdoctor's own
colours are marked, so the terminal sink turns them, and only them, into escape sequences
(an escape in a GPU name or a path is shown as ``\x1b`` either way). Data put in one line is
``flat``: a line break in a GPU name is shown as ``\\n``, never a line of its own.
"""

from __future__ import annotations

import textwrap

from envdoctor.outputs.report import Report
from envdoctor.outputs.sanitise import flat

MARKS = {"ok": ("✓", "green"), "info": ("i", "cyan"), "warning": ("!", "yellow"),
         "error": ("✗", "red"), "unknown": ("?", "dim")}
SEV_STYLE = {"error": "bold red", "warning": "bold yellow", "info": "cyan"}


def render(report: Report, color: bool = False, verbose: bool = False) -> str:
    """``verbose`` (``check -v``) lists every check's state, before the verdict line, so the
    verdict stays the last line a user or a CI log shows."""
    segments: list[tuple[str, str]] = []

    def out(text: str, style: str = "") -> None:
        segments.append((text, style))

    origin = report.facts.origin
    sources = {"live": "probed on this machine", "report": "from a pasted report",
               "replay": "from a saved snapshot", "example": "from a rule example"}
    head = f"envdoctor check (facts {sources.get(origin, 'from ' + origin)})"
    out(head + f" — expect {report.intent}\n", "bold")
    for line in report.areas:
        mark, style = MARKS.get(line.status, ("?", ""))
        out(f"[{mark}] ", style)
        out(f"{flat(line.label)}: ", "bold")
        out(f"{flat(line.detail)}\n")
    if report.findings:
        out("\n")
    for f in report.findings:
        out(f"{f.severity.value.upper()} {f.code}", SEV_STYLE[f.severity.value])
        out(f" {flat(f.title)}\n", "bold")
        if f.why:
            out(_reflow(f.why) + "\n")
        if f.fix:
            out("    fix: ", "green")
            out(_keep_lines(f.fix) + "\n")
        for ref in f.references[:2]:
            out(f"    see: {ref}\n", "dim")
        out("\n")
    broken = [r for r in report.results if r.state == "error"]
    if broken and not verbose:  # a rule that could not be evaluated is said, never silent
        for r in broken:
            out(f"  rule error: {r.code} {r.id} — {flat(r.detail)}\n", "bold red")
        out("\n")
    if verbose:
        for r in report.results:
            out(f"  {r.state:<8} {r.code} {r.id}{' — ' + flat(r.detail) if r.detail else ''}\n",
                "dim" if r.state in ("passed", "unknown", "n/a") else "")
        out("\n")
    counts = report.counts()
    verdict = {0: "OK", 1: "FAIL"}[report.exit_code]
    out(f"{verdict}: {counts['error']} error(s), {counts['warning']} warning(s), "
        f"{counts['info']} info; fail-on {report.fail_on}\n",
        "bold green" if report.exit_code == 0 else "bold red")
    if not color:
        return "".join(text for text, _ in segments)
    return _colour(segments)


def _reflow(text: str) -> str:
    """Prose: paragraphs (blank-line separated) re-wrapped at 96 columns, indented."""
    paras = [" ".join(p.split()) for p in text.strip().split("\n\n")]
    return "\n\n".join(textwrap.fill(p, 96, initial_indent="    ", subsequent_indent="    ")
                       for p in paras if p)


def _keep_lines(text: str) -> str:
    """Commands keep their lines; continuation lines are indented under the first."""
    lines = [ln.rstrip() for ln in text.strip().splitlines()]
    return "\n".join(ln if i == 0 else "         " + ln for i, ln in enumerate(lines))


def _colour(segments: list[tuple[str, str]]) -> str:
    from envdoctor.outputs.sanitise import style
    return "".join(style(text, spec) if spec else text for text, spec in segments)
