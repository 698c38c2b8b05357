"""Find signature hits in a stream of blocks, fast and with bounded memory.

Per block (about 64 KB of whole lines, as raw UTF-8 bytes) we build one *reduced* copy with a
single C-level ``bytes.translate``: ASCII lower-cased, with digits and the separators that fill
logs (``DROP``) deleted — under half the bytes of a typical log. We search *anchors* in it with
``bytes.find`` (C speed): short byte strings chosen so that every pattern's reduced prefilter
literal contains one (``choose_anchors``). Deleting characters from both sides keeps the
search safe: if a line contains a literal, its reduced form contains the literal's reduced
form. Once digits and separators are gone, a big log is a few line *shapes* repeated, so each
distinct reduced line is searched once per scan (``_State._find_shapes``; a block whose every
shape was seen before costs one ``set.issuperset``), and a block of mostly distinct lines is
searched whole (``_find_direct``). Only the lines whose shape holds an anchor are decoded and
normalised (see ``reader.normalise_line``), checked for the literals, and handed to the
regexes, so a log of healthy lines costs one translate, one split and one set lookup per line
shape. Blocks whose normalisation is not line by line (ANSI escapes, HTML entities) are
normalised whole first. Patterns without a usable literal fall back to a per-line search, the
path ``scan_stream(plain=True)`` takes for every line (the reference the tests compare with).

Besides signature hits, the scanner records the *structure* that ranking needs: where Python
tracebacks start and where exceptions are chained ("During handling of the above exception",
"The above exception was the direct cause"), and for each hit line whether it is an exception
line, a stack-frame line (``File "…", line N`` or the source line under it, C++ ``frame #N``)
or plain log text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import partial
from itertools import chain, compress
from operator import itemgetter

from envdoctor.explain.digits import MASK as DIGIT_MASK
from envdoctor.explain.digits import blind as digit_blind
from envdoctor.explain.reader import (
    BLOCK_BYTES,
    MAX_LINE,
    ByteReader,
    normalise,
    normalise_line,
    patch_escapes,
    raw_needs_block_normalise,
    raw_quoted,
    read_raw,
)
from envdoctor.explain.reduced import DROP as DROP
from envdoctor.explain.reduced import HEALTHY_LINES, HEALTHY_WEIGHT
from envdoctor.explain.reduced import reduce_bytes as reduce_bytes
from envdoctor.explain.reduced import reduce_text as reduce_text
from envdoctor.explain.signatures import Pattern, Signature

MAX_HITS_PER_SIGNATURE = 50     # evidence kept per signature (the count goes on)
MAX_MARKERS = 200_000           # structural markers kept (a pathological log may have more)
ANCHOR_MIN, ANCHOR_MAX = 4, 10  # anchor lengths considered
# Weights of choose_anchors' cost model. Anchors are searched in a block's distinct lines only
# (a few KB; see _State._find), so one more anchor costs little, while every line an anchor
# finds is decoded and checked (~15 us): an anchor that occurs in ordinary log lines ("device")
# costs far more than three longer ones that do not.
FIND_MS = 1.0                   # one find over the distinct lines of 1 MB, per unit of advance
# A block of mostly distinct lines is searched whole, one full pass per anchor: there fewer
# anchors win (the weight the scanner used before it searched distinct lines).
FIND_MS_DIRECT = 16.0
LINE_MS = 18.0                  # an anchor present on every line
SHOW_CHARS = 300                # evidence text is cut to this

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
LINE_CHUNK = 8192               # LFs counted per piece, as far as a hit line (its offset)
DISTINCT_RATIO = 2              # search distinct lines only when lines repeat at least 2x
MIN_REDUCED = 3                 # a literal shorter than this once reduced cannot anchor
SHAPES_MAX_BYTES = 16 << 20     # line shapes remembered per scan (then the cache restarts)
LINE_MEMO_BYTES = 8 << 20       # hit lines remembered per scan (then the memo restarts)
LINE_MEMO_OVERHEAD = 400        # bytes a remembered line costs beyond its text
GRAM = 3                        # new line shapes: needles looked up by their first bytes
HEADS_MIN = 16                  # a needle with more literals: a new shape checks those of
#                                 its literals whose first GRAM bytes it holds (``_shape``)
GRAMS_MAX = 8192                # ... when the new shapes are at most this long (else: all)
RAW_SPLIT_MIN = 24              # hot lines in a block from which its raw lines are split once
# how ``_State.inert`` may remember a hot line that matched nothing, by its needle set: not at
# all (a structural marker counts every line), by its digit mask, or by its raw bytes
NO_MEMO, MASK_MEMO, RAW_MEMO = 0, 1, 2
SHAPE_OVERHEAD = 64             # bytes a remembered shape costs beyond its text (set entry)
_CONTINUATION = bytes(range(0x80, 0xC0))
TRACEBACK = "traceback (most recent call last)"
CHAIN = ("during handling of the above exception", "the above exception was the direct cause")
# stack-frame lines: Python, C++ (frame #N, gdb #N 0x…), Java/JS "at x(", Jupyter/IPython
# numbered source lines ("--> 960   x = f()", "    958   y"), rich's boxed tracebacks ("│ …")
_FRAME = re.compile(r'^\s*(?:File "[^"]*", line \d+|frame #\d+:|#\d+ 0x[0-9a-f]+ in |at [\w.$]+\(|'
                    r'-*>\s*\d+\s|\d+\s{2,}\S|│\s)')
_EXC = re.compile(r"^\s*(?:\[rank\d+\]:?\s*)?(?:[\w.]+\.)?[A-Za-z_]\w*"
                  r"(?:Error|Exception|Exit|Interrupt|Warning|Failure|Fault)\b(?:\(|:|$)")


@dataclass
class Hit:
    line: int
    text: str
    role: str = "log"        # exception | frame | log
    cause_depth: int = 0     # how many chained exceptions follow (0 = the last one raised)


@dataclass
class SigHits:
    signature: Signature
    hits: list[Hit] = field(default_factory=list)
    count: int = 0
    anti_lines: list[int] = field(default_factory=list)
    context_seen: set[int] = field(default_factory=set)  # (context index << 1) | is_absent
    last_line: int = 0       # the line of the last hit counted (one per line)


@dataclass
class ScanResult:
    by_code: dict[str, SigHits]
    lines: int = 0
    chars: int = 0
    tracebacks: int = 0
    chains: int = 0


def choose_anchors(literals: list[str], reference: list[str], find_ms: float = FIND_MS
                   ) -> dict[str, tuple[str, ...]]:
    """A few short substrings ("anchors") such that every literal contains one of them.

    One ``str.find`` over a 1 MB block costs ~1 ms, so searching ~200 literals one by one caps
    throughput near 5 MB/s. Instead we search a few dozen anchors and check the literals only
    on the lines an anchor finds. Greedy set cover (lazy, with a heap): each step takes the
    substring (ANCHOR_MIN..ANCHOR_MAX chars, or a whole literal) that covers the most remaining
    literals per unit of expected cost: its ``str.find`` time plus the lines it drags in,
    estimated from ``reference`` (ordinary log lines, see ``_reference``).
    """
    import heapq
    line_hits, by_bit, total, advances = _reference_stats(reference)
    nref = max(len(reference), 1)
    cover: dict[str, set[int]] = {}
    for i, lit in enumerate(literals):
        for n in range(ANCHOR_MIN, min(ANCHOR_MAX, len(lit)) + 1):
            for j in range(len(lit) - n + 1):
                cover.setdefault(lit[j:j + n], set()).add(i)
        cover.setdefault(lit, set()).add(i)
    # Cost in ms per MB of log. str.find checks a window's last character and, on a mismatch,
    # skips len+1 characters when the next character is not in the needle's 64-bit bloom mask
    # (bit = ord(c) & 63): short needles made of characters that are rare in logs are fast.
    # Each line an anchor drags in costs ~1.5 us, at ~12k lines per MB.
    def cost_of(c: str) -> float:
        advance = advances.get(c)
        if advance is None:
            q = min(sum(by_bit.get(b, 0) for b in {ord(ch) & 63 for ch in c}) / total, 1.0)
            advance = advances[c] = (1 - q) * (len(c) + 1) + q
        return find_ms / advance + LINE_MS * line_hits.get(c, 0) / nref

    cost = {c: cost_of(c) for c in cover}
    left = set(range(len(literals)))
    heap = [(-len(ids) / cost[c], -len(c), c) for c, ids in cover.items()]
    heapq.heapify(heap)
    anchors: dict[str, tuple[str, ...]] = {}
    while left and heap:
        neg, neg_len, cand = heapq.heappop(heap)
        gain = len(cover[cand] & left) / cost[cand]
        if gain <= 0:
            continue
        if heap and gain < -heap[0][0] - 1e-12:  # stale: push back with the true gain
            heapq.heappush(heap, (-gain, neg_len, cand))
            continue
        took = cover[cand] & left
        anchors[cand] = tuple(sorted(literals[i] for i in took))
        left -= took
    return anchors


# (order, signature index, pattern, kind); order = position among all patterns, so a line
# is checked against its patterns in the order the signatures list them, whatever the anchors.
# kind: PATTERN, ANTI, or CONTEXT + ((context index << 1) | 1 for an ``absent`` regex)
Entry = tuple[int, int, Pattern, int]
PATTERN, ANTI, CONTEXT = 0, 1, 2
Plan = tuple[bytes, tuple[tuple[str, tuple[Entry, ...]], ...]]
MARKERS = ((TRACEBACK, 0), (CHAIN[0], 1), (CHAIN[1], 1))  # (text, 0 tracebacks | 1 chains)


class Scanner:
    """Compiled once per signature set; ``scan``/``scan_stream`` may be called many times."""

    def __init__(self, signatures: Iterable[Signature], choose: bool = True):
        """``choose=False``: the anchors chosen before (the cache) when there, else each reduced
        literal is its own anchor, so a small input never waits the ~3 s of ``choose_anchors``;
        it finds the same lines (an anchor only decides which lines are checked for the
        literals, and every literal holds its own), only more needles to search. ``chosen``:
        every plan is ``choose_anchors``' (one is chosen and cached for an input where it pays,
        ``explain.scanner``)."""
        self.signatures = tuple(signatures)
        self.chosen = True
        # literal -> entries; patterns without a (reducible) literal are searched on every line
        self.by_literal: dict[str, list[Entry]] = {}
        self.ctx_by_literal: dict[str, list[Entry]] = {}
        self.unfiltered: list[Entry] = []
        order = 0
        # every literal reduced in one ``translate`` (~5 000 of them), and those too short
        short = _reduce_all(lit for sig in self.signatures
                            for pat in chain(sig.patterns, sig.anti_patterns,
                                             *(c.text + c.absent for c in sig.contexts))
                            for lit in pat.literals or ())
        for i, sig in enumerate(self.signatures):
            kinds = [(sig.patterns, PATTERN), (sig.anti_patterns, ANTI)]
            for ci, ctx in enumerate(sig.contexts):
                kinds += [(ctx.text, CONTEXT + (ci << 1)), (ctx.absent, CONTEXT + (ci << 1 | 1))]
            for pats, kind in kinds:
                for pat in pats:
                    entry = (order, i, pat, kind)
                    order += 1
                    lits = pat.literals
                    if lits is None or not short.isdisjoint(lits):
                        self.unfiltered.append(entry)
                        continue
                    target = self.by_literal if kind < CONTEXT else self.ctx_by_literal
                    for lit in lits:
                        target.setdefault(lit, []).append(entry)
        # needle id -> (literal, entries) pairs; markers have negative ids. Four plans: for
        # patterns and for contexts (which only need to be seen once per text), each for a
        # search of a block's distinct lines and for a direct search of the whole block.
        self.needles: list[tuple[tuple[str, tuple[Entry, ...]], ...]] = []
        self._tables: dict[int, tuple[dict[str, list[Entry]], dict[str, list[str]],
                                      dict[str, tuple[str, tuple[Entry, ...]]]]] = {}
        self.plans: dict[tuple[bool, bool], list[tuple[bytes, int]]] = {}
        for in_ctx, table in ((False, self.by_literal), (True, self.ctx_by_literal)):
            for direct, weight in ((False, FIND_MS), (True, FIND_MS_DIRECT)):
                needles = []
                for anchor, group in self._plan(table, weight, choose, in_ctx):
                    needles.append((anchor, len(self.needles)))
                    self.needles.append(group)
                self.plans[in_ctx, direct] = needles
        self.ctx_ids = frozenset(ni for ctx_direct in (False, True)
                                 for _, ni in self.plans[True, ctx_direct])
        self.plan = [(anchor, self.needles[ni]) for anchor, ni in self.plans[False, False]]
        self.markers = tuple((reduce_text(text).encode("latin-1"), text, sink)
                             for text, sink in MARKERS)
        # every needle of the distinct-line search, for ``_State._find_shapes``: a line shape is
        # searched for all of them once, and which are still wanted is decided per block
        self.shape_needles = (self.plans[False, False] + self.plans[True, False]
                              + [(needle, ~mi) for mi, (needle, _, _) in enumerate(self.markers)])
        # the same needles by their first GRAM bytes: a few new shapes are searched only for
        # the needles whose head occurs in them (``_State._find_shapes``)
        self.shape_grams: dict[tuple[int, ...], list[tuple[bytes, int]]] = {}
        self.short_needles: list[tuple[bytes, int]] = []
        for needle, ni in self.shape_needles:
            if len(needle) < GRAM:
                self.short_needles.append((needle, ni))
            else:
                self.shape_grams.setdefault(tuple(needle[:GRAM]), []).append((needle, ni))
        # needle id -> (reduced literals, its (literal, entries) pairs): a line shape that holds a
        # needle is sent on only with the literals whose reduced form it holds (a line holds a
        # literal only if its shape holds the literal's reduced form), see ``_State._shape``
        # (built on first use: a traceback needs a few)
        self._reduced: dict[int, tuple[tuple[bytes, ...],
                                       tuple[tuple[str, tuple[Entry, ...]], ...]]] = {}
        self._heads: dict[int, tuple[dict[tuple[int, ...], tuple[int, ...]],
                                     tuple[int, ...]]] = {}  # needle id -> ``reduced_heads``
        self._digit_free: dict[int, bool] = {}  # needle id -> ``digit_free`` (on first use)
        self._digit_lits: dict[int, tuple[tuple[bytes, bytes, bytes], ...]] = {}
        self._digit_by_text: dict[int, dict[str, tuple[bytes, bytes, bytes]]] = {}
        self._runs: dict[int, tuple[bytes, ...] | None] = {}  # needle id -> ``literal_runs``
        # context needles: (signature index, context key) -> the needle ids whose entries
        # read it, and how many distinct keys each needle waits for (``_State._skipped``)
        self.ctx_waits: dict[int, int] = {}
        self.ctx_readers: dict[tuple[int, int], list[int]] = {}
        for ni in sorted(self.ctx_ids):
            keys = {(i, kind - CONTEXT) for _, ents in self.needles[ni] for _, i, _, kind in ents}
            self.ctx_waits[ni] = len(keys)
            for key in keys:
                self.ctx_readers.setdefault(key, []).append(ni)

    @property
    def anchors(self) -> dict[str, tuple[str, ...]]:
        """The pattern anchors (distinct-line plan) and the reduced literals each covers."""
        return {a.decode("latin-1"): tuple(sorted({reduce_text(lit) for lit, _ in lits}))
                for a, lits in self.plan}

    def digit_free(self, ni: int) -> bool:
        """Whether no literal of needle ``ni`` holds a digit: then a line holds the same of
        them as its digit mask (``digits``), so the same patterns run on both. Markers
        (``ni < 0``) count per line, so they never are."""
        got = self._digit_free.get(ni)
        if got is None:
            got = self._digit_free[ni] = ni >= 0 and not any(
                c in "0123456789" for lit, _ in self.needles[ni] for c in lit)
        return got

    def once_per_shape(self, ni: int) -> bool:
        """Whether context needle ``ni`` need only be searched on the first line of a shape in
        a block: none of its literals holds a digit and its patterns are blind to digits
        (``digits.blind``), so lines of one shape, which differ in digits ("/cuda-12.1",
        "/cuda-13.0") and separators, differ for it only in their separators. A pattern needle
        is searched on every line of its shapes; so is a context of ``digit_literals``, in a
        block that holds one of them."""
        return ni in self.ctx_ids and not self.digit_literals(ni)

    def digit_literals(self, ni: int) -> tuple[tuple[bytes, bytes, bytes], ...]:
        """The literals of needle ``ni`` that hold a digit or lead to a pattern that tells
        digits apart: a context needle that has some is searched on every line of its shapes
        in a block that holds one of them, and only there. Each as (its UTF-8, its reduced
        form, its longest run of bytes that are not ASCII letters): a block holds the literal
        only if its reduced copy holds the second and its raw bytes the third, two searches
        that need no lower-cased copy of the block."""
        got = self._digit_lits.get(ni)
        if got is None:
            found = []
            by_text = self._digit_by_text[ni] = {}
            for lit, ents in self.needles[ni]:
                if any(c in "0123456789" for c in lit) \
                        or not all(digit_blind(pat.source) for _, _, pat, _ in ents):
                    raw = lit.encode("utf-8", "surrogatepass")
                    runs = _NOT_LETTERS.findall(raw)
                    found.append((raw, reduce_bytes(raw), max(runs, key=len) if runs else b""))
                    by_text[lit] = found[-1]
            got = self._digit_lits[ni] = tuple(found)
        return got

    def digit_literals_of(self, ni: int, group: tuple[tuple[str, tuple[Entry, ...]], ...]
                          ) -> list[tuple[bytes, bytes, bytes]]:
        """``digit_literals`` of needle ``ni`` that are in ``group`` (the literals a line
        shape may hold, ``_State.groups``)."""
        if not self.digit_literals(ni):
            return []
        by_text = self._digit_by_text[ni]
        return [by_text[lit] for lit, _ in group if lit in by_text]

    def literal_runs(self, ni: int) -> tuple[bytes, ...] | None:
        """For each literal of needle ``ni``, its longest run of bytes that are not ASCII
        letters (lower-casing leaves them alone): a block can hold one of the literals only if
        it holds one of these runs. None when a literal has no such byte (any block may)."""
        if ni in self._runs:
            return self._runs[ni]
        runs: set[bytes] | None = set()
        for lit, _ in self.needles[ni]:
            found = _NOT_LETTERS.findall(lit.encode("utf-8", "surrogatepass"))
            if not found:
                runs = None
                break
            assert runs is not None
            runs.add(max(found, key=len))
        got = self._runs[ni] = None if runs is None else tuple(sorted(runs))
        return got

    def digit_only(self, ni: int) -> bool:
        """Whether every literal of needle ``ni`` is one of its ``digit_literals``."""
        return len(self.digit_literals(ni)) == len(self.needles[ni])

    def reduced(self, ni: int
                ) -> tuple[tuple[bytes, ...], tuple[tuple[str, tuple[Entry, ...]], ...]]:
        """Needle ``ni``'s literals reduced (``reduce_bytes``), and its (literal, entries)."""
        got = self._reduced.get(ni)
        if got is None:
            group = self.needles[ni]
            got = self._reduced[ni] = (
                tuple(reduce_bytes(lit.encode("utf-8", "surrogatepass")) for lit, _ in group),
                group)
        return got

    def reduced_heads(self, ni: int) -> tuple[dict[tuple[int, ...], tuple[int, ...]],
                                             tuple[int, ...]]:
        """Needle ``ni``'s reduced literals (``reduced``) by their first GRAM bytes: ``({head:
        indices}, indices of those shorter than GRAM)``. A line shape can hold a reduced literal
        only if it holds its head, so ``_State._shape`` checks only those whose head is among
        the shape's GRAM-byte windows (a needle such as 'error' has ~540 literals, a shape
        holds a few of them)."""
        got = self._heads.get(ni)
        if got is None:
            by_head: dict[tuple[int, ...], list[int]] = {}
            short: list[int] = []
            for i, red in enumerate(self.reduced(ni)[0]):
                if len(red) < GRAM:
                    short.append(i)
                else:
                    by_head.setdefault(tuple(red[:GRAM]), []).append(i)
            got = self._heads[ni] = ({k: tuple(v) for k, v in by_head.items()}, tuple(short))
        return got

    def _plan(self, by_literal: dict[str, list[Entry]], find_ms: float,
              choose: bool = True, in_ctx: bool = False) -> list[Plan]:
        """Anchors for these literals: ``[(anchor bytes, ((literal, entries), ...)), ...]``;
        ``choose=False``: the cached choice, else every reduced literal its own anchor."""
        got = self._tables.get(id(by_literal))  # the two plans of a table share these
        if got is None or got[0] is not by_literal:
            by_reduced: dict[str, list[str]] = {}
            for lit in by_literal:
                by_reduced.setdefault(_reduced_text(lit), []).append(lit)
            got = self._tables[id(by_literal)] = (
                by_literal, by_reduced, {lit: (lit, tuple(ents)) for lit, ents in by_literal.items()})
        _, by_reduced, pairs = got
        reduced = sorted(by_reduced)
        found = _cached_anchors(reduced, self.signatures, find_ms, choose, in_ctx)
        if found is None:
            self.chosen = False
            found = {rlit: (rlit,) for rlit in reduced}
        anchors = found
        plan: list[Plan] = []
        for anchor, rlits in anchors.items():
            lits = sorted({lit for rlit in rlits for lit in by_reduced.get(rlit, ())})
            plan.append((anchor.encode("latin-1"), tuple(map(pairs.__getitem__, lits))))
        return plan

    def scan(self, blocks: Iterable[tuple[int, str]]) -> ScanResult:
        """Scan ``(first_line, normalised_text)`` blocks (``reader.read_blocks``)."""
        state = _State(self)
        for first_line, text in blocks:
            state.text_block(first_line, text)
        return state.finish()

    def scan_stream(self, stream: ByteReader, first_line: int = 1,
                    block_bytes: int = BLOCK_BYTES, plain: bool = False) -> ScanResult:
        """Scan a byte stream through the raw fast path (``reader.read_raw``); the same
        result as ``scan(read_blocks(stream))``.

        ``plain``: no anchors, no reduced copy, no line-shape cache: every line is decoded and
        checked for every literal (``_State._every_line``), the reference the tests compare
        the fast path with.
        """
        state = _State(self, first_line, plain)
        for data, normalised in read_raw(stream, block_bytes):
            state.raw_block(data, normalised)
        return state.finish()


