"""Simulated Jetson boards (tests/probes/jetson_machines.py) through
`check --static --root DIR --expect gpu`, as a user runs it.

A healthy board gets no error or warning and exits 0 under --expect gpu; a broken one gets a
check expressing its label (an error where the board cannot train) and exits 1. No finding
on a Jetson says there is no NVIDIA driver or GPU: the iGPU is not reached through NVML.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.heldout.test_machines import deps  # noqa: F401 - the fixture
from tests.probes import jetson_machines as machines

REPO = Path(__file__).resolve().parents[2]
# label -> (check ids that express it, must one be an error)
LABELS = {
    "jetson-cpu-torch": ({"jetson-cpu-only-torch"}, True),
    "jetson-foreign-cuda-torch": ({"jetson-foreign-cuda-torch"}, True),
    "jetson-torch-wrong-jetpack": ({"jetson-torch-wrong-jetpack"}, True),
    "jetpack-libraries-missing": ({"jetpack-libraries-missing"}, True),
    "jetson-device-access": ({"jetson-device-access"}, True),
}
# what an x86 NVIDIA box is told, and a Jetson must never be
NVIDIA_NOISE = ("no NVIDIA GPU", "no NVIDIA driver", "install its driver", "--gpus all",
                "pytorch.org/get-started")


def check(sc: dict, tmp_path: Path, deps_dir: Path) -> tuple[int, list[dict], dict]:
    site, bindir, root = machines.build(sc, tmp_path / "box")
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "PYTHONPATH": f"{site}:{REPO}:{deps_dir}",
           "HOME": str(tmp_path), "USER": "alice", "ENVDOCTOR_NO_CACHE": "1",
           "LANG": "C.UTF-8", **sc.get("env", {})}
    done = subprocess.run([sys.executable, "-S", "-m", "envdoctor", "check", "--static",
                           "--root", str(root), "--format", "json", "--expect", "gpu"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    out = json.loads(done.stdout)
    return done.returncode, out["findings"], out


def verdict(sc: dict, code: int, found: list[dict]) -> str:
    """"" when the board is judged as labelled, else what is wrong."""
    loud = [f for f in found if f["severity"] in ("error", "warning")]
    shown = [(f["code"], f["id"], f["severity"]) for f in loud]
    noisy = [f["code"] for f in loud
             if any(n in f"{f['title']} {f.get('fix', '')}" for n in NVIDIA_NOISE)]
    if noisy:
        return f"x86 NVIDIA advice on a Jetson: {noisy}"
    if sc["healthy"]:
        return f"healthy board has findings {shown}" if loud or code else ""
    ids, need_error = set(), False
    for label in sc["labels"]:
        want, err = LABELS[label]
        ids |= want
        need_error |= err
    hit = [f for f in loud if f["id"] in ids]
    if not hit:
        return f"label not named: {shown}"
    if need_error and not any(f["severity"] == "error" for f in hit):
        return f"named, not as an error: {shown}"
    return "" if code == 1 else "--expect gpu exited 0"


@pytest.mark.parametrize("sc", machines.SCENARIOS, ids=[s["name"] for s in machines.SCENARIOS])
def test_jetson_board(sc, tmp_path, deps):  # noqa: F811
    code, found, _ = check(sc, tmp_path, deps)
    assert verdict(sc, code, found) == ""


def test_a_board_tree_without_dev_is_not_told_it_has_no_gpu(tmp_path, deps):  # noqa: F811
    """An unpacked image or copied rootfs has no /dev: the iGPU's nodes are not observed, so
    `--expect gpu` has no reason to say the GPU cannot be used (the rest is still judged)."""
    import shutil
    sc = machines.SCENARIOS[0]
    site, bindir, root = machines.build(sc, tmp_path / "box")
    shutil.rmtree(root / "dev")
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "PYTHONPATH": f"{site}:{REPO}:{deps}",
           "HOME": str(tmp_path), "USER": "alice", "ENVDOCTOR_NO_CACHE": "1", "LANG": "C.UTF-8"}
    done = subprocess.run([sys.executable, "-S", "-m", "envdoctor", "check", "--static",
                           "--root", str(root), "--format", "json", "--expect", "gpu"],
                          env=env, capture_output=True, text=True, timeout=120)
    found = json.loads(done.stdout)["findings"]
    assert done.returncode == 0, [(f["code"], f["title"]) for f in found]


SMI_TABLE = REPO / "tests" / "data" / "tools" / "nvidia-smi" / "20-orin-jetpack62-540.txt"
# JetPack 6's nvidia-smi answers the query with the iGPU and N/A for what it does not track
# ("Orin (nvgpu), [N/A], [N/A] …", compute_cap 8.7, driver 540.4.0 as boards report them)
SMI_ROW = "0, Orin (nvgpu), [N/A], 540.4.0, 8.7" + ", [N/A]" * 13


@pytest.mark.parametrize("sc", [s for s in machines.SCENARIOS
                                if s["name"].startswith(("agx-orin", "orin-nano"))],
                         ids=lambda s: s["name"])
def test_orin_boards_with_jetpack6_nvidia_smi(sc, tmp_path, deps):  # noqa: F811
    """With JetPack 6's nvidia-smi listing "Orin (nvgpu)", every Orin board keeps its verdict
    (no desktop finding such as TORCH001's pytorch.org wheel joins the Jetson one)."""
    site, bindir, root = machines.build(sc, tmp_path / "box")
    (tmp_path / "table.txt").write_text(SMI_TABLE.read_text().partition("\n")[2])
    (tmp_path / "row.txt").write_text(SMI_ROW + "\n")
    smi = bindir / "nvidia-smi"
    smi.write_text(f"#!/bin/sh\ncase \"$1\" in --query*) cat '{tmp_path}/row.txt'; exit 0;; "
                   f"esac\ncat '{tmp_path}/table.txt'\n")
    smi.chmod(0o755)
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "PYTHONPATH": f"{site}:{REPO}:{deps}",
           "HOME": str(tmp_path), "USER": "alice", "ENVDOCTOR_NO_CACHE": "1", "LANG": "C.UTF-8"}
    done = subprocess.run([sys.executable, "-S", "-m", "envdoctor", "check", "--static",
                           "--root", str(root), "--format", "json", "--expect", "gpu"],
                          env=env, capture_output=True, text=True, timeout=120)
    out = json.loads(done.stdout)
    assert [g["name"] for g in out["facts"]["nvidia"]["gpus"]] == ["Orin (nvgpu)"]
    found = out["findings"]
    assert verdict(sc, done.returncode, found) == ""
    if not sc["healthy"]:
        loud = {f["code"] for f in found if f["severity"] in ("error", "warning")}
        assert all(c.startswith("JET") for c in loud), loud
