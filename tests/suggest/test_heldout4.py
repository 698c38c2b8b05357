"""Held-out machine profiles, batch 4 (tests/suggest/heldout/profiles4.toml): a fresh batch of
machines that profiles3 does not have, labelled from the official sources before `suggest` ran
on them. It is measured, not tuned on: the test holds the answers to a floor (the first-run
figure is in README.md) rather than asserting each one, so a fix made for this batch alone
shows up as a figure, not as a passing test.

``python -m tests.suggest.test_heldout4 -v`` prints the per-platform figures and every wrong
answer."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import tomllib

from .test_heldout3 import MACHINES as BATCH3
from .test_heldout3 import answer, platform_of
from .test_heldout3 import right as judged_right

LABELS = tomllib.loads((Path(__file__).parent / "heldout" / "profiles4.toml").read_text("utf-8"))
MACHINES: list[dict[str, Any]] = LABELS["machine"]
FLOOR = 0.0  # fraction of labelled answers right; raise it as the figure is earned

CASES = [(row, fw, False) for row in MACHINES for fw in row["expect"]] + \
    [(row, fw, True) for row in MACHINES for fw in row.get("expect_keep", {})]
_LABEL = re.compile(r"(none|undecided|\d+(\.\d+)*(\.\*)? \S+)")


def _expected(row: dict[str, Any], framework: str, keep: bool) -> str:
    return str(row["expect_keep" if keep else "expect"][framework])


def figures() -> tuple[Counter[str], Counter[str], list[str]]:
    """(right, total) per platform over every labelled answer, and the wrong ones."""
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    wrong: list[str] = []
    for row, fw, keep in CASES:
        key = platform_of(row)
        total[key] += 1
        try:
            got = answer(row, fw, keep)
        except Exception as exc:  # noqa: BLE001 - a crash or failed index check is a wrong answer
            got = f"error: {type(exc).__name__}: {str(exc)[:120]}"
        if judged_right(row, fw, keep, got):
            right[key] += 1
        else:
            wrong.append(f"{row['name']} {fw}{' keep' if keep else ''}: got {got!r}, "
                         f"want {_expected(row, fw, keep)!r}")
    return right, total, wrong


def test_batch4_is_a_fresh_batch_of_the_promised_size():
    names = [row["name"] for row in MACHINES]
    assert len(names) == len(set(names))
    assert len(names) >= 25 and len(CASES) >= 60
    assert not set(names) & {row["name"] for row in BATCH3}
    for row, fw, keep in CASES:
        assert fw in ("torch", "jax", "tensorflow"), row["name"]
        assert _LABEL.fullmatch(_expected(row, fw, keep)), (row["name"], fw)
        assert row["why"].strip(), row["name"]


def test_batch4_answers_reach_the_floor():
    right, total, wrong = figures()
    assert sum(total.values()) == len(CASES)
    assert sum(right.values()) / len(CASES) >= FLOOR, "\n".join(wrong)


if __name__ == "__main__":
    r, t, w = figures()
    if "-v" in sys.argv:
        for line in w:
            print(f"  WRONG {line}")
    for k in sorted(t):
        print(f"{k:22s} {r[k]:3d}/{t[k]}")
    print(f"{'all':22s} {sum(r.values()):3d}/{sum(t.values())}")
