"""Command line: a thin click group; each subcommand lives in envdoctor/commands/."""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import sys
import threading

import click

from envdoctor import __version__
from envdoctor.cligroups import SuggestingGroup
from envdoctor.errors import EXIT_INTERNAL, EXIT_USAGE


class LazyGroup(SuggestingGroup):
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

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """``--help``'s list of subcommands, from LAZY_HELP (each command's first help
        paragraph) for those not imported: importing all eight to print one line each cost
        ~90 ms. tests/test_cli_help.py keeps LAZY_HELP equal to the commands' own help."""
        names = self.list_commands(ctx)
        if any(n not in self.commands and n not in LAZY_HELP for n in names):
            super().format_commands(ctx, formatter)
            return
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = []
        for name in names:
            cmd = self.commands.get(name)
            if cmd is None:
                stand_in = click.Command(name, help=LAZY_HELP[name])  # click's own shortening
                rows.append((name, stand_in.get_short_help_str(limit)))
            elif not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


EPILOG = ("Exit codes: 0 no finding at or above --fail-on; 1 findings; 2 usage error, bad "
          "input or unwritable output; 3 internal error (crash log); 128+N ended by signal N "
          "(143 SIGTERM, 129 SIGHUP, 130 SIGINT, 131 SIGQUIT), every child ended first. "
          "A reader that "
          "leaves early (| head) keeps the command's own code.")


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]},
             epilog=EPILOG)
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

# The first paragraph of each lazy subcommand's help, for `envdoctor --help` (see
# LazyGroup.format_commands; a test fails when one drifts from the command's docstring).
LAZY_HELP = {
    "check": "Tell whether this machine can train, and why not.",
    "diff": "Compare two facts snapshots (or check/report JSONs), ranked by what likely "
            "matters.",
    "explain": "Explain an error: FILE, - (stdin, the default) or a rule CODE (ETORCH001, "
               "TORCH001).",
    "facts": "Print the facts snapshot as JSON (replay it later with `check --facts FILE`).",
    "fleet": "Check a cluster as its job sees it: run as every rank, e.g.\n    `torchrun "
             "--nnodes=N --nproc-per-node=G -m envdoctor fleet`.",
    "report": "A bug report to paste into an issue: facts, findings, smoke results "
              "(redacted).",
    "rules": "List, explain and test the rules: checks, error signatures, requirements and "
             "fleet rules.",
    "suggest": "The newest release of each FRAMEWORK that runs here, its variant and the "
               "exact command.",
}


def main(argv: list[str] | None = None) -> None:
    """Entry point: the one error boundary that turns failures into exit codes.

    0 and 1 come only from a command's verdict; bad input and output that cannot be written
    (closed or full stdout) are 2 with one line on stderr; anything unexpected is 3 with a
    crash log. Never a traceback. A reader that left (EPIPE) is quiet: ``streams.guard``
    lets the command run on to its own code, and an EPIPE that still gets here is 0.
    """
    from envdoctor import streams
    streams.guard()
    crashed: list[str] = []
    previous_hook = threading.excepthook
    threading.excepthook = functools.partial(_thread_crashed, crashed)
    try:
        code = cli.main(args=argv, prog_name="envdoctor", standalone_mode=False)
        streams.flush_stdout()
    except click.exceptions.Abort as exc:
        cause = exc.__cause__ or exc.__context__
        if isinstance(cause, EOFError):
            # click's main turns every EOFError of a command into Abort, which said "aborted"
            # and 130 (Ctrl-C's code) for a fault: a .pyc a full disk truncated ("marshal data
            # too short"), a stream that ended early. envdoctor prompts for nothing, so an
            # EOFError is never the user's: it is a crash like any other
            code = _internal(cause)
        else:
            _say("envdoctor: aborted")
            code = 130
    except click.UsageError as exc:  # click's own: an option, value, argument or command
        _say(f"envdoctor: error: {usage_line(exc)}")
        code = EXIT_USAGE
    except click.ClickException as exc:
        with contextlib.suppress(Exception):
            from envdoctor.crashlog import redacted
            # click declares message Final; show() prints it, so redaction rewrites it first
            exc.message = redacted(exc.message)  # type: ignore[misc]
            exc.show()
        code = exc.exit_code if exc.exit_code else EXIT_USAGE
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
        try:
            streams.flush_stdout()
        except click.ClickException as out_exc:
            out_exc.show()
            code = out_exc.exit_code
    except BrokenPipeError:  # the reader left (| head): the verdict stands, if there was one
        streams.silence_stdout()
        code = 0
    except KeyboardInterrupt:  # in-process callers; the CLI entry handles SIGINT itself
        _say("envdoctor: terminated by SIGINT")
        code = 130
    except Exception as exc:  # the crash boundary: one line + a log to attach
        code = _internal(exc)
    finally:
        threading.excepthook = previous_hook
    if crashed and code in (0, 1, None):  # a verdict reached without a thread's part
        code = EXIT_INTERNAL
    sys.exit(code if isinstance(code, int) else 0)


