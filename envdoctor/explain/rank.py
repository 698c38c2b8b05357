"""From hits to ranked diagnoses: one primary root cause, then secondaries.

The score of a matched signature, highest first:

- ``root_cause_rank`` (0-100, data): how close this kind of error is to a root cause. A
  wrapper ("ChildFailedError", "DataLoader worker exited unexpectedly") ranks low, the error it
  wraps (an UnpicklingError, a missing libcudnn) high.
- confidence (after conditions on facts): high +2, medium +1, low 0 (a tie-breaker); a
  condition that holds on the facts +5.
- position in a chain of exceptions: a hit in an exception that a later one wraps ("The above
  exception was the direct cause…") is closer to the root: +4 per level (at most 2).
- where the line is: on an exception line +3; only inside stack frames (the code that raised,
  not the message) -25 and low confidence, because quoting code is not an error.
- co-occurrence (a signature's ``[[context]]``): other lines of the same text may change the
  category (a warning that the text shows to be harmless), add a rank delta, a note, or the
  fix that fits the framework that raised the error.
- benign warnings always rank below every real error (they are called harmless).
- a fallback signature (``fallback = true``: ESYS032, any shared library the loader cannot
  open) speaks only for lines that no other signature reads: a line that a specific signature
  matched is that signature's to explain, or to leave alone (ETF007's harmless libnvinfer
  warning), even where its anti-patterns cancel the hit. A signature that a context drops
  (not its case in this text) leaves its lines free.

Ties go to the signature seen first in the text (the first error usually causes the others).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from envdoctor.explain.scan import Hit, ScanResult, SigHits
from envdoctor.explain.signatures import Context, Signature

CONF_BONUS = {"high": 2, "medium": 1, "low": 0}
ANTI_WINDOW = 200        # an anti-pattern cancels hits within this many lines of it
MAX_EVIDENCE = 5


@dataclass(frozen=True)
class Evidence:
    line: int
    text: str


@dataclass(frozen=True)
class Diagnosis:
    """One explained error. ``to_dict`` is the public JSON shape (keys are only ever added)."""

    code: str
    id: str
    title: str
    category: str
    confidence: str
    evidence: tuple[Evidence, ...]
    why: str
    fix: str
    references: tuple[str, ...]
    score: float = 0.0
    hits: int = 0
    notes: tuple[str, ...] = ()
    first_line: int = 0
    signature: Signature | None = field(default=None, compare=False, repr=False)

    @property
    def is_environment(self) -> bool:
        return self.category == "environment"

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "id": self.id, "title": self.title,
                "category": self.category, "confidence": self.confidence,
                "evidence": [{"line": e.line, "text": e.text} for e in self.evidence],
                "why": self.why, "fix": self.fix, "references": list(self.references),
                "notes": list(self.notes), "hits": self.hits, "score": round(self.score, 1)}


def _live_hits(sh: SigHits) -> list[Hit]:
    """Hits that no anti-pattern near them cancels."""
    if not sh.anti_lines:
        return list(sh.hits)
    antis = sorted(sh.anti_lines)
    from bisect import bisect_left
    keep = []
    for hit in sh.hits:
        i = bisect_left(antis, hit.line - ANTI_WINDOW)
        if i < len(antis) and antis[i] <= hit.line + ANTI_WINDOW:
            continue
        keep.append(hit)
    return keep


def applying_contexts(sh: SigHits) -> list[Context]:
    """The signature's contexts that hold in this text (``text`` seen, no ``absent`` seen)."""
    out = []
    for ci, ctx in enumerate(sh.signature.contexts):
        if ctx.text and (ci << 1) not in sh.context_seen:
            continue
        if ctx.absent and (ci << 1 | 1) in sh.context_seen:
            continue
        out.append(ctx)
    return out


def _gate_held(sh: SigHits) -> bool:
    """Did the hit pass a gate on what the text states: a context with no ``text``, ``absent``
    regexes and ``drop`` (it keeps a hit only where one of them is in the text: ETORCH006's
    stated CPU-only torch, "torch-2.2.0+cpu" in an Ultralytics banner) and one of them seen?
    Such a fact is evidence of its own, so a hit found only in a traceback's frames (a paste cut
    before its last line, inside select_device) is kept at "medium", not "low"."""
    return any(ctx.drop and not ctx.text and ctx.absent and (ci << 1 | 1) in sh.context_seen
               for ci, ctx in enumerate(sh.signature.contexts))


