"""What the platform pasted-report batches (tests/corpus/reports/platform_heldout5 onwards)
share: loading a batch, its structure and unseen checks, the problems-named figure and the
healthy-is-clean cases. Each batch's test file names its folder, batch, earlier batches and floor.

A healthy report is right when no error or warning is raised; a problem report is right when a
finding at warning or above names its cause (its check id or code is in ``expected_any``, or its
title matches ``expected_title``, a case-insensitive regular expression). The structural checks
read the files only and never call envdoctor.
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.explain_heldout import threads

TESTS = Path(__file__).resolve().parent
LOUD = ("error", "warning")
PLATFORMS = ("apple", "jetson", "rocm", "wsl", "container", "tpu", "xpu")


def loud(text: str) -> list[tuple[str, str, str]]:
    """(id, code, title) of every finding at warning or above."""
    from envdoctor import pipeline
    from envdoctor.parsers import parse_pasted

    facts = parse_pasted(text)  # what `check --from` reads: report facts and error lines
    found = [] if facts is None else pipeline.diagnose(facts).findings
    return [(f.id, f.code, f.title) for f in found if f.severity.value in LOUD]


def _named(r: dict, found: list[tuple[str, str, str]]) -> bool:
    wanted = set(r["expected_any"])
    pattern = re.compile(r["expected_title"], re.IGNORECASE) if r["expected_title"] else None
    return any(i in wanted or c in wanted or (pattern is not None and pattern.search(t))
               for i, c, t in found)


def _key(url: str) -> str:
    return "/".join(url.rstrip("/").split("/")[3:7]).lower()


class PlatformReportSet:
    """One batch: ``name`` is its folder under tests/corpus/reports, ``batch`` its letter,
    ``prefix`` the first letter of its report files (``t`` unless the batch names them otherwise)."""

    def __init__(self, name: str, batch: str, earlier: tuple[str, ...], prefix: str = "t"):
        self.name, self.batch, self.earlier = name, batch, earlier
        self.folder = TESTS / "corpus" / "reports" / name
        self.reports = [(p.stem, tomllib.loads(p.read_text(encoding="utf-8")))
                        for p in sorted(self.folder.glob(f"{prefix}*.toml"))]
        self.causes = tomllib.loads((self.folder / "causes.toml").read_text(encoding="utf-8"))

    def _seen(self) -> set[str]:
        held = {_key(r["source"]): r["source"].rstrip("/") for _, r in self.reports}
        quoted: set[str] = set()
        for root in (TESTS, TESTS.parent / "rules"):
            for path in root.rglob("*"):
                if path.is_file() and self.folder not in path.parents:
                    text = path.read_bytes().decode("utf-8", "replace")
                    quoted |= {held[k] for k in threads(text) if k in held}
        return quoted

    def check_structure(self) -> None:
        reports = self.reports
        assert len(reports) >= 24
        assert sum(r["healthy"] for _, r in reports) >= 8
        assert sum(not r["healthy"] for _, r in reports) >= 16
        assert len({_key(r["source"]).split("/issues/")[0].split("/pull/")[0]
                    .split("/discussions/")[0] for _, r in reports}) >= 18
        held = [r["source"].rstrip("/") for _, r in reports]
        assert len(set(held)) == len(held), "one report per thread"
        # no thread of any platform batch of explain texts either (each batch's folder, causes aside)
        texts = {tomllib.loads(p.read_text(encoding="utf-8"))["source"].rstrip("/")
                 for p in (TESTS / "corpus" / "explain").glob("platform_heldout*/*.toml")
                 if p.name != "causes.toml"}
        assert not texts & set(held), "a thread is in an explain platform batch and this report batch"
        for name, r in reports:
            assert r["source"].startswith("https://github.com/"), name
            assert r["batch"] == self.batch, name
            assert r["platform"] in PLATFORMS and r["text"].strip() and r["problem"].strip(), name
            assert r["note"].strip(), name
            assert len(r["text"].encode("utf-8")) <= 8192, name
            named = bool(r["expected_any"]) or bool(r["expected_title"])
            assert named != r["healthy"], name
            assert (r["label"] == "healthy") == r["healthy"], name
            assert r["healthy"] or r["label"] in self.causes, name
            assert set(r["expected_any"]) <= set(self.causes.get(r["label"], {}).get("codes", [])) \
                or r["healthy"], name
            if r["expected_title"]:
                re.compile(r["expected_title"])
        assert len({r["platform"] for _, r in reports}) >= 6

    def check_unseen(self) -> None:
        # threads later quoted by other work leave this set's meaning; none may be at collection
        seen = self._seen()
        assert not seen, sorted(seen)
        earlier: set[str] = set()
        for sub in self.earlier:
            for path in (TESTS / "corpus" / "reports" / sub).glob("*.toml"):
                data = tomllib.loads(path.read_text(encoding="utf-8"))
                if "source" in data:
                    earlier.add(_key(data["source"]))
        assert not earlier & {_key(r["source"]) for _, r in self.reports}, \
            "a thread of an earlier batch is here again"

    def check_figure(self, floor: float) -> None:
        """Print healthy-clean and problems-named (per platform, per report); hold to ``floor``."""
        tally: dict[tuple[str, str], list[int]] = {}
        lines: list[str] = []
        for name, r in self.reports:
            found = loud(r["text"])
            kind = "healthy" if r["healthy"] else "problem"
            ok = not found if r["healthy"] else _named(r, found)
            verdict = ("ok   " if ok else "ALARM") if r["healthy"] else ("hit  " if ok else "MISS ")
            lines.append(f"  {verdict} {name} {[(i, c) for i, c, _ in found]}")
            count = tally.setdefault((r["platform"], kind), [0, 0])
            count[0] += ok
            count[1] += 1
        problems = sum(not r["healthy"] for _, r in self.reports)
        named = sum(ok for (_, kind), (ok, _) in tally.items() if kind == "problem")
        clean = sum(ok for (_, kind), (ok, _) in tally.items() if kind == "healthy")
        healthy = sum(n for (_, kind), (_, n) in tally.items() if kind == "healthy")
        print(f"\nreports {self.name} (batch {self.batch}): healthy clean {clean}/{healthy}; "
              f"problems named {named}/{problems}", "by platform and kind (right/total):",
              *[f"  {p:9} {k:8} {ok}/{n}" for (p, k), (ok, n) in sorted(tally.items())], *lines,
              sep="\n", file=sys.stderr)
        assert named / problems >= floor

    def healthy_params(self, known_alarms: frozenset[str]) -> Iterator:
        """One case per healthy report; a known first-run alarm is a strict xfail."""
        for name, r in self.reports:
            if not r["healthy"]:
                continue
            marks = (pytest.mark.xfail(strict=True, reason="alarm on the first run"),) \
                if name in known_alarms else ()
            yield pytest.param(name, r["text"], marks=marks, id=name)
