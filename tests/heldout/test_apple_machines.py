"""Simulated Apple Macs (tests/heldout/apple_machines.py) through
`check --static --root DIR --expect gpu`, as a user runs it.

Fake ``sw_vers`` / ``sysctl`` on PATH print recorded real outputs, a fake site-packages (wheel
tags, Mach-O headers of the framework libraries) is on PYTHONPATH, and SystemVersion.plist is
under the root. Healthy Macs get no error or warning and exit 0 under --expect gpu; broken ones
get a check expressing their label, as an error, and exit 1.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.heldout import apple_machines as machines
from tests.heldout.test_machines import deps  # noqa: F401 - the fixture

REPO = Path(__file__).resolve().parents[2]
# label -> check ids that express it (each must be an error)
LABELS = {
    "x86-python-on-apple-silicon": {"apple-x86-python-on-apple-silicon"},
    "macos-too-old-for-mps": {"apple-macos-too-old-for-mps"},
    "jax-metal-mismatch": {"apple-jax-metal-mismatch"},
    "tensorflow-metal-mismatch": {"apple-tensorflow-metal-mismatch"},
    "torch-without-mps": {"apple-torch-without-mps"},
}
CUDA_NOISE = ("NVIDIA driver", "nvidia-smi", "--gpus all", "+cu1", "cuda12", "and-cuda")


def check(sc: dict, tmp_path: Path, deps_dir: Path) -> tuple[int, list[dict]]:
    site, bindir, root = machines.build(sc, tmp_path / "box")
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "PYTHONPATH": f"{site}:{REPO}:{deps_dir}",
           "HOME": str(tmp_path), "USER": "alice", "ENVDOCTOR_NO_CACHE": "1",
           "LANG": "C.UTF-8", **sc.get("env", {})}
    done = subprocess.run([sys.executable, "-S", "-m", "envdoctor", "check", "--static",
                           "--root", str(root), "--format", "json", "--expect", "gpu"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return done.returncode, json.loads(done.stdout)["findings"]


@pytest.mark.parametrize("sc", machines.SCENARIOS, ids=[s["name"] for s in machines.SCENARIOS])
def test_apple_machine(sc, tmp_path, deps):  # noqa: F811
    code, found = check(sc, tmp_path, deps)
    loud = [f for f in found if f["severity"] in ("error", "warning")]
    shown = [(f["code"], f["id"], f["severity"]) for f in loud]
    if sc["healthy"]:
        assert not loud, shown
        assert code == 0
        return
    ids = set().union(*(LABELS[label] for label in sc["labels"]))
    hit = [f for f in loud if f["id"] in ids]
    assert hit, shown
    assert any(f["severity"] == "error" for f in hit), shown
    assert code == 1, "--expect gpu must fail a broken Mac"
    for f in loud:  # a Mac gets no NVIDIA driver or CUDA wheel advice
        text = f"{f['title']} {f.get('fix', '')}"
        assert not any(n in text for n in CUDA_NOISE), (f["code"], text)
