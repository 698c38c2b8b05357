"""The seventh fault matrix (``matrix7.py``) under pytest: faults no earlier matrix lists.

Each fault is judged by its own expectation and by ``matrix3.universal``; MATRIX7.md has the
first-run/before/after table. Every fault is handled, so each one is a hard test.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from . import matrix, matrix7
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


@pytest.mark.parametrize("fid", list(fault_params(matrix7.FAULTS)))
def test_boundary_holds(fid):
    slack = machine_slack(SLACK)
    assert_handled(fid, matrix7.run_fault(fid, sys.executable, slack=slack))


def test_matrix7_is_new():
    from . import matrix2, matrix3, matrix4, matrix5
    assert len(matrix7.FAULTS) >= 40
    assert not set(matrix7.FAULTS) & (set(matrix.FAULTS) | set(matrix2.FAULTS)
                                      | set(matrix3.FAULTS) | set(matrix4.FAULTS)
                                      | set(matrix5.FAULTS))


def test_the_fault_checks_can_fail(tmp_path):
    assert matrix7.no_secret7(f"x {matrix7.GHP7}", "", tmp_path)
    assert matrix7.shows("canary")("nothing", "", tmp_path)
    assert matrix7.says("--timeout")("", "envdoctor: error: bad", tmp_path)
    (tmp_path / ".out.txt.abc.tmp").write_text("x")
    assert matrix7._no_torn("out.txt", "OLD\n")("", "", tmp_path)
