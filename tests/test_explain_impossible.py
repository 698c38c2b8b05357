"""The impossibility a text states in prose (envdoctor.explain.impossible): one GPU and builds
it cannot run, or one Python no framework release has wheels for; nothing when ambiguous."""

from __future__ import annotations

import re

import pytest

from envdoctor.engine import redos
from envdoctor.explain import diagnose_text, primary
from envdoctor.explain import gpustated
from envdoctor.explain.impossible import PATTERNS, stated_impossibility

if hasattr(re, "_parser"):
    from re import _parser as sre_parse
else:  # pragma: no cover - Python 3.10
    import sre_parse


@pytest.mark.parametrize("pattern", PATTERNS + gpustated.PATTERNS, ids=lambda p: p.pattern[:30])
def test_every_pattern_is_linear(pattern):
    assert redos.problem_in(sre_parse.parse(pattern.pattern)) is None


@pytest.mark.parametrize(("text", "code"), [
    ("My RTX 5080 does nothing with torch 2.3.1+cu121, is_available() is False.", "ECUDA004"),
    # no official build of 1.3.1-2.7 has code below 3.7 ([[binary_floor]]): the variant need
    # not be stated
    ("Our Tesla K40m box fails every CUDA op since we moved to torch 1.7.1.", "ECUDA004"),
    ("The CUDA 13 image fails on our Tesla V100 nodes; nothing loads.", "ECUDA003"),
    ("Python 3.15 here: pip install tensorflow says no matching distribution", "EPIP001"),
    # the pin the text states limits the releases: torch 2.1 has no cp313 wheel
    ("setup.py pins torch==2.1.2 and pip install fails on Python 3.13", "EPIP001"),
    ("requirements say pytorch>=1.13, <2.2; it does not install under Python 3.12.1", "EPIP001"),
    # the text's own list of wheel tags, and a Python outside it
    ("Our lockfile does not resolve on CPython 3.14: torch 2.3 only has wheels for cp38-cp312",
     "EPIP001"),
    # a TensorFlow release names its build's CUDA (tensorflow.toml): 1.14 is CUDA 10.0, which
    # predates Ampere; 2.20 is CUDA 12.5, which predates Blackwell (sm_120 needs 12.8)
    ("Since we moved to an A30, our TensorFlow 1.14.0 model crashes at the first step.",
     "ECUDA003"),
    ("tf 2.20 on my RTX 5080 fails with CUDA_ERROR_INVALID_HANDLE in every kernel", "ECUDA003"),
    # ds_report's own two lines name two torch releases (DeepSpeed's prebuilt ops are for one)
    ("torch version .................... 1.13.1+cu117\n"
     "deepspeed wheel compiled w. ...... torch 1.9, cuda 11.1\n", "EBUILD005"),
])
def test_a_stated_impossibility_is_named(text, code):
    found = stated_impossibility(text)
    assert found is not None and found[0] == code
    d = primary(diagnose_text(text))
    assert d is not None and d.code == code and d.notes


@pytest.mark.parametrize("text", [
    "RTX 5080 with torch 2.7.1+cu128 trains fine, but my loss is NaN.",       # compatible
    "Our Tesla K40m box fails every CUDA op with torch 1.3.0.",               # 1.3.0 kept 3.5
    "Our Tesla K80 box fails every CUDA op with torch 1.7.1.",                # 3.7 is built
    "A source build, torch 1.10.0a0+git36449ea, on a Tesla K40m fails.",      # own arch list
    "V100 fails with the CUDA 13 image but the cuda12 image works.",          # two builds
    "RTX 5090 and RTX 3090 in one box with torch 2.3.1+cu121.",               # two GPUs
    "Python 3.12: pip install tensorflow says no matching distribution",      # a wheel exists
    "Python 3.15 with tensorflow and torch: no matching distribution",        # two frameworks
    "NVIDIA GeForce RTX 5090, CUDA Version: 12.8 (driver 570), all good",     # driver ceiling
    "pip install torch fails on Python 3.12",                                 # a wheel exists
    "torch>=2.5 does not install on Python 3.13",                             # the pin has it
    "wheels only for cp310, cp311: Python 3.11 and torch do not work",        # inside the list
    "torch 2.3 only has wheels for cp38-cp312; Python 3.10 does not install",  # inside the span
    "Python 3.13 with torch: the loss does not converge",                     # nothing failed
    "TensorFlow 2.4 on an RTX 3090: nan loss after 3 epochs",  # CUDA 11.0 has sm_80, Ampere's
    "TensorFlow 1.14 works on the P40 but TensorFlow 2.5 fails on the A30",   # 2.5 has sm_80
    "TensorFlow 0.12 on an A30 fails",                        # a release the table does not know
    # ds_report: the same torch release, and a wheel built with no torch (no ops prebuilt)
    "torch version .......... 1.11.0+cu113\ndeepspeed wheel compiled w. ...... torch 1.11, cuda 11.3",
    "torch version .......... 2.3.0+cu121\ndeepspeed wheel compiled w. ...... torch 0.0, cuda 0.0",
])
def test_an_ambiguous_or_compatible_text_gets_no_answer(text):
    assert stated_impossibility(text) is None


