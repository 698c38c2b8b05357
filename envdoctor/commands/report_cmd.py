"""`envdoctor report`: a redacted Markdown bug report (or its JSON twin) to paste into an issue."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from envdoctor import pipeline
from envdoctor.commands._output import prepare


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
    from envdoctor.commands._output import emit

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
