"""``python -m envdoctor.matrices.refresh --sources DIR``: the diff the sources make to
rules/matrices (exit 1 when there is one, 0 when the data already says it all, 2 on bad
input); ``--write`` applies it, ``--diff FILE`` also writes it to FILE (the workflow's PR body)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from envdoctor.matrices.refresh import RefreshError, apply, compare, load_sources, render


@click.command()
@click.option("--sources", "sources", required=True, metavar="DIR",
              type=click.Path(file_okay=False, path_type=Path),
              help="Directory with sources.toml and the source files.")
@click.option("--rules", "rules", default=None, metavar="DIR",
              type=click.Path(file_okay=False, path_type=Path),
              help="The rules tree to refresh (default: the one envdoctor reads).")
@click.option("--write", is_flag=True, help="Write the changed cells into the matrix files.")
@click.option("--diff", "diff_file", metavar="FILE", type=click.Path(path_type=Path),
              help="Also write the diff to FILE.")
def main(sources: Path, rules: Path | None, write: bool, diff_file: Path | None) -> None:
    if rules is None:
        from envdoctor.rulefiles import rules_dir
        rules = rules_dir()
    try:
        changes = compare(load_sources(sources), rules)
    except RefreshError as exc:
        click.echo(f"refresh: {exc}", err=True)
        sys.exit(2)
    text = render(changes)
    try:
        if diff_file is not None:
            diff_file.write_text(text, "utf-8")
        written = apply(changes, rules) if write else []
    except OSError as exc:
        click.echo(f"refresh: cannot write: {exc}", err=True)
        sys.exit(2)
    click.echo(text or "no change: the matrices already hold what the sources state\n",
               nl=False)
    for path in written:
        click.echo(f"wrote {path}", err=True)
    sys.exit(1 if changes else 0)


if __name__ == "__main__":
    main()
