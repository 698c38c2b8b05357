"""What the big explain held-out sets (heldout5 onwards, batches D, E, F) compute alike.

Each set is a folder of ``h*.toml`` cases (source, label, batch, phenomenon, note, text) and a
``causes.toml`` (label -> codes whose answer is that cause). The top-1 figure counts a case right
when the primary diagnosis carries one of its label's codes; a trap (label ``user`` or ``none``)
is right when the answer is not an environment claim. Threads that a file elsewhere under tests/
or rules/ quotes (full URL or bare owner/repo/issues/N) leave the figure, which says how many.
"""

from __future__ import annotations

import functools
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from envdoctor.explain import diagnose_text, primary
from envdoctor.rulefiles import is_url, load_toml

TESTS = Path(__file__).parent
TRAPS = ("user", "none")
MAX_TEXT = 8 * 1024

# owner/repo/(issues|pull|discussions)/N as quoted anywhere, with or without the
# https://github.com/ prefix: find the /issues/N tail, then read the owner/repo segments before it
_TAIL = re.compile(r"/(?:issues|pull|discussions)/[0-9]+")
_SEGMENT = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def answer(text: str) -> tuple[str, str]:
    d = primary(diagnose_text(text))
    return (d.code, d.category) if d else ("none", "")


def _norm(url: str) -> str:
    return url.rstrip("/")


def _repo(url: str) -> str:
    """owner/repo of a GitHub thread; the site (host) of a page source (a Q&A thread, a forum post)."""
    if not url.startswith("https://github.com/"):
        return url.split("/")[2].lower()
    return "/".join(url.split("/")[3:5]).lower()


def _page_keys(url: str) -> list[str]:
    """What quoting a page source elsewhere looks like: its address without the scheme, and for a
    Stack Exchange style thread the bare host/questions/N."""
    bare = _norm(url).split("://", 1)[-1].lower()
    keys = [bare]
    m = re.match(r"([^/]+/questions?/[0-9]+)", bare)
    if m:
        keys.append(m.group(1))
    return keys


def _key(url: str) -> str:
    return "/".join(_norm(url).split("/")[3:7]).lower()


def threads(text: str) -> set[str]:
    """Every owner/repo/issues/N a text quotes, lower-cased."""
    found: set[str] = set()
    for m in _TAIL.finditer(text):
        start, slashes = m.start(), 0
        while start > 0 and start > m.start() - 240:
            ch = text[start - 1]
            if ch == "/":
                slashes += 1
                if slashes == 2:
                    break
            elif ch not in _SEGMENT:
                break
            start -= 1
        found.add(text[start:m.end()].lower())
    return found


