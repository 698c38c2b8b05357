"""What a framework printed about its GPU, pasted into an issue, is that framework's observation.

Real lines from public threads (URL beside each). A line is read only where its wording
states the fact: torch's "driver too old (found version N)" gives the driver's CUDA level and
torch's own verdict; its old-GPU warning gives the GPU, its capability and torch's minimum;
jax's CPU fallback says JAX runs on the CPU. Lines that only look alike state nothing.
"""

from __future__ import annotations

from envdoctor import pipeline
from envdoctor.parsers import parse_text

# https://github.com/RangiLyu/nanodet/issues/216 (title and body: the message alone)
NANODET = ("RuntimeError: The NVIDIA driver on your system is too old (found version 10010). "
           "Please update you\n")
# https://github.com/lllyasviel/Fooocus/issues/1313 (the message and nvidia-smi's first line)
FOOOCUS = """RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver.

Ubuntu 21.04
Nvidia GeForce RTX 3050 laptop GPU

-nvidia-smi

+-----------------------------------------------------------------------------+
| NVIDIA-SMI 470.86       Driver Version: 470.86       CUDA Version: 11.4
|-------------------------------+----------------------+----------------------+
"""
# https://github.com/lllyasviel/stable-diffusion-webui-forge/issues/2053 (its title: no version)
FORGE_TITLE = "RuntimeError: The NVIDIA driver on your system is too old (please help)\n" \
    "torch==2.3.1\n"
# https://github.com/neuralhydrology/neuralhydrology/issues/43: torch's warning template pasted
# unformatted, next to nvidia-smi with two Tesla K20m
NEURALHYDROLOGY = """Found GPU%d %s which is of cuda capability %d.%d.
PyTorch no longer supports this GPU because it is too old.
The minimum cuda capability supported by this library is %d.%d.

GPU info:
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 450.51.06    Driver Version: 450.51.06    CUDA Version: 11.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  Tesla K20m          Off  | 00000000:03:00.0 Off |                    0 |
| N/A   23C    P0    46W / 225W |      0MiB /  4743MiB |      0%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
"""
# torch/cuda/__init__.py's old_gpu_warn as pytorch/pytorch#56552 quotes it, filled in as torch
# prints it for the first K20m of the table above
K20M_WARNING = """    Found GPU0 Tesla K20m which is of cuda capability 3.5.
    PyTorch no longer supports this GPU because it is too old.
    The minimum cuda capability supported by this library is 3.7.
"""
# https://github.com/hollowstrawberry/kohya-colab/issues/133: the warning on Colab, where the
# training (torch) used the GPU; nothing names a GPU in the text
KOHYA = ('I\'ve noticed since yesterday i get a line in the script of the Colab page: "An NVIDIA '
         'GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. '
         'Falling back to cpu."\n')
# https://github.com/CDCgov/cfa-variant-forecasting-2026/issues/20 (the full warning)
JAX_WARNING = ("An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not "
               "installed. Falling back to cpu.\n")


def loud(facts) -> dict[str, str]:
    return {f.id: f.title for f in pipeline.diagnose(facts).findings
            if f.severity.value in ("error", "warning")}


def test_driver_too_old_alone_is_the_drivers_cuda_level_and_torchs_verdict():
    facts = parse_text(NANODET)
    assert str(facts.nvidia.cuda_driver_version) == "10.1"
    assert facts.live["torch"].cuda_available is False
    assert [d.code for d in facts.live["torch"].diagnoses] == ["ECUDA005"]
    title = loud(facts)["driver-too-old-for-framework-cuda"]
    assert "(CUDA 10.1 level)" in title and "found version 10010" in title


def test_driver_too_old_next_to_nvidia_smi_names_the_driver():
    facts = parse_text(FOOOCUS)
    title = loud(facts)["driver-too-old-for-framework-cuda"]
    assert title.startswith("NVIDIA driver 470.86 is too old for torch")
    finding = next(f for f in pipeline.diagnose(facts).findings if f.code == "DRV001")
    assert "whl/cpu" not in finding.fix  # a wheel for this driver is a CUDA one, never CPU


