"""What both fault matrices share under pytest: their parameters and the handled-or-not assert."""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Iterator, Mapping

import pytest

# The bounds in the matrices are what a quiet machine needs; under pytest they guard against
# hangs on a loaded CI runner, so they get room (matrix.CAP still kills a real hang at 60 s).
HANG_GUARD_SLACK = 3.0


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
