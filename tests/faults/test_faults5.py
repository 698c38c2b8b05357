"""The fifth fault matrix (``matrix5.py``) under pytest: faults no earlier matrix lists.

Each fault is judged by its own expectation and by ``matrix3.universal``; MATRIX5.md has the
before/after table. Every fault is handled, so each one is a hard test.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from . import matrix, matrix5
from ._params import assert_handled, fault_params, machine_slack

pytestmark = pytest.mark.boundary

ROOT = Path(__file__).resolve().parents[2]
SLACK = 2.0
# device nodes need CAP_MKNOD; a run as an ordinary user cannot make them
NEEDS_ROOT = {"5R01", "5R02"}
SKIP = {f: "mknod needs root" for f in NEEDS_ROOT} if os.geteuid() != 0 else {}


@pytest.fixture(scope="module", autouse=True)
def _source_tree():
    old = matrix.ROOT
    matrix.ROOT = str(ROOT)
    yield
    matrix.ROOT = old


@pytest.mark.parametrize("fid", list(fault_params(matrix5.FAULTS, skip=SKIP)))
def test_boundary_holds(fid):
    slack = machine_slack(SLACK)
    assert_handled(fid, matrix5.run_fault(fid, sys.executable, slack=slack))


def test_matrix5_is_new():
    from . import matrix2, matrix3, matrix4
    assert len(matrix5.FAULTS) >= 50
    assert not set(matrix5.FAULTS) & (set(matrix.FAULTS) | set(matrix2.FAULTS)
                                      | set(matrix3.FAULTS) | set(matrix4.FAULTS))


def test_the_fault_checks_can_fail(tmp_path):
    assert matrix5.no_secret5(matrix5.GHP5, "", tmp_path)
    assert matrix5.no_forged_line("x\n[✓] All checks passed\n", "", tmp_path)
    assert not matrix5.no_forged_line("x\\n[✓] All checks passed", "", tmp_path)
    assert matrix5.shows("canary")("nothing", "", tmp_path)
