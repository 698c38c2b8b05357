"""Find signature hits in a stream of normalised blocks, fast and with bounded memory.

Per block (about 1 MB of whole lines) we lower-case the text once and search a few dozen
*anchors* with ``str.find`` (C speed): short substrings chosen so that every pattern's
prefilter literal contains one (``choose_anchors``). Only the lines an anchor finds are checked
for the literals, and only lines with a literal are handed to the regexes, so a log of healthy
lines costs a few dozen substring searches per megabyte. Patterns without a usable literal fall
back to a per-line search.

Besides signature hits, the scanner records the *structure* that ranking needs: where Python
tracebacks start and where exceptions are chained ("During handling of the above exception",
"The above exception was the direct cause"), and for each hit line whether it is an exception
line, a stack-frame line (``File "…", line N`` or the source line under it, C++ ``frame #N``)
or plain log text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field

from envdoctor.explain.signatures import Pattern, Signature

MAX_HITS_PER_SIGNATURE = 50     # evidence kept per signature (the count goes on)
MAX_MARKERS = 200_000           # structural markers kept (a pathological log may have more)
ANCHOR_MIN, ANCHOR_MAX = 4, 10  # anchor lengths considered
FIND_MS = 4.0                   # one find over 1 MB (measured ~1-2 ms; weighs fewer anchors up)
LINE_MS = 18.0                  # an anchor present on every line (12k lines x 1.5 us)
SHOW_CHARS = 300                # evidence text is cut to this

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
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


@dataclass
class ScanResult:
    by_code: dict[str, SigHits]
    lines: int = 0
    chars: int = 0
    tracebacks: int = 0
    chains: int = 0


def choose_anchors(literals: list[str], reference: list[str]) -> dict[str, tuple[str, ...]]:
    """A few short substrings ("anchors") such that every literal contains one of them.

    One ``str.find`` over a 1 MB block costs ~1 ms, so searching ~200 literals one by one caps
    throughput near 5 MB/s. Instead we search a few dozen anchors and check the literals only
    on the lines an anchor finds. Greedy set cover (lazy, with a heap): each step takes the
    substring (ANCHOR_MIN..ANCHOR_MAX chars, or a whole literal) that covers the most remaining
    literals per unit of expected cost: its ``str.find`` time plus the lines it drags in,
    estimated from ``reference`` (ordinary log lines, see ``_reference``).
    """
    import heapq
    from collections import Counter
    line_hits: Counter[str] = Counter()
    for line in reference:
        line_hits.update({line[i:i + n] for n in range(ANCHOR_MIN, ANCHOR_MAX + 1)
                          for i in range(len(line) - n + 1)})
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
    text = "\n".join(reference)
    freq = Counter(text)
    total = max(len(text), 1)
    by_bit: Counter[int] = Counter()
    for ch, n in freq.items():
        by_bit[ord(ch) & 63] += n

    def cost_of(c: str) -> float:
        q = min(sum(by_bit[b] for b in {ord(ch) & 63 for ch in c}) / total, 1.0)
        advance = (1 - q) * (len(c) + 1) + q
        return FIND_MS / advance + LINE_MS * line_hits.get(c, 0) / nref

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


class Scanner:
    """Compiled once per signature set; ``scan(blocks)`` may be called many times."""

    def __init__(self, signatures: Iterable[Signature]):
        self.signatures = tuple(signatures)
        # literal -> [(sig index, pattern, is_anti)]
        self.by_literal: dict[str, list[tuple[int, Pattern, bool]]] = {}
        self.unfiltered: list[tuple[int, Pattern, bool]] = []
        for i, sig in enumerate(self.signatures):
            for pats, anti in ((sig.patterns, False), (sig.anti_patterns, True)):
                for pat in pats:
                    if pat.literals is None:
                        self.unfiltered.append((i, pat, anti))
                    else:
                        for lit in pat.literals:
                            self.by_literal.setdefault(lit, []).append((i, pat, anti))
        self.anchors = _cached_anchors(sorted(self.by_literal), self.signatures)

    def scan(self, blocks: Iterable[tuple[int, str]]) -> ScanResult:
        state = _State(self)
        for first_line, text in blocks:
            state.block(first_line, text)
        return state.finish()


class _State:
    def __init__(self, scanner: Scanner):
        self.s = scanner
        self.sig_hits = [SigHits(sig) for sig in scanner.signatures]
        self.tracebacks: list[int] = []
        self.chains: list[int] = []
        self.lines = 0
        self.chars = 0

    def block(self, first_line: int, text: str) -> None:
        self.chars += len(text)
        low = text.lower()
        if len(low) != len(text):  # rare non-ASCII case changes: keep offsets aligned
            low = text.translate(_ASCII_LOWER)
        # (line start offset) -> [(sig index, pattern, anti)]
        todo: dict[int, list[tuple[int, Pattern, bool]]] = {}
        by_literal = self.s.by_literal
        for anchor, lits in self.s.anchors.items():
            pos = low.find(anchor)
            while pos != -1:
                start = low.rfind("\n", 0, pos) + 1
                end = low.find("\n", pos)
                line = low[start:] if end == -1 else low[start:end]
                for lit in lits:
                    if lit in line:
                        todo.setdefault(start, []).extend(by_literal[lit])
                if end == -1:
                    break
                pos = low.find(anchor, end)
        if self.s.unfiltered:
            start = 0
            for line in text.split("\n"):
                todo.setdefault(start, []).extend(self.s.unfiltered)
                start += len(line) + 1
        markers = []
        for lit, sink in ((TRACEBACK, self.tracebacks), (CHAIN[0], self.chains),
                          (CHAIN[1], self.chains)):
            pos = low.find(lit)
            while pos != -1 and len(sink) < MAX_MARKERS:
                markers.append((low.rfind("\n", 0, pos) + 1, sink))
                pos = low.find(lit, pos + len(lit))
        # offsets -> line numbers, incrementally (one pass over the block, not one per hit)
        offsets = sorted(set(todo) | {m[0] for m in markers})
        line_of: dict[int, int] = {}
        line, prev = first_line, 0
        for off in offsets:
            line += text.count("\n", prev, off)
            line_of[off] = line
            prev = off
        for off, sink in markers:
            sink.append(line_of[off])
        for start in sorted(todo):
            end = text.find("\n", start)
            line_text = text[start:] if end == -1 else text[start:end]
            seen: set[int] = set()
            for i, pat, anti in todo[start]:
                key = id(pat)
                if key in seen:
                    continue
                seen.add(key)
                m = pat.regex.search(line_text)
                if m is None:
                    continue
                sh = self.sig_hits[i]
                if anti:
                    if len(sh.anti_lines) < 10_000:
                        sh.anti_lines.append(line_of[start])
                    continue
                if sh.hits and sh.hits[-1].line == line_of[start]:
                    continue  # two patterns on one line: one piece of evidence
                sh.count += 1
                if len(sh.hits) < MAX_HITS_PER_SIGNATURE:
                    sh.hits.append(Hit(line_of[start], _excerpt(line_text, m.start()),
                                       _role(text, start, line_text, m.start())))
        self.lines = first_line + text.count("\n")

    def finish(self) -> ScanResult:
        self.tracebacks.sort()
        self.chains.sort()
        for sh in self.sig_hits:
            for hit in sh.hits:
                hit.cause_depth = _cause_depth(hit.line, self.tracebacks, self.chains)
        return ScanResult({sh.signature.code: sh for sh in self.sig_hits if sh.count},
                          lines=self.lines, chars=self.chars, tracebacks=len(self.tracebacks),
                          chains=len(self.chains))


def _cached_anchors(literals: list[str], signatures: tuple[Signature, ...]
                    ) -> dict[str, tuple[str, ...]]:
    """``choose_anchors`` takes ~1 s; its answer is cached beside the signature cache."""
    import json

    from envdoctor.explain.signatures import cache_path, write_json
    key = f"{ANCHOR_MIN}-{ANCHOR_MAX}-{FIND_MS}-{LINE_MS}-{HEALTHY_LINES}\n" + "\n".join(literals)
    path = cache_path("anchors", key)
    if path is not None:
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
            if isinstance(data, dict) and all(isinstance(v, list) for v in data.values()):
                return {k: tuple(v) for k, v in data.items()}
        except (OSError, ValueError):
            pass
    anchors = choose_anchors(literals, _reference(signatures))
    if path is not None:
        write_json(path, {k: list(v) for k, v in anchors.items()})
    return anchors


# Lines that fill healthy training logs (shapes of real TensorFlow, PyTorch/Lightning,
# Hugging Face, tqdm, pip, NCCL INFO and nvidia-smi output). They dominate a big log, so an
# anchor that occurs in them costs the most; they count HEALTHY_WEIGHT times.
HEALTHY_LINES = (
    "2024-05-01 12:00:00.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1928] "
    "Created device /job:localhost/replica:0/task:0/device:GPU:0 with 22292 MB memory:  -> "
    "device: 0, name: NVIDIA A10G, pci bus id: 0000:00:1e.0, compute capability: 8.6",
    "I0501 12:00:00.123456 140 cuda_executor.cc:1015] successful cuda device initialisation",
    "Epoch 3/10: 100%|##########| 1563/1563 [02:11<00:00, 11.9it/s, loss=0.231, v_num=0]",
    "{'loss': 0.4312, 'grad_norm': 1.234, 'learning_rate': 4.9e-05, 'epoch': 0.12}",
    "[2024-05-01 12:00:00,123] [INFO] [trainer.py:1234] Loading model from checkpoint; "
    "step 1200/50000 train_loss=2.318 eval_loss=2.402 tokens/s=18234",
    "Using device: cuda:0. Loading weights from /data/model.safetensors (to device)",
    "GPU available: True (cuda), used: True. TPU available: False, using: 0 TPU cores",
    "LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0,1,2,3,4,5,6,7]",
    "node0:123:456 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7",
    "node0:123:456 [0] NCCL INFO Connected all rings, comm 0x55d0 rank 0 nranks 8 cudaDev 0",
    "Downloading torch-2.3.0-cp311-cp311-manylinux1_x86_64.whl (779.1 MB) - Successfully "
    "installed nvidia-cudnn-cu12-8.9.2.26 nvidia-cublas-cu12-12.1.3.1 torch-2.3.0",
    "Requirement already satisfied: numpy>=1.17 in ./venv/lib/python3.11/site-packages",
    "|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |",
    "Validation: the model is being evaluated on the test set; saving to the output dir",
)
HEALTHY_WEIGHT = 20


def _reference(signatures: tuple[Signature, ...]) -> list[str]:
    """Ordinary lines: the examples' lines that no prefilter literal is in, plus HEALTHY_LINES."""
    lits = [lit for sig in signatures for p in sig.patterns for lit in (p.literals or ())]
    lines = {line.lower()[:300] for sig in signatures for ex in sig.examples
             for line in ex.text.splitlines() if line.strip()}
    ordinary = sorted(t for t in lines if not any(lit in t for lit in lits))
    return ordinary + [t.lower() for t in HEALTHY_LINES] * HEALTHY_WEIGHT


def _excerpt(line: str, at: int) -> str:
    """The line, or for a long one a window of it that shows where the pattern matched."""
    line = line.rstrip()
    if len(line) <= SHOW_CHARS:
        return line
    start = max(0, min(at - 60, len(line) - SHOW_CHARS))
    return ("…" if start else "") + line[start:start + SHOW_CHARS] + \
        ("…" if start + SHOW_CHARS < len(line) else "")


_PY_FRAME_HEAD = re.compile(r'^\s*File "[^"]*", line \d+(?:, in \S+)?')


def _role(text: str, start: int, line: str, at: int = 0) -> str:
    """exception | frame | log, for one hit line (looks at the line above for frame code).

    A Python frame header flattened together with the message (a pasted one-liner) is a frame
    only if the pattern matched inside the header itself.
    """
    head = _PY_FRAME_HEAD.match(line)
    if head and at >= head.end():
        return "exception" if "Error" in line[head.end():] else "log"
    if _FRAME.match(line):
        return "frame"
    if start > 0:
        above = text[text.rfind("\n", 0, start - 1) + 1:start - 1]
        if above.lstrip().startswith("File \"") and line.startswith((" ", "\t")):
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