@pytest.mark.parametrize(("text", "code"), [
    # a torch wheel named by its CUDA tag alone: every cu128 release dropped Pascal
    ("Kaggle's P100 with the image's torch (cu128): every CUDA call fails", "ECUDA004"),
    ("GTX1080Ti and a cu128 PyTorch: nothing runs on the GPU", "ECUDA004"),
    # a package's architecture floor (a yields_to table of the signatures), the GPU typed run
    # together or short ("RTX8000" is the Quadro RTX 8000, "T4" the Tesla T4, both Turing):
    # Dao-AILab/flash-attention#887 (title), Dao-AILab/flash-attention#1608 (prose)
    ("Hope one day flash-attention can support T4 GPU", "ECUDA016"),
    ("I am still using a Turing card (an RTX 2080 Ti) and keen to use FlashAttention-2; "
     "when might it support these GPUs?", "ECUDA016"),
    ("flash attention是否支持RTX8000", "ECUDA016"),
    ("vllm fails on my Tesla P40", "ECUDA016"),
])
def test_a_stated_impossibility_with_the_signatures_is_named(text, code):
    from envdoctor.explain import load_signatures
    found = stated_impossibility(text, load_signatures())
    assert found is not None and found[0] == code, found
    d = primary(diagnose_text(text))
    assert d is not None and d.code == code and d.notes


@pytest.mark.parametrize("text", [
    "RTX 4090 with torch cu118 works, but the loss is NaN",        # the variant has sm_89
    "P100 with torch cu126 fails",                                 # cu126 still has sm_60
    "flash-attn runs great on my RTX 3090, but the output is wrong",  # above the floor
    "flash attention 1 support turing? my T4 errors",              # FlashAttention 1.x runs there
    "does flash attention support the RTX 6000?",  # the Quadro (Turing) or the RTX 6000 Ada: unknown
    "we benchmark vllm on a P40 and a P100",                       # nothing asked or failed
])
def test_a_floor_or_variant_text_that_does_not_say_so_gets_no_answer(text):
    from envdoctor.explain import load_signatures
    assert stated_impossibility(text, load_signatures()) is None


@pytest.mark.parametrize(("text", "code"), [
    # pip compiles a package that publishes Windows wheels: no wheel fits this Python
    # (numpy/numpy#17646, Python 3.9 before numpy's 3.9 wheels; pydata/bottleneck#439, 3.12)
    ("building py_modules sources\ncreating build\\src.win-amd64-3.9\\numpy\\distutils\n"
     "error: Microsoft Visual C++ 14.0 is required. Get it with \"Build Tools for Visual Studio\"",
     "EPIP001"),
    ("Building wheel for bottleneck (pyproject.toml) ... error\n"
     "creating build\\lib.win-amd64-cpython-312\n"
     "error: Microsoft Visual C++ 14.0 or greater is required.", "EPIP001"),
    # a package with no Windows wheels at all, or none named: the compiler is the answer
    ("Building wheel for insightface (pyproject.toml) ... error\n"
     "error: Microsoft Visual C++ 14.0 or greater is required.", "EBUILD009"),
    ("error: Microsoft Visual C++ 14.0 or greater is required.", "EBUILD009"),
])
def test_msvc_required_for_a_package_with_windows_wheels_is_the_python(text, code):
    d = primary(diagnose_text(text))
    assert d is not None and d.code == code
    if code == "EPIP001":
        assert any("publishes Windows wheels" in n for n in d.notes)


# https://github.com/microsoft/WSL2-Linux-Kernel/issues/126 (the answer: GPU compute is not in
# build 19041, it came with a later build)
WSL_19041 = ("Since the NVIDIA GPU integration for WSL is now available and build 19041 "
             "(Windows 10 2004) is listed as a minimum requirement, I have attempted to install "
             "WSL 2 by following instructions available here.")


