"""Pasted reports, platform held-out batch P4 (tests/corpus/reports/platform_heldout4).

A fourth, independently collected batch of real pastes from platform machines (a conda info from an
Apple-silicon Mac, a jetsonInfo listing with a container's loader error), from threads the
repository quotes nowhere else, labelled from what each thread established before envdoctor was run
on them: ``healthy``, or the cause with what names it. Scored as
tests/test_reports_platform_heldout3.py: a healthy report is right when no error or warning is
raised; a problem report is right when a finding at warning or above names its cause (its check id
or code is in ``expected_any``, or its title matches ``expected_title``, a case-insensitive regular
expression). The floor holds the figure after fixes; the first run is in the set's README.

The structural tests (``-k "structure or unseen"``) read the files only and never call envdoctor.
"""

from __future__ import annotations

import pytest

from tests.reports_platform_heldout import PlatformReportSet, Sizes, loud

# threads later quoted by other work leave this set's meaning; none may be at collection
SET = PlatformReportSet("platform_heldout4", batch="P4", earlier=("platform_heldout", "platform_heldout2", "platform_heldout3"),
                        sizes=Sizes(reports=2, healthy=0, broken=2, repos=2, platforms=2), seen_at_most=0)
FLOOR = 1.0  # first run on b00e5b8: 2/2 (README.md)
# healthy reports the first run raised an alarm on (README.md): strict, so fixing one says so
KNOWN_ALARMS: frozenset[str] = frozenset()


def test_platform_reports4_structure_sourced_and_labelled():
    SET.check_structure()


def test_platform_reports4_unseen_quoted_nowhere_else():
    SET.check_unseen()


def test_platform_reports4_problems_named_figure():
    SET.check_figure(FLOOR)


@pytest.mark.parametrize(("name", "text"), list(SET.healthy_params(KNOWN_ALARMS)))
def test_platform_reports4_healthy_report_is_clean(name, text):
    assert not loud(text), name
