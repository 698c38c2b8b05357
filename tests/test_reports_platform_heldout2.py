"""Pasted reports, platform held-out batch P2 (tests/corpus/reports/platform_heldout2).

A second, independently collected batch of real reports from ROCm, macOS, Jetson, WSL2 and
container machines (collect_env, rocm-smi / rocminfo / amd-smi, jtop / jetson_release,
system_profiler, docker run transcripts), from threads the repository quotes nowhere else,
labelled from what each thread established before envdoctor was run on them: ``healthy``, or the
cause with what names it. Scored as tests/test_reports_platform_heldout.py: a healthy report is
right when no error or warning is raised; a problem report is right when a finding at warning or
above names its cause (its check id or code is in ``expected_any``, or its title matches
``expected_title``, a case-insensitive regular expression). The floor is 0.0 until the first run
is recorded in the set's README.

The structural tests (``-k "structure or unseen"``) read the files only and never call envdoctor.
"""

from __future__ import annotations

import pytest

from tests.reports_platform_heldout import PlatformReportSet, Sizes, loud

# threads later quoted by other work leave this set's meaning; at most three may be
SET = PlatformReportSet("platform_heldout2", batch="P2", earlier=("platform_heldout",),
                        sizes=Sizes(reports=20, healthy=12, broken=8, repos=15, platforms=5), seen_at_most=3)
FLOOR = 0.75  # 4/8 before issue 24's plat24 branch, 6/8 after (README of the set)
# healthy reports the first run raised an alarm on (README.md): strict, so fixing one says so
KNOWN_ALARMS: frozenset[str] = frozenset()


def test_platform_reports2_structure_sourced_and_labelled():
    SET.check_structure()


def test_platform_reports2_unseen_quoted_nowhere_else():
    SET.check_unseen()


def test_platform_reports2_problems_named_figure():
    SET.check_figure(FLOOR)


@pytest.mark.parametrize(("name", "text"), list(SET.healthy_params(KNOWN_ALARMS)))
def test_platform_reports2_healthy_report_is_clean(name, text):
    assert not loud(text), name
