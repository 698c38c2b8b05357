"""Held-out machines (tests/suggest/heldout/labels.toml): answers labelled from the official
matrices before `suggest` ran on them. Every command is also checked against the index data."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib

from envdoctor.facts import Facts
from envdoctor.suggest import suggest
from envdoctor.suggest.machine import machine_of

from .suggest_support import check_all, judged

LABELS = tomllib.loads((Path(__file__).parent / "heldout" / "labels.toml").read_text("utf-8"))
MACHINES = LABELS["machine"]


def snapshot(row: dict) -> Facts:
    """The facts snapshot of a labelled machine (the format of tests/fixtures/machines)."""
    data = {"schema_version": 1, "origin": "example",
            "host": {"probe": {"status": "ok"}, "os": row["os"], "arch": row["arch"],
                     "python_version": row["python"]},
            "frameworks": {"probe": {"status": "ok"}},
            "packages": {"probe": {"status": "ok"}, "distributions": []}}
    if "gpu" in row:
        data["nvidia"] = {"probe": {"status": "ok"}, "driver_version": row["driver"],
                          "gpus": [{"name": row["gpu"][0], "cc": row["gpu"][1]}]}
    else:
        data["nvidia"] = {"probe": {"status": "not_found"}}
    return Facts.from_dict(data)


def answer(row: dict, framework: str) -> str:
    s = suggest(snapshot(row), [framework]).suggestions[0]
    check_all(row["name"], s, machine_of(snapshot(row)))
    return "none" if s.status == "none" else f"{s.version} {s.variant}"


CASES = [(row, fw) for row in MACHINES for fw in row["expect"]]
@pytest.mark.parametrize("row, framework", CASES,
    ids=[f"{r['name']}-{fw}" for r, fw in CASES])
def test_heldout_machine(row, framework):
    got, want = answer(row, framework), row["expect"][framework]
    assert judged(framework, want, got, machine_of(snapshot(row))), (got, want, row["why"])
