"""The tenth fault matrix (``matrix10.py``) under pytest: faults no earlier matrix lists.

Each fault is judged by its own expectation, by ``matrix3.universal``, matrix 8's
``no_secret8``/``no_invisible``, matrix 9's ``no_secret9`` and this round's
``no_secret10``; MATRIX10.md has the before/after table. Every fault is handled, so each one is a hard test.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from . import matrix, matrix10
from ._params import assert_handled, fault_params, machine_slack

pytestmark = pytest.mark.boundary

ROOT = Path(__file__).resolve().parents[2]
SLACK = 2.0


@pytest.fixture(scope="module", autouse=True)
def _source_tree():
    old = matrix.ROOT
    matrix.ROOT = str(ROOT)
    yield
    matrix.ROOT = old


@pytest.mark.parametrize("fid", list(fault_params(matrix10.FAULTS)))
def test_boundary_holds(fid):
    slack = machine_slack(SLACK)
    assert_handled(fid, matrix10.run_fault(fid, sys.executable, slack=slack))


def test_matrix10_is_new():
    """No fault id or title of this round repeats an earlier matrix's."""
    from . import matrix2, matrix3, matrix4, matrix5, matrix7, matrix8, matrix9
    earlier = {}
    for mod in (matrix, matrix2, matrix3, matrix4, matrix5, matrix7, matrix8, matrix9):
        earlier.update(mod.FAULTS)
    assert not set(matrix10.FAULTS) & set(earlier)
    titles = {t for _, t, _ in earlier.values()}
    assert not {t for _, t, _ in matrix10.FAULTS.values()} & titles


def test_the_fault_checks_can_fail(tmp_path):
    assert matrix10.no_secret10(f"x {matrix10.HF10}", "", tmp_path)
    assert matrix10.no_secret10("", f"https://ci:{matrix10.PW10}@h", tmp_path)
    assert matrix10._out_dir_clean("", "", tmp_path)  # no rank snapshot: not exercised
    (tmp_path / "out-ranks").mkdir()
    (tmp_path / "out-ranks/rank-0.json").write_text(f'{{"t": "{matrix10.GHP10}"}}')
    assert matrix10._out_dir_clean("", "", tmp_path)
