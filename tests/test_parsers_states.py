"""A pasted report states some facts; everything else it did not observe.

Each test is a real shape of pasted text (sources in the strings' comments) and asserts the
state of the fields an absence rule would read: not stated is *not observed*, "not installed"
is *absent*, what is shown is *observed*.
"""

from __future__ import annotations

from envdoctor import pipeline
from envdoctor.facts.states import State, state_of
from envdoctor.parsers import parse_text

# collect_env head of https://github.com/vllm-project/vllm/issues/13497 (torch only)
COLLECT_ENV = """PyTorch version: 2.5.1+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
OS: Ubuntu 22.04.5 LTS (x86_64)
Python version: 3.10.12 (main, Jan 17 2025, 14:35:34) [GCC 11.4.0] (64-bit runtime)
Is CUDA available: True
GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090
Nvidia driver version: 535.183.01
"""
# transformers env of https://github.com/huggingface/sentence-transformers/issues/1975
HF_ENV = """- transformers version: 4.30.0.dev0
- Platform: Linux-4.14.81.bm.22-amd64-x86_64-with-glibc2.24
- Python version: 3.9.16
- PyTorch version (GPU?): 2.0.1+cu117 (True)
- Tensorflow version (GPU?): not installed (NA)
- Jax version: not installed
"""
# TF issue template of https://github.com/tensorflow/tensorflow/issues/38090 (GPU, no driver)
TF_TEMPLATE = """- OS Platform and Distribution: Windows 10
- TensorFlow installed from: pip
- TensorFlow version (use command below): 2.1.0
- Python version: 3.7.7
- CUDA/cuDNN version: 10.2.89
- GPU model and memory: Nvidia GTX 1650
"""


def state(facts, path):
    return state_of(facts, path)[0]


def test_frameworks_a_report_does_not_name_are_not_observed():
    facts = parse_text(COLLECT_ENV)
    assert state(facts, "frameworks.torch.cuda") is State.OBSERVED
    for name in ("tensorflow", "jax", "keras"):
        assert state(facts, f"frameworks.{name}") is State.UNOBSERVED, name
    assert facts.frameworks.tensorflow is None  # the stored default, not a verdict


def test_not_installed_in_a_template_is_a_confirmed_absence():
    facts = parse_text(HF_ENV)
    assert state(facts, "frameworks.tensorflow") is State.OBSERVED
    assert facts.frameworks.tensorflow is None
    assert state(facts, "frameworks.jax") is State.OBSERVED and facts.frameworks.jax is None
    assert state(facts, "frameworks.keras") is State.UNOBSERVED


def test_a_gpu_without_a_driver_line_leaves_the_driver_not_observed():
    facts = parse_text(TF_TEMPLATE)
    assert state(facts, "nvidia.gpus") is State.STATED  # a person filled the template in
    assert state(facts, "nvidia.driver_version") is State.UNOBSERVED
    ids = {f.id for f in pipeline.diagnose(facts).findings}
    assert "gpu-on-pci-without-driver" not in ids  # DRV005 needs a confirmed "no driver"


def test_a_driver_line_without_gpus_leaves_the_gpus_not_observed():
    # the only nvidia-smi line quoted in https://github.com/bold-lab-ai/JaxMARL/issues/134
    facts = parse_text("torch==2.5.1\nNVIDIA-SMI 560.35.03   Driver Version: 560.35.03   "
                       "CUDA Version: 12.6\n")
    assert str(facts.nvidia.driver_version) == "560.35.03"
    assert state(facts, "nvidia.gpus") is State.UNOBSERVED


def test_host_fields_not_stated_are_not_observed():
    facts = parse_text(TF_TEMPLATE)
    assert facts.host.os == "Windows"
    assert state(facts, "host.arch") is State.UNOBSERVED
    assert state(facts, "host.python_version") is State.STATED  # written, not printed


def test_libraries_and_environment_variables_are_seen_in_part():
    facts = parse_text(COLLECT_ENV + "cuDNN version: /usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.0\n"
                       "CUDA_VISIBLE_DEVICES=0\n")
    assert state(facts, "libraries.libraries") is State.UNOBSERVED  # some, never all
    assert [lib.name for lib in facts.libraries.libraries] == ["cudnn"]


