"""Live probes: run each installed framework in its own worker process and record what it did.

``run_live(facts, …)`` picks the frameworks (from the static facts, or ``--framework``), starts
their workers in parallel (``orchestrate``), turns each outcome into ``LiveFramework`` facts
(``parse``) and returns the snapshot with ``Facts.live`` filled. Findings come from the checks
in ``rules/checks/live`` (and the knowledge functions in ``envdoctor.engine.knowledge.live``); the
``smoke`` block of the JSON report comes from ``smoke_report``. No framework is ever imported
in this process.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from envdoctor.facts import Facts, LiveFramework, ProbeInfo, SmokeResult, SmokeStep, Status
from envdoctor.workers import WORKERS

# ``orchestrate`` and ``parse`` are imported inside ``run_live``: rule evaluation imports
# ``envdoctor.engine.knowledge.live`` (and so this package) on every run, `--static` included.

SUITES = ("quick", "full")
CORE = ("torch", "tensorflow", "jax")


def installed(facts: Facts) -> list[str]:
    """Frameworks the static facts say are installed, in WORKERS order."""
    fw = facts.frameworks
    return [name for name in WORKERS if getattr(fw, name, None) is not None]


def select(facts: Facts, requested: Sequence[str] | None, suite: str
           ) -> tuple[list[str], dict[str, str]]:
    """(frameworks to run, {framework: why it is skipped}).

    Asked-for frameworks always run (the worker then reports the real import error). By
    default every installed one runs, except Keras in the quick suite: it re-imports its
    backend (TensorFlow: seconds of CPU), and that backend's own worker already runs.
    """
    if requested:
        return list(dict.fromkeys(requested)), {}
    names = installed(facts)
    skipped = {}
    if suite == "quick" and "keras" in names:
        skipped["keras"] = "Keras runs with --smoke full or --framework keras"
        names.remove("keras")
    return names, skipped


def skipped_live(name: str, reason: str, suite: str) -> LiveFramework:
    return LiveFramework(name=name, probe=ProbeInfo(Status.SKIPPED, reason),
                         smoke=SmokeResult(status="skipped", suite=suite, steps=(
                             SmokeStep(name="smoke", status="skipped", detail=reason),)))


def run_live(facts: Facts, frameworks: Sequence[str] | None = None, suite: str = "quick",
             smoke: bool = True, timeout: float | None = None,
             progress: bool | None = None) -> Facts:
    """Run the workers and return ``facts`` with ``live`` filled (timeout: per worker)."""
    from envdoctor.live.orchestrate import DEFAULT_TIMEOUT, run_all
    from envdoctor.live.parse import to_live
    from envdoctor.live.progress import Progress

    timeout = DEFAULT_TIMEOUT if timeout is None else timeout
    names, skipped = select(facts, frameworks, suite)
    args = ["--suite", suite] + ([] if smoke else ["--no-smoke"])
    with Progress(names, progress) as bar:
        runs = run_all(names, args, timeout, on_done=bar.done)
    live = {name: to_live(run, f"python -m {WORKERS.get(name, name)} {' '.join(args)}")
            for name, run in runs.items()}
    for name, reason in skipped.items():
        live[name] = skipped_live(name, reason, suite)
    return replace(facts, live={n: live[n] for n in sorted(live, key=_order)})


def _order(name: str) -> int:
    return list(WORKERS).index(name) if name in WORKERS else len(WORKERS)


def smoke_report(facts: Facts) -> dict[str, Any]:
    """The ``smoke`` block of the JSON report: {framework: {status, device, steps}}."""
    out: dict[str, Any] = {}
    for name, lf in facts.live.items():
        if not isinstance(lf, LiveFramework):
            continue
        if lf.probe.status is Status.ERROR:
            out[name] = {"status": "error", "device": "", "suite": "",
                         "detail": lf.probe.reason or "the worker failed", "steps": []}
            continue
        if lf.smoke is None:  # no smoke ran (a pasted report's runtime statements, --no-smoke)
            continue
        sm = lf.smoke
        out[name] = {"status": sm.status, "device": sm.device, "suite": sm.suite,
                     "steps": [{"name": s.name, "status": s.status, "seconds": s.seconds,
                                "detail": s.detail, **({"metrics": s.metrics} if s.metrics
                                                       else {})} for s in sm.steps]}
    return out


def smoke_lines(facts: Facts) -> list[tuple[str, str, str]]:
    """(framework, status, one-line detail) per framework, for the text summary."""
    return [(name, block["status"], smoke_detail(block))
            for name, block in smoke_report(facts).items()]


def smoke_detail(block: dict[str, Any]) -> str:
    """One line about one framework's smoke block (``smoke_report``'s shape, or the same block
    read back from a saved JSON): the one count every output shows ("7/7 steps passed"; a
    skipped step is not counted as run)."""
    steps = [s for s in block.get("steps") or () if isinstance(s, dict)]
    status = block.get("status")
    if status == "error":
        return str(block.get("detail") or (steps[0].get("detail", "") if steps else ""))
    if status == "skipped":
        return str(steps[0].get("detail", "skipped") if steps else "skipped")
    ran = [s for s in steps if s.get("status") != "skipped"]
    passed = sum(s.get("status") == "passed" for s in ran)
    failed = [f"{s.get('name')} ({s.get('detail') or s.get('status')})" for s in ran
              if s.get("status") != "passed"]
    seconds = sum(float(s.get("seconds") or 0.0) for s in steps)
    detail = f"{passed}/{len(ran)} steps passed on {block.get('device') or '?'} " \
             f"({block.get('suite') or '?'}, {seconds:.1f}s)"
    if failed:
        detail += "; failed: " + "; ".join(failed)
    return detail
