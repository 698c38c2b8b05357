"""`envdoctor report`: a redacted Markdown bug report (or its JSON twin) to paste into an issue."""

from __future__ import annotations

import click

from envdoctor import pipeline
from envdoctor.commands._output import emit
from envdoctor.outputs.renderers import render


@click.command("report")
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown",
              show_default=True)
@click.option("--facts", "facts_file", metavar="FILE",
              help="Report on a saved facts snapshot or check JSON instead of probing.")
@click.option("--output", "-o", metavar="FILE", help="Write the report to FILE.")
@click.option("--expect", "intent", type=click.Choice(["auto", "gpu", "cpu"]), default=None,
              help="What this machine should train on [default: the policy's expect, else auto].")
@click.option("--policy", "policy_file", metavar="FILE",
              help="Policy TOML [default: ./pyproject.toml [tool.envdoctor], ./envdoctor.toml].")
@click.option("--require", "requires", multiple=True, metavar="REQ",
              help="A requirement, e.g. 'torch>=2.4', 'gpus>=8', bf16 (repeatable; quote "
                   "one with > or <, which the shell reads as a redirection).")
@click.option("--static", is_flag=True, help="Static probes only: no framework workers, "
              "no smoke tests.")
@click.option("--no-smoke", is_flag=True, help="Run the live framework workers, no smoke tests.")
@click.option("--no-redact", is_flag=True,
              help="Keep host and user names, addresses, GPU UUIDs and credentials.")
def report(fmt: str, facts_file: str | None, output: str | None, intent: str | None,
           static: bool, no_smoke: bool, no_redact: bool, policy_file: str | None = None,
           requires: tuple[str, ...] = ()) -> None:
    """A bug report to paste into an issue: facts, findings, smoke results (redacted)."""
    from envdoctor.commands._output import check_output_paths

    check_output_paths(output, ())  # an unwritable -o fails before the run, not after
    from envdoctor.outputs.sink import keep_credentials
    keep_credentials(no_redact)  # every document of the run, also those written later
    from envdoctor.gate import policy as policy_mod

    gate = policy_mod.load(policy_file, requires)
    intent, fail_on = gate.settings(intent, None)
    facts = pipeline.collect(facts_file=facts_file, live=not static, smoke=not no_smoke)
    saved = pipeline.saved_smoke(facts_file) if facts_file else None
    result = pipeline.build(facts, intent=intent, fail_on=fail_on, policy=gate,
                            redact=not no_redact, extra={"smoke": saved} if saved else None)
    emit(render("report", fmt, result), output, fmt)
