"""Choose ``anchor_seed.json``'s content: the greedy's anchors for the bundled signatures.

``envdoctor rules seed`` prints it (``tests/test_anchor_seed.py`` fails while the shipped seed
is stale)::

    envdoctor rules seed > envdoctor/explain/anchor_seed.json
"""

from __future__ import annotations

from envdoctor.explain.anchor_seed import SEED_VERSION, seed_key
from envdoctor.explain.scan import (
    ANCHOR_MAX,
    ANCHOR_MIN,
    Scanner,
    _reference,
    choose_anchors,
    plan_literals,
)


def build_seed() -> dict[str, object]:
    """Every plan of the bundled signatures, chosen by the greedy (seconds)."""
    from envdoctor.explain import load_signatures
    sigs = load_signatures()
    scanner = Scanner(sigs, choose=False)
    plans: dict[str, list[str]] = {}
    for (in_ctx, find_ms), literals in plan_literals(scanner).items():
        plans[seed_key(find_ms, in_ctx)] = list(
            choose_anchors(literals, _reference(scanner.signatures), find_ms))
    return {"version": SEED_VERSION, "anchor_lengths": [ANCHOR_MIN, ANCHOR_MAX],
            "plans": plans}
