"""Held-out batch plat26 (tests/heldout/plat26_machines.py) through
``check --static --root DIR --format json --expect gpu``: a healthy machine gets no warning or
error and exits 0; a broken one gets a finding of one of its labelled check ids at the labelled
severity and exits 1; an AMD box, a Mac or an Intel GPU box is never told to install the NVIDIA driver or a
CUDA wheel. Every row is asserted; the rows that failed the first run (PLATFORMS26.md) are marked
``xfail(strict=True)``, so the suite stays green and a fix shows up as an XPASS."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.heldout import plat26_machines as m
from tests.heldout.test_machines import deps  # noqa: F401 - the fixture

REPO = Path(__file__).resolve().parents[2]
NVIDIA_NOISE = re.compile(r"nvidia driver|nvidia-smi|--gpus all|\+cu1\d\d|"
                          r"download\.pytorch\.org/whl/cu|and-cuda|cuda12", re.I)
# the machines run the test's own interpreter: its version says nothing about the machine
INTERPRETER = {"python-outside-torch-range"}

# rows that failed the first run (code at d9c967e), with what envdoctor said then
FIRST_RUN_FAILED: dict[str, str] = {
    "container-t4-cgroup-memory-512m":
        "CTR002 warning (right id; labelled error) and --expect gpu exits 0",
}


def run(platform: str, sc: dict, box: Path, deps_dir: Path) -> tuple[int, list[dict]]:
    site, bindir, root, extra = m.build(platform, sc, box)
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "PYTHONPATH": f"{site}:{REPO}:{deps_dir}",
           "HOME": str(box), "USER": "alice", "ENVDOCTOR_NO_CACHE": "1", "LANG": "C.UTF-8",
           **extra}
    done = subprocess.run([sys.executable, "-S", "-m", "envdoctor", "check", "--static",
                           "--root", str(root), "--format", "json", "--expect", "gpu"],
                          env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    return done.returncode, json.loads(done.stdout)["findings"]


def verdict(platform: str, sc: dict, code: int, found: list[dict]) -> list[str]:
    """What is wrong with envdoctor's answer for this machine (empty: right)."""
    loud = [f for f in found if f["severity"] in ("error", "warning") and f["id"] not in INTERPRETER]
    shown = [(f["code"], f["id"], f["severity"], f["title"]) for f in loud]
    wrong: list[str] = []
    hit: list[dict] = []
    if sc["healthy"]:
        if loud:
            wrong.append(f"not clean: {shown}")
        if code != 0:
            wrong.append(f"exit {code}, want 0")
    else:
        hit = [f for f in loud if f["id"] in sc["ids"]]
        if not hit:  # an unlabelled_check row's id exists in no check: a miss until one does
            wrong.append(f"not named (want {sorted(sc['ids'])}): {shown}")
        elif not any(f["severity"] == sc["severity"] for f in hit):
            wrong.append(f"severity (want {sc['severity']}): {shown}")
        if code != 1:
            wrong.append(f"--expect gpu exit {code}, want 1: {shown}")
    if platform in ("apple", "rocm", "intel"):
        noisy = [(f["id"], f["severity"]) for f in found if f not in hit
                 and NVIDIA_NOISE.search(f"{f['title']} {f.get('fix', '')}")]
        if noisy:
            wrong.append(f"NVIDIA advice on a non-NVIDIA machine: {noisy}")
    return wrong


def test_every_platform_has_healthy_and_broken_rows():
    for platform, (_, machines) in m.PLATFORMS.items():
        assert any(sc["healthy"] for sc in machines), platform
        assert any(not sc["healthy"] for sc in machines), platform
    for _, sc in m.ROWS:
        assert sc["healthy"] or (sc["ids"] and sc["severity"] in ("error", "warning")), sc["name"]


def _param(platform: str, sc: dict):
    marks = []
    if sc["name"] in FIRST_RUN_FAILED:
        marks.append(pytest.mark.xfail(strict=True, reason=FIRST_RUN_FAILED[sc["name"]]))
    return pytest.param(platform, sc, id=f"{platform}:{sc['name']}", marks=marks)


@pytest.mark.parametrize("platform,sc", [_param(p, sc) for p, sc in m.ROWS])
def test_plat26_machine(platform, sc, tmp_path, deps):  # noqa: F811
    code, found = run(platform, sc, tmp_path / "box", deps)
    wrong = verdict(platform, sc, code, found)
    assert not wrong, wrong
