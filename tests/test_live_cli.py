"""`envdoctor check` with live workers: options, the JSON contract, and the rule that the
envdoctor process itself never imports a framework."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest

from envdoctor.engine.expr import UNKNOWN
from envdoctor.engine.vocabulary import names_for
from envdoctor.facts import Facts, Gpu, LiveDevice, LiveFramework, NvidiaFacts, ProbeInfo, Status
from envdoctor.live import installed, select
from tests.conftest import REPO, run_cli

FRAMEWORKS = ("torch", "tensorflow", "jax", "keras", "paddle", "mindspore", "mxnet")


def gpu_blind(facts):
    """``live_gpu_blind()`` as a rule calls it, on one snapshot."""
    return names_for(facts)["live_gpu_blind"]()


def test_unknown_framework_is_a_usage_error():
    out = run_cli("check", "--framework", "torch,caffe")
    assert out.returncode == 2
    assert "caffe" in out.stderr and "Traceback" not in out.stderr


def test_static_runs_no_worker():
    out = run_cli("check", "--static", "--format", "json")
    data = json.loads(out.stdout)
    assert data["facts"]["live"] == {} and "smoke" not in data
    assert {c["code"]: c["state"] for c in data["checks"]}["LIVE005"] == "unknown"


@pytest.mark.frameworks
@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax not installed")
def test_the_parent_never_imports_a_framework():
    """Run the whole check (static + a real jax worker + smoke) in one process and list the
    framework modules that process loaded: none."""
    code = ("import sys\nfrom envdoctor.cli import main\n"
            "try:\n    main(['check', '--framework', 'jax', '--format', 'json', '-o', "
            "sys.argv[1]])\nexcept SystemExit:\n    pass\n"
            f"print(sorted(m for m in {FRAMEWORKS!r} if m in sys.modules))\n")
    out_file = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"envdoctor-{os.getpid()}.json")
    out = subprocess.run([sys.executable, "-c", code, out_file], capture_output=True, text=True,
                         timeout=300, cwd=REPO)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stderr[-2000:]
    with open(out_file, encoding="utf-8") as fh:
        data = json.load(fh)
    os.unlink(out_file)
    assert data["smoke"]["jax"]["status"] == "passed"  # the worker really ran


def test_selection_follows_the_static_facts():
    from envdoctor.facts import FrameworkFacts, JaxBuild, KerasInfo, TorchBuild
    facts = Facts(frameworks=FrameworkFacts(probe=ProbeInfo(Status.OK), torch=TorchBuild(),
                                            jax=JaxBuild(), keras=KerasInfo()))
    assert installed(facts) == ["torch", "jax", "keras"]
    assert select(facts, None, "quick") == (["torch", "jax"], {
        "keras": "Keras runs with --smoke full or --framework keras"})
    assert select(facts, None, "full") == (["torch", "jax", "keras"], {})
    assert select(facts, ["jax", "jax"], "quick") == (["jax"], {})


def _gpu_box(**live_fields) -> Facts:
    nv = NvidiaFacts(probe=ProbeInfo(Status.OK), driver_version=None,
                     cuda_driver_version=None, gpus=(Gpu(name="NVIDIA L4"),))
    live_fields.setdefault("devices", (LiveDevice(kind="cpu"),))
    lf = LiveFramework(probe=ProbeInfo(Status.OK), name="torch", import_ok=True, **live_fields)
    return Facts(nvidia=nv, live={"torch": lf})


def test_gpu_blind_names_the_reason():
    from packaging.version import Version
    assert gpu_blind(_gpu_box(build="cpu", version=Version("2.5.1"))) == [
        "torch: torch 2.5.1 is a CPU-only build"]
    old = _gpu_box(build="cuda", built_cuda=Version("12.4"))
    old = replace(old, nvidia=replace(old.nvidia, driver_version=Version("470.57"),
                                      cuda_driver_version=Version("11.4")))
    assert "supports CUDA up to 11.4, the build needs CUDA 12.4" in gpu_blind(old)[0]
    hidden = _gpu_box(build="cuda", visible_devices="")
    assert "CUDA_VISIBLE_DEVICES=''" in gpu_blind(hidden)[0]
    seen = _gpu_box(build="cuda", devices=(LiveDevice(kind="cuda", name="NVIDIA L4"),))
    assert gpu_blind(seen) == []
    assert gpu_blind(Facts()) is UNKNOWN  # no worker ran: unknown, not "fine"
