"""The shipped anchor seed (``envdoctor/explain/anchor_seed.py``): current, the greedy's answer,
and what a cold cache uses for a large input instead of seconds of ``choose_anchors``."""

from __future__ import annotations

import io

import pytest

import envdoctor.explain as ex
from envdoctor.explain import anchor_seed, scan
from envdoctor.explain.signatures import load_signatures

from tests.test_explain_fastpath import FILLER, build_log, summary

LENGTHS = (scan.ANCHOR_MIN, scan.ANCHOR_MAX)
REGENERATE = "stale: run `envdoctor rules seed > envdoctor/explain/anchor_seed.json` and commit it"


@pytest.fixture(scope="module")
def plans() -> dict[tuple[bool, float], list[str]]:
    return scan.plan_literals(scan.Scanner(load_signatures(), choose=False))


def test_the_seed_covers_every_literal_of_the_bundled_signatures(plans):
    seed = anchor_seed.load_seed(LENGTHS)
    assert len(seed) == 4, REGENERATE
    for (in_ctx, find_ms), literals in plans.items():
        key = anchor_seed.seed_key(find_ms, in_ctx)
        anchors, missed = anchor_seed.assign(literals, seed[key], LENGTHS)
        assert missed == 0, f"{key}: {missed} literals hold no seed anchor; {REGENERATE}"
        assert sorted(lit for lits in anchors.values() for lit in lits) == literals
        assert all(a in lit for a, lits in anchors.items() for lit in lits)


def test_the_seeded_plan_is_the_greedys_plan(plans):
    """Each literal takes the earliest seed anchor it holds: the greedy's own assignment."""
    in_ctx, find_ms = True, scan.FIND_MS_DIRECT  # the smallest plan: ~1 s of greedy
    literals = plans[in_ctx, find_ms]
    greedy = scan.choose_anchors(literals, scan._reference(tuple(load_signatures())), find_ms)
    assert anchor_seed.seeded_anchors(literals, find_ms, in_ctx, LENGTHS) == greedy, REGENERATE


def test_a_seed_for_other_literals_is_not_used(plans, monkeypatch):
    literals = plans[False, scan.FIND_MS]
    seed = anchor_seed.load_seed(LENGTHS)
    key = anchor_seed.seed_key(scan.FIND_MS, False)
    monkeypatch.setattr(anchor_seed, "load_seed",
                        lambda lengths: {key: seed[key][:len(seed[key]) // 3]})
    assert anchor_seed.seeded_anchors(literals, scan.FIND_MS, False, LENGTHS) is None
    # a few literals the seed never saw: each its own anchor, the rest as seeded
    extra = ["zqxwvuplk", "qqqjjjzzz"]
    monkeypatch.setattr(anchor_seed, "load_seed", lambda lengths: seed)
    got = anchor_seed.seeded_anchors(sorted(literals + extra), scan.FIND_MS, False, LENGTHS)
    assert got is not None and all(got[e] == (e,) for e in extra)


def test_a_missing_or_foreign_seed_file_means_no_seed(monkeypatch, tmp_path):
    for body in ("", "{", '{"version": 1, "anchor_lengths": [3, 12], "plans": {"patterns@1": ["cuda"]}}', "[1]"):
        path = tmp_path / "seed.json"
        path.write_text(body)
        monkeypatch.setattr(anchor_seed, "SEED_FILE", path)
        assert anchor_seed.load_seed(LENGTHS) == {}
    monkeypatch.setattr(anchor_seed, "SEED_FILE", tmp_path / "absent.json")
    assert anchor_seed.load_seed(LENGTHS) == {}


def _no_greedy(*args, **kwargs):
    raise AssertionError("choose_anchors ran although the seed fits")


def test_a_big_input_on_a_cold_cache_takes_the_seed_not_the_greedy(monkeypatch, tmp_path):
    monkeypatch.setenv("ENVDOCTOR_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(ex, "_SCANNER", None)
    monkeypatch.setattr(scan, "choose_anchors", _no_greedy)
    data = build_log(5, 400, 60)
    while len(data) < ex.CHOOSE_BYTES:
        data += FILLER[0].format(i=1, s=2, e=3, bar="").encode() + b"\n"
    got = ex.scan_stream(io.BytesIO(data))
    assert ex._SCANNER.chosen
    assert len(list(tmp_path.glob("anchors-*"))) == 4
    assert summary(got) == summary(ex._SCANNER.scan_stream(io.BytesIO(data), plain=True))
