"""Classes that batch AM (tests/corpus/reports/heldout25) missed, read from other public threads
(URLs in the comments; short excerpts, constructed where marked): a figure there moves only when
the class is read, never from a pattern of a batch text.
"""

from __future__ import annotations

import pytest

from envdoctor.explain import diagnose_text, primary
from tests.reports_heldout import loud

# --- torchvision's operator with no CUDA kernel, beside a release pair that matches -------------
# mikel-brostrom/Yolov3_DeepSort_Pytorch#7: torch 1.7.0 / torchvision 0.8.0, nms registered for
# the CPU only (pytorch/vision#3058's answer: the torchvision installed was the CPU build)
_DEEPSORT = """RuntimeError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend. 'torchvision::nms' is only available for these backends: [CPU, BackendSelect, Named, AutogradOther, AutogradCPU, AutogradCUDA, AutogradXLA, Tracer, Autocast, Batched, VmapMode].
I installed the CUDA v11.1 from https://developer.nvidia.com/cuda-downloads
torch version: 1.7.0
torchvision version: 0.8.0
"""
# facebookresearch/detectron2#2594: PyTorch 1.6.0 with torchvision 0.7.0 (an EasyBuild module
# whose torchvision/_C.so "does not contain device code"), nms registered for the CPU only
_DETECTRON2 = """cuobjdump info    : File '/apps/eb/torchvision/0.7.0-fosscuda-2019b-Python-3.7.4-PyTorch-1.6.0/lib/python3.7/site-packages/torchvision/_C.so' does not contain device code
PyTorch                 1.6.0 @/apps/eb/PyTorch/1.6.0-fosscuda-2019b-Python-3.7.4/lib/python3.7/site-packages/torch
torchvision             0.7.0 @/apps/eb/torchvision/0.7.0-fosscuda-2019b-Python-3.7.4-PyTorch-1.6.0/lib/python3.7/site-packages/torchvision
RuntimeError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend. 'torchvision::nms' is only available for these backends: [CPU, BackendSelect, Named, AutogradOther, AutogradCPU, AutogradCUDA, AutogradXLA, Tracer, Autocast, Batched, VmapMode].
"""


@pytest.mark.parametrize("text", [_DEEPSORT, _DETECTRON2], ids=["deepsort7", "detectron2-2594"])
def test_torchvision_without_cuda_ops_is_named_whatever_release_pair_is_stated(text):
    assert "ETORCH008" in loud(text)


# near misses: the operator missing altogether beside a matching pair stays the low reading (a
# source checkout, a build without C++ ops: not the pair); a backend list that has CUDA is not
# a CPU-only build (constructed)
@pytest.mark.parametrize("text", [
    "RuntimeError: operator torchvision::nms does not exist\ntorch 2.2.0\ntorchvision 0.17.0\n",
    "Could not run 'torchvision::nms' with arguments from the 'CUDA' backend. 'torchvision::nms' is "
    "only available for these backends: [CPU, CUDA, Meta, QuantizedCPU, AutogradCUDA].\n"
    "torch 2.2.0\ntorchvision 0.17.0\n",
])
def test_a_matching_pair_still_speaks_where_the_dispatcher_does_not_show_a_cpu_only_build(text):
    d = primary(diagnose_text(text))
    assert d is not None and d.code == "ETORCH008" and d.confidence == "low"
