"""The one place that maps errors to exit codes (documented in README.md, "Exit codes").

0 nothing at or above --fail-on · 1 findings at or above it · 2 usage or bad input ·
3 internal error (one line on stderr plus the path of a crash log to attach to an issue).
"""

from __future__ import annotations

import contextlib
import os
import sys
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


# ---------------------------------------------------------------------------- bounded inputs
MAX_INPUT = 32 << 20   # a facts snapshot or a policy is kilobytes; 32 MB is not one
MAX_DEPTH = 64         # nesting of a facts snapshot is about 6; JSON deeper than this is hostile
FIFO_WAIT = 5.0        # seconds a named FIFO may stay silent before we say so


def open_input(path: str, what: str):
    """A binary file object for an input file or ``-`` (stdin), refusing what cannot be one.

    A directory, a device (``/dev/zero``) or a socket is a one-line BadInput. Stdin and
    ``<(cmd)`` pipes are read as they come (like ``cat``); a named FIFO that nobody writes to
    within ``FIFO_WAIT`` seconds is a BadInput, rather than a hang. The caller closes it.
    """
    import select
    import stat

    with reading(path, what):
        if path == "-":
            fd = os.dup(sys.stdin.fileno()) if sys.stdin is not None else -1
            if fd < 0:
                raise BadInput("-: stdin is closed")
        else:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                         | getattr(os, "O_CLOEXEC", 0))
        try:
            mode = os.fstat(fd).st_mode
            if stat.S_ISDIR(mode):
                raise IsADirectoryError(path)
            if path != "-" and (stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode)):
                raise BadInput(f"{path}: is a device or socket, not {what}")
            if stat.S_ISFIFO(mode) and path != "-" and not _inherited_pipe(path):
                ready, _, _ = select.select([fd], [], [], FIFO_WAIT)
                if not ready:
                    raise BadInput(f"{path}: nothing was written to this pipe within "
                                   f"{FIFO_WAIT:g} s, not {what}")
            if path != "-":
                os.set_blocking(fd, True)
            return os.fdopen(fd, "rb")
        except BaseException:
            os.close(fd)
            raise


def _inherited_pipe(path: str) -> bool:
    """``<(cmd)`` gives /dev/fd/N: a pipe whose writer already runs; read it like stdin."""
    return path.startswith(("/dev/fd/", "/proc/self/fd/", "/dev/stdin"))


def read_input(path: str, what: str, limit: int = MAX_INPUT) -> bytes:
    """An input file read whole, at most ``limit`` bytes (more: one-line BadInput)."""
    fh = open_input(path, what)
    with fh, reading(path, what):
        chunks, size = [], 0
        while size <= limit:
            piece = fh.read(min(1 << 20, limit + 1 - size))
            if not piece:
                break
            chunks.append(piece)
            size += len(piece)
    if size > limit:
        raise BadInput(f"{path}: larger than {limit >> 20} MB, not {what}")
    return b"".join(chunks)


def load_json_file(path: str, what: str, limit: int = MAX_INPUT) -> object:
    """JSON from a file, with size and depth capped: every failure is one line, exit 2."""
    import json

    data = read_input(path, what, limit)
    if b"\x00" in data[:8192]:
        raise BadInput(f"{path}: binary data, not {what}")
    with reading(path, what):
        text = data.decode("utf-8-sig")
    try:
        value = json.loads(text)
    except RecursionError:
        raise BadInput(f"{path}: JSON nested deeper than {MAX_DEPTH} levels, not {what}") from None
    except ValueError as exc:
        where = f" at line {exc.lineno}" if hasattr(exc, "lineno") else ""
        raise BadInput(f"{path}: not valid JSON ({getattr(exc, 'msg', exc)}{where})") from None
    if json_depth(value) > MAX_DEPTH:
        raise BadInput(f"{path}: JSON nested deeper than {MAX_DEPTH} levels, not {what}")
    return value


def json_depth(value: object) -> int:
    """Nesting depth of parsed JSON, without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, depth)
            if depth <= MAX_DEPTH:
                stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list)))
    return deepest
