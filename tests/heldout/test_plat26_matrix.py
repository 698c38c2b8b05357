"""Held-out batch plat26 (tests/heldout/plat26_machines.py) through
``check --static --root DIR --format json --expect gpu``: a healthy machine gets no warning or
error and exits 0; a broken one gets a finding of one of its labelled check ids at the labelled
severity and exits 1; an AMD box, a Mac or an Intel GPU box is never told to install the NVIDIA driver or a
CUDA wheel. Every row is asserted; the rows that failed the first run (PLATFORMS26.md) are marked
``xfail(strict=True)``, so the suite stays green and a fix shows up as an XPASS."""

from __future__ import annotations

import pytest

from tests.heldout import plat26_machines as m
from tests.heldout.plat_matrix import check_rows_cover_every_platform, params, run, verdict
from tests.heldout.test_machines import deps  # noqa: F401 - the fixture

NON_NVIDIA = ("apple", "rocm", "intel")

# rows that failed the first run (code at d9c967e), with what envdoctor said then
FIRST_RUN_FAILED: dict[str, str] = {
    "container-t4-cgroup-memory-512m":
        "CTR002 warning (right id; labelled error; --expect gpu exits 1 since it fails on warnings)",
}


def test_every_platform_has_healthy_and_broken_rows():
    check_rows_cover_every_platform(m.PLATFORMS, m.ROWS)


@pytest.mark.parametrize("platform,sc", params(m.ROWS, FIRST_RUN_FAILED))
def test_plat26_machine(platform, sc, tmp_path, deps):  # noqa: F811
    code, found = run(m.build, platform, sc, tmp_path / "box", deps)
    wrong = verdict(platform, sc, code, found, NON_NVIDIA)
    assert not wrong, wrong
