"""Held-out simulated machines (tests/heldout/machines.py) through the real static probes.

Each machine is a fake ``nvidia-smi`` on PATH (a recorded table with the driver and GPU cells
substituted) and a fake site-packages on PYTHONPATH laid out as the wheels lay it out. The
probes run in a child ``python -S`` (so this venv's own packages stay out), the facts this host
cannot fake (CPU architecture, OS, Python, its own CUDA 13 toolkit) are patched into the
snapshot, and ``check --facts`` judges it. Healthy machines get no error or warning; broken ones
get a check expressing their label (the ones whose official answer is an error, as an error).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.heldout import machines

REPO = Path(__file__).resolve().parents[2]
# label -> (check ids that express it, must it be an error)
LABELS = {
    "gpu-arch-missing-from-torch-wheel": ({"gpu-arch-missing-from-torch-wheel"}, True),
    "cuda13-drops-gpu-arch": ({"gpu-arch-missing-from-torch-wheel"}, True),
    "driver-too-old-for-cuda-runtime": ({"driver-too-old-for-framework-cuda"}, True),
    "windows-driver-too-old-for-cuda13": ({"driver-too-old-for-framework-cuda"}, True),
    "numpy2-incompatible-with-torch": ({"numpy2-with-numpy1-builds"}, True),
    "tf-cudnn9-shared-with-torch": ({"tensorflow-cudnn-shared-with-torch"}, False),
    "tf-without-cuda-libs": ({"tensorflow-without-cuda-libraries"}, False),
    "torch-cpu-build-on-gpu-host": ({"torch-cpu-build-on-gpu-host"}, False),
}
DEPS = ("click", "rich", "packaging", "psutil", "pynvml", "markdown_it", "mdurl", "pygments", "elftools")


@pytest.fixture(scope="module")
def deps(tmp_path_factory):
    """envdoctor's own dependencies without their dist-info (invisible to the packages probe)."""
    folder = tmp_path_factory.mktemp("deps")
    for name in DEPS:
        try:
            module = __import__(name)
        except ImportError:
            continue
        src = Path(module.__file__)
        src = src.parent if src.name == "__init__.py" else src
        (folder / src.name).symlink_to(src)
    return folder


def run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-S", "-m", "envdoctor", *argv], env=env,
                          capture_output=True, text=True, timeout=120)


def assert_verdict(sc: dict, found: list[dict], labels: dict) -> None:
    """A healthy scenario gets no error or warning; a broken one gets a check its labels name
    (as an error where a label says the machine cannot run); never a ``must_not`` check."""
    loud = [f for f in found if f["severity"] in ("error", "warning")]
    assert not [f["id"] for f in found if f["id"] in sc.get("must_not", ())]
    if sc["healthy"]:
        assert not loud, [(f["code"], f["severity"], f["title"]) for f in loud]
        return
    ids, need_error = set(), False
    for label in sc["labels"]:
        want, err = labels[label]
        ids |= want
        need_error |= err
    hit = [f for f in loud if f["id"] in ids]
    assert hit, [(f["code"], f["severity"]) for f in loud]
    if need_error:
        assert any(f["severity"] == "error" for f in hit), [(f["code"], f["severity"]) for f in hit]


def _cases():
    for sc in machines.SCENARIOS:
        marks = (pytest.mark.xfail(strict=True, reason=sc["weak"]),) if sc.get("weak") else ()
        yield pytest.param(sc, marks=marks, id=sc["name"])


@pytest.mark.parametrize("sc", list(_cases()))
def test_machine(sc, tmp_path, deps):
    site, bindir = machines.build(sc, tmp_path / "box")
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "PYTHONPATH": f"{site}:{REPO}:{deps}",
           "HOME": str(tmp_path), "ENVDOCTOR_NO_CACHE": "1", "LANG": "C.UTF-8",
           "SYSTEMROOT": os.environ.get("SYSTEMROOT", "")}
    probed = run(["facts"], env)
    assert probed.returncode == 0, probed.stderr
    facts = json.loads(probed.stdout)
    machines.patch(facts, sc)
    path = tmp_path / "facts.json"
    path.write_text(json.dumps(facts))
    argv = ["check", "--facts", str(path), "--format", "json", "--expect", sc.get("expect", "auto")]
    for req in sc.get("require", ()):
        argv += ["--require", req]
    checked = run(argv, env)
    assert checked.returncode in (0, 1), checked.stderr
    found = json.loads(checked.stdout)["findings"]
    assert_verdict(sc, found, LABELS)
