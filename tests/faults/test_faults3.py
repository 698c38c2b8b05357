"""The third fault matrix (``matrix3.py``) under pytest: each boundary must hold by class.

Every fault is judged by its own expectation and by the rules every command owes (no exit 3
or traceback, exit 2 with one stderr line, no raw control character, no planted credential,
bounded time, nothing left running). Faults the code does not handle yet are listed in
``KNOWN`` with what they did when the matrix was first run (MATRIX3.md): they run as
``xfail(strict=False)``, so a fix shows as XPASS and its entry can be removed.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from . import matrix, matrix3
from ._params import assert_handled, machine_slack

# Slow real-process matrix: off in the default run, `.ci/run` runs it with -m boundary.
pytestmark = pytest.mark.boundary

ROOT = Path(__file__).resolve().parents[2]
NEEDS_TORCH = {"SG04", "SG05", "PR03"}
# Room for a loaded 2-core CI runner over the quiet-machine bounds; a fault is killed a few
# seconds past bound * SLACK, so each known hang costs tens of seconds, not matrix.CAP.
SLACK = 2.0

# fault id -> what it did on the code before the boundary fixes (see MATRIX3.md)
KNOWN: dict[str, str] = {}


@pytest.fixture(scope="module", autouse=True)
def _source_tree():
    matrix.ROOT = str(ROOT)
    yield


def _params():
    import importlib.util
    no_torch = importlib.util.find_spec("torch") is None
    for fid, (category, title, _) in matrix3.FAULTS.items():
        marks = []
        if fid in KNOWN:
            marks.append(pytest.mark.xfail(strict=False, reason=KNOWN[fid]))
        if fid in NEEDS_TORCH and no_torch:
            marks.append(pytest.mark.skip(reason="torch is not installed"))
        yield pytest.param(fid, id=f"{fid}-{category}-{title}"[:90], marks=marks)


@pytest.mark.parametrize("fid", list(_params()))
def test_boundary_holds(fid):
    slack = machine_slack(SLACK)
    assert_handled(fid, matrix3.run_fault(fid, sys.executable, slack=slack))


def test_matrix3_is_new_and_covers_every_class():
    assert len(matrix3.FAULTS) >= 60
    assert not set(matrix3.FAULTS) & (set(matrix.FAULTS) | set(_matrix2_ids()))
    classes = {c for c, _, _ in matrix3.FAULTS.values()}
    assert {"signals", "stdout", "injection", "unbounded", "numbers", "writes", "process",
            "secrets", "cache trust", "rules hang"} <= classes
    assert set(KNOWN) <= set(matrix3.FAULTS)


def _matrix2_ids():
    from . import matrix2
    return matrix2.FAULTS


def test_universal_checks_can_fail(tmp_path):
    """The boundary rules are not vacuous: each one flags the thing it is about."""
    u = matrix3.universal
    assert u(3, "", "envdoctor: internal error", tmp_path, {0})
    assert u(2, "", "envdoctor: error: a\nsecond line", tmp_path, {2})
    assert not u(2, "", "envdoctor: error: one line", tmp_path, {2})
    assert u(0, "GPU \x1b[31mred", "", tmp_path, {0})
    assert u(0, "GPU \x9bred", "", tmp_path, {0})
    assert not u(0, "fine\n\tindented", "", tmp_path, {0})
    assert u(0, f"hook {matrix3.SLACK_HOOK}", "", tmp_path, {0})
    (tmp_path / "out.txt").write_text(f"x {matrix3.STRIPE}")
    assert u(0, "", "", tmp_path, {0})
    assert matrix3.no_workflow("a ::error title=PWNED3::x", "", tmp_path)
    assert matrix3.no_html("<script>", "", tmp_path)
    assert matrix3.no_bidi("\u202e", "", tmp_path)
    assert matrix3.junit_ok()("<a>\x01</a>", "", tmp_path)
    assert not matrix3.junit_ok()("<a>ok</a>", "", tmp_path)


def test_forged_cache_is_a_real_forgery(tmp_path):
    """CT01-CT03 are not vacuous: the snapshot they replay fires INTENT001 when no cache is
    read, so its absence under the forged cache is the forgery at work."""
    import json
    import subprocess
    matrix3.forged_env(tmp_path, via_symlink=False)  # writes the forged cache under tmp_path
    s = matrix3.write_json(tmp_path / "s.json",
                           {"schema_version": 1, "nvidia": {"probe": {"status": "not_found"}}})
    import os
    base = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path / "home")}
    argv = [sys.executable, "-m", "envdoctor", "check", "--facts", str(s), "--expect", "gpu",
            "--format", "json"]
    clean = subprocess.run(argv, env={**base, "ENVDOCTOR_NO_CACHE": "1"}, capture_output=True,
                           text=True, timeout=60)
    assert "INTENT001" in {f["code"] for f in json.loads(clean.stdout)["findings"]}
    shutil.rmtree(tmp_path / "cache", ignore_errors=True)


def test_backtracking_fixture_is_valid_but_for_its_regex(tmp_path):
    """RH01's rules copy differs from a passing one only in the regex: with a linear pattern
    the same signature passes `rules test`, so RH01 failing is about the backtracking."""
    import os
    import subprocess
    r = matrix3.evil_rules(tmp_path, "CUDA error: a{3}", "CUDA error: aaa", "CUDA error: b")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-m", "envdoctor", "rules", "test", str(r)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