class _State:
    def __init__(self, scanner: Scanner, first_line: int = 1, plain: bool = False):
        self.s = scanner
        self.plain = plain
        self.sig_hits = [SigHits(sig) for sig in scanner.signatures]
        self.sinks: tuple[list[int], list[int]] = ([], [])  # tracebacks, chains
        self.lines = 0
        self.chars = 0
        self.blocks = 0
        self.next_line = first_line
        # line-shape cache (``_find_shapes``): reduced lines already searched, and those of
        # them that hold a needle, with the needle ids
        self.seen: set[bytes] = set()
        # shape -> (needle ids wanted on every line, context needle ids: first line only)
        self.hot: dict[bytes, tuple[frozenset[int], frozenset[int]]] = {}
        self.hot_keys: set[bytes] = set()
        # shape -> needle id -> the (literal, entries) of the needle that the shape may hold
        self.groups: dict[bytes, dict[int, tuple[tuple[str, tuple[Entry, ...]], ...]]] = {}
        self.seen_bytes = 0
        # (shape, context needle) -> the needle's digit literals the shape may hold, with
        # their runs (``_every_line_here``)
        self.shape_digits: dict[tuple[bytes, int], list[tuple[bytes, bytes]]] = {}
        # raw hit line -> (text, lower-cased text, needle id -> its entries whose literal the
        # line holds, pattern order -> where it matched or -1), per (normalised, quoted): a
        # log that repeats an error decodes and searches each of its lines once
        self.memo: dict[tuple[bool, bool], dict[bytes, tuple[str, str, dict[int, list[Entry]],
                                                               dict[int, int]]]] = {
            (n, q): {} for n in (False, True) for q in (False, True)}
        # hit lines on which nothing matched, with their needle set, per (normalised,
        # quoted): as digit masks (``digits.MASK``) where every literal was digit-free and
        # every pattern run ``blind`` (a training log's step lines differ only in their
        # numbers), else as raw bytes; the same line (or mask) with the same needles would
        # match nothing either
        self.inert: dict[tuple[bool, bool], set[tuple[bytes, frozenset[int]]]] = {
            (n, q): set() for n in (False, True) for q in (False, True)}
        self.memo_bytes = 0
        # a hot line's needle set (shared by the lines of a shape) -> how ``inert`` keeps it
        self.memo_kinds: dict[frozenset[int], int] = {}
        # a block, its ASCII lower case (b"" until made), ``_every_line_here``'s answers for it
        # and the runs and literals it holds (``_has_run``, ``_holds_literal``)
        self._lowered: tuple[bytes, bytes, dict[int, bool], dict[bytes, bool],
                             dict[bytes, bool]] | None = None
        # needle ids not wanted any more (full marker sinks, contexts all seen), recomputed
        # when ``contexts_seen`` or a sink's fullness changes
        self.contexts_seen = 0
        self.ctx_left = dict(scanner.ctx_waits)  # context needle -> keys not yet seen
        self.ctx_done: set[int] = set()          # context needles with every key seen
        self._skip: frozenset[int] = frozenset()
        self._skip_key: tuple[int | bool, ...] | None = None

    def _count_break(self) -> None:
        """Blocks are lines without the line break that ends the last one: count it, so that
        ``chars`` does not depend on the block size."""
        if self.blocks:
            self.chars += 1
        self.blocks += 1

    def text_block(self, first_line: int, text: str) -> None:
        """An already normalised block (the str API)."""
        self._count_break()
        self.chars += len(text)
        self._block(first_line, text.encode("utf-8", "surrogatepass"), True, False)

    def raw_block(self, data: bytes, normalised: bool) -> None:
        """A block of whole lines from ``read_raw``: raw UTF-8, or (``normalised``) UTF-16
        input that ``read_raw`` already decoded, normalised and re-encoded."""
        self._count_break()
        patched = None
        if normalised:
            self.chars += _chars(data)
        elif raw_needs_block_normalise(data):
            patched = patch_escapes(data)
            if patched is None:  # only normalising the whole block is exact
                text = normalise(data.decode("utf-8", "replace"))
                data, normalised = text.encode("utf-8", "surrogatepass"), True
                self.chars += len(text)
        if not normalised:
            self.chars += _chars(data)
            data = data if patched is None else patched
        self._block(self.next_line, data, normalised, not normalised and raw_quoted(data))

    def _block(self, first_line: int, data: bytes, normalised: bool, quoted: bool) -> None:
        if self.s.unfiltered or self.plain:
            self._every_line(first_line, data, normalised, quoted)
            return
        red = reduce_bytes(data)
        lines = red.split(b"\n")  # the same LFs as data, in half the bytes
        self.next_line = first_line + len(lines)
        self.lines = first_line + len(lines) - 1
        distinct = set(lines)  # one C-level pass; a log has few line shapes per block
        # line index in the block -> needle ids, and for each needle the literals to check
        groups: dict[bytes, dict[int, tuple[tuple[str, tuple[Entry, ...]], ...]]] | None
        hit_lines: Mapping[int, AbstractSet[int]]
        if distinct <= self.seen:  # every shape searched before
            hit_lines = self._hot_lines(lines, distinct & self.hot_keys, data, red)
            groups = self.groups
        elif len(distinct) * DISTINCT_RATIO > len(lines):  # few repeats: search the block
            hit_lines, groups = self._find_direct(red, lines, data), None
        else:
            hit_lines, groups = self._find_shapes(lines, distinct, data, red), self.groups
        if not hit_lines:
            return
        needles = self.s.needles
        line_at = _LineReader(data, normalised, quoted)
        starts = _LineStarts(data)
        # many hot lines (a repeated shape): one C-level split, else offsets line by line
        raw_lines = data.split(b"\n") if len(hit_lines) >= RAW_SPLIT_MIN else None
        memo = self.memo[normalised, quoted]
        inert = self.inert[normalised, quoted]
        kinds = self.memo_kinds
        for k in sorted(hit_lines):
            nis = hit_lines[k]
            if raw_lines is None:
                start = starts(k)
                raw = line_at.raw(start)
            else:
                start, raw = -1, raw_lines[k]
            mask_key: tuple[bytes, frozenset[int]] | None = None
            raw_key: tuple[bytes, frozenset[int]] | None = None
            # the needle set of a shape's lines, without markers (they count every line)
            shared = nis if isinstance(nis, frozenset) else None
            kind = NO_MEMO if shared is None else kinds.get(shared)
            if kind is None and shared is not None:
                kind = kinds[shared] = (NO_MEMO if min(shared) < 0 else MASK_MEMO
                                        if all(map(self.s.digit_free, shared)) else RAW_MEMO)
            if kind != NO_MEMO and shared is not None:
                if kind == MASK_MEMO:
                    mask_key = (raw.translate(DIGIT_MASK), shared)
                    if mask_key in inert:  # its numbers aside, a line that matched nothing
                        continue
                raw_key = (raw, shared)
                if raw_key in inert:  # the same line, with the same needles, matched nothing
                    continue
            known = memo.get(raw)
            if known is None:  # a line not seen before (as raw bytes) in this scan
                if self.memo_bytes > LINE_MEMO_BYTES:
                    for table in self.memo.values():
                        table.clear()
                    for masks in self.inert.values():
                        masks.clear()
                    self.memo_bytes = 0
                text = line_at.text(raw)
                known = memo[raw] = \
                    (text, text.lower() if text.isascii() else text.translate(_ASCII_LOWER), {}, {})
                self.memo_bytes += len(raw) + 2 * len(text) + LINE_MEMO_OVERHEAD
            text, low, by_needle, searched = known
            entries: list[Entry] = []
            of_shape = None if groups is None else groups[lines[k]]
            for ai in nis:
                if ai < 0:
                    _, marker, sink = self.s.markers[~ai]
                    self.sinks[sink].extend([first_line + k] * low.count(marker))
                    continue
                got = by_needle.get(ai)
                if got is None:  # the literals of the needle in this line: their entries
                    got = by_needle[ai] = [
                        entry for lit, ents in (needles[ai] if of_shape is None else of_shape[ai])
                        if lit in low for entry in ents]
                entries.extend(got)
            if entries:
                if start < 0:
                    start = starts(k)
                if self._match(first_line + k, text, entries, partial(line_at.above, start),
                               searched):
                    continue
            if raw_key is not None:
                blind = mask_key is not None and all(_blind(entry) for entry in entries)
                inert.add(mask_key if blind and mask_key is not None else raw_key)
                self.memo_bytes += len(raw) + LINE_MEMO_OVERHEAD

    def _skipped(self) -> frozenset[int]:
        """Needle ids not worth finding now: structural markers whose sink is full, context
        anchors whose regexes have all been seen (presence is enough)."""
        full = tuple(len(sink) >= MAX_MARKERS for sink in self.sinks)
        key = (self.contexts_seen, *full)
        if key != self._skip_key:
            skip = {~mi for mi, (_, _, sink) in enumerate(self.s.markers) if full[sink]}
            skip.update(self.ctx_done)
            self._skip, self._skip_key = frozenset(skip), key
        return self._skip

    def _find_direct(self, red: bytes, lines: list[bytes], data: bytes) -> dict[int, set[int]]:
        """A block of mostly distinct lines: every wanted needle searched in the whole block
        (``{line index: {needle id}}``); context needles kept on the first line of each line
        shape, or on every line where ``_every_line_here`` says so, as ``_hot_lines`` keeps
        them."""
        skip = self._skipped()
        needles = [(n, ni) for n, ni in self.s.plans[False, True] if ni not in skip]
        needles += [(needle, ~mi) for mi, (needle, _, _) in enumerate(self.s.markers)
                    if ~mi not in skip]
        found = _by_line(red, _occurrences(red, needles))
        ctx = [(n, ni) for n, ni in self.s.plans[True, True] if ni not in skip]
        if ctx:
            firsts: set[bytes] = set()
            ctx_found = _by_line(red, _occurrences(red, ctx))
            once = [ni for ni in {ni for nis in ctx_found.values() for ni in nis}
                    if not self._every_line_here(ni, data, red)]
            for k in sorted(ctx_found):
                each = ctx_found[k].difference(once)
                if lines[k] not in firsts:
                    firsts.add(lines[k])
                    each = ctx_found[k]
                if each:
                    found.setdefault(k, set()).update(each)
        return found

    def _find_shapes(self, lines: list[bytes], distinct: set[bytes], data: bytes,
                     red: bytes) -> dict[int, AbstractSet[int]]:
        """Which needles each line of the block holds: ``{line index: {needle id}}``.

        A big log repeats a few line shapes over and over, and once digits and separators are
        gone (``reduce_bytes``) those lines are byte-for-byte equal. So needles are searched
        in line *shapes*: each distinct reduced line is searched once per scan, for every
        needle (its answer kept in ``hot`` when it holds one), and a later block only searches
        the shapes it brings that no earlier block had (one C-level set difference; usually
        none). The lines whose shape holds a needle are picked out by one C-level ``map``
        over the block. Context needles (which only need to be seen once) are kept on the
        first line of each shape in the block when ``Scanner.once_per_shape`` allows it, else
        on every line. Memory: at most SHAPES_MAX_BYTES of shapes, then the cache starts
        afresh.
        """
        new = distinct.difference(self.seen)
        if new:
            if self.seen_bytes > SHAPES_MAX_BYTES:
                self.seen.clear()
                self.hot.clear()
                self.hot_keys.clear()
                self.groups.clear()
                self.shape_digits.clear()
                self.seen_bytes = 0
                new = distinct
            joined = b"\n".join(new)
            self.seen_bytes += len(joined) + SHAPE_OVERHEAD * len(new)
            self.seen.update(new)
            found: dict[bytes, set[int]] = {}
            if len(joined) <= GRAMS_MAX:
                grams = self.s.shape_grams
                # the GRAM-byte windows of the new shapes, as tuples of byte values (one
                # C-level zip: no Python loop over the bytes)
                heads = set(zip(*(joined[i:] for i in range(GRAM))))
                needles = [*self.s.short_needles,
                           *chain.from_iterable(map(grams.__getitem__, grams.keys() & heads))]
            else:
                needles = self.s.shape_needles
            for pos, ni in _occurrences(joined, needles):
                begin = joined.rfind(b"\n", 0, pos) + 1
                end = joined.find(b"\n", pos)
                found.setdefault(joined[begin:len(joined) if end == -1 else end],
                                 set()).add(ni)
            for shape, nis in found.items():
                self._shape(shape, nis)
        return self._hot_lines(lines, distinct & self.hot_keys, data, red, new)

    def _shape(self, shape: bytes, nis: set[int]) -> None:
        """Remember a line shape that holds needles ``nis``, with only the literals whose
        reduced form it holds: a line holds a literal only if its shape holds the literal's
        reduced form (reducing deletes bytes and lower-cases, line by line, and a normalised
        line is a piece of its raw line), so the others cannot pass ``lit in low``. A shape left
        with no literal is not hot: its lines are never decoded."""
        of_shape: dict[int, tuple[tuple[str, tuple[Entry, ...]], ...]] = {}
        keep: set[int] = set()
        heads: set[tuple[int, ...]] | None = None  # the shape's GRAM-byte windows
        for ni in nis:
            if ni < 0:
                keep.add(ni)
                continue
            reds, whole = self.s.reduced(ni)
            if len(reds) > HEADS_MIN:  # only the literals whose head the shape holds
                if heads is None:
                    heads = set(zip(*(shape[i:] for i in range(GRAM))))
                by_head, short = self.s.reduced_heads(ni)
                maybe = sorted(chain(short, *map(by_head.__getitem__, by_head.keys() & heads)))
                group = tuple(compress(map(whole.__getitem__, maybe),
                                       _holds(shape, map(reds.__getitem__, maybe))))
            else:
                group = tuple(compress(whole, _holds(shape, reds)))
            if group:
                of_shape[ni] = group
                keep.add(ni)
        if keep:
            ctx = keep & self.s.ctx_ids
            self.hot[shape] = (frozenset(keep - ctx), frozenset(ctx))
            self.groups[shape] = of_shape
            self.hot_keys.add(shape)

    def _every_line_here(self, ni: int, data: bytes, red: bytes,
                         shape: bytes | None = None, line: bytes | None = None) -> bool:
        """Is context needle ``ni`` searched on every line of its shapes in this block (a
        literal of ``Scanner.digit_literals`` occurs in it), not on each shape's first line?
        False also says that the block holds none of those literals. With ``shape``: on every
        line of that shape, asked of the digit literals the shape may hold only (a line holds
        a literal only if its shape holds the literal's reduced form: no search of ``red``);
        with ``line`` (the shape's one line in the block), asked of that line."""
        if shape is not None:
            key = (shape, ni)
            of_shape = self.shape_digits.get(key)
            if of_shape is None:
                of_shape = self.shape_digits[key] = [
                    (lit, run) for lit, _, run in
                    self.s.digit_literals_of(ni, self.groups[shape][ni])]
            if line is not None:
                low = line.lower()
                return any(low.find(lit) != -1 for lit, _ in of_shape)
            return any(self._holds_literal(data, lit, run) for lit, run in of_shape)
        lits = self.s.digit_literals(ni)
        if not lits:
            return False
        answers = self._here(data)[1]
        got = answers.get(ni)
        if got is None:
            got = answers[ni] = any(red.find(reduced) != -1
                                    and self._holds_literal(data, lit, run)
                                    for lit, reduced, run in lits)
        return got

    def _holds_literal(self, data: bytes, lit: bytes, run: bytes) -> bool:
        """Whether block ``data`` holds ``lit`` (ASCII lower case) in its ASCII lower case: its
        run of non-letter bytes first, then the lower-cased copy (made once per block)."""
        low, answers, runs, lits = self._here(data)
        got = lits.get(lit)
        if got is None:
            got = False
            if self._has_run(data, run, runs):
                if not low:  # a line holds a literal only if its ASCII-lower-cased text does,
                    low = data.lower()  # a piece of the block's raw line lower-cased alike
                    self._lowered = (data, low, answers, runs, lits)
                got = low.find(lit) != -1
            lits[lit] = got
        return got

    def _here(self, data: bytes
              ) -> tuple[bytes, dict[int, bool], dict[bytes, bool], dict[bytes, bool]]:
        """This block's caches: its lower case (b"" until made), ``_every_line_here``'s
        answers, and which runs (``_has_run``) and literals (``_holds_literal``) it holds."""
        if self._lowered is None or self._lowered[0] is not data:
            self._lowered = (data, b"", {}, {}, {})
        return self._lowered[1:]

    @staticmethod
    def _has_run(data: bytes, run: bytes, runs: dict[bytes, bool]) -> bool:
        """Whether block ``data`` holds ``run`` (answers kept in ``runs``). A search for a few
        bytes that are not there reads the whole block (~4 instructions a byte), one for a
        single byte is a ``memchr``: a byte of the run that logs seldom hold is looked for
        first ('>' of ' >= ')."""
        got = runs.get(run)
        if got is None:
            got = True
            if len(run) > 1:
                for byte in run.translate(None, _COMMON_BYTES)[:2]:
                    if data.find(byte) == -1:
                        got = False
                        break
            if got:
                got = data.find(run) != -1
            runs[run] = got
        return got

    def _may_hold(self, ni: int, data: bytes, held: dict[int, bool],
                  runs: dict[bytes, bool]) -> bool:
        """Whether block ``data`` may hold a literal of needle ``ni`` (markers: always): it
        holds one of their runs of bytes that are not ASCII letters (``literal_runs``). A
        line whose shape holds the reduced literals is then not decoded for them when the
        block lacks them all (a repeated line that merely shares the letters of an anchor)."""
        got = held.get(ni)
        if got is None:
            need = self.s.literal_runs(ni) if ni >= 0 else None
            got = held[ni] = need is None or any(self._has_run(data, run, runs) for run in need)
        return got

    def _hot_lines(self, lines: list[bytes], here: set[bytes], data: bytes,
                   red: bytes, new: AbstractSet[bytes] = frozenset()
                   ) -> dict[int, AbstractSet[int]]:
        """``{line index: {needle id}}`` for the lines whose shape (in ``here``) holds a
        needle still wanted: on every such line, or (contexts that ``once_per_shape`` allows)
        on its shape's first line. The lines are picked out and given their shape's needle
        set (one frozenset shared by them) in C-level passes over the block.

        Whether a line may hold a needle's literals is asked of the whole block (its answers
        shared by the block's shapes), except for a shape first seen in this block (``new``)
        that has one line in it (a line of an error text among repeated log lines): asked of
        that line alone, a few searches of ~100 bytes instead of the block's 64 KB. A line
        that lacks them cannot hold the literals, so the same hits are found either way."""
        if not here:
            return {}
        skip = self._skipped()
        every: dict[bytes, frozenset[int]] = {}  # shapes with needles wanted on every line
        firsts: list[tuple[bytes, frozenset[int]]] = []
        held: dict[int, bool] = {}  # needle id -> whether this block may hold its literals
        runs = self._here(data)[2]
        # the shapes first seen here with one line in the block -> that line's bytes
        singles = {}
        ones = sorted((lines.index(shape), shape) for shape in here.intersection(new)
                      if lines.count(shape) == 1)
        if ones:
            starts = _LineStarts(data)
            for k, shape in ones:  # (ascending, as ``_LineStarts`` wants)
                start = starts(k)
                end = data.find(b"\n", start)
                singles[shape] = data[start:] if end == -1 else data[start:end]
        for shape in here:
            each, ctx = self.hot[shape]
            each, ctx = each - skip, ctx - skip
            line = singles.get(shape)  # the shape's one line in the block, to ask instead
            if line is not None:
                gone = [ni for ni in chain(each, ctx) if not self._may_hold(ni, line, {}, {})]
            else:
                gone = [ni for ni in chain(each, ctx)
                        if not self._may_hold(ni, data, held, runs)]
            if gone:
                each, ctx = each.difference(gone), ctx.difference(gone)
            digit_ctx = [ni for ni in ctx if self.s.digit_literals(ni)]
            if digit_ctx:
                every_line = frozenset(ni for ni in digit_ctx
                                       if self._every_line_here(ni, data, red, shape, line))
                # a needle whose every literal is a digit literal, none in the block: gone
                gone = [ni for ni in digit_ctx
                        if ni not in every_line and self.s.digit_only(ni)]
                if gone:
                    ctx = ctx.difference(gone)
                # (a shape with one line in the block: that line is its first)
                if every_line and lines.count(shape) > 1:
                    each, ctx = each | every_line, ctx - every_line
            if each:
                every[shape] = each
            if ctx:
                firsts.append((shape, ctx))
        out: dict[int, AbstractSet[int]] = {}
        if every:
            ks = list(compress(range(len(lines)), map(every.__contains__, lines)))
            out = dict(zip(ks, map(every.__getitem__, map(lines.__getitem__, ks))))
        for shape, ctx in firsts:  # the shape's first line in the block
            k = lines.index(shape)
            out[k] = out[k] | ctx if k in out else ctx
        return out

    def _every_line(self, first_line: int, data: bytes, normalised: bool, quoted: bool) -> None:
        """Rules with a pattern that has no literal: every line goes to the regexes (slow)."""
        newlines = data.count(b"\n")
        self.next_line = first_line + newlines + 1
        self.lines = first_line + newlines
        line_at = _LineReader(data, normalised, quoted)
        start, k = 0, 0
        while True:
            text = line_at(start)
            low = text.lower() if text.isascii() else text.translate(_ASCII_LOWER)
            for marker, sink in MARKERS:
                if len(self.sinks[sink]) < MAX_MARKERS:
                    self.sinks[sink].extend([first_line + k] * low.count(marker))
            entries = list(self.s.unfiltered)
            for table in (self.s.by_literal, self.s.ctx_by_literal):
                for lit, ents in table.items():
                    if lit in low:
                        entries.extend(ents)
            self._match(first_line + k, text, entries, partial(line_at.above, start))
            end = data.find(b"\n", start)
            if end == -1:
                return
            start, k = end + 1, k + 1

    def _match(self, line_no: int, text: str, entries: list[Entry],
               above: Callable[[], str | None], searched: dict[int, int] | None = None) -> bool:
        """Run each pattern (once, in signature order) on one line; record hits. True if a
        pattern matched (a context already seen is not run again and does not count).

        ``searched``: where each pattern (by order) matched this same line text before (-1:
        it did not), filled as patterns run; a line repeated in the log is searched once."""
        entries.sort(key=_order)
        last = -1
        matched = False
        for order, i, pat, kind in entries:
            if order == last:
                continue
            last = order
            if kind >= CONTEXT and kind - CONTEXT in self.sig_hits[i].context_seen:
                continue  # a context is seen once: another match would change nothing
            at = None if searched is None else searched.get(order)
            if at is None:
                m = pat.regex.search(text)
                at = -1 if m is None else m.start()
                if searched is not None:
                    searched[order] = at
            if at < 0:
                continue
            matched = True
            sh = self.sig_hits[i]
            if kind == ANTI:
                if len(sh.anti_lines) < 10_000:
                    sh.anti_lines.append(line_no)
                continue
            if kind >= CONTEXT:
                if kind - CONTEXT not in sh.context_seen:
                    sh.context_seen.add(kind - CONTEXT)
                    self.contexts_seen += 1
                    for ni in self.s.ctx_readers.get((i, kind - CONTEXT), ()):
                        self.ctx_left[ni] -= 1
                        if not self.ctx_left[ni]:
                            self.ctx_done.add(ni)
                continue
            if sh.last_line == line_no:
                continue  # two patterns on one line: one piece of evidence
            sh.last_line = line_no
            sh.count += 1
            if len(sh.hits) < MAX_HITS_PER_SIGNATURE:
                sh.hits.append(Hit(line_no, _excerpt(text, at), _role(text, at, above)))
        return matched

    def finish(self) -> ScanResult:
        tracebacks, chains = (sorted(sink) for sink in self.sinks)
        for sh in self.sig_hits:
            for hit in sh.hits:
                hit.cause_depth = _cause_depth(hit.line, tracebacks, chains)
        return ScanResult({sh.signature.code: sh for sh in self.sig_hits if sh.count},
                          lines=self.lines, chars=self.chars, tracebacks=len(tracebacks),
                          chains=len(chains))