@pytest.mark.parametrize("text", [
    WSL_19041,
    "Is CUDA in WSL2 supported on my Windows 10 20H2 machine? nvidia-smi shows nothing",
])
def test_gpu_under_wsl_on_a_windows_build_before_21h2_is_named(text):
    d = primary(diagnose_text(text))
    assert d is not None and d.code == "EWSL004", text
    assert "19044" in " ".join(d.notes)


@pytest.mark.parametrize("text", [
    # a build that has GPU compute, a preview build above it, no WSL, no GPU
    "CUDA in WSL2 does not start on Windows 10 build 19045; nvidia-smi prints nothing",
    "Cannot use GPU support in WSL 2 on Windows 10 preview build 21327",
    "Windows 10 build 19041: CUDA samples fail to find the GPU in a Hyper-V VM",
    "WSL 2 on Windows 10 build 19041: apt-get update fails behind the proxy",
])
def test_wsl_texts_without_an_old_build_or_a_gpu_get_no_build_answer(text):
    found = stated_impossibility(text)
    assert found is None or found[0] != "EWSL004", text


# CuPy compiles its kernels at run time with NVRTC: the CUDA a CuPy text states for it (a pip
# nvrtc/runtime wheel, a cupy-cudaXYZ wheel, cupy.show_config(), conda's cudatoolkit, the issue
# template's CUDA line) against the one GPU, or the one architecture, the text names.
# cupy/cupy#9475 (show_config, the error lines left out): CUDA 13 dropped Pascal;
# xsuite/xsuite#684 (the error line left out): CUDA 11.8 predates Blackwell (sm_120 needs 12.8)
CUPY_9475 = ('GTX 1080 | "NVRTC_ERROR_INVALID_OPTION (5)"\n'
             "python -c 'import cupy; cupy.show_config()'\n"
             "CuPy Version                 : 13.6.0\n"
             "CUDA Build Version           : 13000\n"
             "CUDA Runtime Version         : 13000 (linked to CuPy) / 13000 (locally installed)\n"
             "NVRTC Version                : (13, 0)\n")
XSUITE_684 = ("RTX 5080 support\nIs Nvidia RTX 5080 supported? When I try to use Cupy context I get "
              "the following error\nDo I need to use different versions of cupy/cudatoolkit than "
              "proposed in installation guide?\nI use Ubuntu 24.04, cupy-cuda11x and "
              "cudatoolkit=11.8.0.")


@pytest.mark.parametrize("text", [
    CUPY_9475,
    XSUITE_684,
    "import cupy\n- CUDA version 12.6\nit fails on our Blackwell GPUs",
    "cupy.cuda.compiler fails with cupy-cuda90 on my Ampere card",
])
def test_cupy_nvrtc_that_cannot_compile_for_the_stated_gpu_is_named(text):
    found = stated_impossibility(text)
    assert found is not None and found[0] == "ECUDA018", found
    d = primary(diagnose_text(text))
    assert d is not None and d.code == "ECUDA018" and d.notes


@pytest.mark.parametrize("text", [
    # a CUDA that knows the GPU; two architectures; the architecture as a topic, not the GPU
    "pip install cupy-cuda12x nvidia-cuda-nvrtc-cu12==12.8.93 on a Blackwell GPU works",
    "import cupy\nCUDA: 12.6\nmy RTX 3090 is fine; when will Blackwell support land?",
    "import cupy\nCUDA: 12.6\nBlackwell support is coming",
    "import cupy\nCUDA: 11.2\nmy Kepler card",          # Kepler sm_35/sm_37 are in CUDA 11
    "pip install cupy-cuda110\nmy old P2000 is the only card",  # CUDA 11.0 has Pascal
    "import cupy\nCUDA: 12.4\nwe have Pascal and Hopper GPUs",
    # nvidia-smi's CUDA Version is the driver's ceiling, not the NVRTC
    "import cupy\n| NVIDIA-SMI 560.35 Driver Version: 560.35 CUDA Version: 12.6 |\nwith Blackwell",
    # no CuPy: the torch texts are gpu_build_reason's
    "CUDA: 12.6\nwith Blackwell",
])
def test_cupy_texts_without_an_impossible_pair_get_no_nvrtc_answer(text):
    found = stated_impossibility(text)
    assert found is None or found[0] != "ECUDA018", (text, found)


