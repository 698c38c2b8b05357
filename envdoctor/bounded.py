"""Bounded work on untrusted text: size caps, line caps and reads that cannot block.

Everything envdoctor parses (a tool's output, a file in someone's site-packages, a pasted
report) may be huge, binary, a FIFO or a device. These helpers make the cost of reading it
bounded before any regex sees it: at most ``limit`` bytes are read, a FIFO or device is never
opened for a blocking read, and no line is longer than ``MAX_LINE`` characters (so even a
pattern that scans a line costs a bounded amount per line).
"""

from __future__ import annotations

import os
import re
import stat

MAX_LINE = 16384         # characters kept of one line; the rest of the line is dropped
MAX_FILE = 1 << 20       # default cap for a probe's file read (version files, METADATA)


def cap_lines(text: str, max_line: int = MAX_LINE) -> str:
    """``text`` with every line cut to ``max_line`` characters; linear, C-speed when no line is
    long (one ``find`` per half window proves it)."""
    if len(text) <= max_line:
        return text
    step = max(max_line // 2, 1)
    for start in range(0, len(text) - step + 1, step):
        if text.find("\n", start, start + step) == -1:
            break
    else:
        return text
    return "\n".join(line[:max_line] for line in text.split("\n"))


# Runs no parsed text needs, shortened before any pattern sees them: a pattern like
# ``\s*X\s*$`` or ``(\d+)\s*MiB`` costs the square of the run it starts in, so capping runs
# at RUN characters (alignment in tables needs a few dozen spaces at most) bounds every one.
RUN = 64
_LONG_SPACES = re.compile(rf"[^\S\n]{{{RUN + 1},}}")  # any whitespace but newlines: tabs too
_LONG_DIGITS = re.compile(rf"\d{{{RUN + 1},}}")


# Byte classes for the fast test in ``has_long_run``: in UTF-8 every non-ASCII character is
# made only of bytes >= 0x80, so mapping those bytes into *both* classes keeps every real run
# (Unicode spaces and digits included) a run; a run of other non-ASCII text is only a false
# alarm, answered by the exact patterns.
_ASCII_SPACES = b"\t\x0b\x0c\r\x1c\x1d\x1e\x1f "
_AS_SPACE = bytes(32 if (i in _ASCII_SPACES or i >= 0x80) else 120 for i in range(256))
_AS_DIGIT = bytes(48 if (0x30 <= i <= 0x39 or i >= 0x80) else 120 for i in range(256))


def has_long_run(text: str) -> bool:
    """Whether ``text`` may hold a run ``defuse`` would cut: never False when it does.

    Two byte translations and two substring searches, about ten times cheaper than the
    patterns themselves, which need a try at every character.
    """
    data = text.encode("utf-8", "surrogatepass")
    return (b" " * (RUN + 1) in data.translate(_AS_SPACE)
            or b"0" * (RUN + 1) in data.translate(_AS_DIGIT))


def defuse(text: str) -> str:
    """``text`` with every run of whitespace (but newlines) or digits longer than ``RUN``
    cut to ``RUN`` (whitespace runs become spaces)."""
    if len(text) <= RUN or not has_long_run(text):
        return text
    text = _LONG_SPACES.sub(" " * RUN, text)
    return _LONG_DIGITS.sub(lambda m: m.group(0)[:RUN], text)


def read_regular(path: str | os.PathLike[str], limit: int = MAX_FILE) -> bytes | None:
    """At most ``limit`` bytes of a regular file; None for anything else or on any error.

    Opened with ``O_NONBLOCK`` so a FIFO planted where a version file should be cannot hang the
    probe at ``open``; a FIFO, socket or device (``/dev/zero`` as ``CUDA_HOME``) is refused by
    ``fstat`` before any read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, left = [], limit
        while left > 0:
            piece = os.read(fd, min(left, 1 << 20))
            if not piece:
                break
            chunks.append(piece)
            left -= len(piece)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike[str], limit: int = MAX_FILE,
              max_line: int = MAX_LINE) -> str | None:
    """``read_regular`` decoded as UTF-8 (invalid bytes replaced), lines and runs capped."""
    data = read_regular(path, limit)
    if data is None:
        return None
    return defuse(cap_lines(data.decode("utf-8", errors="replace"), max_line))