def test_the_message_without_its_version_states_nothing():
    facts = parse_text(FORGE_TITLE + "nvidia-smi\n| NVIDIA-SMI 560.94   Driver Version: 560.94"
                       "   CUDA Version: 12.6 |\n")
    assert str(facts.nvidia.cuda_driver_version) == "12.6"  # nvidia-smi's, not the message's
    assert "torch" not in facts.live
    assert "driver-too-old-for-framework-cuda" not in loud(facts)


def test_torchs_minimum_capability_makes_an_older_gpu_missing():
    facts = parse_text(NEURALHYDROLOGY.split("GPU info:")[1] + K20M_WARNING)
    assert facts.live["torch"].cc_range == ("3.7", "")
    assert "Tesla K20m (sm_35)" in loud(facts)["gpu-arch-missing-from-torch-wheel"]


# https://github.com/lucasxlu/ComboLoss/issues/3 (the warning as torch 1.x printed it)
SM86_WARNING = """NVIDIA GeForce RTX 3080 Laptop GPU with CUDA capability sm_86 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70.
If you want to use the NVIDIA GeForce RTX 3080 Laptop GPU GPU with PyTorch, please check the instructions at https://pytorch.org/get-started/locally/
"""


def test_a_gpu_above_the_arch_list_alone_is_gpu001():
    facts = parse_text(SM86_WARNING)
    assert facts.live["torch"].arch_list == ("sm_37", "sm_50", "sm_60", "sm_70")
    assert "(sm_86)" in loud(facts)["gpu-arch-missing-from-torch-wheel"]


def test_the_long_wording_of_the_arch_list_is_read_too():
    # "installation supports": the same sentence as it is retyped and as some builds word it
    facts = parse_text(SM86_WARNING.replace("install supports", "installation supports"))
    assert facts.live["torch"].arch_list == ("sm_37", "sm_50", "sm_60", "sm_70")
    assert "gpu-arch-missing-from-torch-wheel" in loud(facts)


def test_an_unformatted_warning_template_states_no_capability():
    facts = parse_text(NEURALHYDROLOGY)
    assert "torch" not in facts.live
    assert "gpu-arch-missing-from-torch-wheel" not in loud(facts)


def test_jax_falling_back_to_cpu_is_jax_on_the_cpu():
    facts = parse_text(KOHYA + "jax==0.4.26\n")
    jax = facts.live["jax"]
    assert [d.kind for d in jax.devices] == ["cpu"] and jax.cuda_available is False
    assert facts.frameworks.jax is not None
    assert not loud(facts)  # no GPU named in the text: no verdict about one


def test_jax_on_the_cpu_next_to_an_nvidia_gpu_is_jax001():
    facts = parse_text(JAX_WARNING + NEURALHYDROLOGY.split("GPU info:")[1])
    assert "jaxlib-without-cuda-plugin-on-gpu-host" in loud(facts) or \
        facts.host.os != "Linux"  # JAX001 is Linux-only: the table does not say the OS


NUMPY_WARNING = """A module that was compiled using NumPy 1.x cannot be run in
NumPy 2.0.2 as it may crash. To support both 1.x and 2.x
versions of NumPy, modules must be compiled with NumPy 2.0.
Some module may need to rebuild instead e.g. with 'pybind11>=2.12'.
"""
# https://github.com/jy0205/Pyramid-Flow/issues/3 shape (held out): the traceback that follows
# runs through torch/__init__.py; here the frame lines of pytorch/pytorch#132179's report
TORCH_TRACEBACK = """Traceback (most recent call last):  File "gen.py", line 1, in <module>
    import torch
  File "/venv/lib/python3.10/site-packages/torch/__init__.py", line 1382, in <module>
    from .functional import *  # noqa: F403
"""
# https://github.com/TorchDSP/torchsig/issues/238: the same warning, printed by opencv
# ("it is related to the version of opencv-python"), no torch import around it
TORCHSIG = ("**Describe the bug**\n" + NUMPY_WARNING +
            "\n**To Reproduce**\nusing venv\ngit clone\npip install -e . \nrun example notebook\n")


