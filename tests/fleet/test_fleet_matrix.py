"""The fleet fault matrix (``tests/fleet/matrix.py``), one test per row, real torchrun jobs.

Slow (a real two-node job per fault, 15–40 s each on two cores): marked ``boundary``, run by
``.ci/run`` with ``-m boundary``; the handled count before and after is in FLEET_MATRIX.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fleet.matrix import FAULTS, Fault, run_fault

pytest.importorskip("torch.distributed")
pytestmark = [pytest.mark.fleet, pytest.mark.boundary]


@pytest.mark.parametrize("fault", FAULTS, ids=[f.name for f in FAULTS])
def test_fault(fault: Fault, tmp_path: Path) -> None:
    problems = run_fault(fault, tmp_path)
    assert problems == [], "\n".join(problems)
