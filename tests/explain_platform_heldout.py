"""What the platform held-out batches of explain texts compute alike.

Each batch is a folder ``tests/corpus/explain/platform_heldoutN`` of cases named ``<letter>*.toml``
(source, label, batch, platform, phenomenon, note, text) and a ``causes.toml`` (label -> codes
whose answer is that cause; ``benign = true`` marks a harmless message, right when no primary
diagnosis is given and some finding carries one of its codes). A case is right when the primary
diagnosis carries one of its label's codes; a trap (label ``user`` or ``none``) is right when the
answer is not an environment claim, and no trap may get one beyond the claims the first run made.
Threads another file under tests/ or rules/ quotes (full URL or bare owner/repo/issues/N) leave
the figure, which says how many; the figure is printed per platform and per cause.

The structural checks read the files only and never call envdoctor, so a collector can run them
(``-k "structure or unseen"``) before anything is diagnosed.
"""

from __future__ import annotations

import functools
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.explain_heldout import _key, _norm, _repo, threads

TESTS = Path(__file__).parent
CORPUS = TESTS / "corpus" / "explain"
TRAPS = ("user", "none")
MAX_TEXT = 8 * 1024


def _load(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _is_github(url: str) -> bool:
    return url.startswith("https://github.com/")


def _where(url: str) -> str:
    """The repository of a GitHub thread, the site (host) of any other page."""
    return _repo(url) if _is_github(url) else url.split("/")[2].lower()


def _page_key(url: str) -> str:
    """A non-GitHub page as another file would quote it: host and path, without the scheme,
    a trailing slash or (for Q&A sites) the title slug after the question number."""
    rest = _norm(url).split("://", 1)[-1].lower()
    m = re.match(r"([^/]+/(?:questions|q|t|forums/thread)/(?:[^/]+/)?[0-9]+)", rest)
    return m.group(1) if m else rest


@dataclass(frozen=True)
class PlatformSet:
    """One batch: folder, case-file letter, batch name, platforms and the sizes it promised."""

    name: str
    letter: str
    batch: str
    platforms: tuple[str, ...]
    at_least: int
    repos_at_least: int
    traps_at_least: int
    per_platform_at_least: int
    earlier: tuple[str, ...]
    quoted_at_most: int = 2
    # the first batch predates the ``batch`` field of a case
    batch_field: bool = True
    # a batch may take Q&A / forum pages (https, not GitHub) as sources beside GitHub threads
    sites: bool = False

    @property
    def folder(self) -> Path:
        return CORPUS / self.name

    @functools.cached_property
    def cases(self) -> list[tuple[str, dict[str, Any]]]:
        return [(p.name, _load(p)) for p in sorted(self.folder.glob(f"{self.letter}*.toml"))]

    @functools.cached_property
    def causes(self) -> dict[str, Any]:
        return _load(self.folder / "causes.toml")

    def seen(self) -> set[str]:
        """Threads of this set another file under tests/ or rules/ quotes: no longer unseen."""
        held = {_key(c["source"]): _norm(c["source"]) for _, c in self.cases
                if _is_github(c["source"])}
        pages = {_page_key(c["source"]): _norm(c["source"]) for _, c in self.cases
                 if not _is_github(c["source"])}
        quoted: set[str] = set()
        for root in (TESTS, TESTS.parent / "rules"):
            for path in root.rglob("*"):
                if not path.is_file() or self.folder in path.parents:
                    continue
                text = path.read_bytes().decode("utf-8", "replace")
                quoted |= {held[k] for k in threads(text) if k in held}
                if pages:
                    lowered = text.lower()
                    quoted |= {url for key, url in pages.items() if key in lowered}
        return quoted

    def unseen(self) -> list[tuple[str, dict[str, Any]]]:
        seen = self.seen()
        return [(n, c) for n, c in self.cases if _norm(c["source"]) not in seen]

    def check_structure(self) -> None:
        cases = self.cases
        assert len(cases) >= self.at_least
        held = [_norm(c["source"]) for _, c in cases]
        assert len(set(held)) == len(held), "one text per thread"
        assert len({_where(u) for u in held}) >= self.repos_at_least
        for name, case in cases:
            assert _is_github(case["source"]) or (
                self.sites and case["source"].startswith("https://")), name
            assert case["batch"] == self.batch if self.batch_field else "batch" not in case, name
            assert case["label"] in TRAPS or case["label"] in self.causes, f"{name}: unknown label"
            assert case["platform"] in self.platforms, name
            assert case["note"].strip() and case["text"].strip() and case["phenomenon"].strip(), name
            assert len(case["text"].encode("utf-8")) <= MAX_TEXT, name
        for label, cause in self.causes.items():
            assert isinstance(cause["codes"], list), label
        traps = sum(c["label"] in TRAPS for _, c in cases)
        assert self.traps_at_least <= traps and traps / len(cases) <= 0.30, traps
        for platform in self.platforms:
            count = sum(c["platform"] == platform for _, c in cases)
            assert count >= self.per_platform_at_least, platform

    def check_unseen(self) -> None:
        """Most of the set stays unseen (threads other work later quotes leave the figure), and
        no thread of an earlier platform batch is here again."""
        assert len(self.unseen()) >= len(self.cases) - self.quoted_at_most, sorted(self.seen())
        earlier: set[str] = set()
        for sub in self.earlier:
            earlier |= {_norm(_load(p)["source"]) for p in (CORPUS / sub).glob("*.toml")
                        if p.name != "causes.toml"}
        assert not earlier & {_norm(c["source"]) for _, c in self.cases}

    def right(self, case: dict[str, Any]) -> tuple[bool, str, str]:
        """(right, answer code, answer category) for one case."""
        from envdoctor.explain import diagnose_text, primary

        found = diagnose_text(case["text"])
        d = primary(found)
        code, category = (d.code, d.category) if d else ("none", "")
        if case["label"] in TRAPS:
            return category != "environment", code, category
        cause = self.causes[case["label"]]
        if cause.get("benign"):
            return d is None and any(x.code in cause["codes"] for x in found), code, category
        return code in cause["codes"], code, category

    def check_top1(self, floor: float, known_trap_claims: frozenset[str]) -> None:
        """Print the figure per platform and per cause; hold it to ``floor`` and the trap claims
        to exactly the known ones (strict, so fixing one says so)."""
        scored = self.unseen()
        per_platform: dict[str, list[int]] = {}
        per_label: dict[tuple[str, str], list[int]] = {}
        misses: list[str] = []
        claims: dict[str, str] = {}
        right = 0
        for name, case in scored:
            ok, code, category = self.right(case)
            right += ok
            for tally in (per_platform.setdefault(case["platform"], [0, 0]),
                          per_label.setdefault((case["platform"], case["label"]), [0, 0])):
                tally[0] += ok
                tally[1] += 1
            if not ok:
                misses.append(f"  {name} [{case['platform']}] {case['label']} -> {code}")
                if case["label"] in TRAPS:
                    claims[name] = f"  {name}: trap answered {code} ({category})"
        share = right / len(scored)
        print(f"\nexplain {self.name} (batch {self.batch}) top-1: {share:.1%} ({right}/{len(scored)}; "
              f"{len(self.cases) - len(scored)} left out as quoted elsewhere)",
              "by platform (right/total):",
              *[f"  {p:10} {ok}/{n}" for p, (ok, n) in sorted(per_platform.items())],
              "by platform and cause:",
              *[f"  {p:10} {lab:38} {ok}/{n}" for (p, lab), (ok, n) in sorted(per_label.items())],
              "environment claims on traps:", *claims.values(), "misses:", *misses,
              sep="\n", file=sys.stderr)
        assert share >= floor
        assert set(claims) == known_trap_claims, "\n".join(claims.values())
