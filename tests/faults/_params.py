"""What both fault matrices share under pytest: their parameters and the handled-or-not assert."""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

# The bounds in the matrices are what a quiet machine needs; under pytest they guard against
# hangs on a loaded CI runner, so they get room (matrix.CAP still kills a real hang at 60 s).
HANG_GUARD_SLACK = 3.0

# What a one-line `explain --no-facts` takes on a warm rule cache on the quiet 2-core machine the
# bounds were written on. The same run, timed here first, says how much slower this machine is
# right now (a shared CI runner, a loaded laptop): the bounds stretch by that ratio, never shrink.
QUIET_FLOOR_S = 0.35


@functools.cache
def machine_factor() -> float:
    """This machine's floor over the quiet one's (median of three runs, at least 1.0)."""
    from . import matrix
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, **matrix.warm_rule_cache(root), "PYTHONPATH": root}
    times = []
    for _ in range(3):
        start = time.monotonic()
        subprocess.run([sys.executable, "-m", "envdoctor", "explain", "--no-facts"], env=env,
                       input=b"RuntimeError: CUDA error: out of memory\n", capture_output=True,
                       timeout=120, check=False)
        times.append(time.monotonic() - start)
    return max(1.0, statistics.median(times) / QUIET_FLOOR_S)


def machine_slack(base: float) -> float:
    """``base`` stretched by how slow this machine is now (``machine_factor``)."""
    return base * machine_factor()


def fault_params(faults: Mapping[str, tuple], skip: Mapping[str, str] | None = None,
                 needs_cc: frozenset[str] | set[str] = frozenset(),
                 needs_torch: frozenset[str] | set[str] = frozenset()) -> Iterator:
    """One pytest parameter per fault id, skipped where this machine lacks what it needs."""
    no_cc = shutil.which("gcc") is None
    no_torch = importlib.util.find_spec("torch") is None
    for fid, (category, title, _) in faults.items():
        marks = []
        if fid in (skip or {}):
            marks.append(pytest.mark.skip(reason=skip[fid]))
        if fid in needs_cc and no_cc:
            marks.append(pytest.mark.skip(reason="no C compiler for the fake libnvidia-ml"))
        if fid in needs_torch and no_torch:
            marks.append(pytest.mark.skip(reason="torch is not installed"))
        yield pytest.param(fid, id=f"{fid}-{category}-{title}"[:90], marks=marks)


def assert_handled(fid: str, result: dict) -> None:
    assert not result.get("error"), result.get("error")
    assert result["ok"], (f"{fid} {result['title']}: {'; '.join(result['problems'])} "
                          f"(exit {result['rc']}, {result['seconds']} s, "
                          f"stderr: {result['stderr_tail']!r})")
