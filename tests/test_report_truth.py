"""Pasted-report parsers record only what the text shows (issue 10, point 1 and 7)."""

from __future__ import annotations

from envdoctor.facts.states import State, state_of
from envdoctor.outputs.summary import _cuda, _host, _jax
from envdoctor.parsers import parse_text

COLLECT_ENV = """Collecting environment information...
PyTorch version: 2.5.0+cu124
Is debug build: False
CUDA used to build PyTorch: 12.4
OS: Ubuntu 22.04.5 LTS (x86_64)
GCC version: (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0
Is CUDA available: True
CUDA runtime version: 12.6.85
GPU models and configuration: GPU 0: NVIDIA H100 80GB HBM3
Nvidia driver version: 550.127.05

CPU:
Architecture:                       x86_64
Model name:                         AMD EPYC 7763 64-Core Processor
"""
# jax-ml/jax#21295: eight CUDA devices, no plugin listing, a table cut before the GPU rows
JAX_BLOCK = """jax:    0.4.33
jaxlib: 0.4.33
numpy:  1.26.4
python: 3.10.12 (main, Sep 11 2024, 15:47:36) [GCC 11.4.0]
jax.devices (8 total, 8 local): [CudaDevice(id=0) CudaDevice(id=1) ... CudaDevice(id=7)]
process_count: 1

$ nvidia-smi
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.127.05             Driver Version: 550.127.05     CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
"""


def test_collect_env_gives_cpu_model_and_gcc_but_no_nvcc_path():
    facts = parse_text(COLLECT_ENV)
    assert facts.host.cpu_model == "AMD EPYC 7763 64-Core Processor"
    assert facts.host.gcc_version == "11.4.0"
    assert facts.cuda.nvcc_path == "" and facts.cuda.toolkits[0].path == ""
    assert _cuda(facts) == "12.6.85 (nvcc, as the report shows)"
    assert "gcc 11.4.0" in _host(facts)


def test_jax_devices_without_a_plugin_listing_are_not_no_plugin():
    facts = parse_text(JAX_BLOCK)
    assert state_of(facts, "frameworks.jax.plugins")[0] is State.UNOBSERVED
    assert _jax(facts) == "jax 0.4.33, jaxlib 0.4.33 (8 CUDA device(s) seen by JAX)"


def test_pip_list_of_jax_without_plugin_is_a_known_absence():
    facts = parse_text("Package  Version\n-------- -------\njax      0.4.33\njaxlib   0.4.33\n"
                       "numpy    1.26.4\n")
    assert state_of(facts, "frameworks.jax.plugins")[0] is State.OBSERVED
    assert facts.frameworks.jax.plugins == ()


def test_could_not_collect_build_cuda_with_torch_imported_is_the_cpu_build():
    """collect_env prints a None torch.version.cuda as "Could not collect" (replace_nones)."""
    text = COLLECT_ENV.replace("PyTorch version: 2.5.0+cu124", "PyTorch version: 1.3.1") \
        .replace("CUDA used to build PyTorch: 12.4", "CUDA used to build PyTorch: Could not collect")
    facts = parse_text(text)
    torch = facts.frameworks.torch
    assert torch.cuda is None and state_of(facts, "frameworks.torch.cuda")[0] is State.OBSERVED


def test_a_bare_torch_version_is_build_unknown():
    """A report naming only 'torch==2.9.1' (no +local, no OS) says nothing of its build."""
    facts = parse_text("torch==2.9.1\nnumpy==2.1.3\n")
    torch = facts.frameworks.torch
    assert torch is not None
    assert torch.cuda is not None or \
        state_of(facts, "frameworks.torch.cuda")[0] is State.UNOBSERVED


def test_pip_show_block_is_one_distribution_not_a_listing():
    text = ("Name: jaxlib\nVersion: 0.4.26\nSummary: XLA library for JAX\n"
            "Location: /home/u/venv/lib/python3.10/site-packages\nRequires: numpy, scipy\n")
    facts = parse_text(text)
    assert facts.packages.get("jaxlib").version.public == "0.4.26"
    assert str(facts.host.python_version) == "3.10" and facts.host.os == "Linux"
    # pip show jaxlib lists no plugins
    assert state_of(facts, "frameworks.jax.plugins")[0] is State.UNOBSERVED


def test_a_cuda_jaxlib_is_not_called_cpu_only():
    # a Colab `pip list | grep` of jax 0.4.23 with the old CUDA jaxlib wheel
    facts = parse_text("jax                              0.4.23\n"
                       "jaxlib                           0.4.23+cuda12.cudnn89\n"
                       "torch                            2.2.1+cu121\n")
    assert "CPU only" not in _jax(facts) and "CUDA jaxlib" in _jax(facts)


def test_an_xpu_torch_is_not_called_cpu_only():
    # collect_env head of pytorch/pytorch#137846 (Intel Data Center GPU Max 1550)
    facts = parse_text("PyTorch version: 2.8.0.dev20250516+xpu\nIs debug build: False\n"
                       "CUDA used to build PyTorch: None\nOS: Ubuntu 22.04.4 LTS (x86_64)\n"
                       "Is XPU available: True\n")
    from envdoctor.outputs.summary import _torch
    assert _torch(facts) == "2.8.0.dev20250516+xpu (Intel XPU build)"
