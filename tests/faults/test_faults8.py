"""The eighth fault matrix (``matrix8.py``) under pytest: faults no earlier matrix lists.

Each fault is judged by its own expectation, by ``matrix3.universal`` and by this round's
``no_secret8`` and ``no_invisible``; MATRIX8.md has the first-run/before/after table. Every
fault is handled, so each one is a hard test.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from . import matrix, matrix8
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


@pytest.mark.parametrize("fid", list(fault_params(matrix8.FAULTS, needs_torch={"8N01", "8N02"})))
def test_boundary_holds(fid):
    slack = machine_slack(SLACK)
    assert_handled(fid, matrix8.run_fault(fid, sys.executable, slack=slack))


def test_matrix8_is_new():
    from . import matrix2, matrix3, matrix4, matrix5, matrix7
    assert len(matrix8.FAULTS) >= 40
    assert not set(matrix8.FAULTS) & (set(matrix.FAULTS) | set(matrix2.FAULTS)
                                      | set(matrix3.FAULTS) | set(matrix4.FAULTS)
                                      | set(matrix5.FAULTS) | set(matrix7.FAULTS))


def test_the_fault_checks_can_fail(tmp_path):
    assert matrix8.no_secret8(f"x {matrix8.GHP8}", "", tmp_path)
    assert matrix8.no_secret8(f"x {matrix8.JOINED[0]}", "", tmp_path)
    assert matrix8.no_invisible("to\u200bken", "", tmp_path)
    assert matrix8.no_invisible("", "tag \U000e0069", tmp_path)
    assert matrix8.md_clean("x <!-- hidden", "", tmp_path)
    assert matrix8.md_clean("![p](https://evil.example/t.png)", "", tmp_path)
    assert not matrix8.md_clean("```\n<!-- in a fence -->\n```", "", tmp_path)
    assert matrix8.wf_percent("::warning title=x::RTX%0A::error::y", "", tmp_path)
    assert matrix8.no_command_line('{\n  ::error title=x::y\n}', "", tmp_path)
    assert not matrix8.no_command_line('{"a": "x ::error title=x::y"}', "", tmp_path)