def test_numpy_abi_warning_with_torchs_import_is_torchs_observation():
    facts = parse_text(NUMPY_WARNING + "\n" + TORCH_TRACEBACK)
    assert [d.code for d in facts.live["torch"].warnings] == ["ENUMPY001"]
    assert str(facts.packages.get("numpy").version) == "2.0.2"
    assert "numpy2-with-numpy1-builds" in loud(facts)


def test_numpy_abi_warning_of_another_module_is_not_torchs():
    facts = parse_text(TORCHSIG + "torch==2.3.1\n")
    assert "torch" not in facts.live
    assert "numpy2-with-numpy1-builds" not in loud(facts)


# a hand-written system block: one item a line, the GPU model alone on its line as in the
# Fooocus#1313 report above ("Nvidia GeForce RTX 3050 laptop GPU")
SYSTEM_BLOCK = """System:
windows 10 home
ryzen 5800x
RTX 3080 12gb
"""


def test_a_gpu_model_on_its_own_line_is_the_reporters_gpu():
    facts = parse_text(FOOOCUS)
    assert [g.name for g in facts.nvidia.gpus] == ["NVIDIA GeForce RTX 3050 Laptop GPU"] or \
        facts.nvidia.gpus[0].cc is not None
    part = parse_text(SYSTEM_BLOCK + "PyTorch version: 2.0.0+cpu\n")
    assert [(g.name, g.memory_total_mb) for g in part.nvidia.gpus] == [("RTX 3080", 12288)]
    assert "torch-cpu-build-on-gpu-host" in loud(part)


def test_a_short_comma_list_states_its_items():
    facts = parse_text("CUDA 12.1, torch 2.3.1, RTX 4090\n")
    assert [g.name for g in facts.nvidia.gpus] == ["RTX 4090"]
    assert str(facts.frameworks.torch.version) == "2.3.1"
    assert not loud(facts)  # a bare torch version says nothing of its build: no verdict


def test_a_gpu_named_in_a_sentence_is_not_the_reporters():
    facts = parse_text("I tried it on an A100 at work and on my RTX 4090, both fail.\n"
                       "torch==2.3.1\nnumpy==1.26.4\n")
    assert facts.nvidia.probe.status.value == "unknown"


# https://github.com/icip-cas/AutoAlign/issues/25 (torch.utils.cpp_extension refuses to build)
CPP_EXTENSION = """RuntimeError:
      The detected CUDA version (11.8) mismatches the version that was used to compile
      PyTorch (12.4). Please make sure to use the same CUDA versions.
"""
# https://github.com/deepspeedai/DeepSpeed/issues/2707 (same major: DeepSpeed accepts it)
DEEPSPEED_SAME_MAJOR = ("Installed CUDA version 11.5 does not match the version torch was "
                        "compiled with 11.6 but since the APIs are compatible, accepting this "
                        "combination\n")


def info(facts) -> set[str]:
    return {f.id for f in pipeline.diagnose(facts).findings}


def test_an_extension_build_refusal_states_both_cuda_versions():
    facts = parse_text(CPP_EXTENSION)
    assert str(facts.cuda.nvcc_version) == "11.8" and str(facts.frameworks.torch.cuda) == "12.4"
    assert "nvcc-major-differs-from-torch" in info(facts)


def test_a_minor_difference_deepspeed_accepts_is_no_finding():
    facts = parse_text(DEEPSPEED_SAME_MAJOR + "torch==1.11.0\n")
    assert str(facts.cuda.nvcc_version) == "11.5"
    assert "nvcc-major-differs-from-torch" not in info(facts)


