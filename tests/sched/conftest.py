"""Helpers for the scheduler-convention tests: an ``envdoctor`` executable on PATH (what a
HealthCheckProgram, srun task or node-problem-detector rule runs) and simulated machines."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MACHINES = REPO / "tests" / "fixtures" / "machines"
HEALTHY = MACHINES / "h200-driver580-torch-cu130.json"   # passes at fail-on error
BROKEN = MACHINES / "driver470-torch-cu121.json"          # DRV001, an error


def write_shim(folder: Path) -> Path:
    """``folder/envdoctor``: runs this checkout's envdoctor with this interpreter, as the
    installed console script would (a scheduler runs a path, not ``python -m``)."""
    folder.mkdir(parents=True, exist_ok=True)
    shim = folder / "envdoctor"
    shim.write_text("#!/bin/sh\n"
                    f"PYTHONPATH={shlex.quote(str(REPO))}${{PYTHONPATH:+:$PYTHONPATH}} "
                    f"NO_COLOR=1 exec {shlex.quote(sys.executable)} -m envdoctor \"$@\"\n")
    shim.chmod(0o755)
    return shim


def undecided_machine(folder: Path) -> Path:
    """The healthy machine whose NVIDIA probe broke (it timed out): nothing fails, but
    nothing about the GPUs is known either."""
    data = json.loads(HEALTHY.read_text())
    data["nvidia"] = {"probe": {"status": "error",
                                "reason": "nvidia-smi timed out after 10 s",
                                "ran": ["nvidia-smi -q -x"]}}
    path = folder / "undecided.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def shim(tmp_path: Path) -> Path:
    return write_shim(tmp_path / "bin")


@pytest.fixture
def env_with_shim(shim: Path) -> dict[str, str]:
    return dict(os.environ, PATH=f"{shim.parent}{os.pathsep}{os.environ.get('PATH', '')}",
                NO_COLOR="1")
