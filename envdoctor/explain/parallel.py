"""Scan a big log file in two to eight processes: its first part here, the rest in forked
children.

On a 100 MB log the scan is ~60 % of `explain`'s time and runs on one core. For a regular
UTF-8 file of at least PARALLEL_MIN bytes, with CPUs ours and idle (``spare_cpus``) and no
other thread in this process (fork is only safe then), the file is cut at block boundaries
(ones that a one-process scan would also have: blocks of ``block_bytes`` from the start,
carrying the unfinished line) just after a line break, one part per idle CPU up to MAX_PARTS
and one per PART_MIN bytes; this process scans the part before the first cut, each forked
child scans its part with a fresh state (line numbers from 1) and sends it back as JSON, and
the parts are merged in file order as one scan would have built them: hits and anti-pattern
lines in order under the same caps, counts added, contexts joined, line numbers shifted,
structural markers replayed block by block under MAX_MARKERS. Needles one part stops looking
for (contexts seen, full marker sinks) are ones whose answer is already in, so the merge is
the one-process scan (tests compare them). If a child fails in any way, this process scans
its part itself.

This process takes the smallest part (``PARENT_SHARE``): after it, while the children still
scan, it runs the caller's ``idle`` work (``commands.explain``: the imports of ranking,
rendering, redaction and the probes, and probing when its part already needs facts).

Children read with ``os.pread`` (no shared file offset), write one JSON document to a pipe
and leave with ``os._exit``; each is reaped (killed first if this process is interrupted).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from typing import Any

from envdoctor import children
from envdoctor.bounded import decode_own_json, env
from envdoctor.explain import precompiled
from envdoctor.explain.reader import BLOCK_BYTES, MAX_LINE, ByteReader, FileReader, read_raw
from envdoctor.explain.scan import (
    MAX_HITS_PER_SIGNATURE,
    MAX_MARKERS,
    Hit,
    Scanner,
    ScanResult,
    _State,
)
from envdoctor.explain.signatures import Signature

PARALLEL_MIN = 8 << 20    # below this a fork and a merge (~5 ms) outweigh scanning half of it
PART_MIN = 8 << 20        # a part smaller than this is not worth one more process
MAX_PARTS = 8             # this process and up to seven children: the children rebuild their
#                           regexes from the cache the parent read (``precompiled``), so a
#                           part costs its fork and its merge (on a 13-CPU machine, 100 MB log:
#                           1.21 s with four parts, 1.13 s with eight; 10 MB: 0.94 s in one
#                           process, 0.87 s in two)
MAX_ANTI = 10_000         # scan._State._match keeps this many anti-pattern lines per signature
SPLIT_TRIES = 8           # block boundaries tried for one after a short line
# The part this process scans when the file is cut in two. It has more to do after the scan
# than a child (import the probes, renderers and redaction that ``idle`` warms while the
# children still scan), so its part is the smaller one: on a 100 MB log the two finish together
# near 2/5. With k parts it takes 2/k of that share and the children split the rest evenly.
PARENT_SHARE = 0.4
# When facts will be probed (``busy``: `explain` without --no-facts), what this process does
# after its part (importing the probes, ~0.1 s, then starting them) is about a fifth of a
# one-process scan (the 2/5 of two parts), and the probes, the longest wait after the merge,
# start only then: with k parts it takes what leaves it that fifth beside a child's part,
# ``(1 - (k - 1) * IDLE_SHARE) / k``, at least MIN_PARENT_SHARE (``parent_share``): with eight
# parts it scans 3 %, not 10 %, and starts the probes while the children scan.
IDLE_SHARE = 0.2
MIN_PARENT_SHARE = 0.03


def scan_file(scanner: Scanner, stream: FileReader, first_line: int = 1,
              block_bytes: int = BLOCK_BYTES, minimum: int | None = None,
              idle: Callable[[list[Signature]], object] | None = None,
              busy: bool = False) -> ScanResult | None:
    """The scan of ``stream`` from its position to its end in two to MAX_PARTS processes, or
    None (nothing read) when that does not apply: not a regular file, too small, UTF-16, no idle
    CPU, threads, ``ENVDOCTOR_NO_FORK=1``.

    ``idle`` is called once this process has scanned its part, while the children may still
    be scanning (work the caller will need next, such as imports), with the signatures this
    part matched (a subset of those the whole scan matches); what it raises is ignored, so it
    cannot change the scan. ``busy``: ``idle`` imports and starts the probes (facts will be
    probed), so this process takes a smaller part (``parent_share``)."""
    plan = _plan(stream, block_bytes, PARALLEL_MIN if minimum is None else minimum, busy)
    if plan is None:
        return None
    fd, start, cuts = plan
    precompiled.load()  # a big log reaches hundreds of regexes: read once, shared by the children
    # part i (a child's) runs from cuts[i] to the next cut's split, the last one to the end
    parts = [(carry, split, cuts[i + 1][0] if i + 1 < len(cuts) else None)
             for i, (split, carry) in enumerate(cuts)]
    state = _State(scanner, first_line)
    blocks = read_raw(_Limited(stream, cuts[0][0] - start), block_bytes, tail=False)
    head = next(blocks, None)  # the binary test is done here, before anything is forked
    kids: list[_Child] = []
    try:
        kids.extend(_Child(scanner, fd, carry, split, end, block_bytes)
                    for carry, split, end in parts)
        if head is not None:
            state.raw_block(*head)
        for data, normalised in blocks:
            state.raw_block(data, normalised)
        if idle is not None:
            try:
                idle([sh.signature for sh in state.sig_hits if sh.count])
            except Exception:  # noqa: BLE001 - the caller redoes it (and sees its error) later
                pass
        rests = [kid.result() for kid in kids]
    finally:
        for kid in kids:
            kid.reap()
    for (carry, split, end), rest in zip(parts, rests, strict=True):
        if rest is None:  # the child failed: scan its part here, as one process does
            for data, normalised in read_raw(_PartReader(fd, carry, split, block_bytes, end),
                                             block_bytes, head=False, tail=end is None):
                state.raw_block(data, normalised)
        else:
            _merge(state, rest)
    return state.finish()


def _plan(stream: FileReader, block_bytes: int, minimum: int,
          busy: bool = False) -> tuple[int, int, list[tuple[int, int]]] | None:
    """(fd, start, [(split offset, where the line running across it starts), ...]) or None:
    one cut per child, in file order."""
    if env("ENVDOCTOR_NO_FORK") or not hasattr(os, "fork") or not children.can_fork():
        return None
    spare = spare_cpus()
    if spare < 1:
        return None
    try:
        fd = stream.fileno()
        info = os.fstat(fd)
        start = stream.tell()
    except (AttributeError, OSError, ValueError):
        return None
    size = info.st_size - start
    if not stat.S_ISREG(info.st_mode) or size < max(minimum, 4 * block_bytes):
        return None
    try:
        if os.pread(fd, 2, start) in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16: decoded in one go
            return None
        blocks = size // block_bytes
        count = min(MAX_PARTS, 1 + spare, max(2, size // PART_MIN) if minimum else MAX_PARTS)
        parent = parent_share(count, busy)
        cuts: list[tuple[int, int]] = []
        last = 0
        for i in range(1, count):
            first = max(last + 1, int(blocks * (parent + (1 - parent) * (i - 1) / (count - 1))))
            cut = _cut(fd, start, first, blocks, block_bytes)
            if cut is None:
                break
            last = (cut[0] - start) // block_bytes
            cuts.append(cut)
    except OSError:
        return None
    return (fd, start, cuts) if cuts else None


def parent_share(count: int, busy: bool = False) -> float:
    """The share of the file this process scans when it is cut in ``count`` parts (see
    PARENT_SHARE): 2/5 in two, else 4/5 of 1/k, or when ``busy`` (facts will be probed
    after it) 1/5 in three, 1/10 in four, 3 % from six."""
    if count <= 2 or not busy:
        return PARENT_SHARE * 2 / count
    return max(MIN_PARENT_SHARE, (1 - (count - 1) * IDLE_SHARE) / count)


def _cut(fd: int, start: int, first: int, blocks: int,
         block_bytes: int) -> tuple[int, int] | None:
    """A block boundary at or after block ``first`` just after a short line: (split, where the
    line running across it starts), or None."""
    for k in range(first, min(first + SPLIT_TRIES, blocks)):
        split = start + k * block_bytes
        window = min(MAX_LINE, block_bytes)
        before = os.pread(fd, window, split - window)
        cut = before.rfind(b"\n")
        if cut != -1:  # the carried line is short: no long-line state crosses the split
            return split, split - window + cut + 1
    return None


def spare_cpus() -> int:
    """CPUs that are ours and idle besides the one this process runs on. On a machine busy on
    every core a child only takes turns with this process (measured: no faster, ~12 % more
    CPU), so the scan stays in one process there. Idle: not running a task right now (Linux:
    /proc/loadavg, this process included), and a one-minute load average below the CPU count
    (it counts this process)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    try:
        if cpus < 2 or os.getloadavg()[0] >= cpus:
            return 0
    except (AttributeError, OSError):
        pass
    from envdoctor.bounded import read_proc
    try:
        running = int((read_proc("/proc/loadavg", 4096) or "").split()[3].split("/")[0])
    except (ValueError, IndexError):
        return cpus - 1 if cpus >= 2 else 0
    return max(0, cpus - max(running, 1))


