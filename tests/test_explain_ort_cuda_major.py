"""EORT004 (a carrier answered as EORT003): an onnxruntime-gpu built for CUDA 11 on a machine whose stated CUDA is 12, read
from the provider's loader line or the pre-1.19 message; near misses name no such cause."""

from __future__ import annotations

import pytest

from envdoctor.explain.gpustated import ort_built_cuda11_on_cuda12_reason as reason

LOADER = ("[E:onnxruntime:Default, provider_bridge_ort.cc:1480 TryGetProviderInfo_CUDA] FAIL : "
          "Failed to load library libonnxruntime_providers_cuda.so with error: "
          "libcublasLt.so.11: cannot open shared object file: No such file or directory")
OLD = ("[W:onnxruntime:Default, onnxruntime_pybind_state.cc:541 CreateExecutionProviderInstance]"
       " Failed to create CUDAExecutionProvider. Please reference https://onnxruntime.ai/docs/"
       "execution-providers/CUDA-ExecutionProvider.html#requirements to ensure all dependencies"
       " are met.")
SMI = ("| NVIDIA-SMI 535.183.01             Driver Version: 535.183.01   CUDA Version: 12.2     |")


@pytest.mark.parametrize("text", [
    LOADER + "\nCuda compilation tools, release 12.1, V12.1.66",
    OLD + "\nI have CUDA 12.2 installed",
    OLD + "\nnvidia-cublas-cu12 12.1.3.1",
    OLD + "\nonnxruntime-gpu==1.16.3\n/usr/local/cuda-12.1/bin",
])
def test_cuda11_build_on_cuda12(text: str) -> None:
    note = reason(text)
    assert note is not None and "1.19 or newer" in note


@pytest.mark.parametrize("text", [
    LOADER + "\nCUDA Version: 11.8",               # the majors match
    LOADER + "\n" + SMI,                            # only the driver's ceiling
    OLD + "\n" + SMI,
    LOADER + "\nonnxruntime 1.16.0\nonnxruntime-gpu 1.16.0\ncuda 12.1",  # CPU package beside
    OLD + "\ncuda 12.3\nI ran pip install onnxruntime==1.14.1",  # the CPU package
    OLD + "\nonnxruntime-gpu 1.20.0\ncuda 12.4",    # a 1.19+ release says what it needs
    OLD + "\nonnxruntime-gpu requires CUDA 12.x",   # a requirement, not an install
    OLD + "\ncuda 11.8 and cuda 12.1 both installed",
    OLD + "\npip install onnxruntime-gpu --extra-index-url https://aiinfra.pkgs.visualstudio.com"
          "/PublicPackages/_packaging/onnxruntime-cuda-12/pypi/simple/\ncuda 12.2",
    "Failed to create CUDAExecutionProvider. Require cuDNN 9.* and CUDA 12.*\ncuda 12.4",
    LOADER.replace("libcublasLt.so.11", "libcudnn.so.8") + "\ncuda 12.1",
])
def test_near_misses(text: str) -> None:
    assert reason(text) is None
