"""Real CPU runs of the torch, TensorFlow and JAX workers: not mocked, not skipped where the
framework is installed. Every smoke step must pass on the CPU and every live fact that a CPU
can have must be filled. The three run concurrently, as `envdoctor check` runs them."""

from __future__ import annotations

import importlib.util

import pytest

from envdoctor.facts import Facts, Status
from envdoctor.live import run_live, smoke_report

pytestmark = pytest.mark.frameworks
REAL = [n for n in ("torch", "tensorflow", "jax") if importlib.util.find_spec(n) is not None]
QUICK_STEPS = {"tensor", "matmul_fp32", "matmul_bf16", "matmul_fp16", "gradient", "mlp_train",
               "save_load"}


@pytest.fixture(scope="module")
def live() -> Facts:
    if not REAL:
        pytest.skip("no framework installed")
    return run_live(Facts(), REAL, suite="quick", timeout=300, progress=False)


@pytest.mark.parametrize("name", REAL)
def test_every_quick_step_passes_on_the_cpu(live, name):
    smoke = live.live[name].smoke
    assert smoke is not None and smoke.status == "passed", smoke
    steps = {s.name: s for s in smoke.steps}
    assert QUICK_STEPS <= set(steps)
    assert all(s.status == "passed" for s in smoke.steps), [
        (s.name, s.status, s.detail) for s in smoke.steps]
    assert all(s.seconds >= 0 and s.detail for s in smoke.steps)
    assert smoke.device in ("cpu", "/CPU:0")


@pytest.mark.parametrize("name", REAL)
def test_the_gradient_step_checks_8(live, name):
    step = next(s for s in live.live[name].smoke.steps if s.name == "gradient")
    assert "x=3 = 8 " in step.detail and step.status == "passed"


@pytest.mark.parametrize("name", [n for n in REAL if n != "torch"])
def test_the_compiled_path_agrees_with_eager(live, name):
    step = next(s for s in live.live[name].smoke.steps if s.name == "compile")
    assert step.status == "passed" and "vs eager" in step.detail


@pytest.mark.parametrize("name", REAL)
def test_live_facts_are_filled(live, name):
    lf = live.live[name]
    assert lf.probe.status is Status.OK and lf.import_ok is True
    assert lf.import_seconds and lf.import_seconds > 0
    assert lf.version is not None and lf.build == "cpu"
    assert [d.kind for d in lf.devices] == ["cpu"]
    assert lf.cuda_available is False and lf.gpu_count == 0
    assert lf.gpu_error  # why no GPU, in words
    assert lf.bf16 is True and lf.fp16 is True and lf.tf32 is False
    # a CPU build maps no CUDA library and knows no cuDNN/NCCL: recorded as absent, not guessed
    assert lf.loaded == () and lf.cudnn is None and lf.nccl is None


def test_smoke_block_lists_every_step(live):
    block = smoke_report(live)
    for name in REAL:
        assert block[name]["status"] == "passed"
        assert {s["name"] for s in block[name]["steps"]} >= QUICK_STEPS
        assert all(set(s) >= {"name", "status", "seconds", "detail"}
                   for s in block[name]["steps"])
