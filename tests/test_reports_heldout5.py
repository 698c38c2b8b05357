"""Pasted reports collected with the fourth explain held-out set (tests/corpus/reports/heldout5).

Batch C: collect_env outputs, jax.print_environment_info and nvidia-smi pastes, pip/conda lists,
ds_report, framework banners, filled-in issue templates and hand-typed reports, from threads the
repository quotes nowhere else, labelled from what each thread established before envdoctor was
run on them: ``healthy`` (the thread put the cause outside the environment), or the cause label,
whose check ids and codes are in causes.toml. Computed as tests/test_reports_heldout3.py: a
healthy report is right when no error or warning is raised; a problem report is right when a
finding at warning or above names its cause. The first-run figures are in the README.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import tomllib

from envdoctor import pipeline
from envdoctor.parsers import parse_pasted

TESTS = Path(__file__).resolve().parent
SET = TESTS / "corpus" / "reports" / "heldout5"
REPORTS = [(p.stem, tomllib.loads(p.read_text(encoding="utf-8"))) for p in sorted(SET.glob("r*.toml"))]
CAUSES = tomllib.loads((SET / "causes.toml").read_text(encoding="utf-8"))
LOUD = ("error", "warning")
# first run on 572a6ab: problems named 5/22, healthy clean 13/14 (README.md)
# earlier: 0.52  # branch fix21: 6/19 -> 10/19 named (README.md, "Branch fix21")
FLOOR = 0.63  # branch rep: 10/19 -> 12/19 named
# healthy reports the first run raised an alarm on (README.md): strict, so fixing one says so
# r14 (GPU001 on a ROCm build's "cuda capability 3.0") is clean since branch reports-class
KNOWN_ALARMS: frozenset[str] = frozenset()


def _loud(text: str) -> set[str]:
    facts = parse_pasted(text)  # what `check --from` reads: report facts and error lines
    found = [] if facts is None else pipeline.diagnose(facts).findings
    return {name for f in found if f.severity.value in LOUD for name in (f.id, f.code)}


def _expected(r: dict) -> set[str]:
    return {code for label in r["labels"] for code in CAUSES[label]["codes"]}


def test_reports_heldout5_is_big_sourced_and_labelled():
    assert len(REPORTS) >= 35
    assert sum(r["healthy"] for _, r in REPORTS) >= 12
    for name, r in REPORTS:
        assert r["source"].startswith("https://github.com/"), name
        assert r["batch"] == "C" and r["text"].strip() and r["problem"].strip(), name
        assert bool(r["labels"]) != r["healthy"], name
        assert all(label in CAUSES for label in r["labels"]), name
    assert len({"/".join(r["source"].split("/")[3:5]).lower() for _, r in REPORTS}) >= 15
    held = [r["source"].rstrip("/") for _, r in REPORTS]
    assert len(set(held)) == len(held), "one report per thread"


def _seen() -> set[str]:
    """Threads of this set that a file elsewhere under tests/ or rules/ quotes: left out."""
    held = [r["source"].rstrip("/") for _, r in REPORTS]
    elsewhere = [p for root in (TESTS, TESTS.parent / "rules") for p in root.rglob("*")
                 if p.is_file() and SET not in p.parents]
    quoted: set[str] = set()
    for path in elsewhere:
        text = path.read_bytes().decode("utf-8", "replace")
        quoted |= {url for url in held if url in text}
    return quoted


SEEN = _seen()


def test_reports_heldout5_threads_are_quoted_nowhere_else():
    # threads that tuning work later quoted on its own (three so far) leave the figure
    assert len(REPORTS) - len(SEEN) >= 30, sorted(SEEN)


def test_reports_heldout5_figure():
    clean = healthy = caught = problems = 0
    lines: list[str] = []
    tally: dict[str, list[int]] = {}
    for name, r in [(n, r) for n, r in REPORTS if r["source"].rstrip("/") not in SEEN]:
        loud = _loud(r["text"])
        if r["healthy"]:
            healthy += 1
            ok = not loud
            clean += ok
            verdict = "ok   " if ok else "ALARM"
        else:
            problems += 1
            ok = bool(loud & _expected(r))
            caught += ok
            verdict = "hit  " if ok else "MISS "
        kind = "error-only" if r["error_only"] else "report"
        lines.append(f"  {verdict} {name} [{kind}] {sorted(loud)}")
        cause = r["labels"][0] if r["labels"] else "healthy"
        count = tally.setdefault(cause, [0, 0])
        count[0] += ok
        count[1] += 1
    by_cause = [f"  {cause:28} {ok}/{n}" for cause, (ok, n) in sorted(tally.items())]
    print(f"\nreports heldout5 (batch C): healthy clean {clean}/{healthy}; problems named "
          f"{caught}/{problems}", "by cause (right/total):", *by_cause, *lines,
          sep="\n", file=sys.stderr)
    assert 0 <= clean <= healthy and 0 <= caught <= problems
    assert caught / problems >= FLOOR


def _healthy_cases():
    for name, r in REPORTS:
        if not r["healthy"]:
            continue
        marks = (pytest.mark.xfail(strict=True, reason="alarm on the first run"),) \
            if name in KNOWN_ALARMS else ()
        yield pytest.param(name, r["text"], marks=marks, id=name)


@pytest.mark.parametrize(("name", "text"), list(_healthy_cases()))
def test_reports_heldout5_healthy_report_is_clean(name, text):
    assert not _loud(text), name
