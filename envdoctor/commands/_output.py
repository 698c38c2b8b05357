"""Where a command's text goes: ``--output FILE`` or stdout, with colour only on a terminal.

Shared by every command (check, explain, facts, report, diff) so that a file that cannot be
written is the same one-line exit-2 error everywhere; also ``--report FORMAT:FILE`` (several
outputs from one run), the default format under GitHub Actions, and redaction before any
renderer sees a report. Kept free of heavy imports: `explain` starts in a fraction of a second.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from envdoctor.bounded import env
from envdoctor.errors import BadInput

if TYPE_CHECKING:
    from envdoctor.outputs.report import Report


def emit(text: str, output: str | None) -> None:
    """Write to --output (a file) or stdout."""
    if output and output != "-":
        try:
            with open(output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise BadInput(f"{output}: cannot write: {exc.strerror or exc}") from None
    else:
        from envdoctor.streams import write_stdout
        write_stdout(text)


def use_color(output: str | None) -> bool:
    """Colour only for a terminal on stdout, and never under NO_COLOR or TERM=dumb."""
    if output and output != "-":
        return False
    if env("NO_COLOR") or env("TERM") == "dumb":
        return False
    return sys.stdout.isatty()


def check_output_paths(output: str | None, reports: tuple[str, ...] | list[str]) -> None:
    """Before any work: every output file can be written, and no two outputs are one file.

    ``-o X --report json:X`` would silently overwrite one with the other, and an unwritable
    ``--report`` path would otherwise be found only after the whole run.
    """
    paths = []
    if output and output != "-":
        paths.append(("--output", output))
    for spec in reports:
        fmt, sep, path = spec.partition(":")
        if sep and path:
            paths.append((f"--report {fmt}", path))
    seen: dict[str, str] = {}
    for option, path in paths:
        real = os.path.realpath(path)
        if real in seen:
            raise BadInput(f"{option} {path}: the same file as {seen[real]}; give each output "
                           "its own file")
        seen[real] = f"{option} {path}"
        if os.path.isdir(real):
            raise BadInput(f"{option} {path}: is a directory")
        folder = os.path.dirname(real) or "."
        if not os.path.isdir(folder):
            raise BadInput(f"{option} {path}: cannot write: folder {folder} does not exist")
        target = real if os.path.exists(real) else folder
        if not os.access(target, os.W_OK):
            raise BadInput(f"{option} {path}: cannot write: permission denied")


# ---------------------------------------------------------------------------- report outputs
def default_format(fmt: str | None) -> str:
    """``--format`` as given, else ``github`` annotations under GitHub Actions, else text."""
    if fmt:
        return fmt
    return "github" if env("GITHUB_ACTIONS") == "true" else "text"


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
    """Render the report once per ``FORMAT:FILE`` and write each file (never colour)."""
    from envdoctor.outputs.renderers import render
    parsed = [parse_report_spec(s) for s in specs]  # validate all before writing any
    for fmt, path in parsed:
        try:
            Path(path).write_text(render("check", fmt, report, color=False), encoding="utf-8")
        except OSError as exc:
            raise BadInput(f"{path}: cannot write: {exc.strerror or exc}") from None
