"""`envdoctor explain`: name the root cause of a framework error from its text.

Library API (used by the live-workers engineer on a crashed worker's stderr)::

    from envdoctor.explain import diagnose_text
    diagnoses = diagnose_text(stderr_text)              # text only, best first
    diagnoses = diagnose_text(text, facts=snapshot)     # conditions sharpen the answer
    diagnoses = diagnose_text(text, report_facts=parsed)  # facts parsed from the same text

    from envdoctor.explain import text_facts
    facts = text_facts(text)   # what the text states: exceptions, libraries, symbols,
                               # versions, GPUs / compute capabilities, warnings, a cut

``facts`` are this machine's (or a saved snapshot); ``report_facts`` are facts parsed from the
text itself (a pasted GitHub issue's environment section) and win section by section, because
the error happened on *that* machine. Signatures live in ``rules/signatures`` (data).

Flow: ``reader`` (bytes -> raw blocks of lines) -> ``scan`` (anchors in a reduced copy, then
only the hit lines normalised and matched; traceback structure) -> ``conditions`` (facts) ->
``rank`` (one primary, then secondaries) -> ``render``.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from envdoctor.explain.reader import FileReader, NotText
from envdoctor.explain.scan import Scanner, ScanResult
from envdoctor.explain.signatures import Signature, load_signatures

if TYPE_CHECKING:  # envdoctor.facts costs ~45 ms to import: only when conditions need facts
    from envdoctor.explain.rank import Diagnosis, Evidence, primary
    from envdoctor.explain.stated import with_stated_facts
    from envdoctor.explain.textfacts import TextFacts, text_facts
    from envdoctor.facts import Facts

# Read on first use (PEP 562): a big log never needs the text facts (they read pasted texts
# of at most 256 KB), and their patterns cost ~10 ms to compile at import.
# Ranking and conditions too: a big log's scan does not need them, and its children are
# forked sooner without them (``commands.explain._warm`` imports them while they scan).
_LAZY = {"TextFacts": "envdoctor.explain.textfacts", "text_facts": "envdoctor.explain.textfacts",
         "with_stated_facts": "envdoctor.explain.stated",
         "Diagnosis": "envdoctor.explain.rank", "Evidence": "envdoctor.explain.rank",
         "primary": "envdoctor.explain.rank"}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value

__all__ = [
    "Diagnosis",
    "Evidence",
    "NotText",
    "Signature",
    "TextFacts",
    "diagnose_stream",
    "diagnose_text",
    "load_signatures",
    "parse_report_facts",
    "primary",
    "rank_result",
    "reread",
    "scan_stream",
    "scanner",
    "text_facts",
    "with_stated_facts",
    "with_text_readings",
]

_SCANNER: Scanner | None = None

# An input of this many bytes or more is scanned with the chosen anchors (``choose_anchors``:
# ~3 s of CPU once after the signatures change, then cached); a smaller one, with a cold cache,
# with every reduced literal as its own anchor (``Scanner(choose=False)``): the same lines are
# found, and the extra needles cost nothing on a log of repeated lines but ~2 s per MB of
# lines that never repeat (each block searched whole for ~7 000 needles, not ~900).
CHOOSE_BYTES = 1 << 20


def scanner(choose: bool = True) -> Scanner:
    """The compiled scanner for the current rules folder (built once per process).
    ``choose=False``: one for a small input, which does not choose anchors when none are
    cached (``Scanner``); a scanner with chosen anchors serves both."""
    global _SCANNER
    sigs = load_signatures()
    if _SCANNER is None or _SCANNER.signatures is not sigs or (choose and not _SCANNER.chosen):
        _SCANNER = Scanner(sigs, choose)
    return _SCANNER


class _Ahead:
    """A stream whose first bytes were read ahead (``_sized``): those, then the rest."""

    def __init__(self, head: bytes, stream: FileReader):
        self.head, self.stream = head, stream

    def read(self, n: int = -1, /) -> bytes:
        """As a buffered file reads: ``n`` bytes unless the stream ends first (the readers
        take a short read for the end)."""
        head = self.head
        if not head:
            return self.stream.read(n)
        if 0 <= n <= len(head):
            self.head = head[n:]
            return head[:n]
        self.head = b""
        return head + self.stream.read(-1 if n < 0 else n - len(head))

    def fileno(self) -> int:  # never split by offset: part of it was read ahead
        raise OSError("read ahead")

    def tell(self) -> int:
        raise OSError("read ahead")


def _sized(stream: FileReader) -> tuple[FileReader, bool]:
    """(the stream, whether CHOOSE_BYTES or more are left in it). A regular file and an
    in-memory stream say their size; anything else (a pipe) is read ahead up to CHOOSE_BYTES,
    and the stream returned reads those bytes first."""
    import os
    import stat
    if isinstance(stream, io.BytesIO):
        with stream.getbuffer() as view:
            return stream, view.nbytes - stream.tell() >= CHOOSE_BYTES
    try:
        st = os.fstat(stream.fileno())
        if stat.S_ISREG(st.st_mode):
            return stream, st.st_size - stream.tell() >= CHOOSE_BYTES
    except (OSError, ValueError, AttributeError):
        pass
    got: list[bytes] = []
    have = 0
    while have < CHOOSE_BYTES:
        data = stream.read(CHOOSE_BYTES - have)
        if not data:
            break
        got.append(data)
        have += len(data)
    return _Ahead(b"".join(got), stream), have >= CHOOSE_BYTES


def diagnose_text(text: str, facts: Facts | None = None,
                  report_facts: Facts | None = None) -> list[Diagnosis]:
    """Diagnoses for an error text, best first ([] when nothing is recognised)."""
    data = text.encode("utf-8", errors="replace")
    try:
        found = diagnose_stream(io.BytesIO(data), lambda: facts, report_facts)[1]
    except NotText:
        return []
    found = reread(text, found, lambda: facts, report_facts) or found
    return with_text_readings(text, found)


def with_text_readings(text: str, found: list[Diagnosis]) -> list[Diagnosis]:
    """The readings of a pasted text's own facts over its diagnoses: yields the stated facts
    make (``stated.with_stated_facts``), then, where no error line was explained, the
    impossibility the text states (``impossible.diagnosis_for``). ``diagnose_text`` and the
    ``explain`` command both end with it, so they answer alike."""
    from envdoctor.explain.rank import primary
    from envdoctor.explain.stated import with_stated_facts
    found = with_stated_facts(text, found, load_signatures())
    if primary(found) is None:  # no error line explained: the facts the text states may
        from envdoctor.explain.impossible import diagnosis_for
        stated = diagnosis_for(text, load_signatures())
        if stated is not None:
            return [stated, *found]
    return found


def reread(text: str, found: list[Diagnosis],
           facts: Callable[[], Facts | None] | None = None,
           report_facts: Facts | None = None) -> list[Diagnosis] | None:
    """Diagnoses of a second reading of the text, or None to keep ``found`` (the first one).

    A program prints ASCII: a text with typographic quotes or no-break spaces is read again
    with them made plain, and that reading wins when it explains something. A text that
    explained nothing is also read with a terminal's hard wrap undone (see
    ``envdoctor.explain.unwrap``); a text that did is not, so a wrap cannot change an answer.
    """
    from envdoctor.explain.rank import primary
    from envdoctor.explain.unwrap import MAX_TEXT, has_typographic, second_reading
    if len(text) > MAX_TEXT:  # a big log is read once
        return None
    # a carrier (``only_as_yield``) names no cause by itself, and a fallback (ESYS032, any
    # library the loader cannot open) is the generic answer: neither may stop the second
    # reading that may find the specific line the first one missed (a JSON-escaped WinError)
    first = primary([d for d in found if not _carrier(d)])
    explained = first is not None and not _fallback(first)
    if explained and not has_typographic(text):
        return None
    again = second_reading(text, undo_wrap=not explained)
    if again is None:
        return None
    data = again.encode("utf-8", errors="replace")
    try:
        found = diagnose_stream(io.BytesIO(data), facts, report_facts)[1]
    except NotText:
        return None
    second = primary([d for d in found if not _carrier(d)])
    if second is None:
        return None
    # over the first reading's generic answer, only a more specific one that ranks as high
    if first is not None and _fallback(first) and (_fallback(second) or second.score < first.score):
        return None
    return found


def _fallback(d: Diagnosis) -> bool:
    """A diagnosis of a fallback signature (``fallback = true``): the generic answer."""
    return bool(d.signature is not None and d.signature.extra.get("fallback") is True)


def _carrier(d: Diagnosis) -> bool:
    """A diagnosis of a carrier signature (``only_as_yield``): a cause only once it yields."""
    return bool(d.signature is not None and d.signature.extra.get("only_as_yield"))


def diagnose_stream(stream: FileReader, facts: Callable[[], Facts | None] | None = None,
                    report_facts: Facts | None = None) -> tuple[ScanResult, list[Diagnosis]]:
    """Scan a byte stream and rank; raises ``NotText`` (binary) or ``RuleFileError``."""
    result = scan_stream(stream)
    return result, rank_result(result, facts, report_facts)


def scan_stream(stream: FileReader, first_line: int = 1,
                idle: Callable[[list[Signature]], object] | None = None,
                busy: bool = False) -> ScanResult:
    """Stream -> hits and traceback structure, with bounded memory (raw fast path); a big
    regular file is scanned in two processes (``explain.parallel``), with the same result.
    Each regex search is bounded in time (``explain.deadline``: ``PatternTooSlow``).
    ``idle``: work to do while the second process finishes, ``busy``: it probes facts (see
    ``parallel.scan_file``)."""
    from envdoctor.explain import deadline, parallel
    from envdoctor.explain.scan import _State
    stream, big = _sized(stream)
    with deadline.guard(_State._match.__code__):
        result = parallel.scan_file(scanner(big), stream, first_line, idle=idle, busy=busy)
        return result if result is not None else scanner(big).scan_stream(stream, first_line)


def matched_with_conditions(result: ScanResult) -> list[Signature]:
    """Matched signatures that have conditions (only these need facts)."""
    return [sh.signature for sh in result.by_code.values() if sh.signature.conditions]


def rank_result(result: ScanResult, facts: Callable[[], Facts | None] | None = None,
                report_facts: Facts | None = None) -> list[Diagnosis]:
    """Rank hits; ``facts`` is called only if a matched signature has conditions.

    That laziness is why a plain traceback costs no probing (the static probes take ~0.1 s).
    """
    from envdoctor.explain.conditions import ConditionEvaluator, merge_facts
    from envdoctor.explain.rank import rank
    evaluator = None
    if matched_with_conditions(result):
        merged = merge_facts(facts() if facts else None, report_facts)
        if merged is not None:
            evaluator = ConditionEvaluator(merged)
    return rank(result, evaluator)


# "PyTorch version: 2.1.0", "- CUDA used to build PyTorch: 12.1", "| NVIDIA-SMI 535.54", …
_REPORT_HINT = re.compile(
    r"(?im)^[ \t>*|-]*(?:pytorch|torch|tensorflow|tf|jax|jaxlib|cuda|cudnn|python|nvidia|driver"
    r"|gpu|os|platform|numpy)\b[^:=\n]{0,40}[:=]\s*\S|NVIDIA-SMI \d|Collecting environment inf")


def looks_like_report(text: str) -> bool:
    """Does the text carry environment facts (a pasted report), not just an error?"""
    return _REPORT_HINT.search(text) is not None


def parse_report_facts(text: str) -> Facts | None:
    """Facts parsed from a pasted report by ``envdoctor.parsers.parse_text``, if that exists.

    The parsers package is another engineer's; when it is absent, or fails, we go on without.
    Only texts that look like a report are handed over (importing the parsers costs ~0.1 s).
    """
    if not looks_like_report(text):
        return None
    try:
        import importlib
        parsers = importlib.import_module("envdoctor.parsers")
        parse = getattr(parsers, "parse_text", None)
        return parse(text) if callable(parse) else None
    except Exception:
        return None