def test_torch_named_as_the_cpu_build_in_prose():
    # "Pytorch 1.7.1 CPU, RTX 2060" as reporters write it (the brief's own example shape)
    facts = parse_text("Windows 10, Pytorch 1.7.1 CPU, RTX 2060\n")
    assert facts.frameworks.torch.cuda is None and str(facts.frameworks.torch.version) == "1.7.1"
    assert "torch-cpu-build-on-gpu-host" in loud(facts)


# https://github.com/google-research/deeplab2/issues/66 (TensorFlow's cuda_dnn.cc)
TF_CUDNN = ("2021-10-13 17:19:29.385716: E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] "
            "Loaded runtime CuDNN library: 8.0.4 but source was compiled with: 8.1.0.  CuDNN "
            "library needs to have matching major version and equal or higher minor version.\n")
# https://github.com/MIT-REALM/gcbfplus/issues/1 (JAX's own check)
JAX_CUDNN = ("CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was built "
             "against version 8906, which is newer. The copy of cuDNN that is installed must be "
             "at least as new as the version against which JAX was built.\n")
# https://github.com/bmaltais/kohya_ss/issues/2787: XLA's line alone, no framework named
XLA_ONLY = ("`E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:447] Loaded runtime CuDNN "
            "library: 8.7.0 but source was compiled with: 8.9.4.  CuDNN library needs to have "
            "matching major version and equal or higher minor version.`\nHow do I fix this error? "
            "torch==2.4.0\n")


def test_a_frameworks_cudnn_complaint_is_the_cudnn_it_loaded():
    tf = parse_text(TF_CUDNN).live["tensorflow"]
    assert (str(tf.cudnn), str(tf.built_cudnn)) == ("8.0.4", "8.1.0")
    assert "live-cudnn-differs-from-build" in loud(parse_text(TF_CUDNN))
    jax = parse_text(JAX_CUDNN)
    assert (str(jax.live["jax"].cudnn), str(jax.live["jax"].built_cudnn)) == ("8.6.0", "8.9.6")
    assert "live-cudnn-differs-from-build" in loud(jax)


def test_xlas_cudnn_line_without_its_framework_is_nobodys():
    from envdoctor.parsers import informal
    assert informal.parse(XLA_ONLY).live == {}


# https://github.com/JdeRobot/BehaviorMetrics/issues/385 (TensorFlow's log; no GPU named)
TF_SKIPPED = """tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcusolver.so.11'; dlerror: libcusolver.so.11: cannot open shared object file: No such file or directory
2022-07-10 15:08:09.276131: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file: No such file or directory
2022-07-10 15:08:09.276917: W tensorflow/core/common_runtime/gpu/gpu_device.cc:1850] Cannot dlopen some GPU libraries. Please make sure the missing libraries mentioned above are installed properly if you would like to use GPU.
Skipping registering GPU devices...
"""
# https://github.com/tensorflow/tensorflow/issues/110956: the template names the GPU
TF_TEMPLATE_A100 = """### TensorFlow version

2.20.0

### OS platform and distribution

20.04

### GPU model and memory

A100,80g
"""


def test_tensorflow_skipping_its_gpu_is_tensorflow_seeing_none():
    facts = parse_text(TF_SKIPPED)
    tf = facts.live["tensorflow"]
    assert tf.cuda_available is False and "libcudnn.so.8" in tf.gpu_error
    assert not loud(facts)  # no GPU named: nothing to be blind to
    both = parse_text(TF_TEMPLATE_A100 + TF_SKIPPED)
    assert "live-gpu-not-seen-by-framework" in loud(both)
    assert "libcudnn.so.8" in loud(both)["live-gpu-not-seen-by-framework"]


