"""Choose and write ``anchor_seed.json``: the greedy's anchors for the bundled signatures.

Run after changing signatures (``tests/test_anchor_seed.py`` fails while the seed is stale)::

    python -m envdoctor.explain.seedgen
"""

from __future__ import annotations

import json

from envdoctor.explain.anchor_seed import SEED_FILE, SEED_VERSION, seed_key
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


def main() -> None:
    """Write ``anchor_seed.json`` for the bundled signatures."""
    seed = build_seed()
    tmp = SEED_FILE.with_suffix(".tmp")
    tmp.write_text(json.dumps(seed, indent=0, sort_keys=True) + "\n", encoding="ascii")
    tmp.replace(SEED_FILE)
    plans = seed["plans"]
    assert isinstance(plans, dict)
    print(f"{SEED_FILE}: " + ", ".join(f"{k} {len(v)} anchors" for k, v in plans.items()))


if __name__ == "__main__":
    main()
