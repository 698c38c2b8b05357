"""Error messages as issue titles and prose shorten them: the same cause must read the same.

Titles drop quotes and exception names, stop after the part that names the failure, or put a
node's name in front; Lightning and Omniverse word a known cause in their own way. Each form is
held to the answer its full message gets, and each near miss to no such answer.
"""

from __future__ import annotations

import pytest

from envdoctor.explain import diagnose_text, primary


def _code(text: str) -> str | None:
    d = primary(diagnose_text(text))
    return d.code if d else None


@pytest.mark.parametrize(("text", "code"), [
    # torchvision's operators without CUDA kernels, as titles give it
    ("Error in the detailer node: Could not run torchvision::roi_align\n", "ETORCH008"),
    ("NotImplementedError: could not run torchvision::nms with arguments from the CUDA backend\n",
     "ETORCH008"),
    # https://github.com/hustvl/YOLOP/issues/217 (its title)
    ("torchvision::nms 函数无法在 CUDA 后端运行\n", "ETORCH008"),
    # Lightning: GPUs asked for and torch sees none (https://github.com/zjunlp/KNN-KG/issues/10)
    ("pytorch_lightning.utilities.exceptions.MisconfigurationException: You requested GPUs: [1]\n"
     " But your machine only has: []\n", "ECUDA015"),
    # Lightning on a Mac: the GPU accelerator is CUDA's; the answer is MPS
    ("MisconfigurationException: No supported gpu backend found!\nRunning on my MacBook Air M2\n",
     "EMPS021"),
    # numpy's wrapper quoting the loader (https://github.com/numpy/numpy/issues/16149)
    ("The original error was: 'DLL load failed: 找不到指定的模块。'\n", "EWIN001"),
])
def test_a_shortened_or_reworded_message_reads_as_its_cause(text, code):
    assert _code(text) == code, text


@pytest.mark.parametrize(("text", "not_code"), [
    # another backend named in full: not the CPU-only torchvision
    ("Could not run 'torchvision::nms' with arguments from the 'XLA' backend. Move the boxes.\n",
     "ETORCH008"),
    # a GPU is there: index 1 asked for on a one-GPU machine is the user's config
    ("MisconfigurationException:\n    You requested GPUs: [1]\n    But your machine only has: [0]\n",
     "ECUDA015"),
    # Lightning's GPU refusal with nothing that says Mac
    ("MisconfigurationException: No supported gpu backend found!\n", "EMPS021"),
    # a range of drivers with known issues above a floor: not a too-old driver
    ("[Error] [gpu.foundation.plugin] The currently installed NVIDIA graphics driver is "
     "unsupported or has known issues.\nThe unsupported driver range: [565.0, 566.14)\n",
     "ECUDA006"),
])
def test_a_near_miss_keeps_away_from_that_cause(text, not_code):
    assert _code(text) != not_code, text


def test_torchvisions_own_cuda_check_is_torchvisions_answer():
    # https://github.com/Linaqruf/kohya-trainer/issues/164
    text = ("RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA "
            "versions. PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.6.\n")
    assert _code(text) == "ETORCH008"
    # another package's check stays the generic extension answer
    other = ("RuntimeError: Detected that PyTorch and torch_scatter were compiled with different "
             "CUDA versions. PyTorch has CUDA version 11.8 whereas torch_scatter has 11.7.\n")
    assert _code(other) != "ETORCH008"


def test_an_omniverse_driver_floor_gets_its_own_answer():
    # https://github.com/isaac-sim/IsaacAutomator/issues/40
    text = ("[Error] [gpu.foundation.plugin] The currently installed NVIDIA graphics driver is "
            "unsupported or has known issues.\nInstalled driver: 535.5\n"
            "The unsupported driver range: [0.0, 535.129)\n"
            "The recommended drivers: 535.161.07 (GameReady, Studio, RTX/Quadro, Grid/vGPU)\n")
    d = primary(diagnose_text(text))
    assert d is not None and d.code == "ECUDA006" and "Omniverse" in d.fix