# https://github.com/Comfy-Org/ComfyUI/issues/5281
COMFY_NO_CUDA = """I'm encountering an AssertionError stating that "Torch not compiled with CUDA enabled" despite having reinstalled PyTorch. Here are my system specifications:

- Laptop Model: Dell G5 5500
- GPU: NVIDIA GeForce RTX 2070
- Windows Version: 24H2
- CUDA Version: 12.7
"""
# https://github.com/Vaibhavs10/insanely-fast-whisper/issues/41: the error came from another
# environment than the torch the reporter printed
WHISPER_TWO_ENVS = """`AssertionError: Torch not compiled with CUDA enabled`

Although I do have the` torch (2.1)`  and `cuda (12.1)` :

```
>>> print("PyTorch version:", torch.__version__)
PyTorch version: 2.1.0+cu121
>>> print("Is CUDA available:", torch.cuda.is_available())
Is CUDA available: True
```
My GPU is nvidia RTX3060 with the latest drivers.
"""


def test_torch_not_compiled_with_cuda_is_a_cpu_build():
    facts = parse_text(COMFY_NO_CUDA)
    assert facts.frameworks.torch is not None and facts.frameworks.torch.cuda is None
    assert "torch-cpu-build-on-gpu-host" in loud(facts)


def test_a_cuda_build_the_report_shows_wins_over_the_message():
    facts = parse_text(WHISPER_TWO_ENVS)
    assert str(facts.frameworks.torch.cuda) == "12.1"
    assert "torch-cpu-build-on-gpu-host" not in loud(facts)


# https://github.com/NVIDIA/tensorflow/issues/83 (nvidia-tensorflow 1.15.5, RTX 3060)
TF_INSUFFICIENT = """- TensorFlow version:1.15.5
- CUDA/cuDNN version: cuda11.3，cudnn8.2.0
NVIDIA GeForce RTX 3060
>>> import tensorflow as tf
tensorflow.python.framework.errors_impl.InternalError: cudaGetDevice() failed. Status: CUDA driver version is insufficient for CUDA runtime version
"""


def test_an_insufficient_driver_is_the_frameworks_own_driver_verdict():
    facts = parse_text(TF_INSUFFICIENT)
    assert facts.live["tensorflow"].cuda_available is False
    title = loud(facts)["driver-too-old-for-framework-cuda"]  # the framework's own verdict
    assert title.startswith("NVIDIA driver (version not reported) is too old for tensorflow")
    with_driver = parse_text(TF_INSUFFICIENT + "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01"
                             "    CUDA Version: 11.4     |\n")
    title = loud(with_driver)["driver-too-old-for-framework-cuda"]
    assert "470.82.01" in title and "insufficient" in title


def test_the_same_words_with_no_framework_named_are_nobodys():
    from envdoctor.parsers import informal
    part = informal.parse("Error: CUDA driver version is insufficient for CUDA runtime version\n")
    assert part.live == {}


# https://github.com/YanWenKun/ComfyUI-Docker/issues/60: nvidia-smi sees the GPU, torch in the
# container does not
TORCH_NO_GPUS = """# RuntimeError: No CUDA GPUs are available

❯ docker run --rm --runtime=nvidia --gpus all ubuntu nvidia-smi

Sat Sep 14 01:04:28 2024
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 555.58.02              Driver Version: 555.58.02      CUDA Version: 12.5     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 4060 Ti     Off |   00000000:01:00.0 Off |                  N/A |
"""


def test_torch_seeing_no_gpu_next_to_a_gpu_is_live004():
    facts = parse_text(TORCH_NO_GPUS)
    assert facts.live["torch"].cuda_available is False
    assert "No CUDA GPUs are available" in loud(facts)["live-gpu-not-seen-by-framework"]
    alone = parse_text("RuntimeError: No CUDA GPUs are available\ntorch==2.3.1\n")
    assert not alone or "live-gpu-not-seen-by-framework" not in loud(alone)


