"""A fresh held-out set of pasted reports for `check --from` (tests/corpus/reports/heldout9).

Batch G: rocminfo and hand-typed ROCm reports with a gfx problem, cuDNN loaded vs compiled (TF,
Paddle), Paddle run_check logs, a MindSpore template, conda install plans and conda list with
CPU-only builds, collect_env, diffusers/accelerate env dumps, Apple-silicon reports with an x86
Python (platform.machine, pip wheel tags), jaxlib library loader lines and error-only pastes, from
threads the repository quoted nowhere else at collection, labelled from what each thread
established before envdoctor was run on them: ``healthy`` (the thread put the cause outside the
environment), or the cause label, whose check ids and codes are in causes.toml. Computed as
tests/test_reports_heldout8.py: a healthy report is right when no error or warning is raised; a
problem report is right when a finding at warning or above names its cause. The first-run
figures are in the README.
"""

from __future__ import annotations

import pytest

from tests.reports_heldout import ReportSet, loud

SET = ReportSet("heldout9", batch="G", at_least=24, healthy_at_least=9,
                broken_at_least=15, repos_at_least=16, unseen_at_least=24)
# first run: not yet recorded (README.md, "First run")
# first run on b1995ac: problems named 7/15, healthy clean 7/9 (README.md)
FLOOR = 0.8  # branch fix21: 10/15 -> 12/15 named (README.md, "Branch fix21")
# healthy reports the first run raised an alarm on (README.md): strict, so fixing one says so
KNOWN_ALARMS: frozenset[str] = frozenset()


def test_reports_heldout9_structure_is_big_sourced_and_labelled():
    SET.check_structure()


def test_reports_heldout9_unseen_threads_are_quoted_nowhere_else():
    SET.check_unseen()


def test_reports_heldout9_figure():
    SET.check_figure(FLOOR)


@pytest.mark.parametrize(("name", "text"), SET.healthy_params(KNOWN_ALARMS))
def test_reports_heldout9_healthy_report_is_clean(name, text):
    assert not loud(text), name
