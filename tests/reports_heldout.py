"""What the pasted-report held-out sets of batches D and E (tests/corpus/reports/heldout6, 7)
compute alike. Each paste is read as `check --from` reads it (``parse_pasted``: report facts and
the paste's own error lines). A healthy report is right when no error or warning is raised; a
problem report is right when a finding at warning or above names one of its labels' codes
(causes.toml). Threads a file elsewhere under tests/ or rules/ quotes leave the figure.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import tomllib

from envdoctor import pipeline
from envdoctor.parsers import parse_pasted

TESTS = Path(__file__).resolve().parent
LOUD = ("error", "warning")


def loud(text: str) -> set[str]:
    """The ids and codes of every finding at warning or above on a paste."""
    facts = parse_pasted(text)
    found = [] if facts is None else pipeline.diagnose(facts).findings
    return {name for f in found if f.severity.value in LOUD for name in (f.id, f.code)}


@dataclass(frozen=True)
class ReportSet:
    """One set: folder name, batch letter and the sizes promised at collection."""

    name: str
    batch: str
    at_least: int
    healthy_at_least: int
    broken_at_least: int
    repos_at_least: int
    unseen_at_least: int
    prefix: str = "r"  # report files are <prefix>NN-*.toml (heldout24 uses "j")

    @property
    def folder(self) -> Path:
        return TESTS / "corpus" / "reports" / self.name

    @functools.cached_property
    def reports(self) -> list[tuple[str, dict[str, Any]]]:
        return [(p.stem, tomllib.loads(p.read_text(encoding="utf-8")))
                for p in sorted(self.folder.glob(f"{self.prefix}*.toml"))]

    @functools.cached_property
    def causes(self) -> dict[str, Any]:
        return tomllib.loads((self.folder / "causes.toml").read_text(encoding="utf-8"))

    def expected(self, r: dict[str, Any]) -> set[str]:
        return {code for label in r["labels"] for code in self.causes[label]["codes"]}

    def check_structure(self) -> None:
        reports = self.reports
        assert len(reports) >= self.at_least
        assert sum(r["healthy"] for _, r in reports) >= self.healthy_at_least
        assert sum(not r["healthy"] for _, r in reports) >= self.broken_at_least
        for name, r in reports:
            assert r["source"].startswith("https://github.com/"), name
            assert r["batch"] == self.batch and r["text"].strip() and r["problem"].strip(), name
            assert bool(r["labels"]) != r["healthy"], name
            assert all(label in self.causes for label in r["labels"]), name
        assert len({"/".join(r["source"].split("/")[3:5]).lower()
                    for _, r in reports}) >= self.repos_at_least
        held = [r["source"].rstrip("/") for _, r in reports]
        assert len(set(held)) == len(held), "one report per thread"

    @functools.cached_property
    def seen(self) -> frozenset[str]:
        """Threads of this set that a file elsewhere under tests/ or rules/ quotes."""
        held = [r["source"].rstrip("/") for _, r in self.reports]
        elsewhere = [p for root in (TESTS, TESTS.parent / "rules") for p in root.rglob("*")
                     if p.is_file() and self.folder not in p.parents]
        quoted: set[str] = set()
        for path in elsewhere:
            text = path.read_bytes().decode("utf-8", "replace")
            quoted |= {url for url in held if url in text}
        return frozenset(quoted)

    def check_unseen(self) -> None:
        # threads that tuning work later quotes on its own leave the figure
        assert len(self.reports) - len(self.seen) >= self.unseen_at_least, sorted(self.seen)

    def check_figure(self, floor: float) -> None:
        """Print healthy-clean and problems-named (per cause, per report); hold to ``floor``."""
        clean = healthy = caught = problems = 0
        lines: list[str] = []
        tally: dict[str, list[int]] = {}
        for name, r in self.reports:
            if r["source"].rstrip("/") in self.seen:
                continue
            got = loud(r["text"])
            if r["healthy"]:
                healthy += 1
                ok = not got
                clean += ok
                verdict = "ok   " if ok else "ALARM"
            else:
                problems += 1
                ok = bool(got & self.expected(r))
                caught += ok
                verdict = "hit  " if ok else "MISS "
            kind = "error-only" if r["error_only"] else "report"
            lines.append(f"  {verdict} {name} [{kind}] {sorted(got)}")
            cause = r["labels"][0] if r["labels"] else "healthy"
            count = tally.setdefault(cause, [0, 0])
            count[0] += ok
            count[1] += 1
        by_cause = [f"  {cause:28} {ok}/{n}" for cause, (ok, n) in sorted(tally.items())]
        print(f"\nreports {self.name} (batch {self.batch}): healthy clean {clean}/{healthy}; "
              f"problems named {caught}/{problems}", "by cause (right/total):", *by_cause, *lines,
              sep="\n", file=sys.stderr)
        assert 0 <= clean <= healthy and 0 <= caught <= problems
        assert caught / problems >= floor

    def healthy_params(self, known_alarms: frozenset[str]) -> list[Any]:
        """One pytest param per healthy report; the first run's alarms are strict xfails."""
        out = []
        for name, r in self.reports:
            if not r["healthy"]:
                continue
            marks = (pytest.mark.xfail(strict=True, reason="alarm on the first run"),) \
                if name in known_alarms else ()
            out.append(pytest.param(name, r["text"], marks=marks, id=name))
        return out
