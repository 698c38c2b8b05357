"""The *reduced* form of text that the scanner searches its anchors in.

ASCII lower-cased, with digits and the separators that fill training logs (``DROP``) deleted:
timestamps, losses, paths and progress bars are most of a log's bytes and say little about an
error. The scanner reduces every block once (one C-level ``bytes.translate``) and searches
anchors in it; the signature loader scores prefilter literals by their reduced length, since a
literal whose reduced form is short ('--gpu' -> 'gpu') is an anchor almost every line holds.
"""

from __future__ import annotations

_BYTES_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")
# Deleted before searching. Never "\n" (lines stay lines).
DROP = b"0123456789#:.-/=[]|_,%<> "


def reduce_bytes(data: bytes) -> bytes:
    """ASCII lower-case and delete ``DROP``: the text the anchors are searched in."""
    return data.translate(_BYTES_LOWER, DROP)


def reduce_text(text: str) -> str:
    """``reduce_bytes`` of a literal or line, as a str of bytes (latin-1) for ``choose_anchors``."""
    return reduce_bytes(text.encode("utf-8", "surrogatepass")).decode("latin-1")


def reduced_len(text: str) -> int:
    """Bytes of ``text`` left once reduced: how selective it is as an anchor."""
    return len(reduce_bytes(text.encode("utf-8", "surrogatepass")))
