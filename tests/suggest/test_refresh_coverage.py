"""What the matrices refresh covers, and what it does not: a row of a refreshed table that is
newer than every row today's recorded sources state was added by hand (from a source the
refresh has no reader for, or none recorded yet); it must say so (``confirmed = false``), so
that "no diff from today's sources" never passes for a row no source reproduces."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib
from packaging.version import Version

from envdoctor.matrices.refresh import load_sources

ROOT = Path(__file__).resolve().parents[2]
TODAY = ROOT / "tests" / "data" / "refresh" / "today"
# (file, table) the refresh writes -> the row field holding its release
VERSIONED = {("wheel_index", "torch"): "torch", ("torch", "release"): "torch",
             ("tensorflow", "release"): "tensorflow", ("cuda_driver", "toolkit"): "cuda"}


@pytest.fixture(scope="module")
def cells():
    return load_sources(TODAY)


def test_the_refresh_covers_the_tables_it_says(cells):
    assert {(c.file, c.table) for c in cells} == {*VERSIONED, ("jax", "release"),
                                                  ("jax", "plugin")}


@pytest.mark.parametrize("where", sorted(VERSIONED))
def test_rows_newer_than_every_recorded_source_are_marked_unconfirmed(cells, where):
    file, table = where
    field = VERSIONED[where]
    rows = tomllib.loads((ROOT / "rules" / "matrices" / f"{file}.toml")
                         .read_text("utf-8"))[table]
    stated = {c.key for c in cells if (c.file, c.table) == where}
    stated_rows = [r for r in rows if any(r.get(k) == v for k, v in stated)]
    newest = max(Version(str(r[field])) for r in stated_rows)
    beyond = [r for r in rows if Version(str(r[field])) > newest
              and not any(r.get(k) == v for k, v in stated)]
    for row in beyond:
        assert row.get("confirmed") is False, (file, table, row[field])
