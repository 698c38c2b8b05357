"""Real CPU runs of every installed framework's worker: not mocked, skipped only where the
framework is not installed (CI installs all seven, in the environments of .ci/run).

Every framework runs the one smoke plan (``envdoctor.workers._common.PLAN``): each step must be
reported, in order; a step that runs must pass; a step that does not run must say why (a
precision the CPU lacks, torch.compile kept for --smoke full, or "not supported by this
framework"). Every live fact a CPU can have must be filled. The workers run concurrently, as
`envdoctor check` runs them."""

from __future__ import annotations

import importlib.util
import os

import pytest

from envdoctor.facts import Facts, Status
from envdoctor.live import run_live, smoke_report
from envdoctor.workers._common import PLAN_STEPS, UNSUPPORTED

pytestmark = pytest.mark.frameworks
MODULES = {"torch": "torch", "tensorflow": "tensorflow", "jax": "jax", "paddle": "paddle",
           "mindspore": "mindspore", "mxnet": "mxnet"}
REAL = [n for n, m in MODULES.items() if importlib.util.find_spec(m) is not None]
# Steps that must have RUN and passed, per framework (the rest of the plan may be skipped with a
# reason, checked below).
MUST_RUN = {"tensor", "matmul_fp32", "gradient", "mlp_train", "save_load"}
COMPILES = {"tensorflow", "jax", "paddle", "mindspore", "mxnet"}   # torch: --smoke full only
SELF_CHECKS = {"paddle", "mindspore"}
CPU_DEVICES = ("cpu", "/CPU:0", "CPU")


@pytest.fixture(scope="module")
def live() -> Facts:
    if not REAL:
        pytest.skip("no framework installed")
    return run_live(Facts(), REAL, suite="quick", timeout=300, progress=False)


@pytest.mark.parametrize("name", REAL)
def test_every_plan_step_is_reported_in_order_and_none_fails(live, name):
    smoke = live.live[name].smoke
    assert smoke is not None and smoke.status == "passed", smoke
    names = [s.name for s in smoke.steps]
    assert tuple(names[:len(PLAN_STEPS)]) == PLAN_STEPS
    assert not [s for s in smoke.steps if s.status not in ("passed", "skipped")]
    assert all(s.seconds >= 0 and s.detail for s in smoke.steps)
    assert smoke.device in CPU_DEVICES


@pytest.mark.parametrize("name", REAL)
def test_the_steps_that_must_run_ran(live, name):
    steps = {s.name: s for s in live.live[name].smoke.steps}
    must = MUST_RUN | ({"compile"} if name in COMPILES else set()) | (
        {"self_check"} if name in SELF_CHECKS else set())
    assert {n for n in must if steps[n].status != "passed"} == set()


@pytest.mark.parametrize("name", REAL)
def test_a_step_that_did_not_run_says_why(live, name):
    lf = live.live[name]
    for step in lf.smoke.steps:
        if step.status != "skipped":
            continue
        if step.name in ("matmul_bf16", "matmul_fp16"):
            assert lf.__getattribute__(step.name[-4:]) is False
            assert "not supported on" in step.detail
        elif step.name == "compile":
            assert name == "torch" and "--smoke full" in step.detail
        else:
            assert step.name == "self_check" and step.detail.startswith(UNSUPPORTED)


@pytest.mark.parametrize("name", REAL)
def test_the_gradient_step_checks_8(live, name):
    step = next(s for s in live.live[name].smoke.steps if s.name == "gradient")
    assert "x=3 = 8 " in step.detail and step.status == "passed"


@pytest.mark.parametrize("name", [n for n in REAL if n in COMPILES])
def test_the_compiled_path_agrees_with_eager(live, name):
    step = next(s for s in live.live[name].smoke.steps if s.name == "compile")
    assert step.status == "passed" and " vs " in step.detail


@pytest.mark.parametrize("name", REAL)
def test_live_facts_are_filled(live, name):
    lf = live.live[name]
    assert lf.probe.status is Status.OK and lf.import_ok is True
    assert lf.import_seconds and lf.import_seconds > 0
    assert lf.version is not None and lf.build == "cpu"
    assert [d.kind for d in lf.devices] == ["cpu"]
    assert lf.cuda_available is False and lf.gpu_count == 0
    assert lf.gpu_error  # why no GPU, in words
    assert None not in (lf.bf16, lf.fp16, lf.tf32) and lf.tf32 is False
    # a CPU build maps no CUDA library and knows no cuDNN/NCCL: recorded as absent, not guessed
    assert lf.loaded == () and lf.cudnn is None and lf.nccl is None
    assert lf.built_cuda is None  # Paddle's CPU build says 'False': not a version, not kept
    if name == "mxnet":
        assert "CUDA" not in lf.features and lf.features


def test_smoke_block_lists_every_step(live):
    block = smoke_report(live)
    for name in REAL:
        assert block[name]["status"] == "passed"
        assert [s["name"] for s in block[name]["steps"]][:len(PLAN_STEPS)] == list(PLAN_STEPS)
        assert all(set(s) >= {"name", "status", "seconds", "detail"}
                   for s in block[name]["steps"])


BACKENDS = [b for b in ("tensorflow", "jax", "torch") if importlib.util.find_spec(b)]


@pytest.mark.skipif(importlib.util.find_spec("keras") is None, reason="keras not installed")
@pytest.mark.parametrize("backend", BACKENDS)
def test_keras_runs_the_plan_on_each_installed_backend(backend, monkeypatch):
    monkeypatch.setenv("KERAS_BACKEND", backend)
    lf = run_live(Facts(), ["keras"], suite="quick", timeout=300, progress=False).live["keras"]
    assert lf.probe.status is Status.OK and lf.backend == backend
    steps = {s.name: s for s in lf.smoke.steps}
    assert tuple(steps)[:len(PLAN_STEPS)] == PLAN_STEPS
    ran = {n for n, s in steps.items() if s.status == "passed"}
    assert MUST_RUN <= ran and not [s for s in lf.smoke.steps if s.status == "failed"]
    assert ("compile" in ran) is (backend != "torch")  # torch: jit_compile is torch.compile
    assert os.environ["KERAS_BACKEND"] == backend
