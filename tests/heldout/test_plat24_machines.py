"""Held-out batch plat24 (tests/heldout/plat24_machines.py) through `check --static --root DIR
--expect gpu`, as a user runs it: fake tools on PATH printing recorded real outputs, a fake
site-packages on PYTHONPATH, the machine's system files under the root.

A healthy machine gets no error or warning and exits 0; a broken one gets a check expressing
its label at the labelled severity, and `--expect gpu` exits 1 where the machine cannot train
(a warning-only label, such as a small /dev/shm, must not be raised to an error).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests import elfbuild
from tests.heldout import plat24_machines as machines
from tests.heldout.test_machines import deps  # noqa: F401 - the fixture

REPO = Path(__file__).resolve().parents[2]
# label -> (check ids that express it, severity the label needs: "error" or "warning")
LABELS = {
    "rocm-wheel-on-nvidia": ({"rocm-torch-on-nvidia-host"}, "error"),
    "hip-visible-hides-all": ({"hip-visible-devices-hides-all"}, "error"),
    "wsl-no-dxg": ({"wsl-no-gpu-paravirtualization"}, "error"),
    "small-dev-shm": ({"small-dev-shm-in-container"}, "error"),  # under --expect gpu (HOST001)
    "container-without-gpu-devices": ({"container-without-gpu-devices"}, "error"),
}
SCENARIOS = ([("rocm", s) for s in machines.ROCM_SCENARIOS]
             + [("wsl", s) for s in machines.WSL_SCENARIOS])


def check(kind: str, sc: dict, tmp_path: Path, deps_dir: Path) -> tuple[int, list[dict]]:
    if kind == "rocm":
        site, bindir, root = machines.build_rocm(sc, tmp_path / "box")
        extra = dict(sc.get("env", {}))
    else:
        site, bindir, root, extra = machines.build_wsl(sc, tmp_path / "box")
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "PYTHONPATH": f"{site}:{REPO}:{deps_dir}",
           "HOME": str(tmp_path), "USER": "alice", "ENVDOCTOR_NO_CACHE": "1",
           "LANG": "C.UTF-8", **extra}
    done = subprocess.run([sys.executable, "-S", "-m", "envdoctor", "check", "--static",
                           "--root", str(root), "--format", "json", "--expect", "gpu"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return done.returncode, json.loads(done.stdout)["findings"]


@pytest.mark.skipif(elfbuild.GCC is None, reason="the WSL machines build ELF files with gcc")
@pytest.mark.parametrize("kind,sc", SCENARIOS, ids=[s["name"] for _, s in SCENARIOS])
def test_plat24_machine(kind, sc, tmp_path, deps):  # noqa: F811
    code, found = check(kind, sc, tmp_path, deps)
    loud = [f for f in found if f["severity"] in ("error", "warning")]
    shown = [(f["code"], f["id"], f["severity"], f["title"]) for f in loud]
    if sc["healthy"]:
        assert not loud, shown
        assert code == 0
        return
    for label in sc["labels"]:
        ids, severity = LABELS[label]
        hit = [f for f in loud if f["id"] in ids]
        assert hit, (label, shown)
        assert any(f["severity"] == severity for f in hit), (label, shown)
    if any(LABELS[label][1] == "error" for label in sc["labels"]):
        assert code == 1, "--expect gpu must fail a machine that cannot train"
    else:
        assert not [f for f in loud if f["severity"] == "error"], shown
        assert code == 0, "a warning alone does not stop a GPU machine from training"
