"""Held-out simulated AMD machines (tests/heldout/rocm_machines.py) through
`check --static --root DIR --expect gpu`, as a user runs it.

Fake AMD tools on PATH print recorded real outputs, a fake site-packages is on PYTHONPATH, and
the machine's system files are under the root. Healthy machines get no error or warning and
exit 0 under --expect gpu; broken ones get a check expressing their label (as an error where
the machine cannot train) and exit 1 under --expect gpu.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.heldout import rocm_machines as machines
from tests.heldout.test_machines import deps  # noqa: F401 - the fixture

REPO = Path(__file__).resolve().parents[2]
# label -> (check ids that express it, must one be an error)
LABELS = {
    "rdna-needs-hsa-override": ({"rocm-rdna-needs-hsa-override"}, True),
    "gfx-unsupported": ({"rocm-gfx-unsupported"}, True),
    "no-device-access": ({"rocm-device-access"}, True),
    "cuda-wheel-on-amd": ({"torch-cuda-wheel-on-amd"}, True),
    "rocm-torch-newer": ({"rocm-torch-newer-than-installed"}, False),
    "hip-visible-hides-all": ({"hip-visible-devices-hides-all"}, True),
    "no-amdgpu-driver": ({"rocm-no-amdgpu-driver"}, True),
}
NVIDIA_NOISE = ("NVIDIA driver", "nvidia-smi", "--gpus all")


def check(sc: dict, tmp_path: Path, deps_dir: Path) -> tuple[int, list[dict], str]:
    site, bindir, root = machines.build(sc, tmp_path / "box")
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "PYTHONPATH": f"{site}:{REPO}:{deps_dir}",
           "HOME": str(tmp_path), "USER": "alice", "ENVDOCTOR_NO_CACHE": "1",
           "LANG": "C.UTF-8", **sc.get("env", {})}
    done = subprocess.run([sys.executable, "-S", "-m", "envdoctor", "check", "--static",
                           "--root", str(root), "--format", "json", "--expect", "gpu"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return done.returncode, json.loads(done.stdout)["findings"], done.stdout


@pytest.mark.parametrize("sc", machines.SCENARIOS, ids=[s["name"] for s in machines.SCENARIOS])
def test_rocm_machine(sc, tmp_path, deps):  # noqa: F811
    code, found, raw = check(sc, tmp_path, deps)
    loud = [f for f in found if f["severity"] in ("error", "warning")]
    shown = [(f["code"], f["id"], f["severity"]) for f in loud]
    if sc["healthy"]:
        assert not loud, shown
        assert code == 0
        return
    ids, need_error = set(), False
    for label in sc["labels"]:
        want, err = LABELS[label]
        ids |= want
        need_error |= err
    hit = [f for f in loud if f["id"] in ids]
    assert hit, shown
    if need_error:
        assert any(f["severity"] == "error" for f in hit), shown
    assert code == 1, "--expect gpu must fail a broken AMD machine"
    for f in loud:  # an AMD machine gets no advice to install the NVIDIA driver
        text = f"{f['title']} {f.get('fix', '')}"
        assert not any(n in text for n in NVIDIA_NOISE) or f["id"] in ids, (f["code"], text)
