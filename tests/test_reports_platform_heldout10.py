"""Pasted reports, platform held-out batch P10 (tests/corpus/reports/platform_heldout10).

A tenth, independently collected batch of real pastes from platform machines (Intel XPU with IPEX-LLM's
llama.cpp / ollama, Apple silicon with tensorflow-macos / tensorflow-metal, AMD ROCm with ollama on NixOS
and ComfyUI, a Kubernetes device plugin, Jetson boards with jetson-inference / jetson-containers /
jetsonUtilities), from threads the repository quotes nowhere else and no earlier platform batch holds,
labelled from what each thread established before envdoctor was run on them: ``healthy``, or the cause
with what names it. Scored as tests/test_reports_platform_heldout5.py: a healthy report is right when no
error or warning is raised; a problem report is right when a finding at warning or above names its cause
(its check id or code is in ``expected_any``, or its title matches ``expected_title``, a case-insensitive
regular expression). The files are ``v*.toml`` (the harness reads every case file of the folder).

The structural tests (``-k "structure or unseen"``) read the files only and never call envdoctor.
"""

from __future__ import annotations

import pytest

from tests.reports_platform_heldout import PlatformReportSet, Sizes, loud

SET = PlatformReportSet("platform_heldout10", batch="P10",
                        earlier=("platform_heldout", "platform_heldout2", "platform_heldout3", "platform_heldout4",
                                 "platform_heldout5", "platform_heldout6", "platform_heldout7", "platform_heldout8",
                                 "platform_heldout9"),
                        sizes=Sizes(reports=13, healthy=6, broken=7, repos=12, platforms=5))
FLOOR = 0.28  # 2/7 (28.6 %), healthy 6/6 after fixP (APPLE006 on a pasted Mac whose TensorFlow lists no GPU); before: first run on c1d5c4c2: 1/7 (14.3 %), healthy 6/6 (README.md)
# healthy reports the first run raised an alarm on: strict, so fixing one says so
KNOWN_ALARMS: frozenset[str] = frozenset()  # none on the first run


def test_platform_reports10_structure_sourced_and_labelled():
    SET.check_structure()


def test_platform_reports10_unseen_quoted_nowhere_else():
    SET.check_unseen()


def test_platform_reports10_problems_named_figure():
    SET.check_figure(FLOOR)


@pytest.mark.parametrize(("name", "text"), list(SET.healthy_params(KNOWN_ALARMS)))
def test_platform_reports10_healthy_report_is_clean(name, text):
    assert not loud(text), name
