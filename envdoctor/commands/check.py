"""`envdoctor check`: probe (or replay) facts, run the rules, report."""

from __future__ import annotations

import os
import sys

import click

from envdoctor import pipeline
from envdoctor.engine import INTENTS
from envdoctor.findings import FAIL_ON
from envdoctor.renderers import RENDERERS, render


def emit(text: str, output: str | None) -> None:
    """Write to --output (a file) or stdout."""
    if output and output != "-":
        try:
            with open(output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            from envdoctor.errors import BadInput
            raise BadInput(f"{output}: cannot write: {exc.strerror or exc}") from None
    else:
        click.echo(text, nl=False)


def use_color(output: str | None) -> bool:
    if output and output != "-":
        return False
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return sys.stdout.isatty()


@click.command("check")
@click.option("--static", is_flag=True, help="Static probes only: import no framework.")
@click.option("--facts", "facts_file", metavar="FILE",
              help="Replay the rules on a saved facts snapshot instead of probing.")
@click.option("--format", "fmt", type=click.Choice(sorted(RENDERERS)), default="text",
              show_default=True)
@click.option("--output", "-o", metavar="FILE", help="Write the report to FILE.")
@click.option("--fail-on", type=click.Choice([k for k in FAIL_ON if k != "info"]),
              default="error", show_default=True,
              help="Exit 1 when a finding is at or above this severity.")
@click.option("--expect", "intent", type=click.Choice(INTENTS), default="auto",
              show_default=True, help="What this machine should train on.")
@click.option("-v", "--verbose", is_flag=True, help="Also list passed and unknown checks.")
def check(static: bool, facts_file: str | None, fmt: str, output: str | None, fail_on: str,
          intent: str, verbose: bool) -> None:
    """Tell whether this machine can train, and why not."""
    if facts_file:
        facts = pipeline.load_facts_file(facts_file)
    else:
        from envdoctor.probes import collect
        facts = collect()
    report = pipeline.diagnose(facts, intent=intent, fail_on=fail_on)
    text = render(fmt, report, color=use_color(output) and fmt == "text")
    if verbose and fmt == "text":
        text += "".join(f"  {r.state:<8} {r.code} {r.id}{' — ' + r.detail if r.detail else ''}\n"
                        for r in report.results)
    emit(text, output)
    raise SystemExit(report.exit_code)
