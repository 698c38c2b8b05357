"""`envdoctor facts`: dump the snapshot that `check` would judge (JSON)."""

from __future__ import annotations

import click

from envdoctor.commands._output import emit


@click.command("facts")
@click.option("--output", "-o", metavar="FILE", help="Write the snapshot to FILE.")
def facts(output: str | None) -> None:
    """Print the facts snapshot as JSON (replay it later with `check --facts FILE`)."""
    from envdoctor.probes import collect
    emit(collect().to_json() + "\n", output)
