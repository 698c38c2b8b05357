"""The stated driver against the CUDA of the stated torch build (stated.driver_below_torch_cuda_reason)
and its carrier ECUDA023, which names ECUDA005 only when the reading holds."""

from __future__ import annotations

import pytest

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.stated import driver_below_torch_cuda_reason


@pytest.mark.parametrize("text", [
    "Driver Version: 470.82.01    CUDA Version: 11.4\ntorch==2.1.0+cu121\n",
    "CUDA used to build PyTorch: 10.2\nNvidia driver version: 410.104\n",
    "驱动版本 470.57，torch 2.1.0+cu121\n",
    "conda list: pytorch 2.1.0 py3.10_cuda12.1_cudnn8.9.2_0\nmy driver is 515.65.01\n",
])
def test_driver_older_than_the_build_needs(text: str) -> None:
    assert driver_below_torch_cuda_reason(text) is not None
    found = primary(diagnose_text(text))
    assert found is not None and found.code == "ECUDA005"


@pytest.mark.parametrize("text", [
    # minor-version compatibility: any 11.x build runs on 450.80.02+, any 12.x on 525.60.13+
    "Driver Version: 470.82.01\ntorch 2.0.1+cu118\n",
    "Driver Version: 535.104.05\ntorch 2.4.0+cu124\n",
    # a driver and no torch build, a build and no driver
    "| NVIDIA-SMI 470.57.02    Driver Version: 470.57.02    CUDA Version: 11.4     |\n",
    "torch 2.1.0+cu121\n",
    # the CUDA driver API number and a Windows driver file version are not release branches
    "found version 11040\ntorch 2.1.0+cu121\n",
    "Driver Version: 31.0.15.3623\ntorch 2.1.0+cu121\n",
    # one of two stated drivers is new enough (an upgrade told in the text)
    "driver 470.57 did not work, after updating to driver 535.129 it is fine\ntorch 2.1.0+cu121\n",
])
def test_no_claim_when_the_driver_is_new_enough_or_unstated(text: str) -> None:
    assert driver_below_torch_cuda_reason(text) is None
    found = primary(diagnose_text(text))
    assert found is None or found.code != "ECUDA005"


def test_a_carrier_that_names_nothing_does_not_stop_the_second_reading() -> None:
    # "Driver / library" (spaced) is matched only on the second, normalised reading; the driver
    # line the carrier matches must not count as "explained" and skip that reading
    text = ("Failed to initialize NVML: Driver / library version mismatch\n"
            "Existing nvidia-driver version: 384.81\n")
    found = primary(diagnose_text(text))
    assert found is not None and found.code == "ESYS002"


def test_no_claim_where_cuda_works_on_the_old_driver() -> None:
    # data-center GPUs run newer CUDA builds on older drivers through cuda-compat (forward
    # compatibility): a collect_env that says CUDA is available names no driver cause
    text = ("PyTorch version: 2.6.0+cu126\nIs CUDA available: True\n"
            "GPU 0: NVIDIA A800-SXM4-80GB\nNvidia driver version: 470.161.03\n")
    assert driver_below_torch_cuda_reason(text) is None
    found = primary(diagnose_text(text))
    assert found is None or found.code != "ECUDA005"