class _Limited:
    """The first ``n`` bytes of a stream, read in full (a short read only at the end)."""

    def __init__(self, stream: ByteReader, n: int):
        self.stream, self.left = stream, n

    def read(self, n: int) -> bytes:
        parts = []
        want = min(n, self.left)
        while want > 0:
            piece = self.stream.read(want)
            if not piece:
                break
            parts.append(piece)
            want -= len(piece)
            self.left -= len(piece)
        return b"".join(parts)


class _PartReader:
    """The file from ``carry_start`` to ``end`` (None: its end), by ``os.pread``: first the
    carried line and the block at ``split``, then ``block_bytes`` at a time: the chunks a
    one-process scan reads."""

    def __init__(self, fd: int, carry_start: int, split: int, block_bytes: int,
                 end: int | None = None):
        self.fd, self.pos, self.first_end, self.block = fd, carry_start, split + block_bytes, \
            block_bytes
        self.end = end

    def read(self, _n: int) -> bytes:
        want = self.first_end - self.pos if self.first_end else self.block
        self.first_end = 0
        if self.end is not None:
            want = min(want, self.end - self.pos)
        parts = []
        while want > 0:
            piece = os.pread(self.fd, want, self.pos)
            if not piece:
                break
            parts.append(piece)
            self.pos += len(piece)
            want -= len(piece)
        return b"".join(parts)


