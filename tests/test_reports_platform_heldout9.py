"""Pasted reports, platform held-out batch P9 (tests/corpus/reports/platform_heldout9).

A ninth, independently collected batch of real pastes from platform machines (AMD ROCm and E-SMI,
hosted macOS runners, Jetson, WSL2 containers, Intel XPU / NPU and Cloud TPU: rocBLAS / HIP errors, amd-smi
and e_smi_tool output, MPS errors on CI runners, nvidia-container-cli mount errors, Level Zero logs,
docker build errors on Jetson, jtop output, jax on a TPU in a gVisor sandbox), from threads the repository quotes
nowhere else and no earlier platform batch holds, labelled from what each thread established before
envdoctor was run on them: ``healthy``, or the cause with what names it. Scored as
tests/test_reports_platform_heldout5.py: a healthy report is right when no error or warning is
raised; a problem report is right when a finding at warning or above names its cause (its check id
or code is in ``expected_any``, or its title matches ``expected_title``, a case-insensitive regular
expression). The files are ``s*.toml`` (the harness reads every case file of the folder).

The structural tests (``-k "structure or unseen"``) read the files only and never call envdoctor.
"""

from __future__ import annotations

import pytest

from tests.reports_platform_heldout import PlatformReportSet, Sizes, loud

SET = PlatformReportSet("platform_heldout9", batch="P9",
                        earlier=("platform_heldout", "platform_heldout2", "platform_heldout3", "platform_heldout4",
                                 "platform_heldout5", "platform_heldout6", "platform_heldout7", "platform_heldout8"),
                        sizes=Sizes(reports=18, healthy=5, broken=13, repos=16, platforms=6))
FLOOR = 0.46  # 6/13 (46.2 %) after the ROCm support-question reading (README.md); before: 4/13 (30.8 %), healthy 5/5 after fixes from other threads; first run on ae1e7069 (all of the session's work, collected after it): 2/13 (15.4 %), healthy 2/5 (README.md)
# healthy reports the first run raised an alarm on: strict, so fixing one says so
KNOWN_ALARMS: frozenset[str] = frozenset()  # the first run's three (s14, s15, s16) fixed by class (README.md)


def test_platform_reports9_structure_sourced_and_labelled():
    SET.check_structure()


def test_platform_reports9_unseen_quoted_nowhere_else():
    SET.check_unseen()


def test_platform_reports9_problems_named_figure():
    SET.check_figure(FLOOR)


@pytest.mark.parametrize(("name", "text"), list(SET.healthy_params(KNOWN_ALARMS)))
def test_platform_reports9_healthy_report_is_clean(name, text):
    assert not loud(text), name