def test_a_listing_is_some_of_the_installed_distributions():
    # collect_env's "Versions of relevant libraries" keeps a few names (vllm-project/vllm#9183)
    facts = parse_text(COLLECT_ENV + "Versions of relevant libraries:\n[pip3] numpy==1.26.4\n"
                       "[pip3] torch==2.5.1\n")
    assert state(facts, "packages.distributions") is State.UNOBSERVED
    assert str(facts.packages.get("numpy").version) == "1.26.4"
    from envdoctor.engine import expr
    from envdoctor.engine.vocabulary import names_for
    names = {**expr.BUILTINS, **names_for(facts)}
    assert expr.Evaluator(names)(expr.compile_expr("has('torch')")) is True
    assert expr.Evaluator(names)(expr.compile_expr("not has('tqdm')")) is expr.UNKNOWN


# sglang's `python3 -m sglang.check_env` (https://github.com/sgl-project/sglang/issues/3685)
SGLANG_H20 = """Python: 3.11.9 (main, Sep 24 2024, 12:12:02) [GCC 8.5.0 20210514 (Tencent 8.5.0-23)]
CUDA available: True
GPU 0,1,2,3,4,5,6,7: NVIDIA H20
GPU 0,1,2,3,4,5,6,7 Compute Capability: 9.0
CUDA_HOME: /usr/local/cuda
NVCC: Cuda compilation tools, release 12.4, V12.4.131
CUDA Driver Version: 535.161.08
PyTorch: 2.5.1+cu124
flashinfer: 0.2.1.post2+cu124torch2.5
numpy: 1.26.4
"""
# https://github.com/sgl-project/sglang/issues/5389: a model name that ends in its memory
SGLANG_A100 = "GPU 0: NVIDIA A100-SXM4-80GB\nCUDA Driver Version: 535.54.03\nPyTorch: 2.5.1+cu124\n"


def test_sglang_check_env_lists_every_gpu_it_names():
    facts = parse_text(SGLANG_H20)
    assert [g.name for g in facts.nvidia.gpus] == ["NVIDIA H20"] * 8
    assert str(facts.nvidia.driver_version) == "535.161.08"
    assert str(facts.cuda.nvcc_version) == "12.4.131"
    assert not {f.id for f in pipeline.diagnose(facts).findings
                if f.severity.value in ("error", "warning")}


def test_a_gpu_name_keeps_the_memory_that_is_part_of_it():
    facts = parse_text(SGLANG_A100)
    assert [g.name for g in facts.nvidia.gpus] == ["NVIDIA A100-SXM4-80GB"]


# https://github.com/pytorch/pytorch/issues/143861: collect_env before torch was built
COLLECT_ENV_NO_TORCH = """Collecting environment information...
PyTorch version: N/A
Is debug build: N/A
CUDA used to build PyTorch: N/A
ROCM used to build PyTorch: N/A

OS: Ubuntu 20.04.6 LTS (aarch64)
Python version: 3.8.10 (default, Nov  7 2024, 13:10:47)  [GCC 9.4.0] (64-bit runtime)
Python platform: Linux-5.10.216-tegra-aarch64-with-glibc2.29
Is CUDA available: N/A
CUDA runtime version: 11.4.315
GPU models and configuration: Could not collect
Nvidia driver version: Could not collect
"""


def test_torch_na_without_a_package_list_is_not_an_import_failure():
    facts = parse_text(COLLECT_ENV_NO_TORCH)
    assert "torch" not in facts.live
    assert not {f.id for f in pipeline.diagnose(facts).findings
                if f.severity.value in ("error", "warning")}
    from envdoctor.outputs.summary import _driver
    assert "None" not in _driver(facts)


