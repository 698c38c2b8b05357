"""stdout and stderr as they really are: closed (``>&-``), full (``/dev/full``), a pipe whose
reader left (``| head``), or a terminal that cannot encode ``✓`` (latin-1, cp1252, ascii).

``guard`` runs first thing in ``cli.main``; commands print through ``write_stdout``. A write
that cannot happen is an ``OutputError`` (one line, exit 2), never a traceback or exit 1; a
symbol the terminal cannot show is written in ASCII (``✓`` -> ``ok``, ``—`` -> ``-``).

A reader that leaves (``| head -1``) is no failure: ``guard`` wraps stdout and stderr so that
EPIPE, wherever it surfaces (``click.echo``, rich, ``print``, the last flush), turns the stream
into /dev/null and the command carries on to its own exit code: its verdict, else 0. Neither
click (which turns EPIPE into exit 1) nor rich (likewise) ever sees the broken pipe.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import sys
from typing import Any

ERRORS = "envdoctor-ascii"
ASCII = {
    "\u2713": "ok", "\u2714": "ok", "\u2717": "x", "\u2718": "x", "\u2014": "-", "\u2013": "-",
    "\u2192": "->", "\u2190": "<-", "\u2026": "...", "\u2265": ">=", "\u2264": "<=",
    "\u00d7": "x", "\u00b7": "-", "\u2022": "*", "\u201c": '"', "\u201d": '"', "\u2018": "'",
    "\u2019": "'", "\u2248": "~", "\u00b2": "^2", "\u00b5": "u", "\u2212": "-", "\u00a0": " ",
    "\u2500": "-", "\u2502": "|", "\u26a0": "!", "\u2139": "i",
}
_closed_stdout = False


def _ascii_fallback(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    text = exc.object[exc.start:exc.end]
    return "".join(ASCII.get(ch, "?") for ch in text), exc.end


codecs.register_error(ERRORS, _ascii_fallback)


class _Closed:
    """Stands in for a stdout that was closed before envdoctor started."""

    encoding = "utf-8"
    errors = "strict"

    def write(self, text: str) -> int:
        from envdoctor.errors import OutputError
        raise OutputError("stdout is closed: nothing can be printed (use --output FILE)")

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError("stdout is closed")


def guard() -> None:
    """Make the standard streams safe to use: closed ones are marked and their descriptors
    held by /dev/null (so no file we open later becomes fd 1), and a terminal that cannot
    encode our symbols gets their ASCII spellings."""
    global _closed_stdout
    for fd, name in ((1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
        except OSError:
            _hold(fd)
            if name == "stdout":
                _closed_stdout = True
    if sys.stdout is None or _closed_stdout:
        _closed_stdout = True
        sys.stdout = _Closed()
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    for stream in (sys.stdout, sys.stderr):
        _ascii_if_needed(stream)
    if not _closed_stdout and not isinstance(sys.stdout, PipeSafe):
        sys.stdout = PipeSafe(sys.stdout, 1)
    if not isinstance(sys.stderr, PipeSafe):
        sys.stderr = PipeSafe(sys.stderr, 2)


class PipeSafe:
    """A text stream whose reader may leave: EPIPE on a write or flush points the descriptor
    at /dev/null and makes every later write succeed silently. Any other error (ENOSPC, EIO)
    is raised as before. Everything else is the wrapped stream's own."""

    def __init__(self, stream: Any, fd: int):
        self._stream = stream
        self._fd = fd
        self.broken = False

    def write(self, text: str) -> int:
        try:
            return int(self._stream.write(text) or 0)
        except BrokenPipeError:
            self._quiet()
            return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._quiet()

    @property
    def buffer(self) -> Any:
        """The binary stream under it, as safe (``click.echo`` of bytes writes there)."""
        return _PipeSafeBinary(self._stream.buffer, self)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def _quiet(self) -> None:
        self.broken = True
        with contextlib.suppress(OSError):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._fd)
            os.close(null)
        with contextlib.suppress(Exception):
            self._stream = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115


class _PipeSafeBinary:
    """``PipeSafe``'s binary side: the same EPIPE rule for ``buffer.write``."""

    def __init__(self, raw: Any, owner: PipeSafe):
        self._raw = raw
        self._owner = owner

    def write(self, data: bytes) -> int:
        if self._owner.broken:
            return len(data)
        try:
            return int(self._raw.write(data) or 0)
        except BrokenPipeError:
            self._owner._quiet()
            return len(data)

    def flush(self) -> None:
        if self._owner.broken:
            return
        try:
            self._raw.flush()
        except BrokenPipeError:
            self._owner._quiet()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


def reader_left() -> bool:
    """Did stdout's reader leave (EPIPE) during this run?"""
    return isinstance(sys.stdout, PipeSafe) and sys.stdout.broken


def _hold(fd: int) -> None:
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)


def _ascii_if_needed(stream) -> None:
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("_", "-")
    if encoding in ("utf-8", "utf8", "utf-16", "utf-32") or not hasattr(stream, "reconfigure"):
        return
    with contextlib.suppress(Exception):
        "\u2713\u2014".encode(encoding)
        return
    with contextlib.suppress(Exception):
        stream.reconfigure(errors=ERRORS)


def write_stdout(text: str) -> None:
    """Write and flush ``text``; a reader that left is fine, any other failure is one line."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
    except (OSError, ValueError) as exc:
        from envdoctor.errors import OutputError
        raise OutputError(f"cannot write to stdout: {getattr(exc, 'strerror', None) or exc}") \
            from None


def flush_stdout() -> None:
    """Flush what is buffered (the last chance for ENOSPC to show) as an ``OutputError``."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
    except (OSError, ValueError) as exc:
        silence_stdout()
        from envdoctor.errors import OutputError
        raise OutputError(f"cannot write to stdout: {getattr(exc, 'strerror', None) or exc}") \
            from None


def silence_stdout() -> None:
    """Point stdout at /dev/null: nothing more can reach the reader, and exit must not fail."""
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    with contextlib.suppress(Exception):
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
