"""Turn any text input into normalised blocks of lines, as a stream with bounded memory.

Input can be a bare traceback, a 100 MB training log or a pasted GitHub issue. We read bytes
in chunks (never the whole file), decode UTF-8 with ``errors="replace"`` (invalid bytes never
stop us), and normalise each block of whole lines:

- CRLF becomes LF; a line overwritten with lone CRs (progress bars) keeps its last segment,
  as a terminal shows it, so line numbers stay those of the file (LF count);
- ANSI colour/cursor codes are removed;
- Markdown quoting (``> ``, ``> > ``) at the start of a line is removed, and HTML entities
  (``&quot;`` ``&lt;``) from copied web pages are decoded;
- a line longer than ``max_line`` characters is cut (the rest up to its newline is skipped), so
  a 10 MB single line costs linear time, not quadratic regex work.

Blocks are ``(first_line_number, text)`` with ``text`` made of ``\n``-separated lines and no
trailing newline. Line numbers are 1-based and count the normalised lines.
"""

from __future__ import annotations

import codecs
import html
import re
from collections.abc import Iterator
from typing import BinaryIO

BLOCK_BYTES = 1 << 20
MAX_LINE = 4096

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# starts with a literal newline, so the regex engine jumps from line start to line start
_QUOTE = re.compile(r"\n[ \t]{0,3}>(?:[ \t]?>)*[ \t]?")
_ENTITY = re.compile(r"&(?:quot|lt|gt|amp|#39|#x27|#34|nbsp);")


class NotText(ValueError):
    """The input is not text (a binary file); the message is one line for the user."""


def looks_binary(head: bytes) -> bool:
    """A NUL byte, or mostly control bytes, in the first few KB: not a log or a traceback."""
    if not head:
        return False
    if b"\x00" in head[:8192]:
        # UTF-16 logs from Windows PowerShell are text; accept them only with a BOM.
        return not head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    sample = head[:8192]
    control = sum(1 for b in sample if b < 9 or 13 < b < 32 and b != 27)
    return control > len(sample) * 0.10


def normalise(text: str, max_line: int = MAX_LINE) -> str:
    """Normalise one block of whole lines (see the module docstring)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:  # progress bars: keep what a terminal shows, the last segment
            text = _collapse_cr_lines(text)
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "&" in text and _ENTITY.search(text):
        text = _ENTITY.sub(lambda m: html.unescape(m.group(0)), text)
    if text.startswith((">", " >")) or "\n>" in text or "\n >" in text:
        text = _QUOTE.sub("\n", "\n" + text)[1:]
    if _may_have_long_line(text, max_line):
        text = "\n".join(line[:max_line] for line in text.split("\n"))
    return text


def _collapse_cr_lines(text: str) -> str:
    """Apply ``_last_segment`` to the lines that contain a lone CR, and only to those."""
    out: list[str] = []
    pos = 0
    cr = text.find("\r")
    while cr != -1:
        start = text.rfind("\n", 0, cr) + 1
        end = text.find("\n", cr)
        end = len(text) if end == -1 else end
        out.append(text[pos:start])
        out.append(_last_segment(text[start:end]))
        pos = end
        cr = text.find("\r", end)
    out.append(text[pos:])
    return "".join(out)


def _last_segment(line: str) -> str:
    """``a\rb\rc`` -> ``c`` (the last non-blank ``\r`` segment, as a terminal shows it)."""
    for seg in reversed(line.split("\r")):
        if seg.strip():
            return seg
    return ""


def _may_have_long_line(text: str, max_line: int) -> bool:
    """True if some line may exceed ``max_line``; False is certain.

    A line longer than ``max_line`` covers a whole aligned window of ``max_line // 2``
    characters, so looking for a newline in each such window (one C-level ``find`` per 2 KB)
    is enough, where a regex like ``[^\n]{4097,}`` would restart at every character.
    """
    step = max(max_line // 2, 1)
    if len(text) <= max_line:
        return False
    for start in range(0, len(text) - step + 1, step):
        if text.find("\n", start, start + step) == -1:
            return True
    return False


def read_blocks(stream: BinaryIO, block_bytes: int = BLOCK_BYTES,
                max_line: int = MAX_LINE, first_line: int = 1) -> Iterator[tuple[int, str]]:
    """Yield ``(first_line_number, normalised_text)`` blocks from a binary stream.

    Raises ``NotText`` when the first chunk looks binary. Memory is O(block_bytes + max_line).
    """
    first = stream.read(block_bytes)
    if looks_binary(first):
        raise NotText("this looks like a binary file, not a log or a traceback")
    encoding = "utf-8"
    if first.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    carry = ""          # an unfinished last line from the previous chunk
    skipping = False    # inside an over-long line: drop text up to its newline
    line_no = first_line
    chunk = first
    while True:
        final = not chunk
        text = decoder.decode(chunk, final=final)
        if text.startswith("\ufeff") and line_no == first_line and not carry:
            text = text[1:]
        if skipping:
            cut = text.find("\n")
            if cut == -1:
                text = ""
            else:
                text, skipping = text[cut + 1:], False
        text = carry + text
        body: str | None = None
        if final:
            body, carry = (text.removesuffix("\r")) or None, ""
        else:
            cut = text.rfind("\n")
            if cut != -1:
                body, carry = text[:cut], text[cut + 1:]
                if body.endswith("\r"):  # the CR of a CRLF: not a line of its own
                    body = body[:-1]
            else:
                carry = text
            if len(carry) > max_line:  # a very long line: keep its head, skip the rest
                body = (body + "\n" if body is not None else "") + carry[:max_line]
                carry, skipping = "", True
        if body is not None:
            block = normalise(body, max_line)
            yield line_no, block
            line_no += block.count("\n") + 1
        if final:
            return
        chunk = stream.read(block_bytes)