# https://github.com/Doodleverse/segmentation_gym/issues/137: Windows 11 hosts WSL2, where TF ran
WSL_TEMPLATE = """OS: Windows 11
WSL2: Ubuntu 22.04.2 LTS
CUDA: nvcc 12.2.91
TensorFlow version: 2.12.0
GPU model and memory: NVIDIA GeForce RTX 3060
"""
# https://github.com/ultralytics/yolov5/issues/13748
WSL_BULLETS = """- **OS:** Windows Subsystem for Linux (WSL2) - Ubuntu24.04
- **kernel** - 6.6.87.2-microsoft-standard-WSL2
- **Python:** 3.8.20
- **PyTorch:** 2.2.2+cu121
"""


def test_wsl_is_linux_not_native_windows():
    facts = parse_text(WSL_BULLETS)
    assert (facts.host.os, facts.host.wsl) == ("Linux", 2)
    facts = parse_text(WSL_TEMPLATE)
    assert facts.host.wsl == 2 and state(facts, "host.os") is State.UNOBSERVED
    ids = {f.id for f in pipeline.diagnose(facts).findings}
    assert "tensorflow-gpu-on-native-windows" not in ids
    native = parse_text(WSL_TEMPLATE.replace("WSL2: Ubuntu 22.04.2 LTS\n", ""))
    assert "tensorflow-gpu-on-native-windows" in {f.id for f in pipeline.diagnose(native).findings}


# https://github.com/ShivamShrirao/diffusers/issues/18: WSL 1's kernel is "4.4.0-<Windows build>-Microsoft"
WSL1_ENV = """- `diffusers` version: 0.4.0.dev0
- Platform: Linux-4.4.0-19041-Microsoft-x86_64-with-glibc2.31
- Python version: 3.9.7
- PyTorch version (GPU?): 1.12.1+cu116 (False)
"""


def test_a_wsl1_kernel_is_wsl_1_and_gets_no_gpu():
    facts = parse_text(WSL1_ENV)
    assert (facts.host.os, facts.host.wsl) == ("Linux", 1)
    assert "wsl1-has-no-gpu" in {f.id for f in pipeline.diagnose(facts).findings}
    wsl2 = parse_text(WSL1_ENV.replace("4.4.0-19041-Microsoft", "5.15.153.1-microsoft-standard-WSL2"))
    assert wsl2.host.wsl == 2
    assert "wsl1-has-no-gpu" not in {f.id for f in pipeline.diagnose(wsl2).findings}


def test_a_template_naming_the_gpu_package_is_tensorflow_gpu():
    # https://github.com/tensorflow/tensorflow/issues/33003: "TensorFlow version ...: 2.0 GPU"
    facts = parse_text("- OS Platform and Distribution (e.g., Linux Ubuntu 16.04): Ubuntu 18.04\n"
                       "- TensorFlow version (use command below): 2.0 GPU\n"
                       "- GPU model and memory: GeForce RTX 2080 Ti\n")
    assert facts.frameworks.tensorflow.distribution == "tensorflow-gpu"
    assert "tensorflow-package-cpu-only" not in {f.id for f in pipeline.diagnose(facts).findings}


# `python -m xformers.info` (https://github.com/facebookresearch/xformers/issues/630)
XFORMERS_INFO = """python3 -m xformers.info
xFormers 0.0.15+6cd1b36.d20230110
memory_efficient_attention.cutlassF:               available
memory_efficient_attention.cutlassB:               available
swiglu.fused.p.cpp:                                available
is_triton_available:                               True
is_functorch_available:                            False
pytorch.version:                                   1.12.1+cu113
pytorch.cuda:                                      available
gpu.compute_capability:                            6.1
gpu.name:                                          NVIDIA GeForce GTX 1060 6GB
"""


def test_xformers_info_states_torch_and_the_gpu():
    facts = parse_text(XFORMERS_INFO)
    assert str(facts.frameworks.torch.version) == "1.12.1+cu113"
    assert [g.name for g in facts.nvidia.gpus] == ["NVIDIA GeForce GTX 1060"]
    assert facts.live["torch"].cuda_available is True
    assert not {f.id for f in pipeline.diagnose(facts).findings
                if f.severity.value in ("error", "warning")}
