"""The ninth fault matrix (``matrix9.py``) under pytest: faults no earlier matrix lists.

Each fault is judged by its own expectation, by ``matrix3.universal``, matrix 8's
``no_secret8``/``no_invisible`` and this round's ``no_secret9``; MATRIX9.md has the
before/after table. Every fault is handled, so each one is a hard test.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from . import matrix, matrix9
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


@pytest.mark.parametrize("fid", list(fault_params(matrix9.FAULTS)))
def test_boundary_holds(fid):
    slack = machine_slack(SLACK)
    assert_handled(fid, matrix9.run_fault(fid, sys.executable, slack=slack))


def test_matrix9_is_new():
    """No fault id or title of this round repeats an earlier matrix's."""
    from . import matrix2, matrix3, matrix4, matrix5, matrix7, matrix8
    earlier = {}
    for mod in (matrix, matrix2, matrix3, matrix4, matrix5, matrix7, matrix8):
        earlier.update(mod.FAULTS)
    assert not set(matrix9.FAULTS) & set(earlier)
    titles = {t for _, t, _ in earlier.values()}
    assert not {t for _, t, _ in matrix9.FAULTS.values()} & titles


def test_the_fault_checks_can_fail(tmp_path):
    assert matrix9.no_secret9(f"x {matrix9.WANDB9}", "", tmp_path)
    assert matrix9.no_title("a\x1b]0;t\x07", "", tmp_path)
    (tmp_path / "c").mkdir()
    (tmp_path / "c/signatures-1.42.tmp").touch()
    assert matrix9._no_tmp("", "", tmp_path)
