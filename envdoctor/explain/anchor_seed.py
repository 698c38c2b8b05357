"""Anchors chosen ahead of time for the bundled signatures, so a first large input is fast.

``scan.choose_anchors`` (a greedy set cover over every 4..10-character substring of ~8 000
reduced literals) costs 3-7 s of CPU for its four plans; its answer is cached per user, but a
fresh install, a fresh container or a CI job with an empty ``$HOME`` paid that inside its first
``explain`` of a log over ``CHOOSE_BYTES``. The anchors themselves are a few KB: this module
ships them (``anchor_seed.json``, the greedy order of each plan) and rebuilds the plan from
them in ~0.1 s. Each literal takes the first seed anchor it contains, which is the anchor the
greedy gave it when the literals are the ones the seed was chosen for; a literal added since
then that holds no seed anchor is its own anchor (found as surely, one more needle). So a seed
that is a few signatures out of date is still nearly the greedy's answer, and one too far out
of date (another rules folder) is not used at all: the greedy runs as before.

Regenerate after changing signatures (``tests/test_anchor_seed.py`` says when it is stale)::

    envdoctor rules seed > envdoctor/explain/anchor_seed.json

This module only reads the seed (``scan`` imports it); ``seedgen`` chooses it.
"""

from __future__ import annotations

from pathlib import Path

SEED_FILE = Path(__file__).with_name("anchor_seed.json")
# a seed that leaves more of a plan's literals uncovered than this is another rules folder's
SEED_MISS_MAX = 0.05
SEED_VERSION = 1
SEED_MAX_BYTES = 1 << 20   # ~30 KB today


def seed_key(find_ms: float, in_ctx: bool) -> str:
    return f"{'contexts' if in_ctx else 'patterns'}@{find_ms:g}"


def load_seed(lengths: tuple[int, int]) -> dict[str, list[str]]:
    """The shipped seed: plan key -> anchors in the greedy's order, when chosen for anchors of
    these (shortest, longest) lengths; {} when absent, unreadable or chosen otherwise (then the
    greedy runs, as without a seed)."""
    from envdoctor.bounded import InputError, decode_json, read_file
    try:
        data = decode_json(read_file(SEED_FILE, "the anchor seed", SEED_MAX_BYTES))
    except (InputError, OSError, ValueError):
        return {}
    if not (isinstance(data, dict) and data.get("version") == SEED_VERSION
            and data.get("anchor_lengths") == list(lengths)
            and isinstance(data.get("plans"), dict)):
        return {}
    return {k: v for k, v in data["plans"].items()
            if isinstance(v, list) and all(isinstance(a, str) and a for a in v)}


def assign(literals: list[str], seed: list[str], lengths: tuple[int, int]
           ) -> tuple[dict[str, tuple[str, ...]], int]:
    """(anchor -> its literals, how many literals held no seed anchor). Each literal goes to
    the earliest seed anchor among its substrings (of ``lengths``, or itself), as the greedy
    assigned it; one without any is its own anchor."""
    shortest, longest = lengths
    rank = {a: i for i, a in enumerate(seed)}
    out: dict[str, list[str]] = {}
    missed = 0
    for lit in literals:
        best = rank.get(lit)
        for n in range(shortest, min(longest, len(lit)) + 1):
            for j in range(len(lit) - n + 1):
                r = rank.get(lit[j:j + n])
                if r is not None and (best is None or r < best):
                    best = r
        if best is None:
            missed += 1
            anchor = lit
        else:
            anchor = seed[best]
        out.setdefault(anchor, []).append(lit)
    return {a: tuple(sorted(v)) for a, v in out.items()}, missed


def seeded_anchors(literals: list[str], find_ms: float, in_ctx: bool,
                   lengths: tuple[int, int]) -> dict[str, tuple[str, ...]] | None:
    """The plan for these literals from the shipped seed, or None when there is no seed for
    it or it covers too few of them (another rules folder: the greedy decides)."""
    seed = load_seed(lengths).get(seed_key(find_ms, in_ctx))
    if not seed or not literals:
        return None
    anchors, missed = assign(literals, seed, lengths)
    return None if missed > SEED_MISS_MAX * len(literals) else anchors
