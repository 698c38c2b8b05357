"""Issue 24's platform matrix (tests/heldout/plat24_matrix.py) through
``check --static --root DIR --format json --expect gpu``: a healthy machine gets no warning or
error and exits 0; a broken one gets a finding of one of its check ids at the severity its row
names and exits 1; an AMD box or a Mac is never told to install the NVIDIA driver or a CUDA
wheel. Every row is asserted (before/after in tests/heldout/PLATFORMS24.md)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import elfbuild
from tests.heldout import plat24_matrix as matrix
from tests.heldout.test_machines import deps  # noqa: F401 - the fixture

REPO = Path(__file__).resolve().parents[2]
NVIDIA_NOISE = re.compile(r"nvidia driver|nvidia-smi|--gpus all|\+cu1\d\d|"
                          r"download\.pytorch\.org/whl/cu|and-cuda|cuda12", re.I)
# the machines run the test's own interpreter: its version says nothing about the machine
INTERPRETER = {"python-outside-torch-range"}


def run(row: tuple, box: Path, deps_dir: Path) -> tuple[int, list[dict]]:
    platform, module, name, _, _ = row
    sc = matrix.scenario(module, name, platform)
    site, bindir, root, extra = matrix.build(platform, module, sc, box)
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "PYTHONPATH": f"{site}:{REPO}:{deps_dir}",
           "HOME": str(box), "USER": "alice", "ENVDOCTOR_NO_CACHE": "1", "LANG": "C.UTF-8",
           **extra}
    done = subprocess.run([sys.executable, "-S", "-m", "envdoctor", "check", "--static",
                           "--root", str(root), "--format", "json", "--expect", "gpu"],
                          env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return done.returncode, json.loads(done.stdout)["findings"]


def test_matrix_covers_every_platform_both_ways():
    for platform in ("rocm", "apple", "jetson", "wsl", "container"):
        rows = [r for r in matrix.MATRIX if r[0] == platform]
        assert any(not r[3] for r in rows) or platform == "container-none", platform
        assert any(r[3] for r in rows), platform


@pytest.mark.skipif(elfbuild.GCC is None, reason="the WSL machines build ELF files with gcc")
@pytest.mark.parametrize("row", matrix.MATRIX, ids=[f"{r[0]}:{r[2]}" for r in matrix.MATRIX])
def test_platform_matrix(row, tmp_path, deps):  # noqa: F811
    platform, _, name, ids, severity = row
    code, found = run(row, tmp_path / "box", deps)
    loud = [f for f in found if f["severity"] in ("error", "warning") and f["id"] not in INTERPRETER]
    shown = [(f["code"], f["id"], f["severity"], f["title"]) for f in loud]
    if not ids:
        assert not loud, shown
        assert code == 0, shown
        return
    hit = [f for f in loud if f["id"] in ids]
    assert hit, ("not named", shown)
    assert any(f["severity"] == severity for f in hit), ("severity", shown)
    assert code == 1, ("--expect gpu must fail a broken machine", shown)
    if platform in ("apple", "rocm"):
        noisy = [f["id"] for f in loud if f not in hit
                 and NVIDIA_NOISE.search(f"{f['title']} {f.get('fix', '')}")]
        assert not noisy, ("NVIDIA advice on a non-NVIDIA machine", noisy, shown)
