"""Undo a terminal's hard wrap, so that an error line cut at the screen width reads whole again.

A log copied out of a terminal (or an old issue template) may be cut every W characters, in the
middle of a word: ``Failed to find dynamic library: libc`` / ``udnn.so (libcudnn.so: ...``.
Signatures match one line at a time, so such a text can match nothing. The cut lines are the
longest lines of the text and share one exact length, which an ordinary log rarely does; that
is the sign we look for. ``unwrap`` joins each line of exactly that width with the next one.
It is a fallback: ``explain`` uses it only when the text as given explains nothing.
"""

from __future__ import annotations

from collections import Counter

MIN_WIDTH = 40        # narrower "wraps" are ordinary short lines
MIN_CUT_LINES = 2     # lines of exactly the wrap width needed to call the text wrapped
MAX_TEXT = 4 << 20    # pasted texts; a big log is not re-read
TABLE_EDGES = ("|", "+", "-", "=")


def wrap_width(text: str) -> int | None:
    """The width the text was hard-wrapped at, or None when it does not look wrapped."""
    if len(text) > MAX_TEXT:
        return None
    lengths = Counter(len(line) for line in text.splitlines() if line.strip())
    if not lengths:
        return None
    width = max(lengths)
    if width < MIN_WIDTH or lengths[width] < MIN_CUT_LINES:
        return None
    return width


def unwrap(text: str, width: int) -> str:
    """Join every line of exactly ``width`` characters with the line after it.

    Table rows (``| ... |``, ``+---+``) keep their line breaks: a table's rows all share one
    width and are not wrapped text.
    """
    out: list[str] = []
    pending = ""
    for line in text.splitlines():
        joined = pending + line
        if len(line) == width and line.strip() and not line.rstrip().endswith(TABLE_EDGES):
            pending = joined
            continue
        out.append(joined)
        pending = ""
    if pending:
        out.append(pending)
    return "\n".join(out) + "\n"
