"""stdout and stderr as they really are: closed (``>&-``), full (``/dev/full``), a pipe whose
reader left (``| head``), or a terminal that cannot encode ``✓`` (latin-1, cp1252, ascii).

``guard`` runs first thing in ``cli.main``; commands print through ``write_stdout``. A write
that cannot happen is an ``OutputError`` (one line, exit 2), never a traceback or exit 1; a
symbol the terminal cannot show is written in ASCII (``✓`` -> ``ok``, ``—`` -> ``-``).
"""

from __future__ import annotations

import codecs
import contextlib
import os
import sys

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
