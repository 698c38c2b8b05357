"""A real Cloud TPU v5e host (recorded: `envdoctor check --smoke full --format json` and
`jax.print_environment_info()` on a one-chip v5e VM, JAX 0.10.2 with libtpu 0.0.42.1, a CUDA
toolkit on PATH and no NVIDIA driver). A TPU is the accelerator training runs on there: the
machine is healthy under every intent, and nothing tells it to install CUDA builds."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from envdoctor import pipeline
from envdoctor.facts import JaxBuild

DATA = Path(__file__).parent / "data" / "tpu"
CHECK = DATA / "v5e-check-smoke-full.json"
JAX_ENV = DATA / "v5e-jax-print-environment-info.txt"


def _loud(report) -> set[str]:
    return {f.code for f in report.findings if f.severity.value in ("error", "warning")}


@pytest.fixture(scope="module")
def facts():
    return pipeline.load_facts_file(str(CHECK))


def test_the_recording_is_a_tpu_that_jax_computed_on():
    recorded = json.loads(CHECK.read_text(encoding="utf-8"))
    smoke = recorded["smoke"]["jax"]
    assert smoke["status"] == "passed" and "TPU v5 lite" in smoke["device"]
    kinds = [d["kind"] for d in recorded["facts"]["live"]["jax"]["devices"]]
    assert "tpu" in kinds


@pytest.mark.parametrize("intent", ["auto", "gpu", "cpu"])
def test_a_healthy_tpu_host_is_clean_under_every_intent(facts, intent):
    report = pipeline.diagnose(facts, intent=intent)
    assert not _loud(report), (intent, _loud(report))


def test_no_cuda_install_is_offered_on_a_tpu_host(facts):
    report = pipeline.diagnose(facts, intent="gpu")
    fixes = " ".join(f.fix for f in report.findings)
    assert "jax[cuda" not in fixes and "--gpus all" not in fixes
    cuda001 = [f for f in report.findings if f.code == "CUDA001"]
    assert cuda001 and "frameworks run on the CPU" not in cuda001[0].why


def test_without_the_tpu_the_same_host_fails_the_gpu_intent(facts):
    """The verdict rests on the TPU the worker saw: libtpu alone is not an accelerator."""
    live = {name: dataclasses.replace(run, devices=tuple(d for d in run.devices
                                                         if d.kind != "tpu"))
            for name, run in facts.live.items()}
    blind = dataclasses.replace(facts, live=live)
    assert isinstance(blind.frameworks.jax, JaxBuild) and blind.frameworks.jax.plugins
    assert {"INTENT001", "INTENT002"} <= _loud(pipeline.diagnose(blind, intent="gpu"))


def test_the_pasted_jax_environment_of_a_tpu_host_is_clean():
    for intent in ("auto", "gpu"):
        run = subprocess.run([sys.executable, "-m", "envdoctor", "check", "--from", str(JAX_ENV),
                              "--expect", intent], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, (intent, run.stdout[-2000:], run.stderr[-500:])


def test_a_second_process_on_a_held_tpu_is_named_as_such():
    """Recorded on the same v5e VM: a second JAX process while another held the chip. libtpu
    says 'Internal error when accessing libtpu multi-process lockfile', not 'in use by pid N';
    it is the held-chip diagnosis (ETPU002), not a missing or mismatched libtpu (ETPU001)."""
    from envdoctor.explain import diagnose_text, primary

    text = (DATA / "v5e-second-process-while-held.txt").read_text(encoding="utf-8")
    found = primary(diagnose_text(text))
    assert found is not None and found.code == "ETPU002", found
    assert "libtpu_lockfile" in found.fix


STATIC = DATA / "v5e-check-static.json"  # `check --static --format json`, the same kind of VM


@pytest.mark.parametrize("intent", ["auto", "gpu", "cpu"])
def test_the_static_snapshot_of_a_tpu_host_is_clean_under_every_intent(intent):
    """Without a framework imported, the TPU is seen from the host alone (TPU_ACCELERATOR_TYPE,
    the chip's /dev/vfio node, libtpu beside jax): no warning, even where a GPU is expected."""
    facts = pipeline.load_facts_file(str(STATIC))
    assert "/dev/vfio/2" in facts.host.gpu_device_nodes
    assert not facts.live
    report = pipeline.diagnose(facts, intent=intent)
    assert not _loud(report), (intent, _loud(report))


def test_suggest_on_the_static_snapshot_keeps_jax_tpu():
    run = subprocess.run([sys.executable, "-m", "envdoctor", "suggest", "--facts", str(STATIC),
                          "--format", "json", "jax"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    (jax,) = [s for s in json.loads(run.stdout)["suggestions"] if s["framework"] == "jax"]
    assert "jax[tpu]" in json.dumps(jax) and "cuda" not in (jax.get("command") or "")
