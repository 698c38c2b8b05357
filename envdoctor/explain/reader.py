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
from typing import Protocol

BLOCK_BYTES = 64 << 10  # a block, its reduced copy and its lines stay in the CPU caches:
#                         with line shapes cached across blocks (explain/scan.py), 64 KB blocks
#                         take ~20 % less CPU than 256 KB ones and ~25 % less than 1 MB ones
#                         on a 100 MB log (benchmarks/bench_explain.py); no slower on a log of
#                         lines that never repeat
MAX_LINE = 4096

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# starts with a literal newline, so the regex engine jumps from line start to line start
_QUOTE = re.compile(r"\n[ \t]{0,3}>(?:[ \t]?>)*[ \t]?")
_ENTITY = re.compile(r"&(?:quot|lt|gt|amp|#39|#x27|#34|nbsp);")


class ByteReader(Protocol):
    """What the readers use of a stream: ``read(n)``, ``b""`` at its end (a file opened "rb",
    ``sys.stdin.buffer``, the wrappers of ``explain.parallel`` and ``commands.explain``)."""

    def read(self, n: int, /) -> bytes: ...


class FileReader(ByteReader, Protocol):
    """A reader that may be a regular file, which ``explain.parallel`` splits by offset;
    ``fileno`` and ``tell`` may raise OSError (a pipe, an in-memory stream)."""

    def fileno(self) -> int: ...

    def tell(self) -> int: ...


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


def read_blocks(stream: ByteReader, block_bytes: int = BLOCK_BYTES,
                max_line: int = MAX_LINE, first_line: int = 1) -> Iterator[tuple[int, str]]:
    """Yield ``(first_line_number, normalised_text)`` blocks from a binary stream.

    Raises ``NotText`` when the first chunk looks binary. Memory is O(block_bytes + max_line).
    """
    first = stream.read(block_bytes)
    if looks_binary(first):
        raise NotText("this looks like a binary file, not a log or a traceback")
    return _text_blocks(first, stream, block_bytes, max_line, first_line)


def _text_blocks(first: bytes, stream: ByteReader, block_bytes: int, max_line: int,
                 first_line: int) -> Iterator[tuple[int, str]]:
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


# ---------------------------------------------------------------------------- raw fast path
# Decoding and normalising every line costs ~12 ms/MB, a third of the 20 ms/MB budget, while
# a big log has only a few lines of interest. So the scanner's fast path reads *raw* UTF-8
# blocks of whole lines, searches them as bytes, and decodes and normalises only the lines it
# hands to a regex (``normalise_line``). That gives the same lines as ``normalise`` on the
# block as long as normalising works line by line: true unless the block has ANSI escapes (an
# OSC sequence may span lines) or HTML entities (decoding one may create a match that is not
# in the raw bytes); ``raw_needs_block_normalise`` sends those blocks the slow way.
_ENTITY_BYTES = re.compile(_ENTITY.pattern.encode())
UTF8_BOM = codecs.BOM_UTF8


def read_raw(stream: ByteReader, block_bytes: int = BLOCK_BYTES, max_line: int = MAX_LINE,
             head: bool = True, tail: bool = True) -> Iterator[tuple[bytes, bool]]:
    """Yield ``(utf8_bytes, normalised)`` blocks of whole lines (no trailing newline).

    ``normalised`` is False for raw UTF-8 input (the caller normalises what it uses, see
    ``normalise_line``) and True for UTF-16 input, which is decoded, normalised and re-encoded
    here. Blocks and lines are those of ``read_blocks``, including its cut of a line longer than
    ``max_line`` characters that spans two chunks, so memory stays O(block_bytes). Raises
    ``NotText`` when the first chunk looks binary.

    For a part of a UTF-8 input (``explain.parallel``): ``head=False`` when the stream starts
    inside the input (no binary, BOM or UTF-16 test), ``tail=False`` when it stops inside it
    (its unfinished last line belongs to the next part and is not yielded).
    """
    first = stream.read(block_bytes)
    if head and looks_binary(first):
        raise NotText("this looks like a binary file, not a log or a traceback")
    if head and first.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        for _, text in _text_blocks(first, stream, block_bytes, max_line, 1):
            yield text.encode("utf-8", "surrogatepass"), True
        return
    carry = b""
    skipping = False
    chunk = first.removeprefix(UTF8_BOM) if head else first
    while True:
        final = not chunk
        if skipping:
            cut = chunk.find(b"\n")
            if cut == -1:
                chunk = b""
            else:
                chunk, skipping = chunk[cut + 1:], False
        body: bytes | None = None
        if final and not tail:
            return
        if final:
            body, carry = carry.removesuffix(b"\r") or None, b""
        else:
            # carry holds no LF, so the last LF of carry + chunk is the chunk's; the body is
            # built with one copy (join of a view), not two (concatenate, then slice)
            cut = chunk.rfind(b"\n")
            if cut > 0:
                end = cut - 1 if chunk[cut - 1] == 13 else cut  # 13: the CR of a CRLF
                body = b"".join((carry, memoryview(chunk)[:end])) if carry else chunk[:end]
                carry = chunk[cut + 1:]
            elif cut == 0:  # the chunk's only LF ends the carried line
                body, carry = carry.removesuffix(b"\r"), chunk[1:]
            else:
                carry = carry + chunk
            kept = _head(carry, max_line) if len(carry) > max_line else None
            if kept is not None:  # a very long line: keep its head, skip the rest
                body = (body + b"\n" if body is not None else b"") + kept
                carry, skipping = b"", True
        if body is not None:
            yield body, False
        if final:
            return
        chunk = stream.read(block_bytes)


