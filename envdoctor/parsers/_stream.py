"""`check --from` on any input size: stream it, keep only what can hold a report.

A pasted issue is kilobytes and is kept whole. A training log of gigabytes is read in 1 MB
blocks with bounded memory: we keep its head, its tail and a window around every line that
opens a report (``NVIDIA-SMI``, ``Collecting environment information``, ``nvcc``'s banner …),
found with a bytes search of literal anchors (C speed, linear). The kept text, at most
``KEEP`` characters with every line capped, is what the parsers see; ``Summary`` says exactly
what was read and kept, for the message when no report is found.
"""

from __future__ import annotations

import codecs
from collections import deque
from dataclasses import dataclass
from typing import BinaryIO

from envdoctor.bounded import MAX_LINE, cap_lines

BLOCK = 1 << 20
KEEP = 2_000_000          # characters handed to the parsers (reports are kilobytes)
HEAD = 512 << 10          # always kept: issue templates put versions first
TAIL = 256 << 10          # always kept: a crash log often ends with its environment
BEFORE, AFTER = 4 << 10, 96 << 10   # bytes around an anchor (snapped to whole lines)
# Literal openings of the formats in PARSERS, found with bytes.find (memchr speed, linear; a
# regex alternation of the same literals scans ~30 MB/s, too slow for a 50 MB line in 2 s).
ANCHORS = (b"NVIDIA-SMI", b"NVSMI LOG", b"Collecting environment information",
           b"Cuda compilation tools", b"nvcc: NVIDIA", b"PyTorch version:", b"jaxlib",
           b"Successfully installed", b"Requirement already satisfied", b'"schema_version"',
           b"# packages in environment", b"Package   ", b"CUDA used to build",
           b"`transformers` version", b"Ultralytics", b"tf.sysconfig", b"build_info",
           b"Driver Version:", b"KMD Version:")
MAX_HITS = 64   # anchors taken per block: a block full of them is one long region anyway


