"""Pasted collect_env reports from a Jetson (`check --from FILE --expect gpu`).

The two reports are composed in torch.utils.collect_env's format with an AGX Orin's values on
JetPack 6.2 ("Python platform: Linux-5.15.148-tegra-aarch64-…", "GPU 0: Orin (nvgpu)"): one
with NVIDIA's wheel, one with PyPI's CPU wheel. The L4T kernel is what says Jetson; the rest
of the board is not in the report and stays unknown.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "reports"


def _check(name: str) -> tuple[int, dict]:
    done = subprocess.run([sys.executable, "-m", "envdoctor", "check", "--from",
                           str(DATA / name), "--format", "json", "--expect", "gpu"],
                          capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin",
                               "LANG": "C.UTF-8", "ENVDOCTOR_NO_CACHE": "1"})
    assert done.returncode in (0, 1), done.stderr[-1500:]
    return done.returncode, json.loads(done.stdout)


def test_healthy_jetson_report_is_clean():
    code, out = _check("jetson-orin-jp62-collect-env.txt")
    loud = [(f["code"], f["title"]) for f in out["findings"] if f["severity"] != "info"]
    assert code == 0 and not loud, loud
    assert out["facts"]["jetson"]["kernel"] == "5.15.148-tegra"
    assert "l4t" in out["facts"]["jetson"]["probe"]["unobserved"]


def test_cpu_torch_on_a_jetson_report_is_named_with_nvidias_wheel():
    code, out = _check("jetson-orin-jp62-cpu-torch-collect-env.txt")
    ids = {f["id"]: f for f in out["findings"] if f["severity"] == "error"}
    assert code == 1 and "jetson-cpu-only-torch" in ids, list(ids)
    fix = ids["jetson-cpu-only-torch"]["fix"]
    assert "install-pytorch-jetson-platform" in fix and "pytorch.org/get-started" not in fix
    assert not any("NVIDIA driver" in f["title"] for f in out["findings"])
