"""`envdoctor diff A.json B.json`: what differs between two machines, what matters first."""

from __future__ import annotations

import click

from envdoctor import pipeline
from envdoctor.facts import Facts


@click.command("diff")
@click.argument("file_a", metavar="A.json")
@click.argument("file_b", metavar="B.json")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("--output", "-o", metavar="FILE", help="Write the diff to FILE.")
@click.option("--expect", "intent", type=click.Choice(["auto", "gpu", "cpu"]), default="auto",
              show_default=True, help="Intent the rules run under on both sides.")
@click.option("--no-redact", is_flag=True,
              help="Keep host and user names, addresses, GPU UUIDs and credentials.")
def diff(file_a: str, file_b: str, fmt: str, output: str | None, intent: str,
         no_redact: bool) -> None:
    """Compare two facts snapshots (or check/report JSONs), ranked by what likely matters.

    Exit 0 when both files were read (whatever the differences), 2 on bad input.
    """
    from envdoctor.commands._output import check_output_paths, emit
    from envdoctor.diff import compare
    from envdoctor.outputs.renderers import render

    check_output_paths(output, ())
    from envdoctor.outputs.sink import keep_credentials
    keep_credentials(no_redact)  # every document of the run, also those written later
    facts_a = pipeline.load_facts_file(file_a, judged=False)
    facts_b = pipeline.load_facts_file(file_b, judged=False)
    if not no_redact:
        from envdoctor.outputs.redact import redact_data
        facts_a = Facts.from_dict(redact_data(facts_a.to_dict()))
        facts_b = Facts.from_dict(redact_data(facts_b.to_dict()))
    report_a = pipeline.diagnose(facts_a, intent=intent)
    report_b = pipeline.diagnose(facts_b, intent=intent)
    result = compare(facts_a, facts_b, report_a.findings, report_b.findings)
    emit(render("diff", fmt, {"a": file_a, "b": file_b, **result}), output, fmt)
