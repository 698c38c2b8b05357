"""The torch worker's MPS facts and its MPS smoke step, without a Mac: a stand-in for torch
answers ``torch.backends.mps`` as real Macs did in public threads (each case names its URL), and
the worker's planning and the parent's reading of its answer are checked against them. The
live MPS path itself cannot run on Linux; what decides it (``mps_state``, ``extra_steps``) is
a function of those answers."""

from __future__ import annotations

import json
import sys
from types import SimpleNamespace

import pytest

from envdoctor.live.orchestrate import WorkerRun
from envdoctor.live.parse import to_live
from envdoctor.workers import _common as c
from envdoctor.workers import torch as torch_worker

# (url, is_built, is_available, what .to("mps") raised)
RECORDED = {
    "macos26-built-unavailable": ("https://github.com/pytorch/pytorch/issues/167679", True, False,
                                  "The MPS backend is supported on macOS 14.0+. Current OS "
                                  "version can be queried using `sw_vers`"),
    "macos12.2-built-unavailable": ("https://github.com/pytorch/pytorch/issues/78343", True,
                                    False, "The MPS backend is supported on MacOS 12.3+."
                                    "Current OS version can be queried using `sw_vers`"),
    "source-build-without-mps": ("https://github.com/pytorch/pytorch/issues/77867", False, False,
                                 "PyTorch is not linked with support for mps devices"),
    "available": ("https://github.com/pytorch/pytorch/issues/78343", True, True, ""),
}


def fake_torch(built: bool, available: bool, error: str) -> SimpleNamespace:
    def zeros(*_a, device: str = "cpu", **_k):
        if device == "mps" and error:
            raise RuntimeError(error)
        return [0.0]
    mps = SimpleNamespace(is_built=lambda: built, is_available=lambda: available)
    return SimpleNamespace(backends=SimpleNamespace(mps=mps), zeros=zeros)


@pytest.mark.parametrize("case", sorted(RECORDED))
def test_mps_state_on_a_mac(case, monkeypatch):
    _url, built, available, error = RECORDED[case]
    monkeypatch.setattr(sys, "platform", "darwin")
    state = torch_worker.mps_state(fake_torch(built, available, error))
    assert state["mps_built"] is built and state["mps_available"] is available
    if built and not available:
        assert state["gpu_error"] == f"RuntimeError: {error}"
    else:
        assert "gpu_error" not in state


def test_mps_state_is_not_asked_off_a_mac(monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    assert torch_worker.mps_state(fake_torch(True, True, "")) == {}


@pytest.mark.parametrize("case", sorted(RECORDED))
def test_the_mps_step_is_planned_only_where_mps_is_available(case, monkeypatch):
    _url, built, available, error = RECORDED[case]
    monkeypatch.setattr(sys, "platform", "darwin")
    facts = torch_worker.mps_state(fake_torch(built, available, error))
    assert torch_worker.extra_steps(facts) == (("mps_matmul",) if available else ())
    assert torch_worker.extra_steps({}) == ()  # Linux, CUDA, CPU: never


def test_the_parent_reads_the_mps_answer_of_a_worker():
    """What a Mac's torch worker prints (the protocol's JSON) becomes live facts."""
    answer = {"protocol": c.PROTOCOL, "import_ok": True, "version": "2.9.1", "build": "cpu",
              "cuda_available": False, "mps_built": True, "mps_available": False,
              "gpu_error": "RuntimeError: " + RECORDED["macos26-built-unavailable"][3],
              "devices": [{"kind": "cpu", "index": 0, "name": "cpu"}]}
    run = WorkerRun(name="torch", argv=("python", "-m", "envdoctor.workers.torch"),
                    returncode=0, stdout=json.dumps(answer), stderr="", seconds=1.0)
    live = to_live(run)
    assert live.mps_built is True and live.mps_available is False
    assert "macOS 14.0+" in live.gpu_error
