"""Where a command's text goes: ``--output FILE`` or stdout, with colour only on a terminal.

Shared by every command (check, explain, facts, report, diff) so that every document leaves
through the sink (``envdoctor.outputs.sink``: sanitised for its kind, files written atomically)
and a file that cannot be written is the same one-line exit-2 error everywhere; also ``--report
FORMAT:FILE`` (several outputs from one run; ``-`` is stdout), the default format under GitHub
Actions, and redaction before any renderer sees a report. Kept free of heavy imports: `explain`
starts in a fraction of a second.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from envdoctor.errors import BadInput

if TYPE_CHECKING:
    from envdoctor.outputs.report import Report


def emit(text: str, output: str | None, kind: str = "terminal", color: bool = False) -> None:
    """Write to --output (a file, atomically) or stdout, sanitised for ``kind`` (a
    ``--format`` name: text, github, markdown, junit, sarif, json; or ``terminal``)."""
    from envdoctor.outputs.sink import write
    write(text, output, kind, color=color)


def use_color(output: str | None) -> bool:
    """Colour only for a terminal on stdout, and never under NO_COLOR or TERM=dumb."""
    from envdoctor.outputs.sink import is_stdout
    if not is_stdout(output):
        return False
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return sys.stdout.isatty()


def check_output_paths(output: str | None, reports: tuple[str, ...] | list[str]) -> None:
    """Before any work: every output can be written, and no two outputs are one file.

    ``-o X --report json:X`` would silently overwrite one with the other, two documents on
    stdout would be one unreadable stream, an unwritable ``--report`` path would otherwise
    be found only after the whole run, and a FIFO nobody reads would block it forever.
    """
    from envdoctor.outputs.sink import check_target, is_stdout
    paths = [("--output", output or "-", f"--output {output}" if output else "the report")]
    for spec in reports:
        fmt, sep, path = spec.partition(":")
        if sep and path:
            paths.append((f"--report {fmt}", path, f"--report {spec}"))
    seen: dict[str, str] = {}
    for option, path, label in paths:
        check_target(path, option)
        real = "-" if is_stdout(path) else os.path.realpath(path)
        if real == "-" and real in seen:
            raise BadInput(f"{label}: stdout already takes {seen[real]}; write one of them "
                           "to a file (-o FILE)")
        if real in seen:
            raise BadInput(f"{option} {path}: the same file as {seen[real]}; give each output "
                           "its own file")
        seen[real] = label


# ---------------------------------------------------------------------------- report outputs
def default_format(fmt: str | None) -> str:
    """``--format`` as given, else ``github`` annotations under GitHub Actions, else text."""
    if fmt:
        return fmt
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"


def parse_report_spec(spec: str) -> tuple[str, str]:
    """``junit:out.xml`` -> ("junit", "out.xml"); BadInput names the spec when it is wrong."""
    from envdoctor.outputs.renderers import formats
    known = formats("check")
    fmt, sep, path = spec.partition(":")
    if not sep or not path:
        raise BadInput(f"--report {spec!r}: write FORMAT:FILE, e.g. junit:envdoctor.xml "
                       f"(formats: {', '.join(known)})")
    if fmt not in known:
        raise BadInput(f"--report {spec!r}: unknown format {fmt!r} "
                       f"(formats: {', '.join(known)})")
    return fmt, path


def prepare(report: Report, redact: bool = True) -> Report:
    """The report every output is rendered from: redacted unless the user opted out."""
    from envdoctor.outputs.redact import redact_report
    return redact_report(report) if redact else report


def write_reports(report: Report, specs: tuple[str, ...] | list[str]) -> None:
    """Render the report once per ``FORMAT:FILE`` and write each (never colour; ``-`` is
    stdout)."""
    from envdoctor.outputs.renderers import render
    parsed = [parse_report_spec(s) for s in specs]  # validate all before writing any
    for fmt, path in parsed:
        emit(render("check", fmt, report, color=False), path, fmt)
