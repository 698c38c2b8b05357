"""The second fault matrix (``matrix2.py``) under pytest: every broken NVIDIA stack, tool or
file it injects must be reported truthfully by the real CLI (a failed probe as a failed probe,
a stated absence as absence, a healthy machine without a warning), with the documented exit
code, no traceback, in bounded time and with no process left behind."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from . import matrix, matrix2
from ._params import HANG_GUARD_SLACK, assert_handled, fault_params, machine_slack

# Real-process fault matrix (each fault runs the CLI, most wait out a timeout): off in the
# default run, `.ci/run` runs it with the other boundary matrices (-m boundary).
pytestmark = pytest.mark.boundary

ROOT = Path(__file__).resolve().parents[2]
NEEDS_TORCH = {"LW01", "LW02", "LW03"}
NEEDS_CC = {"NL01", "NL02", "NL03"}


@pytest.fixture(scope="module", autouse=True)
def _source_tree():
    matrix.ROOT = str(ROOT)
    yield


@pytest.mark.parametrize("fid", list(fault_params(matrix2.FAULTS, None, NEEDS_CC, NEEDS_TORCH)))
def test_fault_is_reported_truthfully(fid):
    slack = machine_slack(HANG_GUARD_SLACK)
    assert_handled(fid, matrix2.run_fault(fid, sys.executable, slack=slack))


def test_matrix2_is_new_cites_its_sources_and_covers_the_categories():
    assert len(matrix2.FAULTS) >= 30
    assert not set(matrix2.FAULTS) & set(matrix.FAULTS)
    for fid, (_, _, build) in matrix2.FAULTS.items():
        assert build.src.startswith(("https://", "synthetic:")), fid
    categories = {c for c, _, _ in matrix2.FAULTS.values()}
    assert {"nvml state", "nvml lib", "binary", "gpu rows", "visibility", "driver traces", "toolkit",
            "python files", "live worker"} <= categories


def test_a_check_can_fail():
    """The verdict checks are not vacuous: a healthy report fails a failed-probe expectation."""
    import json
    healthy = json.dumps({"facts": {"nvidia": {"probe": {"status": "ok"}, "gpus": [{}]}},
                          "findings": [{"code": "DRV001", "severity": "error", "title": "x"}]})
    assert matrix2.verdict(status={"error"}, codes=("PROBE001",))(healthy, "", None)
    assert matrix2.verdict(quiet=True)(healthy, "", None)
    assert not matrix2.verdict(status={"ok"}, gpus=1)(healthy, "", None)
