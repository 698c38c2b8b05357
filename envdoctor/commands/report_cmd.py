"""`envdoctor report`: a redacted Markdown bug report (or its JSON twin) to paste into an issue.

Also home of the output plumbing that `check` shares: ``--report FORMAT:FILE`` (several
outputs from one run), the default format under GitHub Actions, and redaction before any
renderer sees the report.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from envdoctor import pipeline
from envdoctor.errors import BadInput
from envdoctor.outputs.redact import redact_report
from envdoctor.outputs.renderers import RENDERERS, render
from envdoctor.outputs.report import Report


# ---------------------------------------------------------------------------- shared with check
def default_format(fmt: str | None) -> str:
    """``--format`` as given, else ``github`` annotations under GitHub Actions, else text."""
    if fmt:
        return fmt
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"


def parse_report_spec(spec: str) -> tuple[str, str]:
    """``junit:out.xml`` -> ("junit", "out.xml"); BadInput names the spec when it is wrong."""
    fmt, sep, path = spec.partition(":")
    if not sep or not path:
        raise BadInput(f"--report {spec!r}: write FORMAT:FILE, e.g. junit:envdoctor.xml "
                       f"(formats: {', '.join(sorted(RENDERERS))})")
    if fmt not in RENDERERS:
        raise BadInput(f"--report {spec!r}: unknown format {fmt!r} "
                       f"(formats: {', '.join(sorted(RENDERERS))})")
    return fmt, path


def prepare(report: Report, redact: bool = True) -> Report:
    """The report every output is rendered from: redacted unless the user opted out."""
    return redact_report(report) if redact else report


def write_reports(report: Report, specs: tuple[str, ...] | list[str]) -> None:
    """Render the report once per ``FORMAT:FILE`` and write each file (never colour)."""
    parsed = [parse_report_spec(s) for s in specs]  # validate all before writing any
    for fmt, path in parsed:
        try:
            Path(path).write_text(render(fmt, report, color=False), encoding="utf-8")
        except OSError as exc:
            raise BadInput(f"{path}: cannot write: {exc.strerror or exc}") from None


# ---------------------------------------------------------------------------- the command
def _saved_smoke(path: str) -> dict[str, Any] | None:
    """The ``smoke`` key of a saved `check --format json` output, if the file is one."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    smoke = data.get("smoke") if isinstance(data, dict) else None
    return smoke if isinstance(smoke, dict) else None


@click.command("report")
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown",
              show_default=True)
@click.option("--facts", "facts_file", metavar="FILE",
              help="Report on a saved facts snapshot or check JSON instead of probing.")
@click.option("--output", "-o", metavar="FILE", help="Write the report to FILE.")
@click.option("--expect", "intent", type=click.Choice(["auto", "gpu", "cpu"]), default="auto",
              show_default=True, help="What this machine should train on.")
@click.option("--static", is_flag=True, help="Static probes only: no framework workers, "
              "no smoke tests.")
@click.option("--no-smoke", is_flag=True, help="Run the live framework workers, no smoke tests.")
@click.option("--no-redact", is_flag=True,
              help="Keep host and user names, addresses, GPU UUIDs and credentials.")
def report(fmt: str, facts_file: str | None, output: str | None, intent: str, static: bool,
           no_smoke: bool, no_redact: bool) -> None:
    """A bug report to paste into an issue: facts, findings, smoke results (redacted)."""
    from envdoctor.commands._output import check_output_paths, emit

    check_output_paths(output, ())  # an unwritable -o fails before the run, not after
    if facts_file:
        facts = pipeline.load_facts_file(facts_file)
    else:
        from envdoctor.probes import collect
        facts = collect()
        if not static:  # the same live workers and quick smoke suite as `check`
            from envdoctor.live.cli import live_options, run_for_check
            facts = run_for_check(facts, live_options(None, None), "quick", not no_smoke)
    result = pipeline.diagnose(facts, intent=intent)
    if facts.live:
        from envdoctor.live.cli import add_smoke
        add_smoke(result)
    saved = _saved_smoke(facts_file) if facts_file else None
    if saved and not result.extra.get("smoke"):
        result.extra["smoke"] = saved
    result = prepare(result, redact=not no_redact)
    if fmt == "json":
        text = json.dumps({**result.to_dict(), "kind": "envdoctor-report"}, indent=2) + "\n"
    else:
        from envdoctor.outputs.renderers.markdown import render_bug_report
        text = render_bug_report(result)
    emit(text, output)
