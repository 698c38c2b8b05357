"""`envdoctor facts`: dump the snapshot that `check` would judge (JSON), redacted by default."""

from __future__ import annotations

import json

import click

from envdoctor.commands._output import emit


@click.command("facts")
@click.option("--output", "-o", metavar="FILE", help="Write the snapshot to FILE.")
@click.option("--no-redact", is_flag=True,
              help="Keep host and user names, home paths, addresses, GPU UUIDs and credentials.")
@click.option("--root", "root", metavar="DIR",
              help="Read system files (/proc, /sys, /dev, /etc, /usr, /opt, the loader cache) "
                   "under DIR; tools still come from PATH, Python packages from this "
                   "interpreter.")
def facts(output: str | None, no_redact: bool = False, root: str | None = None) -> None:
    """Print the facts snapshot as JSON (replay it later with `check --facts FILE`).

    Redacted like every other output (a snapshot is made to be shared); ``--no-redact`` keeps
    it verbatim for your own replay.
    """
    from envdoctor.commands._output import check_output_paths
    from envdoctor.probes import collect
    check_output_paths(output, ())
    from envdoctor.outputs.sink import keep_credentials
    keep_credentials(no_redact)  # every document of the run, also those written later
    if root is not None:
        from envdoctor.pipeline import root_dir
        data = collect(root=root_dir(root)).to_dict()
    else:
        data = collect().to_dict()
    if not no_redact:
        from envdoctor.outputs.redact import redact_data
        data = redact_data(data)
    emit(json.dumps(data, indent=2) + "\n", output, "json")