def _head(carry: bytes, max_line: int) -> bytes | None:
    """The first ``max_line`` characters of an unfinished line, if it has more (else None).

    Counted as ``read_blocks`` counts them: decoded, without a trailing partial character.
    """
    if carry.isascii():
        return carry[:max_line]
    text = codecs.getincrementaldecoder("utf-8")("replace").decode(carry, final=False)
    if len(text) <= max_line:
        return None
    return text[:max_line].encode("utf-8", "surrogatepass")


PATCH_MAX = 1000  # lines with escapes or entities normalised one by one; more: whole block


def patch_escapes(data: bytes) -> bytes | None:
    """The block with each line that has ANSI escapes or HTML entities fully normalised
    (CRs, escapes, entities: ``normalise`` minus quoting and cutting), the other lines as they
    are; None when only ``normalise`` on the whole block is exact (an OSC sequence, which may
    span lines) or too many lines need it.

    Escapes and entities never span lines otherwise, so normalising those lines here gives the
    bytes that the fast path can search (a match may need the escape gone) and that
    ``normalise_line`` then finishes, as ``normalise`` would have done it.
    """
    if b"\x1b]" in data:
        return None
    starts: set[int] = set()
    for find in (lambda at: data.find(b"\x1b", at), lambda at: _entity_at(data, at)):
        pos = find(0)
        while pos != -1:
            starts.add(data.rfind(b"\n", 0, pos) + 1)
            if len(starts) > PATCH_MAX:
                return None
            end = data.find(b"\n", pos)
            if end == -1:
                break
            pos = find(end)
    out: list[bytes] = []
    done = 0
    for start in sorted(starts):
        end = data.find(b"\n", start)
        end = len(data) if end == -1 else end
        out.append(data[done:start])
        out.append(_clean_line(data[start:end].decode("utf-8", "replace"))
                   .encode("utf-8", "surrogatepass"))
        done = end
    out.append(data[done:])
    return b"".join(out)


def _entity_at(data: bytes, at: int) -> int:
    m = _ENTITY_BYTES.search(data, at)
    return -1 if m is None else m.start()


def _clean_line(line: str) -> str:
    """``normalise``'s CR, ANSI and entity steps, in its order, for one line."""
    if "\r" in line:
        if line.endswith("\r"):  # CRLF
            line = line[:-1]
        if "\r" in line:
            line = _last_segment(line)
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    if "&" in line and _ENTITY.search(line):
        line = _ENTITY.sub(lambda m: html.unescape(m.group(0)), line)
    return line


def raw_needs_block_normalise(data: bytes) -> bool:
    """ANSI escapes or HTML entities: normalise the whole block (``normalise``), not per line."""
    # find, not ``in``: ``bytes in bytes`` first tries (and fails) to read an integer
    return data.find(b"\x1b") != -1 or (data.find(b"&") != -1
                                        and _ENTITY_BYTES.search(data) is not None)


def raw_quoted(data: bytes) -> bool:
    """Would ``normalise`` strip ``>`` quoting in this block (which has no ANSI escapes)?

    ``normalise`` strips quoting from every line of a block as soon as one normalised line
    starts with ``>`` or `` >``. A normalised line is the raw line, or, for a line with lone
    CRs, its last non-blank CR segment, so only lines that start so, or a segment after a CR
    that does, need a closer look. A few C-level finds; nothing at all without a ``>``.
    """
    starts = _quote_starts(data)
    if starts is None:  # many ">": four C-level finds instead of a Python loop
        starts = [0] if data.startswith((b">", b" >")) else []
        for needle in (b"\n>", b"\n >", b"\r>", b"\r >"):
            pos = data.find(needle)
            while pos != -1:
                starts.append(pos + 1)
                pos = data.find(needle, pos + 1)
    for pos in starts:
        begin = data.rfind(b"\n", 0, pos) + 1
        end = data.find(b"\n", pos)
        line = normalise_line(data[begin:len(data) if end == -1 else end]
                              .decode("utf-8", "replace"), False, MAX_LINE)
        if line.startswith((">", " >")):
            return True
    return False


QUOTE_SCAN_MAX = 2000  # ">" per block checked one by one (memchr); above: four finds


def _quote_starts(data: bytes) -> list[int] | None:
    """Where a line or a CR segment starts with ``>`` or `` >`` (None: too many ``>``)."""
    starts: list[int] = []
    pos = data.find(b">")
    for _ in range(QUOTE_SCAN_MAX):
        if pos == -1:
            return starts
        at = pos - 1 if pos and data[pos - 1] == 32 else pos  # 32: " >"
        if at == 0 or data[at - 1] in (10, 13):
            starts.append(at)
        pos = data.find(b">", pos + 1)
    return None if pos != -1 else starts


def normalise_line(line: str, quoted: bool, max_line: int = MAX_LINE) -> str:
    """``normalise`` for one line of a block without ANSI escapes or HTML entities.

    ``quoted``: the block-level answer of ``raw_quoted``.
    """
    if "\r" in line:
        if line.endswith("\r"):  # CRLF
            line = line[:-1]
        if "\r" in line:
            line = _last_segment(line)
    if quoted:
        line = _QUOTE.sub("\n", "\n" + line, count=1)[1:]
    return line[:max_line]
