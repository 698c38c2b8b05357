"""Own profile sets for `suggest` (tests/suggest/own/*.toml), labelled from the sources named in
each file's header before `suggest` ran on them: the older torch releases (Python 3.8/3.9, old
drivers, --keep of 1.13-2.4 builds) and AMD ROCm machines. Every answer is asserted, and every
command is checked against the index data (suggest_support.check_all).

``python -m tests.suggest.test_own_profiles -v`` prints the figure per set and the wrong ones."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
import tomllib

from envdoctor.facts import Facts
from envdoctor.suggest import suggest
from envdoctor.suggest.machine import machine_of

from .suggest_support import check_all, judged
from .test_heldout3 import snapshot

OWN = Path(__file__).parent / "own"
SETS = {p.stem: tomllib.loads(p.read_text("utf-8"))["machine"] for p in sorted(OWN.glob("*.toml"))}
CASES = [(s, row, fw, keep) for s, rows in SETS.items() for row in rows
         for keep, table in ((False, "expect"), (True, "expect_keep"))
         for fw in row.get(table, {})]


def own_snapshot(row: dict[str, Any]) -> Facts:
    """heldout3's snapshot of a profile, plus the ROCm facts (``amd``, ``rocm``) and ``env``."""
    data = snapshot(row).to_dict()
    if "amd" in row:
        data["rocm"] = {"probe": {"status": "ok"},
                        "gpus": [{"index": i, "name": n, "gfx": g}
                                 for i, (n, g) in enumerate(row["amd"])],
                        **({"version": row["rocm"]} if row.get("rocm") else {})}
    if row.get("env"):
        data["env"] = {"probe": {"status": "ok"}, "vars": dict(row["env"])}
    return Facts.from_dict(data)


def answer(row: dict[str, Any], framework: str, keep: bool = False) -> str:
    facts = own_snapshot(row)
    s = suggest(facts, [framework], keep_installed=keep).suggestions[0]
    check_all(row["name"], s, machine_of(facts))
    if s.status in ("none", "undecided"):
        return s.status
    return f"{s.version} {s.variant}"


def _want(row: dict[str, Any], fw: str, keep: bool) -> str:
    return str(row["expect_keep" if keep else "expect"][fw])


@pytest.mark.parametrize("name, row, framework, keep", CASES,
                         ids=[f"{r['name']}-{fw}{'-keep' if k else ''}" for _, r, fw, k in CASES])
def test_own_profile(name, row, framework, keep):
    got, want = answer(row, framework, keep), _want(row, framework, keep)
    assert judged(framework, want, got, machine_of(own_snapshot(row)), keep), (got, want, row["why"])


if __name__ == "__main__":
    for set_name in SETS:
        right = total = 0
        for s, row, fw, keep in CASES:
            if s != set_name:
                continue
            total += 1
            try:
                got = answer(row, fw, keep)
            except Exception as exc:  # noqa: BLE001 - a crash or failed index check is wrong
                got = f"error: {type(exc).__name__}: {str(exc)[:160]}"
            if judged(fw, _want(row, fw, keep), got, machine_of(own_snapshot(row)), keep):
                right += 1
            elif "-v" in sys.argv:
                print(f"  WRONG {row['name']} {fw}{' keep' if keep else ''}: got {got!r}, "
                      f"want {_want(row, fw, keep)!r}")
        print(f"{set_name:20s} {right}/{total}")
