"""Classes read from other public threads: a torch extension's undefined symbol that the text says
goes away when torch is imported first (the code's import order, not a build for another torch)."""

from __future__ import annotations

import pytest

from envdoctor.explain import diagnose_text, primary

# foolyc/torchKNN#2 and unlimblue/KNN_CUDA#2: the loader's line for an extension's missing c10 symbol
KNN_LINE = ("ImportError: (...)python3.6/site-packages/vision_sandbox-0.1-py3.6-linux-x86_64.egg/"
            "vision_sandbox/_C.cpython-36m-x86_64-linux-gnu.so: undefined symbol: "
            "_ZN3c105ErrorC1ENS_14SourceLocationERKSs\n")

IMPORT_ORDER_STATED = [
    # foolyc/torchKNN#2, with the reply in the thread
    KNN_LINE + "you have to import torch firstly\n",
    # pytorch/pytorch#6097's wording
    KNN_LINE + "Adding ```import torch``` before importing the extension solves that.\n",
    # pytorch/pytorch#8036's wording
    KNN_LINE + "But to avoid it I just had to first import torch:\n    import torch\n",
    # pytorch/extension-cpp#50's wording (and soumith's answer there)
    KNN_LINE + "The error happens when doing `import lltm_cuda` before `import torch`.\n"
               "Reversing the order of import solves the problem.\n",
    KNN_LINE + "actually, importing torch first is a requirement, so I'd say this is a non-issue.\n",
    # isl-org/Open3D#922's wording
    KNN_LINE + "The program crashes. When you swap the order, it works.\n",
]

BUILD_MISMATCH = [
    # unlimblue/KNN_CUDA#2 as posted: no import order stated (upgrading torch fixed it)
    KNN_LINE,
    # stated with a negation: the build stays the cause
    KNN_LINE + "Adding `import torch` before importing the extension does not solve it.\n",
    KNN_LINE + "I import torch first and I still get the same undefined symbol.\n",
    # pytorch/pytorch#7790: a setup.py that imports torch first is not a stated fix
    "import setuptools\nimport torch\nimport torch.utils.cpp_extension\n" + KNN_LINE,
]


@pytest.mark.parametrize("text", IMPORT_ORDER_STATED)
def test_import_order_stated_is_the_code_not_the_build(text):
    d = primary(diagnose_text(text))
    assert d is not None and d.code == "EBUILD005"
    assert d.category == "user_code"


@pytest.mark.parametrize("text", BUILD_MISMATCH)
def test_undefined_c10_symbol_without_stated_order_stays_the_build(text):
    d = primary(diagnose_text(text))
    assert d is not None and d.code == "EBUILD005"
    assert d.category == "environment"


# host RAM exhausted while a model loads, said as gdb / torch.multiprocessing report SIGKILL or in
# prose (English and Chinese): ESYS009
HOST_RAM_KILLED = [
    # bert-nmt/bert-nmt#14
    'I got the error "Exception: process 1 terminated with signal SIGKILL" when i training a model',
    # OpenBMB/CPM-Bee#92 (title)
    'when run "python text_generation_hf.py", loading model was Killed',
    # hiyouga/LlamaFactory#2097
    "环境：V100 32G\n内存：63G\n使用cli_demo运行SUS-Chat-34B\n原因是内存不够，模型加载到87%被kill了，有木有什么解决办法？",
]

NOT_HOST_RAM = [
    "Exception: process 0 terminated with signal SIGSEGV",
    "I killed the process while loading the model because it was too slow",
    "kill掉进程后重新加载模型，还是很慢",
]


@pytest.mark.parametrize("text", HOST_RAM_KILLED)
def test_killed_while_loading_is_host_ram(text):
    d = primary(diagnose_text(text))
    assert d is not None and d.code == "ESYS009"


@pytest.mark.parametrize("text", NOT_HOST_RAM)
def test_other_kills_are_not_host_ram(text):
    d = primary(diagnose_text(text))
    assert d is None or d.code != "ESYS009"


# a model class missing from transformers' top level is an architecture newer than the installed
# transformers (EHF001), not a pair of Hugging Face libraries (EHF003)
@pytest.mark.parametrize("text", [
    # charent/Phi2-mini-Chinese#18
    "ImportError: cannot import name 'PhiForCausalLM' from 'transformers'",
    # shibing624/pycorrector#439
    "transformers:4.4.2\nImportError: cannot import name 'LlamaForCausalLM' from 'transformers' (unknown location)",
])
def test_missing_model_class_is_transformers_too_old(text):
    d = primary(diagnose_text(text))
    assert d is not None and d.code == "EHF001"


def test_missing_helper_from_a_library_stays_the_pair():
    # huggingface/peft's EncoderDecoderCache import (EHF003's own class)
    d = primary(diagnose_text("ImportError: cannot import name 'EncoderDecoderCache' from 'transformers'"))
    assert d is not None and d.code == "EHF003"
