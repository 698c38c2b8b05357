"""`check` under a hung NVIDIA probe: the same deadline as every probe, nothing left behind.

A real `envdoctor check --static` with an `nvidia-smi` on PATH that never answers (and starts a
child of its own): the whole command ends within the probe registry's deadline plus start-up,
the NVIDIA probe is reported as failed (timed out), never as "no driver", and no process of
the run is left. Slow (the deadline is the real one): marked ``boundary``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import pytest

from envdoctor.probes import DEFAULT_DEADLINE

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.boundary


def _marked(marker: str) -> list[str]:
    found = []
    for p in psutil.process_iter(["pid", "cmdline", "status"]):
        try:
            if p.pid != os.getpid() and p.info["status"] != psutil.STATUS_ZOMBIE and \
                    p.environ().get("EDCHECK_MARKER") == marker:
                found.append(f"{p.pid}: {' '.join(p.info['cmdline'] or ())[-160:]}")
        except psutil.Error:
            continue
    return found


def test_a_hung_nvidia_smi_costs_check_only_its_deadline(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text("#!/bin/sh\nsleep 600 &\nwhile :; do sleep 1; done\n")
    smi.chmod(0o755)
    env = dict(os.environ, EDCHECK_MARKER=marker, NO_COLOR="1", HOME=str(tmp_path),
               PYTHONPATH=str(REPO), PATH=f"{bin_dir}:{os.environ['PATH']}")
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "envdoctor", "check", "--static", "--format",
                           "json"], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=DEFAULT_DEADLINE + 60)
    took = time.monotonic() - start
    time.sleep(0.5)
    left = _marked(marker)
    for line in left:
        psutil.Process(int(line.split(":")[0])).kill()
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    assert took < DEFAULT_DEADLINE + 15, took
    assert left == []
    facts = json.loads(proc.stdout)["facts"]
    probe = facts["nvidia"]["probe"]
    assert probe["status"] == "error", probe
    assert "timed out" in json.dumps(probe) or "did not answer" in json.dumps(probe), probe
