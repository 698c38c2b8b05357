"""The fault matrix under pytest: each injected fault must be handled by the real CLI.

Handled means: the documented exit code, no traceback, bounded time, bounded memory where it
matters, the right probe state or finding, and no process left behind (every process that
carries the fault's marker in its environment is found through /proc and counted). The faults
and their expectations live in ``matrix.py`` (also a script that prints the before/after
table). Slow-by-nature faults (a 10 s nvidia-smi timeout, a FIFO nobody writes to) keep their
real timeouts: the bound is what is tested.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from . import matrix
from ._params import HANG_GUARD_SLACK, assert_handled, fault_params, machine_slack

# Real-process fault matrix (each fault runs the CLI, most wait out a timeout): off in the
# default run, `.ci/run` runs it with the other boundary matrices (-m boundary).
pytestmark = pytest.mark.boundary

ROOT = Path(__file__).resolve().parents[2]
# Covered by faster in-process tests below or too slow for every CI run (1 GB file).
SKIP = {"F04": "1 GB input: run by `python tests/faults/matrix.py --only F04` and the benchmark",
        "T10": "a hung nvcc costs its 10 s timeout: tests/probes/test_probe_failures.py runs the "
               "same real hang with a short timeout"}
NEEDS_CC = {"N01", "N02", "N03"}
NEEDS_TORCH = {"S01", "S02", "S03", "S04", "S05", "S06"}


@pytest.fixture(scope="module", autouse=True)
def _source_tree():
    matrix.ROOT = str(ROOT)
    yield


@pytest.mark.parametrize("fid", list(fault_params(matrix.FAULTS, SKIP, NEEDS_CC, NEEDS_TORCH)))
def test_fault_is_handled(fid):
    slack = machine_slack(HANG_GUARD_SLACK)
    assert_handled(fid, matrix.run_fault(fid, sys.executable, slack=slack))


def test_matrix_has_every_category():
    categories = {c for c, _, _ in matrix.FAULTS.values()}
    assert len(matrix.FAULTS) >= 45
    for wanted in ("fake tool", "nvml", "shadowed package", "dist-info", "version file", "env",
                   "unwritable", "crash log", "encoding", "stdout", "json input",
                   "pasted input", "rules", "output paths", "secrets", "orphan"):
        assert wanted in categories, wanted
