"""The one place that maps errors to exit codes (documented in README.md, "Exit codes").

0 nothing at or above --fail-on · 1 findings at or above it · 2 usage or bad input ·
3 internal error (one line on stderr plus the path of a crash log to attach to an issue).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import click

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


class BadInput(click.ClickException):
    """Bad input from the user (a missing file, invalid JSON, a wrong schema): exit 2."""

    exit_code = EXIT_USAGE

    def show(self, file=None) -> None:
        from envdoctor.outputs.stderr import say
        say(f"envdoctor: error: {self.format_message()}")


@contextlib.contextmanager
def reading(path: str | os.PathLike[str], what: str) -> Iterator[None]:
    """Turn the ways reading an input file fails into one-line BadInput messages (exit 2).

    ``what`` names the input for a directory given by mistake: "a facts file", "a report".
    """
    try:
        yield
    except FileNotFoundError:
        raise BadInput(f"{path}: no such file") from None
    except IsADirectoryError:
        raise BadInput(f"{path}: is a directory, not {what}") from None
    except UnicodeDecodeError:
        raise BadInput(f"{path}: not UTF-8 text, not {what}") from None
    except OSError as exc:
        raise BadInput(f"{path}: cannot read: {exc.strerror or exc}") from None


class OutputError(click.ClickException):
    """Output that cannot be written (closed or full stdout, an unwritable --output): exit 2."""

    exit_code = EXIT_USAGE

    def show(self, file=None) -> None:
        from envdoctor.outputs.stderr import say
        say(f"envdoctor: error: {self.format_message()}")
