"""Command line: a thin click group; each subcommand lives in envdoctor/commands/."""

from __future__ import annotations

import importlib
import os
import sys

import click

from envdoctor import __version__
from envdoctor.errors import EXIT_INTERNAL, EXIT_USAGE, write_crash_log


class LazyGroup(click.Group):
    """A click group that imports a subcommand's module only when that subcommand runs.

    Start-up time is most of `envdoctor check --static`; importing every subcommand (explain,
    report parsers, live workers …) for each run would cost more than the probes themselves.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, str] = {}

    def add_lazy(self, name: str, target: str) -> None:
        """Register ``name`` -> ``"package.module:attribute"`` without importing it."""
        self.lazy[name] = target

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in self.lazy:
            module, _, attr = self.lazy[name].partition(":")
            self.add_command(getattr(importlib.import_module(module), attr), name)
        return super().get_command(ctx, name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="envdoctor")
def cli() -> None:
    """envdoctor: can this machine train, and why not?"""


# One line per subcommand; its module is imported only when that subcommand runs.
cli.add_lazy("check", "envdoctor.commands.check:check")
cli.add_lazy("facts", "envdoctor.commands.facts_cmd:facts")
cli.add_lazy("rules", "envdoctor.commands.rules_cmd:rules")
cli.add_lazy("explain", "envdoctor.commands.explain:explain")
cli.add_lazy("report", "envdoctor.commands.report_cmd:report")
cli.add_lazy("diff", "envdoctor.commands.diff_cmd:diff")
cli.add_lazy("suggest", "envdoctor.commands.suggest_cmd:suggest")
cli.add_lazy("fleet", "envdoctor.commands.fleet_cmd:fleet")


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


def run() -> None:
    """Console-script entry: ``main``, then leave without interpreter teardown.

    Everything is written and flushed by then; tearing down ~300 modules costs ~30 ms of a
    0.3 s `check --static`, and skipping it also means a probe thread stuck in a C call (a
    hung NVML) can never delay the exit. ``main`` itself stays importable and testable.
    """
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
    else:
        code = 0
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more to say
            pass
    os._exit(code)