def _scan_part(scanner: Scanner, fd: int, carry_start: int, split: int, end: int | None,
               block_bytes: int) -> dict[str, Any]:
    """A child's work: its part of the file with a fresh state, as JSON-able data."""
    from envdoctor.explain import deadline
    deadline.rearm()  # its searches are bounded too (a slow one fails the child)
    state = _State(scanner, 1)
    marks = []
    for data, normalised in read_raw(_PartReader(fd, carry_start, split, block_bytes, end),
                                     block_bytes, head=False, tail=end is None):
        state.raw_block(data, normalised)
        marks.append([len(state.sinks[0]), len(state.sinks[1])])
    sigs = {str(i): [sh.count, [[h.line, h.text, h.role] for h in sh.hits], sh.anti_lines,
                     sorted(sh.context_seen)]
            for i, sh in enumerate(state.sig_hits)
            if sh.count or sh.anti_lines or sh.context_seen}
    return {"lines": state.lines, "chars": state.chars, "sinks": [list(s) for s in state.sinks],
            "marks": marks, "sigs": sigs}


def _merge(state: _State, rest: dict[str, Any]) -> None:
    """Append the child's part to this process's state, as one scan would have grown it."""
    shift = state.lines
    for key, (count, hits, anti, seen) in rest["sigs"].items():
        sh = state.sig_hits[int(key)]
        sh.count += count
        room = MAX_HITS_PER_SIGNATURE - len(sh.hits)
        sh.hits.extend(Hit(line + shift, text, role) for line, text, role in hits[:max(room, 0)])
        room = MAX_ANTI - len(sh.anti_lines)
        sh.anti_lines.extend(line + shift for line in anti[:max(room, 0)])
        sh.context_seen.update(seen)
    done = [0, 0]
    for marks in rest["marks"]:  # markers block by block: a full sink takes no more
        for sink in (0, 1):
            if len(state.sinks[sink]) < MAX_MARKERS:
                state.sinks[sink].extend(line + shift for line in
                                         rest["sinks"][sink][done[sink]:marks[sink]])
            done[sink] = marks[sink]
    if rest["marks"]:
        state.lines = shift + rest["lines"]
        state.chars += rest["chars"] + (1 if state.blocks else 0)  # + the break between parts
        state.blocks += len(rest["marks"])


class _Child:
    """The forked scan of one part; ``result()`` is its data or None (it failed)."""

    def __init__(self, scanner: Scanner, fd: int, carry_start: int, split: int,
                 end: int | None, block_bytes: int):
        self.pid = 0
        read, write = os.pipe()
        try:
            self.pid = children.fork()
        except OSError:  # children.NotStarted too: envdoctor is leaving
            os.close(read)
            os.close(write)
            self.read_fd = -1
            return
        if self.pid == 0:  # the child: scan, send, leave without running any cleanup
            code = 1
            try:
                os.close(read)
                data = json.dumps(_scan_part(scanner, fd, carry_start, split, end,
                                             block_bytes)).encode()
                view = memoryview(data)
                while view:
                    view = view[os.write(write, view):]
                code = 0
            except BaseException:  # noqa: BLE001 - any failure: the parent scans the rest
                pass
            os._exit(code)
        os.close(write)
        self.read_fd = read

    def result(self) -> dict[str, Any] | None:
        if self.read_fd < 0:
            return None
        chunks = []
        while True:
            piece = os.read(self.read_fd, 1 << 20)
            if not piece:
                break
            chunks.append(piece)
        os.close(self.read_fd)
        self.read_fd = -1
        _, status = os.waitpid(self.pid, 0)
        children.release(self.pid)
        self.pid = 0
        if status != 0:
            return None
        try:  # our own fork's document: no hook per number (``decode_json`` on ~200 KB of
            #   line numbers from seven children took ~6-12 ms after the scan; this ~1 ms)
            value = decode_own_json(b"".join(chunks), "a child's answer")
        except ValueError:
            return None
        return value if _valid(value) else None

    def reap(self) -> None:
        """Kill and reap a child still running (this process was interrupted)."""
        if self.read_fd >= 0:
            os.close(self.read_fd)
            self.read_fd = -1
        if self.pid:
            try:
                os.kill(self.pid, 9)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
            children.release(self.pid)
            self.pid = 0


def _valid(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get("sigs"), dict)
            and isinstance(value.get("marks"), list) and isinstance(value.get("sinks"), list)
            and isinstance(value.get("lines"), int) and isinstance(value.get("chars"), int))
