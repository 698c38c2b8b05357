"""Command line: a thin click group; each subcommand lives in envdoctor/commands/."""

from __future__ import annotations

import sys

import click

from envdoctor import __version__
from envdoctor.commands.check import check
from envdoctor.commands.facts_cmd import facts
from envdoctor.errors import EXIT_INTERNAL, EXIT_USAGE, write_crash_log


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="envdoctor")
def cli() -> None:
    """envdoctor: can this machine train, and why not?"""


cli.add_command(check)
cli.add_command(facts)


def main(argv: list[str] | None = None) -> None:
    """Entry point: the one error boundary that turns failures into exit codes."""
    try:
        code = cli.main(args=argv, prog_name="envdoctor", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("envdoctor: aborted", err=True)
        code = 130
    except click.ClickException as exc:
        exc.show()
        code = exc.exit_code if exc.exit_code else EXIT_USAGE
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
    except BrokenPipeError:
        code = 0
    except KeyboardInterrupt:
        code = 130
    except Exception as exc:  # the crash boundary: one line + a log to attach
        path = write_crash_log(exc)
        click.echo(f"envdoctor: internal error: {type(exc).__name__}: {exc} "
                   f"(details in {path})", err=True)
        code = EXIT_INTERNAL
    sys.exit(code if isinstance(code, int) else 0)
