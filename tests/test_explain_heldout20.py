"""Top-1 of `envdoctor explain` on the twentieth held-out set (tests/corpus/explain/heldout20, batch S).

A further measure of generalisation, collected by phenomenon mostly from downstream projects (TeleChat,
ComfyUI nodes such as PuLID-Flux, SUPIR, Bringing-Old-Photos and TBG-ETUR, PyramidCSA, SceneGen,
LLaMA-Factory, coqui TTS, AllTalk, N2D2, nnU-Net, EasyOCR, PaddleOCR, CoR-GS, video2x, insightface,
CompreFace, LoRA_Easy_Training_Scripts, PCT, BrushEdit, gprMax, RIConv++, SGLang, text-generation-webui,
kohya_ss …) with a few framework trackers (jax, tensorflow, pytorch, onnxruntime, nvidia-docker), leaning
on phenomena earlier batches had few of: JAX's AVX guard, the legacy Colab TPU and an old cuDNN, Paddle's
cuDNN, MXNet's CUDA runtime, Keras 3, TensorFlow's GPU libraries, extension builds (CUDA_HOME, nvcc's host
compiler, nvcc vs torch's CUDA, undefined torch symbols), third-party architecture floors (flash-attn,
xFormers), xFormers without CUDA kernels, Triton's ptxas, NCCL's socket network, glibc and GLIBCXX, NumPy 2's
ABI, Windows DLLs, a driver older than the runtime, CUDA libraries of another major, kernels missing for the
GPU, NVML mismatches in containers, CUDA_VISIBLE_DEVICES, pip with no wheel for the platform or the Python,
with traps from user code and data and from harmless warnings. Many are titles only, cut tracebacks,
Chinese, French, JSON-escaped or hand-typed, from threads quoted nowhere else, labelled from what each
thread established before envdoctor was run on it. Computed as tests/test_explain_heldout19.py: the
primary diagnosis must carry one of the codes of the labelled cause (causes.toml); a trap (label ``user``
or ``none``) is right when the answer is not an environment claim. The first-run figure goes in the README.
"""

from __future__ import annotations

import pytest

from tests.explain_heldout import HeldoutSet, check_trap

SET = HeldoutSet("heldout20", batch="S", at_least=40, traps_at_least=8,
                 repos_at_least=40, phenomena_at_least=25)
# first run on 63e57e6: 35/43 (81.4 %), one environment claim (h041); after: 39/43, then 40/43, none (README.md)
FLOOR = 0.92
# traps answered with an environment claim now (the first run's one, h041, is fixed): strict
KNOWN_TRAP_CLAIMS: frozenset[str] = frozenset()


def test_heldout20_structure_big_sourced_labelled_and_broad():
    SET.check_structure()


def test_heldout20_unseen_threads_quoted_nowhere_else():
    SET.check_unseen()


def test_heldout20_top1():
    SET.check_top1(FLOOR)


@pytest.mark.parametrize(("name", "text"), SET.trap_params(KNOWN_TRAP_CLAIMS))
def test_heldout20_trap_gets_no_environment_claim(name, text):
    check_trap(name, text)
