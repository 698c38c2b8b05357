"""Platform classes built after batch P5's first run (texts constructed in the forms the cited
threads print; none is a held-out text): an Intel-only GPU under a CUDA refusal is "no NVIDIA
GPU" (envdoctor.explain.stated.intel_gpu_only_reason, ECUDA006 -> ECUDA009), the Intel XPU
family (EXPU001-003), WSL2's pinned-memory cap (EWSL025), a ROCm soname the installed ROCm does
not ship (EROCM027), and a CUDA library missing on an AMD machine (EROCM023)."""

from __future__ import annotations

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.stated import intel_gpu_only_reason

INSUFFICIENT = "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version\n"


def _code(text: str) -> str | None:
    d = primary(diagnose_text(text))
    return d.code if d else None


def test_an_intel_only_gpu_under_a_cuda_refusal_is_no_nvidia_gpu():
    # Akegarasu/lora-scripts#101 form (an integrated Iris Xe, a cu118 torch)
    text = "I'm using an integrated Intel(R) Iris(R) Xe Graphics, torch==2.0.0+cu118\n" + INSUFFICIENT
    assert intel_gpu_only_reason(text) is not None
    assert _code(text) == "ECUDA009"


def test_an_intel_igpu_beside_an_nvidia_gpu_keeps_the_driver_answer():
    text = ("GPU: Intel(R) UHD Graphics 630 and NVIDIA GeForce RTX 3060 Laptop GPU\n"
            + INSUFFICIENT)
    assert intel_gpu_only_reason(text) is None
    assert _code(text) == "ECUDA006"


def test_an_intel_cpu_names_no_gpu():
    text = "CPU: Intel(R) Core(TM) i7-12700H\n" + INSUFFICIENT
    assert intel_gpu_only_reason(text) is None
    assert _code(text) == "ECUDA006"


def test_torch_without_xpu_and_an_xpu_build():
    assert _code("AssertionError: Torch not compiled with XPU enabled\n") == "EXPU001"
    # pytorch/pytorch#147226 form: an XPU build whose driver is missing is not a build problem
    assert _code("'2.6.0+xpu'\n>>> torch.xpu.is_available()\nFalse\n") != "EXPU001"


def test_ipex_wordings():
    assert _code("RuntimeError: PyTorch is not linked with support for xpu devices\n") == "EXPU002"
    assert _code("ERROR! Intel® Extension for PyTorch* needs to work with PyTorch 2.2.*, but "
                 "PyTorch 2.1.0+cu121 is found.\n") == "EXPU003"


def test_wsl_pinned_memory_only_under_wsl():
    lines = ("failed to alloc 245638656 bytes on host: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n"
             "could not allocate pinned host memory of size: 245638656\n")
    assert _code("Ubuntu 22.04 on WSL2\n" + lines) == "EWSL025"
    assert _code(lines) != "EWSL025"
    # a plain GPU OOM under WSL is not the pinned cap
    assert _code("WSL2\nRuntimeError: CUDA error: out of memory\n") != "EWSL025"


def test_rocm_soname_skew_and_cuda_libs_on_amd():
    assert _code("ImportError: librocm_smi64.so.6: cannot open shared object file: No such "
                 "file or directory\n") == "EROCM027"
    assert _code("I have an AMD GPU (RX 7900 XTX)\nOSError: libcudart.so.12: cannot open shared "
                 "object file: No such file or directory\n") == "EROCM023"
    assert _code("OSError: libcudart.so.12: cannot open shared object file: No such file or "
                 "directory\n") != "EROCM023"


def test_tpu_node_only_where_something_failed():
    assert _code("RuntimeError:\nAs of JAX 0.4.0, JAX only supports TPU VMs, not the older "
                 "Colab TPUs.\n") == "ETPU008"
    # jax's backend probe on a GPU machine: harmless INFO lines
    assert _code("I0808 20:59:00.964296 139857030612800 xla_bridge.py:328] Unable to initialize "
                 "backend 'tpu': module 'jaxlib.xla_extension' has no attribute "
                 "'get_tpu_client'\n") != "ETPU008"


def test_a_v5e_slice_on_an_older_generation_runtime():
    # jax-ml/jax#13260 form
    cmd = ("gcloud alpha compute tpus tpu-vm create t --zone=us-west1-c "
           "--accelerator-type=v5litepod-4 --version={}\n")
    fails = ">>> jax.device_count()\nTraceback (most recent call last):\n"
    assert _code(cmd.format("tpu-vm-base") + fails) == "ETPU009"
    assert _code(cmd.format("v2-alpha-tpuv5-lite") + fails) != "ETPU009"
    assert _code(cmd.format("tpu-vm-base")) is None  # nothing failed