# PaddlePaddle's build CUDA, stated by Paddle's own device notice (PaddlePaddle/PaddleNLP#348: an
# RTX 30xx, compute capability 8.6, under Paddle's CUDA 10.2 runtime; the error line left out)
# or by an environment block's CUDA line in a Paddle text
PADDLE_348 = ("30系列显卡，CUDA11环境，PaddleNLP加载模型报错\nOS：Ubuntu 20.04\nCUDA：11.1\n"
              "PaddlePaddle：2.0.2和2.0.1都试过，问题一样\n"
              "W0509 13:09:59.510846 14922 device_context.cc:362] Please NOTE: device: 0, GPU "
              "Compute Capability: 8.6, Driver API Version: 11.1, Runtime API Version: 10.2")


@pytest.mark.parametrize("text", [
    PADDLE_348,
    "paddlepaddle-gpu==2.1.0\nCUDA 10.2\nGPU: NVIDIA A100-SXM4-40GB\npaddle.utils.run_check() fails",
])
def test_a_paddle_build_cuda_that_predates_the_gpu_is_named(text):
    found = stated_impossibility(text)
    assert found is not None and found[0] == "ECUDA003", found


@pytest.mark.parametrize("text", [
    # Paddle's runtime knows the GPU; a torch text's own-line CUDA is a system toolkit
    "paddle 2.4.1\nW0101 device_context.cc:362] Please NOTE: device: 0, GPU Compute Capability: "
    "8.6, Driver API Version: 11.7, Runtime API Version: 11.2",
    "torch 1.13.1\nCUDA 10.2\nNVIDIA A100-SXM4-40GB",
    "paddle and torch on one box\nCUDA 10.2\nNVIDIA A100-SXM4-40GB",
])
def test_paddle_texts_with_a_fitting_or_unread_cuda_get_no_answer(text):
    found = stated_impossibility(text)
    assert found is None or found[0] != "ECUDA003", (text, found)


# TensorFlow after 2.10 on native Windows (WIN001): texts of threads quoted nowhere else, in the
# reporters' words; the last from a title whose release is "after 2.10" in words
@pytest.mark.parametrize("text", [
    # tensorflow/tensorflow#70958
    "2.16.2 doesn't see my gpu\n\n### TensorFlow version\n\n2.16.2\n\n### OS platform and "
    "distribution\n\nWindows 11\n\n### Current behavior?\n\ni followed the steps to install CUDA "
    "and cuDNN but tensorflow won't see my gpu",
    # the same statement in German and Chinese prose
    "TensorFlow 2.15 unter Windows 11: die GPU wird nicht erkannt (RTX 4070).",
    "Windows 10 上装了 tensorflow 2.13.0，检测不到GPU。",
    "After upgrading TensorFlow beyond 2.10 on Windows 10 no GPU is found anymore.",
])
def test_tensorflow_after_210_on_native_windows_finding_no_gpu_is_win001(text):
    assert stated_impossibility(text) is not None
    assert stated_impossibility(text)[0] == "WIN001"
    found = primary(diagnose_text(text))
    assert found is not None and found.code == "WIN001"
    assert "native Windows" in found.title


@pytest.mark.parametrize("text", [
    # tensorflow/tensorflow#69042: TF 2.15 under WSL (Ubuntu on Windows 10) is another question
    "Utilize GPU for tf 2.15\n\nOS platform and distribution: WSL Ubuntu 22.04.3 (Windows 10)\n"
    "TensorFlow is not finding the GPU.",
    # tensorflow/tensorflow#77729: TensorFlow 2.10 itself has the native GPU build
    "NVIDIA GPU not being detected\n\nTensorFlow version: 2.10\nOS platform and distribution: "
    "Windows\nGPU model and memory: NVIDIA GTX 1650 Max-Q",
    # no statement that the GPU is missing; and the DirectML plugin, which runs on the GPU
    "TensorFlow 2.15 on Windows 11 trains fine, just slower than I hoped.",
    "tensorflow-directml-plugin with TensorFlow 2.12 on Windows 10: GPU not found",
    # a traceback of the text's own
    "Windows 11, TensorFlow 2.16, GPU not used\nTraceback (most recent call last):\n"
    "  File \"train.py\", line 3, in <module>\nValueError: Shapes (None, 1) and (None, 10) "
    "are incompatible",
])
def test_other_tensorflow_windows_texts_get_no_win001(text):
    found = stated_impossibility(text)
    assert found is None or found[0] != "WIN001"
