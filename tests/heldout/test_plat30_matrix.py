"""Held-out batch plat30 (tests/heldout/plat30_machines.py).

Two kinds of test:

- structure (``-k structure`` selects only these; they never run envdoctor): every machine builds
  into a tmp root; every row's expected fields are valid; every labelled check id exists in
  rules/checks (read as text) unless the row says ``unlabelled_check``, whose id must not exist;
  every recording names its source; every platform has healthy and broken rows.
- diagnosis (``test_plat30_machine_diagnosis``): each machine through ``check --static --root DIR
  --format json --expect gpu``: a healthy machine gets no warning or error and exits 0; a broken
  one gets a finding of one of its labelled check ids at the labelled severity and exits 1; an AMD
  box (bare or in a container), a Mac or an Intel GPU box is never told to install the NVIDIA
  driver or a CUDA wheel. The labels were written before envdoctor ran on any machine;
  the first run's failures are strict xfails (FIRST_RUN_FAILED, PLATFORMS30.md).
"""

from __future__ import annotations


import pytest

from tests.heldout import plat25_machines as p25
from tests.heldout import plat26_machines as p26
from tests.heldout import plat27_machines as p27
from tests.heldout import plat28_machines as p28
from tests.heldout import plat29_machines as p29
from tests.heldout import plat30_machines as m
from tests.heldout.plat_matrix import (
    check_machine_builds,
    check_recordings,
    check_rows_cover_every_platform,
    check_rows_well_formed,
    params,
    run,
    source_keys,
    verdict,
)
from tests.heldout.test_machines import deps  # noqa: F401 - the fixture

NON_NVIDIA = ("apple", "rocm", "rocm-container", "intel")

# the first diagnosis run is still to be made (PLATFORMS30.md): no floor and no known misses yet
# the first diagnosis run, on 7cee661: 42/42 right, 22/22 healthy clean
FLOOR = 1.0

# rows the first run gets wrong, with what envdoctor said then (strict xfails once recorded)
FIRST_RUN_FAILED: dict[str, str] = {}


def test_structure_every_platform_has_healthy_and_broken_rows():
    check_rows_cover_every_platform(m.PLATFORMS, m.ROWS)


def test_structure_rows_are_well_formed():
    docs = (m.__doc__, p29.__doc__, p28.__doc__, p27.__doc__, p26.__doc__, p25.__doc__)
    check_rows_well_formed(m.ROWS, source_keys(*docs), at_least=30)
    non_nvidia = sum(p != "nvidia" for p, _ in m.ROWS)
    assert non_nvidia * 4 >= len(m.ROWS) * 3, f"{non_nvidia} machines beyond bare NVIDIA of {len(m.ROWS)}"


def test_structure_recordings_name_their_source():
    check_recordings(m.TOOLS30)


def test_structure_known_misses_are_rows():
    assert set(FIRST_RUN_FAILED) <= {sc['name'] for _, sc in m.ROWS}


@pytest.mark.parametrize("platform,sc", [pytest.param(p, sc, id=f"{p}:{sc['name']}") for p, sc in m.ROWS])
def test_structure_machine_builds(platform, sc, tmp_path):
    check_machine_builds(m.build, platform, sc, tmp_path / "box")


@pytest.mark.parametrize("platform,sc", params(m.ROWS, FIRST_RUN_FAILED))
def test_plat30_machine_diagnosis(platform, sc, tmp_path, deps):  # noqa: F811
    code, found = run(m.build, platform, sc, tmp_path / "box", deps)
    wrong = verdict(platform, sc, code, found, NON_NVIDIA)
    assert not wrong, wrong
