"""The reading ``torch_below_required`` (envdoctor/explain/torchreq.py): a text that states its
installed torch below the minimum torch its code requires names that cause itself."""

from __future__ import annotations

import pytest

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.torchreq import below_required_reason

HOLDS = {
    # transformers' own requirement check
    "https://github.com/XiaoxinHe/G-Retriever/issues/48":
        "Disabling PyTorch because PyTorch >= 2.1 is required but found 2.0.1\nso, what can I do?",
    # the same check, asked in Chinese with the requirement written as pytorch>2.1
    "https://github.com/jingyaogong/minimind/issues/588":
        "Disabling PyTorch because PyTorch >= 2.1 is required but found 2.0.1\n"
        "服务器pytorch最高只能适配2.0.1，一定要pytorch>2.1才能运行吗",
    # pip's dependency check
    "https://github.com/AvivSham/YOLO_V3_from_scratch_colab/issues/3":
        "ERROR: fastai 1.0.61 has requirement torch>=1.0.0, but you'll have torch 0.4.0 which "
        "is incompatible.",
    # a trainer's own verdict, in English and Chinese, naming only the minimum
    "https://github.com/Akegarasu/lora-scripts/issues/506":
        "WARNING  Torch version is lower than 2.3.0, which may not be able to train FLUX model "
        "properly.\nWARNING  Torch 版本低于 2.3.0，将无法正常训练 FLUX 模型。",
}

QUIET = {
    # the stated torch meets the stated minimum
    "https://github.com/Mayukhdeb/torch-dreams/issues/48":
        "according to the requirements.txt, torch>=1.8.0 is required. However the code does not "
        "run when the latest version pytorch 1.9 is used.",
    # a requirement and a pin, no installed torch
    "https://github.com/RuiyangJu/Fracture_Detection_Improved_YOLOv8/issues/11":
        "The torch version in your requirement.txt is required to be greater than 1.8.0, and "
        "then 1.13.1 is written outside",
    # an installed torch and no requirement
    "https://github.com/pytorch/pytorch/issues/69663":
        "After updated to pytorch1.10.0 cuda11.1, NCCL is not available\n"
        "I update the pytorch from 1.7 to 1.10, and met some nccl problem.\n"
        "RuntimeError: Distributed package doesn't have NCCL built in",
}


@pytest.mark.parametrize("source", sorted(HOLDS))
def test_stated_torch_below_the_stated_minimum_holds(source):
    assert below_required_reason(HOLDS[source]) is not None, source


@pytest.mark.parametrize("source", sorted(QUIET))
def test_no_stated_shortfall_is_quiet(source):
    assert below_required_reason(QUIET[source]) is None, source


def test_edist004_keeps_its_claim_where_no_shortfall_is_stated():
    got = primary(diagnose_text(QUIET["https://github.com/pytorch/pytorch/issues/69663"]))
    assert got is not None and got.code == "EDIST004"


def test_edist004_names_no_cause_where_the_text_states_torch_below_the_minimum():
    text = ("RuntimeError: Distributed package doesn't have NCCL built in\n"
            + HOLDS["https://github.com/XiaoxinHe/G-Retriever/issues/48"])
    assert "EDIST004" not in {d.code for d in diagnose_text(text)}
