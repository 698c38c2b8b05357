"""envdoctor.bounded: the fast test in ``defuse`` never lets a long run through."""

from __future__ import annotations

import random

import pytest

from envdoctor import bounded

# ASCII and Unicode whitespace and digits, newlines and ordinary text, mixed inside runs.
ALPHABET = [" ", "\t", "\r", "\x0b", "\x1f", "\u00a0", "\u2003", "\u3000", "\x85",
            "0", "7", "\u0663", "\uff19", "\n", "a", "é", "中", "-"]


def exact(text: str) -> str:
    """What ``defuse`` must return: the two patterns applied unconditionally."""
    text = bounded._LONG_SPACES.sub(" " * bounded.RUN, text)
    return bounded._LONG_DIGITS.sub(lambda m: m.group(0)[:bounded.RUN], text)


@pytest.mark.parametrize("seed", range(40))
def test_defuse_matches_the_patterns_on_mixed_runs(seed):
    rng = random.Random(seed)
    parts = []
    for _ in range(rng.randint(1, 12)):
        chars = rng.sample(ALPHABET, rng.randint(1, 4))
        parts.append("".join(rng.choice(chars) for _ in range(rng.randint(1, 200))))
    text = "".join(parts)
    assert bounded.defuse(text) == exact(text)


@pytest.mark.parametrize("run", [
    " " * 65, "\t \u00a0" * 30, "\u3000" * 65, "1" * 65, "\u0663" * 40 + "5" * 40,
    "9\uff19" * 33, "x" + " \r" * 40 + "y",
])
def test_every_kind_of_long_run_is_seen_and_cut(run):
    assert bounded.has_long_run(run)
    out = bounded.defuse("head " + run + " tail")
    assert out == exact("head " + run + " tail") and len(out) < len(run) + 10


def test_short_runs_and_plain_text_come_back_unchanged():
    text = "#define CUDA_VERSION 13000\n" + (" " * 64 + "x\n") * 50 + "1" * 64 + "\n中文" * 40
    assert not bounded.has_long_run(text)
    assert bounded.defuse(text) is text


def test_a_surrogate_does_not_break_the_fast_test():
    text = "\ud800" + " " * 70
    assert bounded.defuse(text) == exact(text)