@dataclass(frozen=True)
class HeldoutSet:
    """One set: its folder name, batch letter and the size it promised at collection."""

    name: str
    batch: str
    at_least: int
    traps_at_least: int
    repos_at_least: int
    phenomena_at_least: int
    # threads later work came to quote (a machine batch citing one as a source) leave the figure
    quoted_at_most: int = 0
    # file names of the cases (h001-..., or another letter for a later set) and whether a case may
    # come from a page (a Q&A thread, a forum post, a blog quoting a user's error) instead of GitHub
    prefix: str = "h"
    pages: bool = False

    @property
    def folder(self) -> Path:
        return TESTS / "corpus" / "explain" / self.name

    @functools.cached_property
    def cases(self) -> list[tuple[str, dict[str, Any]]]:
        return [(p.name, load_toml(p)) for p in sorted(self.folder.glob(f"{self.prefix}*.toml"))]

    @functools.cached_property
    def causes(self) -> dict[str, Any]:
        return load_toml(self.folder / "causes.toml")

    def check_structure(self) -> None:
        cases = self.cases
        assert len(cases) >= self.at_least
        for name, case in cases:
            assert is_url(case["source"]), name
            assert case["source"].startswith("https://github.com/") or (
                self.pages and case["source"].startswith("https://")), name
            assert case["label"] in TRAPS or case["label"] in self.causes, f"{name}: unknown label"
            assert case["batch"] == self.batch, name
            assert case["note"].strip() and case["text"].strip() and case["phenomenon"].strip(), name
            assert len(case["text"].encode("utf-8")) <= MAX_TEXT, name
        traps = sum(case["label"] in TRAPS for _, case in cases)
        assert traps >= self.traps_at_least and 0.10 <= traps / len(cases) <= 0.25, traps
        assert len({_repo(case["source"]) for _, case in cases}) >= self.repos_at_least
        assert len({case["phenomenon"] for _, case in cases}) >= self.phenomena_at_least
        held = [_norm(case["source"]) for _, case in cases]
        assert len(set(held)) == len(held), "one text per thread"

    @functools.cached_property
    def seen(self) -> frozenset[str]:
        """The set's threads that a file elsewhere under tests/ or rules/ quotes."""
        github = [case["source"] for _, case in self.cases if case["source"].startswith("https://github.com/")]
        held = {_key(url): _norm(url) for url in github}
        pages = {_norm(case["source"]): _page_keys(case["source"]) for _, case in self.cases
                 if not case["source"].startswith("https://github.com/")}
        elsewhere = [p for root in (TESTS, TESTS.parent / "rules") for p in root.rglob("*")
                     if p.is_file() and self.folder not in p.parents]
        quoted: set[str] = set()
        for path in elsewhere:
            text = path.read_bytes().decode("utf-8", "replace")
            quoted |= {held[k] for k in threads(text) if k in held}
            if pages:
                low = text.lower()
                quoted |= {url for url, keys in pages.items() if any(k in low for k in keys)}
        return frozenset(quoted)

    def unseen(self) -> list[tuple[str, dict[str, Any]]]:
        return [(n, c) for n, c in self.cases if _norm(c["source"]) not in self.seen]

    def check_unseen(self) -> None:
        """At collection time no file outside the folder quoted any of these threads; those later
        work quotes (``quoted_at_most``, each with its reason in the set's test) leave the figure."""
        assert len(self.unseen()) >= self.at_least - self.quoted_at_most, sorted(self.seen)

    def check_top1(self, floor: float) -> None:
        """Print the figure (per label, per phenomenon, misses) and hold it to ``floor``."""
        misses: list[str] = []
        claims: list[str] = []
        right = 0
        per_label: dict[str, list[int]] = {}
        per_phenomenon: dict[str, list[int]] = {}
        wrong: Counter[tuple[str, str]] = Counter()
        scored = self.unseen()
        for name, case in scored:
            code, category = answer(case["text"])
            if case["label"] in TRAPS:
                ok = category != "environment"
                if not ok:
                    claims.append(f"  {name}: trap answered {code} (environment)")
            else:
                ok = code in self.causes[case["label"]]["codes"]
            right += ok
            for tally in (per_label.setdefault(case["label"], [0, 0]),
                          per_phenomenon.setdefault(case["phenomenon"], [0, 0])):
                tally[0] += ok
                tally[1] += 1
            if not ok:
                misses.append(f"  {name}: {case['label']} -> {code}")
                wrong[(case["label"], code)] += 1
        share = right / len(scored)
        table = [f"  {label:28} {ok}/{n}" for label, (ok, n) in sorted(per_label.items())]
        by_phen = [f"  {ph:28} {ok}/{n}" for ph, (ok, n) in sorted(per_phenomenon.items())]
        by_cause = [f"  {label:28} -> {code} x{n}" for (label, code), n in sorted(wrong.items())]
        traps = sum(c["label"] in TRAPS for _, c in scored)
        print(f"\nexplain {self.name} (batch {self.batch}) top-1 on the unseen texts: {share:.1%} "
              f"({right}/{len(scored)}; {len(self.cases) - len(scored)} left out as quoted "
              f"elsewhere); environment claims on traps: {len(claims)} of {traps}",
              "by label:", *table, "by phenomenon:", *by_phen,
              "misses by cause (label -> answer):", *by_cause,
              "environment claims on traps:", *claims, "misses:", *misses,
              sep="\n", file=sys.stderr)
        assert 0 <= right <= len(scored)
        assert share >= floor, "\n".join(misses)

    def trap_params(self, known_claims: frozenset[str]) -> list[Any]:
        """One pytest param per trap; those the first run answered with an environment claim
        are strict xfails, so fixing one says so."""
        out = []
        for name, case in self.cases:
            if case["label"] not in TRAPS:
                continue
            marks = (pytest.mark.xfail(strict=True, reason="environment claim on the first run"),) \
                if name in known_claims else ()
            out.append(pytest.param(name, case["text"], marks=marks, id=name))
        return out


def check_trap(name: str, text: str) -> None:
    code, category = answer(text)
    assert category != "environment", f"{name}: {code}"
