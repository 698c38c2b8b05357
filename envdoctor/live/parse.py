"""A worker's raw outcome -> ``LiveFramework`` facts.

A worker that answered one valid JSON object becomes ``probe.status = ok``. Anything else (a
segfault, a hang, a kill, garbage on stdout, a non-zero exit, JSON of the wrong shape) becomes
``probe.status = error`` with a one-line reason and the tail of its stderr; where the error
signatures (``envdoctor explain``) recognise that text, their diagnoses ride along.
"""

from __future__ import annotations

import signal
from dataclasses import replace
from typing import Any

from envdoctor.bounded import decode_json
from envdoctor.facts import Facts, LiveDiagnosis, LiveFramework, ProbeInfo, Status, TextDiagnosis
from envdoctor.facts.serialize import DecodeError, from_jsonable
from envdoctor.live.orchestrate import WorkerRun
from envdoctor.workers import PROTOCOL

TAIL_LINES = 25
TAIL_CHARS = 3000
MAX_DIAGNOSES = 3


def stderr_tail(text: str, lines: int = TAIL_LINES, chars: int = TAIL_CHARS) -> str:
    kept = [ln.rstrip() for ln in text.strip().splitlines() if ln.strip()][-lines:]
    tail = "\n".join(kept)
    return tail[-chars:]


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def _answer(stdout: str) -> dict[str, Any] | None:
    """The last line of stdout that is a JSON object, if any."""
    for line in reversed(stdout.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                data = decode_json(line, "a worker's answer", nan=True)
            except ValueError:
                return None
            return data if isinstance(data, dict) else None
    return None


def failure_reason(run: WorkerRun) -> str | None:
    """Why a worker's answer cannot be used, or None when it can."""
    if run.error:
        return run.error
    if run.timed_out:
        return f"timed out after {run.seconds:.0f}s and was killed"
    if run.returncode is not None and run.returncode < 0:
        return f"killed by {_signal_name(run.returncode)}"
    if run.returncode not in (0, None):
        return f"exited with status {run.returncode}"
    if _answer(run.stdout) is None:
        head = run.stdout.strip()[:80]
        return "answered no JSON" + (f" (stdout began {head!r})" if head else " (empty stdout)")
    return None


def diagnoses_for(text: str, problems_only: bool = False) -> tuple[LiveDiagnosis, ...]:
    """What ``envdoctor explain`` recognises in ``text``; () when it cannot say.

    ``problems_only`` keeps the diagnoses that name a problem of the environment with high
    confidence: what a worker that otherwise answered printed (an import warning such as
    MindSpore's "A module that was compiled using NumPy 1.x cannot be run in NumPy 2") is a
    finding only then, never TensorFlow's harmless start-up chatter."""
    found = [d for d in _diagnoses(text) if d.category != "benign"]  # a notice is no cause
    if problems_only:
        found = [d for d in found if d.category == "environment" and d.confidence == "high"]
    out = []
    for d in found[:MAX_DIAGNOSES]:
        out.append(LiveDiagnosis(code=d.code, title=d.title, fix=" ".join(d.fix.split()),
                                 confidence=d.confidence, category=d.category))
    return tuple(out)


def _diagnoses(text: str) -> list[Any]:
    if not text.strip():
        return []
    from envdoctor.explain import diagnose_text  # the one signature engine, reused
    try:
        return diagnose_text(text)
    except Exception:  # noqa: BLE001 - a broken signature file must not break `check`
        return []


def without_notices(tail: str) -> str:
    """A stderr tail without the lines the error signatures call benign (TensorFlow's
    "oneDNN custom operations are on" notice, its CPU-instructions banner): what is quoted as
    a worker's cause is never a notice that says it is not an error."""
    benign = {e.line for d in _diagnoses(tail) if d.category == "benign" for e in d.evidence}
    if not benign:
        return tail
    return "\n".join(line for i, line in enumerate(tail.splitlines(), 1) if i not in benign)


def _framework_missing(name: str, import_error: str) -> bool:
    """The import failed because the framework itself is absent ("No module named 'mxnet'"),
    not because something it imports is ("No module named 'numpy'" from inside paddle)."""
    return f"No module named '{name}'" in import_error  # each worker imports its own name


def to_live(run: WorkerRun, ran: str = "") -> LiveFramework:
    """Facts from one worker run (never raises)."""
    shown = ran or " ".join(run.argv)
    tail = without_notices(stderr_tail(run.stderr))
    reason = failure_reason(run)
    if reason is None:
        data = _answer(run.stdout) or {}
        if data.get("protocol") != PROTOCOL:
            reason = f"answered protocol {data.get('protocol')!r}, expected {PROTOCOL}"
        else:
            try:
                live = from_jsonable(LiveFramework, data)
            except DecodeError as exc:
                reason = f"answered JSON that does not fit the facts: {exc}"
            else:
                problems = " ".join(filter(None, [
                    live.import_error,
                    *(f"{s.name}: {s.detail}" for s in (live.smoke.failed if live.smoke
                                                         else ())),
                    live.gpu_error if live.build in ("cuda", "rocm") else "",
                ]))
                diag = diagnoses_for(problems + "\n" + tail) if problems else ()
                warned = () if problems else diagnoses_for(run.stderr[-TAIL_CHARS * 4:],
                                                           problems_only=True)
                absent = live.import_ok is False and _framework_missing(run.name,
                                                                        live.import_error)
                status = Status.NOT_FOUND if absent else Status.OK
                return replace(live, name=run.name,
                               stderr_tail=tail if problems or warned else "",
                               diagnoses=diag, warnings=warned,
                               probe=ProbeInfo(status, live.import_error, (shown,), "worker",
                                               round(run.seconds, 3)))
    return LiveFramework(
        name=run.name,
        probe=ProbeInfo(Status.ERROR, f"the {run.name} worker {reason}", (shown,), "worker",
                        round(run.seconds, 3)),
        stderr_tail=tail,
        diagnoses=diagnoses_for(tail),
    )


TEXT_CAUSES = 3
TEXT_EVIDENCE = 3


def text_causes(text: str, facts: Facts | None = None) -> tuple[TextDiagnosis, ...]:
    """The environment causes ``explain`` recognises in a pasted text, best first (() if
    none), with the text's own facts as the signatures' conditions (``check --from``).

    A user-code error or a harmless warning is no finding about the machine, so only
    environment causes are kept: the primary one, and a secondary one only with high
    confidence (one error, one cause)."""
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
                           for e in d.evidence[:TEXT_EVIDENCE]),
            notes=tuple(" ".join(n.split()) for n in d.notes)))
        if len(out) == TEXT_CAUSES:
            break
    return tuple(out)