@dataclass
class Summary:
    """What the stream gave: bytes and lines read, regions kept, whether it was cut."""

    bytes_read: int = 0
    lines: int = 0
    regions: int = 0
    regions_dropped: int = 0
    binary: bool = False
    unterminated: bool = False  # the last line has no newline
    long_lines: int = 0         # lines longer than MAX_LINE: their head only was read

    def describe(self) -> str:
        mb = self.bytes_read / (1 << 20)
        size = f"{mb:.1f} MB" if mb >= 1 else f"{self.bytes_read} bytes"
        lines = self.lines + (1 if self.unterminated else 0)
        text = f"read all {lines} line{'s' if lines != 1 else ''} ({size})"
        if self.long_lines:
            text += (f"; {self.long_lines} line(s) longer than {MAX_LINE // 1024} KB: only "
                     "their first {MAX_LINE // 1024} KB searched".replace(
                         "{MAX_LINE // 1024}", str(MAX_LINE // 1024)))
        if self.regions_dropped:
            text += (f"; kept the first and last of {self.regions} report-like regions "
                     f"({self.regions_dropped} in the middle not parsed)")
        return text


def read_report_text(stream: BinaryIO) -> tuple[str, Summary]:
    """The text worth parsing from ``stream`` (see the module docstring) and a summary."""
    summary = Summary()
    head = bytearray()
    tail: deque[bytes] = deque()
    tail_size = 0
    first: list[bytes] = []
    last: deque[bytes] = deque()
    first_size = last_size = 0
    pending_after = 0          # bytes of an anchor window that continue into the next block
    prev_end = b""             # the previous block's last BEFORE bytes (a window may start there)
    whole = True               # everything so far fits in KEEP: ``head`` holds all of it
    carry = b""
    skipping = False           # inside a line longer than MAX_LINE
    while True:
        chunk = stream.read(BLOCK)
        if not summary.bytes_read and chunk and _binary(chunk):
            summary.binary = True
            summary.bytes_read = len(chunk)
            return "", summary
        if not chunk:
            block, carry = carry, b""
            if not block:
                summary.lines += 1 if skipping else 0  # the over-long last line
                break
        else:
            summary.bytes_read += len(chunk)
            if skipping:  # the rest of an over-long line: a memchr to its end, nothing else
                cut = chunk.find(b"\n")
                if cut == -1:
                    continue
                chunk, skipping = chunk[cut + 1:], False
                summary.lines += 1
            data = carry + chunk
            cut = data.rfind(b"\n")
            if cut == -1 and len(data) <= MAX_LINE:
                carry = data
                continue
            if cut == -1:  # a line longer than any report line: keep its head, skip the rest
                block, carry, skipping = data[:MAX_LINE], b"", True
                summary.long_lines += 1
            else:
                block, carry = data[:cut + 1], data[cut + 1:]
        summary.lines += block.count(b"\n")
        summary.unterminated = not block.endswith(b"\n") and not skipping
        if whole:
            head += block
            whole = len(head) <= KEEP
            if not whole:
                del head[HEAD:]
        if pending_after:
            region = _snap_end(block[:pending_after])
            pending_after = max(0, pending_after - len(block))
            first_size, last_size = _keep(region, first, last, first_size, last_size, summary)
        windows = _windows(prev_end + block, len(prev_end))
        for start, end, overflow in windows:
            summary.regions += 1
            region = (prev_end + block)[start:end]
            pending_after = max(pending_after, overflow)
            first_size, last_size = _keep(region, first, last, first_size, last_size, summary)
        prev_end = block[-BEFORE:]
        tail.append(block[-TAIL:])
        tail_size += len(tail[-1])
        while tail_size - len(tail[0]) >= TAIL:
            tail_size -= len(tail.popleft())
        if not chunk:
            break
    if whole:
        return _decode(bytes(head)), summary
    parts = [bytes(head), *first, *last, b"".join(tail)[-TAIL:]]
    text = "\n".join(_decode(p) for p in parts if p)
    return text[:KEEP], summary


def _binary(chunk: bytes) -> bool:
    if chunk.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    sample = chunk[:8192]
    if b"\x00" in sample:
        return True
    control = sum(1 for b in sample if b < 9 or 13 < b < 32 and b != 27)
    return control > len(sample) * 0.10


def _windows(data: bytes, offset: int) -> list[tuple[int, int, int]]:
    """(start, end, bytes still wanted after ``data``) around each anchor, merged."""
    hits: list[tuple[int, int]] = []
    for anchor in ANCHORS:
        pos = data.find(anchor, offset)
        taken = 0
        while pos != -1 and taken < MAX_HITS:
            hits.append((pos, pos + len(anchor)))
            taken += 1
            pos = data.find(anchor, pos + AFTER // 2)  # the next one is in this window anyway
    out: list[list[int]] = []
    for hit_start, hit_end in sorted(hits):
        start = data.rfind(b"\n", 0, max(0, hit_start - BEFORE)) + 1
        want = hit_end + AFTER
        end = min(len(data), want)
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
            out[-1][2] = max(out[-1][2], want - len(data))
        else:
            out.append([start, end, max(0, want - len(data))])
    return [(s, e, o) for s, e, o in out]


def _snap_end(region: bytes) -> bytes:
    cut = region.rfind(b"\n")
    return region[:cut + 1] if cut != -1 else region


def _keep(region: bytes, first: list[bytes], last: deque[bytes], first_size: int,
          last_size: int, summary: Summary) -> tuple[int, int]:
    """Keep a region among the first ones (up to half the budget) or the latest ones."""
    budget = (KEEP - HEAD - TAIL) // 2
    if first_size + len(region) <= budget:
        first.append(region)
        return first_size + len(region), last_size
    last.append(region[:budget])
    last_size += len(last[-1])
    while last_size > budget and len(last) > 1:
        last_size -= len(last.popleft())
        summary.regions_dropped += 1
    return first_size, last_size


def _decode(data: bytes) -> str:
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = data.decode("utf-16", errors="replace")
    else:
        text = data.decode("utf-8-sig", errors="replace")
    return cap_lines(text)
