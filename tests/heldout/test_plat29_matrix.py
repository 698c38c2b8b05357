"""Held-out batch plat29 (tests/heldout/plat29_machines.py).

Two kinds of test:

- structure (``-k structure`` selects only these; they never run envdoctor): every machine builds
  into a tmp root; every row's expected fields are valid; every labelled check id exists in
  rules/checks (read as text) unless the row says ``unlabelled_check``, whose id must not exist;
  every recording names its source; every platform has healthy and broken rows.
- diagnosis (``test_plat29_machine_diagnosis``): each machine through ``check --static --root DIR
  --format json --expect gpu``: a healthy machine gets no warning or error and exits 0; a broken
  one gets a finding of one of its labelled check ids at the labelled severity and exits 1; an AMD
  box (bare or in a container), a Mac or an Intel GPU box is never told to install the NVIDIA
  driver or a CUDA wheel. The labels were written before envdoctor ran on any machine;
  the first run's failures are strict xfails (FIRST_RUN_FAILED, PLATFORMS29.md).
"""

from __future__ import annotations


import pytest

from tests.heldout import plat25_machines as p25
from tests.heldout import plat26_machines as p26
from tests.heldout import plat27_machines as p27
from tests.heldout import plat28_machines as p28
from tests.heldout import plat29_machines as m
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

# the first diagnosis run, on 522a9df: 48/51 right (94.1 %)
FLOOR = 0.94

# rows the first run got wrong, with what envdoctor said then (the RX 7800 XT under torch 2.5.1
# is right since: where [[torch_gfx]] dates a target's entry into the wheels, the wheel decides)
FIRST_RUN_FAILED: dict[str, str] = {
    "rx7900xtx-rocm624-torch280-rocm64":
        "silent: torch 2.8.0+rocm6.4 on an installed ROCm 6.2.4 passed (ROCm 6.4 is two "
        "releases past 6.2, inside the +/-2 window rules/matrices/rocm.toml reads from AMD's "
        "user/kernel-space matrix)",
    "m1pro-macos14.2.1-tf216-tf-metal-110":
        "silent: tensorflow-metal 1.1.0 beside TensorFlow 2.16.2 passed (rules/matrices/"
        "apple.toml: 1.1.0 loads up to 2.17, tensorflow/tensorflow#84167; Apple's pairing "
        "with 2.14 is a hint only)",
}


def test_structure_every_platform_has_healthy_and_broken_rows():
    check_rows_cover_every_platform(m.PLATFORMS, m.ROWS)


def test_structure_rows_are_well_formed():
    docs = (m.__doc__, p28.__doc__, p27.__doc__, p26.__doc__, p25.__doc__)
    check_rows_well_formed(m.ROWS, source_keys(*docs), at_least=40)
    non_nvidia = sum(p != "nvidia" for p, _ in m.ROWS)
    assert non_nvidia * 4 >= len(m.ROWS) * 3, f"{non_nvidia} machines beyond bare NVIDIA of {len(m.ROWS)}"


def test_structure_recordings_name_their_source():
    check_recordings(m.TOOLS29)


def test_structure_known_misses_are_rows():
    assert set(FIRST_RUN_FAILED) <= {sc['name'] for _, sc in m.ROWS}


@pytest.mark.parametrize("platform,sc", [pytest.param(p, sc, id=f"{p}:{sc['name']}") for p, sc in m.ROWS])
def test_structure_machine_builds(platform, sc, tmp_path):
    check_machine_builds(m.build, platform, sc, tmp_path / "box")


@pytest.mark.parametrize("platform,sc", params(m.ROWS, FIRST_RUN_FAILED))
def test_plat29_machine_diagnosis(platform, sc, tmp_path, deps):  # noqa: F811
    code, found = run(m.build, platform, sc, tmp_path / "box", deps)
    wrong = verdict(platform, sc, code, found, NON_NVIDIA)
    assert not wrong, wrong