def _internal(exc: BaseException) -> int:
    """An unexpected exception: one line naming a crash log, exit 3 (a failed write to stdout
    deep inside click.echo, ENOSPC or EIO, is exit 2)."""
    stdout_error = _stdout_broken(exc)
    if stdout_error:
        _say(f"envdoctor: error: cannot write to stdout: {stdout_error}")
        sys.exit(EXIT_USAGE)
    try:
        from envdoctor.crashlog import one_line, write_crash_log
        path = write_crash_log(exc)
        message = one_line(exc)
    except Exception as log_exc:  # noqa: BLE001
        path, message = f"(no crash log: {type(log_exc).__name__})", ""
    _say(f"envdoctor: internal error: {type(exc).__name__}: {message} (details in {path})")
    return EXIT_INTERNAL


def _thread_crashed(crashed: list[str], args: threading.ExceptHookArgs) -> None:
    """An exception that ends a thread (a framework worker's watcher, a probe): Python's own
    hook prints its traceback on stderr, past the boundary in ``main``. Here it is what any
    crash is: a redacted crash log and one line (the first such thread's), and the run's code
    becomes 3, since its verdict lacks that thread's part."""
    if args.exc_type is SystemExit or args.exc_value is None:
        return
    try:
        from envdoctor.crashlog import one_line, write_crash_log
        path = write_crash_log(args.exc_value)
        message = one_line(args.exc_value)
    except Exception as log_exc:  # noqa: BLE001
        path, message = f"(no crash log: {type(log_exc).__name__})", ""
    if not crashed:
        name = args.thread.name if args.thread is not None else "?"
        from envdoctor.crashlog import redacted
        _say(redacted(f"envdoctor: internal error in thread {name}: {args.exc_type.__name__}: "
                      f"{message} (details in {path})"))
    crashed.append(path)


def usage_line(exc: click.UsageError) -> str:
    """click's usage error as the one line every bad input gets (README, exit codes): not
    click's four (usage, hint, blank, error), redacted like any error line (click quotes the
    value the user gave: a token pasted into the wrong option is echoed), naming the help to
    read. A bare group (``envdoctor``, ``envdoctor rules``) prints its help on stdout first."""
    ctx = exc.ctx
    where = ctx.command_path if ctx is not None else "envdoctor"
    if isinstance(exc, click.exceptions.NoArgsIsHelpError) and ctx is not None:
        with contextlib.suppress(Exception):
            from envdoctor.outputs import sink
            sink.write(ctx.get_help() + "\n", None, "text")
        return f"{where} needs a command (see `{where} --help`)"
    try:
        message = exc.format_message()
    except Exception:  # noqa: BLE001 - a message click could not build: say what we know
        message = "invalid command line"
    from envdoctor.crashlog import redacted
    return f"{redacted(message)} (see `{where} --help`)"


def _stdout_broken(exc: BaseException) -> str:
    """The reason when ``exc`` is a failed write to stdout (``click.echo`` on a full disk, a
    closed descriptor, an I/O error), else ""."""
    if not isinstance(exc, OSError):
        return ""
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_name == "echo" and code.co_filename.replace("\\", "/").endswith(
                "click/utils.py"):
            from envdoctor import streams
            streams.silence_stdout()
            return exc.strerror or str(exc)
        tb = tb.tb_next
    return ""


def _say(line: str) -> None:
    from envdoctor.outputs.stderr import say
    say(line)


def run() -> None:
    """Console-script entry: ``main``, then leave without interpreter teardown.

    Everything is written and flushed by then; tearing down ~300 modules costs ~30 ms of a
    0.3 s `check --static`, and skipping it also means a probe thread stuck in a C call can
    never delay the exit. Commands still running (a probe abandoned at its deadline) are
    killed with their process groups first: no process outlives envdoctor. SIGTERM, SIGHUP,
    SIGINT and SIGQUIT end every child too, then envdoctor with one line and 128 + the signal's
    number (``terminate``; installed here, not in ``main``, which stays importable and
    testable in-process).
    """
    from envdoctor import terminate
    terminate.install()
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
    else:
        code = 0
    finally:
        if "envdoctor.children" in sys.modules:
            sys.modules["envdoctor.children"].kill_all()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # a closed pipe: nothing more to say
            pass
    os._exit(code)
