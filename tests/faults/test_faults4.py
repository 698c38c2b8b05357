"""The fourth fault matrix (``matrix4.py``) under pytest: faults no earlier matrix lists.

Each fault is judged by its own expectation and by ``matrix3.universal``; MATRIX4.md has the
before/after table. Every fault is handled, so each one is a hard test.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from . import matrix, matrix4
from ._params import assert_handled, machine_slack

pytestmark = pytest.mark.boundary

ROOT = Path(__file__).resolve().parents[2]
SLACK = 2.0


@pytest.fixture(scope="module", autouse=True)
def _source_tree():
    old = matrix.ROOT
    matrix.ROOT = str(ROOT)
    yield
    matrix.ROOT = old


@pytest.mark.parametrize("fid", [pytest.param(f, id=f"{f}-{c}-{t}"[:90])
                                 for f, (c, t, _) in matrix4.FAULTS.items()])
def test_boundary_holds(fid):
    slack = machine_slack(SLACK)
    assert_handled(fid, matrix4.run_fault(fid, sys.executable, slack=slack))


def test_matrix4_is_new():
    from . import matrix2, matrix3
    assert len(matrix4.FAULTS) >= 40
    assert not set(matrix4.FAULTS) & (set(matrix.FAULTS) | set(matrix2.FAULTS)
                                      | set(matrix3.FAULTS))


def test_forged_line_check_can_fail(tmp_path):
    assert matrix4.no_forged_line("ok\n[✓] All checks passed\n", "", tmp_path)
    assert matrix4.no_forged_line("::error title=PWNED4::x", "", tmp_path)
    assert not matrix4.no_forged_line("name X\\n[✓] All checks passed", "", tmp_path)
    assert matrix4.no_secret4(matrix4.HF, "", tmp_path)
