"""The in-process torch import watch of a node's later ranks (``preflight.ImportWatch``): an
import that makes no progress ends the process with the one line within the timeout; one that
progresses is left alone and leaves no hook behind."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _run(code: str, tmp_path: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    (tmp_path / "stuckmod.py").write_text("import time\ntime.sleep(120)\n")
    return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=timeout,
                          env={"PYTHONPATH": f"{REPO}:{tmp_path}", "PATH": "/usr/bin:/bin"})


def test_a_stalled_import_ends_the_process_with_one_line(tmp_path):
    started = time.monotonic()
    done = _run("from envdoctor.fleet.preflight import ImportWatch\n"
                "with ImportWatch(2.0, 'needs torch: {why}'):\n"
                "    import stuckmod\n", tmp_path)
    assert time.monotonic() - started < 30
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "made no progress for 2s" in lines[0], done.stderr
    assert "stuckmod" in lines[0]


def test_an_import_that_progresses_is_left_alone(tmp_path):
    done = _run("import sys\nfrom envdoctor.fleet.preflight import ImportWatch\n"
                "w = ImportWatch(2.0, 'needs torch: {why}')\n"
                "with w:\n"
                "    import json, email.mime.text\n"
                "import time; time.sleep(3)\n"
                "print(w in sys.meta_path, w.module != '')\n", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]