def _chars(data: bytes) -> int:
    """Characters in UTF-8 bytes (an invalid byte counts as one, as decoding replaces it)."""
    return len(data) if data.isascii() else len(data.translate(None, _CONTINUATION))


def _occurrences(text: bytes, needles: list[tuple[bytes, int]]) -> list[tuple[int, int]]:
    """``(position, needle index)`` of each needle in ``text``, at most once per line.

    Which needles occur at all is asked in one C-level pass over them (``map`` of
    ``_holds``): most do not, and a Python loop per needle costs more than the search."""
    found: list[tuple[int, int]] = []
    for needle, ni in compress(needles, _holds(text, map(itemgetter(0), needles))):
        pos = text.find(needle)
        while pos != -1:
            found.append((pos, ni))
            end = text.find(b"\n", pos)
            if end == -1:
                break
            pos = text.find(needle, end)
    return found


def _holds(text: bytes, needles: Iterable[bytes]) -> Iterator[bool]:
    """``needle in text`` for each needle, in one C-level pass. By ``find``: ``bytes in bytes``
    first tries the needle as an integer (a byte value) and builds, then drops, a TypeError
    with its message each time (~2 000 instructions, more than a short search)."""
    return map(_FOUND, map(text.find, needles))


_FOUND = (-1).__ne__
# bytes that most blocks of a log hold (``_State._has_run`` looks for the others first)
_COMMON_BYTES = (b" \t.,:;-_/=()[]'\"0123456789abcdefghijklmnopqrstuvwxyz"
                 b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_NOT_LETTERS = re.compile(rb"[^A-Za-z]+")  # find's answer -> whether it found the needle


def _blind(entry: Entry) -> bool:
    """Whether the entry's pattern matches a line as it matches the line's digit mask."""
    return digit_blind(entry[2].source)


def _order(entry: Entry) -> int:
    return entry[0]


def _by_line(text: bytes, found: list[tuple[int, int]]) -> dict[int, set[int]]:
    """``(position, needle)`` pairs -> ``{line index: {needle}}`` (LFs counted incrementally)."""
    out: dict[int, set[int]] = {}
    k, prev = 0, 0
    for pos, ni in sorted(found):
        k += text.count(b"\n", prev, pos)
        prev = pos
        out.setdefault(k, set()).add(ni)
    return out


class _LineStarts:
    """Offset in a block of line ``k``, for the few lines that hold a needle (ascending ``k``).

    Hit lines come in runs (a traceback is many consecutive lines), so the next line of a run
    is one ``find`` away. Otherwise the LFs of LINE_CHUNK pieces are counted (C-level
    ``count``), only as far as the line asked for (the rest of the block is never counted),
    the piece is found by bisection and the line in it by one bounded ``split``.
    """

    NEAR = 8  # lines ahead of the last answer that are cheaper to step through

    def __init__(self, data: bytes):
        self.data = data
        self.before: list[int] = []  # LFs before each counted piece
        self.counted = 0             # LFs in the counted pieces
        self.last_k, self.last_start = 0, 0

    def __call__(self, k: int) -> int:
        data = self.data
        if 0 <= k - self.last_k <= self.NEAR:
            start = self.last_start
            for _ in range(k - self.last_k):
                start = data.find(b"\n", start) + 1
        else:
            before = self.before
            while self.counted < k and len(before) * LINE_CHUNK < len(data):
                at = len(before) * LINE_CHUNK
                before.append(self.counted)
                self.counted += data.count(b"\n", at, at + LINE_CHUNK)
            j = bisect_right(before, k - 1) - 1  # the piece holding the k-th LF
            base = j * LINE_CHUNK
            piece = data[base:base + LINE_CHUNK]
            start = base + len(piece) - len(piece.split(b"\n", k - before[j])[-1])
        self.last_k, self.last_start = k, start
        return start


class _LineReader:
    """Decode and normalise single lines of a block on demand."""

    def __init__(self, data: bytes, normalised: bool, quoted: bool):
        self.data, self.normalised, self.quoted = data, normalised, quoted

    def __call__(self, start: int) -> str:
        return self.text(self.raw(start))

    def raw(self, start: int) -> bytes:
        """The bytes of the line at ``start``, without its line break."""
        end = self.data.find(b"\n", start)
        return self.data[start:] if end == -1 else self.data[start:end]

    def text(self, raw: bytes) -> str:
        """A line's bytes decoded and normalised."""
        if self.normalised:
            return raw.decode("utf-8", "surrogatepass")
        return normalise_line(raw.decode("utf-8", "replace"), self.quoted, MAX_LINE)

    def above(self, start: int) -> str | None:
        """The line above the one at ``start`` in this block (None for the first line)."""
        if start == 0:
            return None
        return self(self.data.rfind(b"\n", 0, start - 1) + 1)


_REDUCED_TEXT: dict[str, str] = {}


def _reduced_text(lit: str) -> str:
    """``reduce_text`` of a literal, remembered: building a scanner asks it ~19 000 times for
    ~5 000 literals (each pattern's, then each plan's)."""
    got = _REDUCED_TEXT.get(lit)
    if got is None:
        got = _REDUCED_TEXT[lit] = reduce_text(lit)
    return got


def _reduce_all(literals: Iterable[str]) -> set[str]:
    """``_reduced_text`` of many literals at once: one ``reduce_bytes`` of them joined by LF
    (which it keeps), split again; -> the literals shorter than MIN_REDUCED once reduced."""
    todo = [lit for lit in dict.fromkeys(literals) if lit not in _REDUCED_TEXT]
    joined = "\n".join(todo)
    if todo and joined.count("\n") == len(todo) - 1:  # (a literal holds none: a line's)
        done = reduce_bytes(joined.encode("utf-8", "surrogatepass")).decode("latin-1")
        _REDUCED_TEXT.update(zip(todo, done.split("\n"), strict=True))
    else:
        for lit in todo:
            _reduced_text(lit)
    return {lit for lit, red in _REDUCED_TEXT.items() if len(red) < MIN_REDUCED}


def _cached_anchors(literals: list[str], signatures: tuple[Signature, ...],
                    find_ms: float = FIND_MS, choose: bool = True, in_ctx: bool = False
                    ) -> dict[str, tuple[str, ...]] | None:
    """``choose_anchors`` takes 1-2 s per plan; its answer is cached (``knowledge.cached_json``)
    and, for the bundled signatures, shipped (``anchor_seed``: the plan is rebuilt from the
    seed in ~0.1 s, the greedy runs only for literals the seed does not fit).
    ``choose=False``: the cached answer or None, nothing chosen nor written."""
    import json

    from envdoctor.rulefiles import cached_json
    from envdoctor.rulefiles import digest as blake2b_digest

    # the literals (~100 KB of JSON) by their digest: a cache lookup then reads, writes and
    # compares a short key, not the literals three times over (blake2b from the built-in
    # module: hashlib's sha256 loads OpenSSL, ~8 ms)
    digest = blake2b_digest(json.dumps(literals).encode("ascii"))
    key = [ANCHOR_MIN, ANCHOR_MAX, find_ms, LINE_MS, list(HEALTHY_LINES), HEALTHY_WEIGHT,
           DROP.decode("latin-1"), len(literals), digest]
    def build() -> dict[str, list[str]]:
        from envdoctor.explain.anchor_seed import seeded_anchors
        found = seeded_anchors(literals, find_ms, in_ctx, (ANCHOR_MIN, ANCHOR_MAX))
        if found is None:
            found = choose_anchors(literals, _reference(signatures), find_ms)
        return {k: list(v) for k, v in found.items()}

    anchors, _ = cached_json(
        "anchors", key, build if choose else (lambda: None),
        lambda v: isinstance(v, dict) and all(isinstance(x, list) for x in v.values()),
        write=choose)
    return None if anchors is None else {k: tuple(v) for k, v in anchors.items()}




def plan_literals(scanner: Scanner) -> dict[tuple[bool, float], list[str]]:
    """(in contexts, find weight) -> the sorted reduced literals each of the four plans
    covers: what ``anchor_seed`` chooses its seed for."""
    out = {}
    for in_ctx, table in ((False, scanner.by_literal), (True, scanner.ctx_by_literal)):
        reduced = sorted({_reduced_text(lit) for lit in table})
        for weight in (FIND_MS, FIND_MS_DIRECT):
            out[in_ctx, weight] = reduced
    return out


def _reference_stats(reference: list[str]) -> tuple[dict[str, int], dict[int, int], int,
                                                    dict[str, float]]:
    """What ``choose_anchors`` reads of the reference lines: how many lines hold each short
    substring, character counts by bloom bit, the text's length, and a memo of each
    candidate's ``find`` advance. The same for the four plans a cold start makes, so kept."""
    from collections import Counter
    got = _REFERENCE_STATS.get(id(reference))
    if got is not None and got[0] is reference:
        return got[1]
    line_hits: Counter[str] = Counter()
    for line in reference:
        line_hits.update({line[i:i + n] for n in range(ANCHOR_MIN, ANCHOR_MAX + 1)
                          for i in range(len(line) - n + 1)})
    text = "\n".join(reference)
    by_bit: Counter[int] = Counter()
    for ch, n in Counter(text).items():
        by_bit[ord(ch) & 63] += n
    stats: tuple[dict[str, int], dict[int, int], int, dict[str, float]] = (
        dict(line_hits), dict(by_bit), max(len(text), 1), {})
    _REFERENCE_STATS.clear()
    _REFERENCE_STATS[id(reference)] = (reference, stats)
    return stats


_REFERENCE_STATS: dict[int, tuple[list[str], tuple[dict[str, int], dict[int, int], int,
                                                   dict[str, float]]]] = {}


def _reference(signatures: tuple[Signature, ...]) -> list[str]:
    """Ordinary lines, reduced: the examples' lines that no prefilter literal is in, plus
    HEALTHY_LINES. Built once per signature set (the four plans of a cold start share it);
    the literals are deduplicated first (phrase variants often reduce alike)."""
    got = _REFERENCE.get(id(signatures))
    if got is not None and got[0] is signatures:
        return got[1]
    lits = sorted({reduce_text(lit) for sig in signatures for p in sig.patterns
                   for lit in (p.literals or ())}, key=len)
    lines = {reduce_text(line[:300]) for sig in signatures for ex in sig.examples
             for line in ex.text.splitlines() if line.strip()}
    ordinary = sorted(t for t in lines if not any(lit in t for lit in lits))
    out = ordinary + [reduce_text(t) for t in HEALTHY_LINES] * HEALTHY_WEIGHT
    _REFERENCE.clear()
    _REFERENCE[id(signatures)] = (signatures, out)
    return out


_REFERENCE: dict[int, tuple[tuple[Signature, ...], list[str]]] = {}


def _excerpt(line: str, at: int) -> str:
    """The line, or for a long one a window of it that shows where the pattern matched."""
    line = line.rstrip()
    if len(line) <= SHOW_CHARS:
        return line
    start = max(0, min(at - 60, len(line) - SHOW_CHARS))
    return ("…" if start else "") + line[start:start + SHOW_CHARS] + \
        ("…" if start + SHOW_CHARS < len(line) else "")


_PY_FRAME_HEAD = re.compile(r'^\s*File "[^"]*", line \d+(?:, in \S+)?')


def _role(line: str, at: int, above: Callable[[], str | None]) -> str:
    """exception | frame | log, for one hit line (looks at the line above for frame code).

    A Python frame header flattened together with the message (a pasted one-liner) is a frame
    only if the pattern matched inside the header itself.
    """
    head = _PY_FRAME_HEAD.match(line)
    if head and at >= head.end():
        return "exception" if "Error" in line[head.end():] else "log"
    if _FRAME.match(line):
        return "frame"
    if line.startswith((" ", "\t")):
        prev = above()
        if prev is not None and prev.lstrip().startswith("File \""):
            return "frame"
    if _EXC.match(line):
        return "exception"
    return "log"


def _cause_depth(line: int, tracebacks: list[int], chains: list[int]) -> int:
    """How many chain markers follow ``line`` before an unrelated traceback starts.

    In ``A; "The above exception was the direct cause…"; B`` the hit in A has depth 1: it is
    the cause that B wraps. A new "Traceback (most recent call last)" that is not preceded by a
    chain marker starts an unrelated error, and stops the count.
    """
    depth = 0
    ci = bisect_right(chains, line)
    ti = bisect_right(tracebacks, line)
    pos = line
    while ci < len(chains):
        chain_line = chains[ci]
        # an unrelated traceback between pos and this chain marker ends the chain
        while ti < len(tracebacks) and tracebacks[ti] <= pos:
            ti += 1
        if ti < len(tracebacks) and tracebacks[ti] < chain_line:
            # a traceback header that belongs to the current segment (the one right after
            # the previous chain marker) is fine; any other one is a new error
            if not (depth and tracebacks[ti] - pos <= 4):
                break
            ti += 1
            continue
        depth += 1
        pos = chain_line
        ci += 1
        if depth >= 5:
            break
    return depth
