"""Held-out batch plat27 (tests/heldout/plat27_machines.py).

Two kinds of test:

- structure (``-k structure`` selects only these; they never run envdoctor): every machine builds
  into a tmp root; every row's expected fields are valid; every labelled check id exists in
  rules/checks (read as text) unless the row says ``unlabelled_check``, whose id must not exist;
  every recording names its source; every platform has healthy and broken rows.
- diagnosis (``test_plat27_machine_diagnosis``): each machine through ``check --static --root DIR
  --format json --expect gpu``: a healthy machine gets no warning or error and exits 0; a broken
  one gets a finding of one of its labelled check ids at the labelled severity and exits 1; an AMD
  box (bare or in a container), a Mac or an Intel GPU box is never told to install the NVIDIA
  driver or a CUDA wheel. The labels were written before envdoctor ran on any machine;
  the first run (on 93424dd: 39/44) left FIRST_RUN_FAILED as strict xfails (PLATFORMS27.md).
"""

from __future__ import annotations


import pytest

from tests.heldout import plat25_machines as p25
from tests.heldout import plat26_machines as p26
from tests.heldout import plat27_machines as m
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

# rows envdoctor gets wrong today, with why (strict xfails). The first run's five (PLATFORMS27.md)
# are right since; this one was right then and is silent since gfx1151 got an unconfirmed row.
FIRST_RUN_FAILED: dict[str, str] = {
    "strix-halo-8060s-gfx1151-rocm702-torch210dev-rocm70-no-override":
        "silent: [[torch_gfx]] reads pytorch#167299 as 'gfx1151 in wheels built for ROCm >= 7.0 "
        "before 2.10', so a +rocm7.0 pre-release counts as having gfx1151; the thread's wheel "
        "had no gfx1151 code",
}

def test_structure_every_platform_has_healthy_and_broken_rows():
    check_rows_cover_every_platform(m.PLATFORMS, m.ROWS)


def test_structure_rows_are_well_formed():
    check_rows_well_formed(m.ROWS, source_keys(m.__doc__, p26.__doc__, p25.__doc__), at_least=36)


def test_structure_recordings_name_their_source():
    check_recordings(m.TOOLS27)


def test_structure_known_misses_are_rows():
    assert set(FIRST_RUN_FAILED) <= {sc['name'] for _, sc in m.ROWS}


@pytest.mark.parametrize("platform,sc", [pytest.param(p, sc, id=f"{p}:{sc['name']}") for p, sc in m.ROWS])
def test_structure_machine_builds(platform, sc, tmp_path):
    check_machine_builds(m.build, platform, sc, tmp_path / "box")


@pytest.mark.parametrize("platform,sc", params(m.ROWS, FIRST_RUN_FAILED))
def test_plat27_machine_diagnosis(platform, sc, tmp_path, deps):  # noqa: F811
    code, found = run(m.build, platform, sc, tmp_path / "box", deps)
    wrong = verdict(platform, sc, code, found, NON_NVIDIA)
    assert not wrong, wrong