def is_fallback(sig: Signature) -> bool:
    """A signature that speaks only for lines no other signature reads (``fallback = true``)."""
    return sig.extra.get("fallback") is True


def claimed_lines(result: ScanResult) -> set[int]:
    """The lines that a signature other than a fallback matched, whether or not an
    anti-pattern cancels the hit; a signature that a context drops claims none."""
    out: set[int] = set()
    for sh in result.by_code.values():
        if is_fallback(sh.signature) or not sh.hits:
            continue
        if any(ctx.drop for ctx in applying_contexts(sh)):
            continue
        out.update(h.line for h in sh.hits)
    return out


def rank(result: ScanResult, conditions: Any = None) -> list[Diagnosis]:
    """Rank the matched signatures.

    ``conditions(sig) -> (confidence|None, notes[, category|None])`` is optional (facts).
    """
    out: list[Diagnosis] = []
    claimed: set[int] | None = None
    for sh in result.by_code.values():
        hits = _live_hits(sh)
        if hits and is_fallback(sh.signature):
            if claimed is None:
                claimed = claimed_lines(result)
            hits = [h for h in hits if h.line not in claimed]
        if not hits:
            continue
        sig = sh.signature
        notes: tuple[str, ...] = ()
        confidence, category, fix = sig.confidence, sig.category, sig.fix
        cond_bonus = 0
        contexts = applying_contexts(sh)
        if any(ctx.drop for ctx in contexts):
            continue
        for ctx in contexts:
            category = ctx.category or category
            confidence = ctx.confidence or confidence
            cond_bonus += ctx.rank
            fix = ctx.fix or fix
            notes += (ctx.note,) if ctx.note else ()
        title, why = sig.title, sig.why
        if "lookup" in sig.extra:  # the matched name, looked up, decides and fills the answer
            from envdoctor.explain.lookups import fill, read_hits
            hits, values, filled = read_hits(sig, hits)
            if not hits:
                continue
            title, why, fix = fill(title, values), fill(why, values), fill(fix, values)
            notes += filled
        if conditions is not None:
            answer = conditions(sig)
            new_conf, cond_notes = answer[0], answer[1]
            notes += tuple(cond_notes)
            if len(answer) > 2 and answer[2]:
                category = answer[2]
            if new_conf:
                confidence, cond_bonus = new_conf, cond_bonus + 5
            elif cond_notes:
                cond_bonus += 2
        only_frames = all(h.role == "frame" for h in hits)
        if only_frames:
            confidence = "medium" if confidence != "low" and _gate_held(sh) else "low"
        score = float(sig.root_cause_rank) + CONF_BONUS[confidence] + cond_bonus
        score += 4 * min(max(h.cause_depth for h in hits), 2)
        if any(h.role == "exception" for h in hits):
            score += 3
        if only_frames:
            score -= 25
        if category == "benign":
            score -= 200
        ordered = sorted(hits, key=lambda h: (h.role == "frame", -h.cause_depth, h.line))
        evidence = tuple(Evidence(h.line, h.text)
                         for h in sorted(ordered[:MAX_EVIDENCE], key=lambda h: h.line))
        hit_count = sh.count - (len(sh.hits) - len(hits))
        out.append(Diagnosis(sig.code, sig.id, title, category, confidence, evidence,
                             why, fix, sig.references, score, hit_count, tuple(notes),
                             min(h.line for h in hits), sig))
    out.sort(key=lambda d: (-d.score, d.first_line, d.code))
    if claimed is not None:  # a fallback is the answer or nothing: never a second opinion
        top = primary(out)
        out = [d for d in out if d is top or d.signature is None or not is_fallback(d.signature)]
    return out


def primary(diagnoses: list[Diagnosis]) -> Diagnosis | None:
    """The root cause: the best diagnosis that is not a harmless warning (None: no error)."""
    return next((d for d in diagnoses if d.category != "benign"), None)
