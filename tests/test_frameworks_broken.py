"""Deliberately broken environments (built by .ci/run after the healthy runs): each must fail
`envdoctor check` with the finding that names its cause, and only that one.

ENVDOCTOR_BROKEN says which breakage this environment has; without it these tests skip, so the
main suite passes on a healthy machine:
  mxnet-numpy      mxnet 1.9.1 with NumPy >= 1.24 (pip's pick without a pin): import cannot work
  mindspore-numpy2 mindspore with NumPy 2: its import prints the NumPy-1 ABI message
  numpy-missing    NumPy uninstalled under TensorFlow/JAX/Keras/Paddle (torch must still pass)
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

BROKEN = os.environ.get("ENVDOCTOR_BROKEN", "")
pytestmark = [pytest.mark.frameworks,
              pytest.mark.skipif(not BROKEN, reason="runs in .ci/run's broken environments")]


def check(*args: str) -> tuple[int, dict]:
    out = subprocess.run([sys.executable, "-m", "envdoctor", "check", "--format", "json", *args],
                         capture_output=True, text=True, timeout=600)
    return out.returncode, json.loads(out.stdout)


def codes(report: dict, severity: str | None = None) -> set[str]:
    return {f["code"] for f in report["findings"] if severity in (None, f["severity"])}


@pytest.mark.skipif(BROKEN != "mxnet-numpy", reason="not the MXNet + NumPy >= 1.24 environment")
def test_mxnet_with_a_new_numpy_is_an_error_before_anything_runs():
    rc, report = check("--static")
    assert rc == 1 and codes(report, "error") == {"MX001"}
    assert "numpy<1.24" in next(f["fix"] for f in report["findings"] if f["code"] == "MX001")
    rc, report = check("--framework", "mx")
    assert rc == 1 and codes(report, "error") == {"MX001"}  # not LIVE006 as well: one cause
    assert report["smoke"]["mxnet"]["status"] == "error"
    assert "has no attribute 'bool'" in report["smoke"]["mxnet"]["steps"][0]["detail"]
    assert all("numpy<2" not in f["fix"] for f in report["findings"])


@pytest.mark.skipif(BROKEN != "mindspore-numpy2", reason="not the MindSpore + NumPy 2 environment")
def test_mindspore_under_numpy2_fails_on_its_own_warning():
    rc, report = check("--framework", "mindspore")
    assert rc == 1 and codes(report, "error") == {"MS002"}
    assert "warning" not in {f["severity"] for f in report["findings"]}  # not LIVE007 too
    finding = next(f for f in report["findings"] if f["code"] == "MS002")
    assert 'numpy>=1.25,<2' in finding["fix"]
    assert "Numpy init failed" in json.dumps(finding["evidence"])
    rc, report = check("--static")
    assert "MS002" not in codes(report)  # a static run saw no warning: unknown, not a finding


@pytest.mark.skipif(BROKEN != "numpy-missing", reason="not the environment without NumPy")
def test_frameworks_that_need_numpy_fail_and_torch_does_not():
    rc, report = check()
    assert rc == 1 and codes(report, "error") == {"NP002"}
    title = next(f["title"] for f in report["findings"] if f["code"] == "NP002")
    needing = [n for n, m in (("TensorFlow", "tensorflow"), ("JAX", "jax"),
                              ("PaddlePaddle", "paddle")) if importlib.util.find_spec(m)]
    assert needing and all(n in title for n in needing)
    smoke = report["smoke"]
    for name in ("tensorflow", "jax", "paddle"):
        if name in smoke:
            assert smoke[name]["status"] == "error"
    for name in ("tensorflow", "paddle"):  # jaxlib says only "error while initializing"
        if name in smoke:
            assert "No module named 'numpy'" in smoke[name]["steps"][0]["detail"]
    if importlib.util.find_spec("torch"):
        assert smoke["torch"]["status"] == "passed"  # torch's plan needs no NumPy