# TensorFlow's failed dlopen of its CUDA libraries, told in words (tensorflow/tensorflow#39132,
# a comment: "Even Cuda 11 successfully working but tensorflow 2.3 looking cuda 10.1"), after a
# template that states TF 2.3 and CUDA 11.0
TF_LOOKING_PROSE = """### TensorFlow version

2.3.0

### CUDA/cuDNN version

11.0

Even Cuda 11 successfully working but tensorflow 2.3 looking cuda 10.1
"""


def test_tensorflow_looking_for_other_cuda_in_words_is_tensorflow_seeing_none():
    facts = parse_text(TF_LOOKING_PROSE)
    assert facts.live["tensorflow"].cuda_available is False
    assert "tensorflow-cuda-version-mismatch" in loud(facts)  # TF 2.3 is built for CUDA 10.1
    # the same words about another library, or TF named with no search: nothing read
    for text in ("pip is looking for cuda 11 wheels", "tensorflow works; I am looking for CUDA 12 docs"):
        parsed = parse_text("### TensorFlow version\n\n2.3.0\n\n" + text)
        assert parsed is None or "tensorflow" not in parsed.live


# TensorFlow not seeing its GPU, said in words (tensorflow/tensorflow#70845's title, #88122's)
def test_tensorflow_not_detecting_the_gpu_in_words_is_tensorflow_seeing_none():
    for said in ("TensorFlow is not detecting the GPU, whereas PyTorch is successfully "
                 "identifying it.", "tensorflow cannot detect GPU with cuda 12.8",
                 "I can't get TensorFlow to use my GPU"):
        facts = parse_text("### TensorFlow version\n\n2.13.0\n\n### CUDA/cuDNN version\n\n12.2\n\n" + said)
        assert facts is not None and facts.live["tensorflow"].cuda_available is False, said
    for said in ("TensorFlow does not detect anything wrong", "torch cannot detect my GPU"):
        facts = parse_text("### TensorFlow version\n\n2.13.0\n\n### CUDA/cuDNN version\n\n12.2\n\n" + said)
        assert facts is None or "tensorflow" not in facts.live, said


# Native Windows with CUDA 12 and TensorFlow blind to the GPU, in words and with no TF release
# (tensorflow/tensorflow#88122-style prose, moved to Windows): no release can use the GPU there
def test_windows_cuda_12_and_tensorflow_blind_in_words_is_win001():
    text = ("I have Windows 10 and CUDA 12.4 installed with an RTX 4070.\n"
            "TensorFlow doesn't detect my GPU.")
    facts = parse_text(text)
    assert facts is not None and facts.host.os == "Windows"
    assert [str(v) for v in facts.cuda.versions] == ["12.4"]
    assert "tensorflow-gpu-on-native-windows" in loud(facts)
    # the same words from inside WSL2: not native Windows, nothing read as Windows
    wsl = parse_text(text.replace("Windows 10", "Windows 10 with WSL2"))
    assert wsl is None or wsl.host.os != "Windows"
    # CUDA 11.2 could serve TF 2.10 natively: the cause is not known, nothing said
    assert "tensorflow-gpu-on-native-windows" not in loud(parse_text(
        text.replace("CUDA 12.4", "CUDA 11.2")))


# an ultralytics banner drops torch's +cu label ("torch-1.13.0 CUDA:0 (...)") on Windows: torch
# saw the GPU, so it is no PyPI CPU wheel (TORCH001 would be a false alarm)
def test_a_bare_torch_that_saw_cuda_on_windows_is_not_a_cpu_build():
    facts = parse_text("Ultralytics YOLOv8.0.18  Python-3.9.13 torch-1.13.0 CUDA:0 "
                       "(NVIDIA GeForce RTX 3090, 24576MiB)\n- OS Windows 10\n")
    assert facts is not None and facts.host.os == "Windows"
    assert "torch-cpu-build-on-gpu-host" not in loud(facts)
