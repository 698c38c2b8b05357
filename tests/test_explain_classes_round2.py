"""Classes widened after the first runs of batches V and W, each proved on texts from other
threads than the held-out sets (retyped and quoted forms, platform and framework readings)."""

from __future__ import annotations

import pytest

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.impossible import python_wheel_reason
from envdoctor.explain.unwrap import repl_results


def _answer(text: str) -> tuple[str, str]:
    d = primary(diagnose_text(text))
    return (d.code, d.category) if d else ("none", "")


@pytest.mark.parametrize(("text", "code"), [
    # https://github.com/verl-project/verl/issues/302 (title, lower case)
    ("cuda error: out of memory at /workspace/csrc/cumem_allocator.cpp:62\n", "ECUDA001"),
    # https://github.com/NVIDIA/raft/pull/2948 (the symbol in Markdown prose, one underscore eaten)
    ("causing `undefined symbol: _nvJitLinkGetErrorLogSize_12_9` at runtime\n", "ECUDA017"),
    # https://github.com/woct0rdho/triton-windows/issues/93
    ("i used 5090, but...\n'sm_120' is not a recognized processor for this target "
     "(ignoring processor)\n", "ETRITON003"),
    # https://github.com/microsoft/onnxruntime/issues/13576
    ("CUDA_PATH is set but CUDA wasn't able to be loaded. Please install the correct version of "
     "CUDA and cuDNN as mentioned in the GPU requirements page\n", "ECUDNN008"),
    # https://github.com/NetManAIOps/OmniAnomaly/issues/61 (title: no frames, TensorFlow's words)
    ("libcublas.so.9.0: cannot open shared object file:No such file or directory.\n"
     "Failed to load the native tensorflow runtime.\n", "ETF002"),
    # https://github.com/Ceruleanacg/Personae/issues/14 (a plain docker run, the image's placeholder)
    ("$ docker run -t --link my_mongo:mongo -v $PWD:/app/Personae ppdemo algorithm/SL/x.py\n"
     "ImportError: /usr/lib/x86_64-linux-gnu/libcuda.so.1: file too short\n", "ECTR005"),
    # https://github.com/AbdBarho/stable-diffusion-webui-docker/issues/35 (a Mac)
    ("MacOS M1Pro chip: Error response from daemon: could not select device driver \"nvidia\" "
     "with capabilities: [[gpu]]\n", "ECTR023"),
    # https://github.com/Dao-AILab/flash-attention/issues/1540 (an RTX 5090 meets Ampere's floor)
    ("RTX 5090 support - built from scratch but still getting - RuntimeError: FlashAttention "
     "only supports Ampere GPUs or newer.\n", "ECUDA003"),
    # https://github.com/PaddlePaddle/Paddle/issues/46571 (the maintainer's check, retold)
    ("paddle.device.is_compiled_with_cuda() returns False\n", "EPADDLE003"),
])
def test_other_threads_get_their_cause(text, code):
    assert _answer(text)[0] == code


@pytest.mark.parametrize(("text", "code"), [
    # the same words on a Linux host keep the toolkit answer
    ("Error response from daemon: could not select device driver \"nvidia\" with capabilities: "
     "[[gpu]]\n", "ECTR002"),
    # flash-attn's floor on a GPU below it keeps the floor answer (MInference's V100S)
    ("GPU: Tesla V100S\nRuntimeError: FlashAttention only supports Ampere GPUs or newer.\n",
     "ECUDA016"),
    # a truncated libcuda.so.1 with no container in sight stays a damaged file
    ("ImportError: /usr/lib/x86_64-linux-gnu/libcuda.so.1: file too short\n", "ESYS025"),
    # another library truncated in a container is a damaged file
    ("docker run -it img python -c 'import cv2'\nImportError: /usr/lib/x86_64-linux-gnu/"
     "libopencv_core.so.4.5: file too short\n", "ESYS025"),
    # a library missing with no word of TensorFlow stays the generic answer
    ("ImportError: libcublas.so.9.0: cannot open shared object file: No such file or directory\n",
     "ECUDNN008"),
])
def test_near_misses_keep_their_answer(text, code):
    assert _answer(text)[0] == code


def test_a_mac_gets_docker_desktops_fix_not_the_toolkit_install():
    d = primary(diagnose_text("on my MacBook Pro: Error response from daemon: could not select "
                              "device driver \"nvidia\" with capabilities: [[gpu]]\n"))
    assert d is not None and d.code == "ECTR023"
    assert "Mac" in d.fix and "nvidia-ctk" not in d.fix


def test_use_gpu_set_false_and_still_refused_is_configuration_not_the_install():
    # https://github.com/PaddlePaddle/PaddleOCR/issues/47 (the CPU package on purpose)
    said = ("PaddlePaddle CPU版本，det_mv3_db.yml中use_gpu修改为false后仍报错\n"
            "Config use_gpu cannot be set as true while you are using paddlepaddle cpu version !\n")
    assert _answer(said)[1] == "usage"
    # the check's message alone (nothing said about use_gpu): the CPU build asked for a GPU
    bare = ("2020-07-23 09:22:17,124-ERROR: Config use_gpu cannot be set as true while you are "
            "using paddlepaddle cpu version !\n")
    assert _answer(bare) == ("EPADDLE003", "environment")


def test_a_prompt_call_and_the_boolean_it_printed_read_as_one_line():
    assert repl_results(">>> import paddle\n>>> paddle.is_compiled_with_cuda()\nFalse\n") == \
        ">>> import paddle\n>>> paddle.is_compiled_with_cuda() False\n"
    assert repl_results("In [3]: torch.cuda.is_available()\nOut[3]: True\n") == \
        "In [3]: torch.cuda.is_available() True\n"
    plain = "loss False\nFalse\n"
    assert repl_results(plain) == plain
    assert _answer(">>> import paddle\n>>> paddle.is_compiled_with_cuda()\nFalse\n")[0] == \
        "EPADDLE003"


def test_a_resolver_restating_an_exact_pin_as_a_range_keeps_the_pin():
    # constructed on uv's debug wording: the typed pin and the resolver's restatement of it
    log = ("uv pip install torch==2.3.0 --index-url https://download.pytorch.org/whl/cu121\n"
           "DEBUG Using Python 3.13.0 environment at .venv\n"
           "DEBUG Adding direct dependency: torch>=2.3.0, <2.3.0+\n"
           "error: failed to install\n")
    found = python_wheel_reason(log)
    assert found is not None and found[0] == "EPIP001"
    # two different exact pins: no pin is the ask
    two = log.replace("torch>=2.3.0, <2.3.0+", "torch==2.6.0")
    assert python_wheel_reason(two) is None
