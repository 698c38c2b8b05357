"""The causes a pasted text's own error lines state, read by the one signature engine.

``check --from`` on an issue gets the environment facts of the paste (the parsers) and its
error (the ``explain`` signatures): both are evidence about the same machine. This module
asks ``envdoctor.explain`` what the text's error is, with the text's facts as conditions,
and keeps only what names a problem of the environment (a user-code error or a harmless
warning is no finding about the machine). The primary diagnosis is kept, and a secondary
one only when it is an environment cause with high confidence: one error, one cause.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from envdoctor.facts import TextDiagnosis

if TYPE_CHECKING:
    from envdoctor.facts import Facts

MAX_CAUSES = 3
MAX_EVIDENCE = 3


def diagnoses_of(text: str, facts: Facts | None = None) -> tuple[TextDiagnosis, ...]:
    """The environment causes ``explain`` recognises in ``text``, best first (() if none)."""
    if not isinstance(text, str) or not text.strip():
        return ()
    from envdoctor.explain import diagnose_text, primary
    try:
        found = diagnose_text(text, report_facts=facts)
    except Exception:  # noqa: BLE001 - a broken signature file must not break `check --from`
        return ()
    first = primary(found)
    out: list[TextDiagnosis] = []
    for d in found:
        if d.category != "environment" or d.confidence == "low":
            continue
        if d is not first and d.confidence != "high":
            continue
        out.append(TextDiagnosis(
            code=d.code, id=d.id, title=d.title, confidence=d.confidence,
            why=" ".join(d.why.split()), fix=" ".join(d.fix.split()),
            references=tuple(d.references),
            evidence=tuple(f"line {e.line}: {e.text.strip()[:300]}"
                           for e in d.evidence[:MAX_EVIDENCE])))
        if len(out) == MAX_CAUSES:
            break
    return tuple(out)
