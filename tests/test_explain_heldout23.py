"""Top-1 of `envdoctor explain` on the twenty-third held-out set (tests/corpus/explain/heldout23, batch V).

A further measure of generalisation, collected by phenomenon mostly from downstream projects (a
LangChain chat app, AlphaFold's OpenMM relax, ROS robotics nodes (TurtleBot3 DQN, AirSLAM, rtabmap, the
ZED wrapper, MMS-SLAM), a text classifier, YOLOP, Megatron-LM, a course competition repo, ComfyUI nodes
(Hunyuan3D, WanVideo, InstantID), R3Det, MXfold2, easyaccess, blue-crab, VIPER, a game bot, e2e-coref,
Sockeye, a RunPod A1111 worker, MACE, a cluster's support tracker, PaddleOCR, maskrcnn-benchmark, UB2DA,
simple_GRPO, nnUNet, TorchSeg, a text-to-video Colab, Light-Weight RefineNet, a car-model classifier,
IMTalker, CSAIL semantic segmentation) and from MXNet, ROCm/pytorch and vLLM threads, spread over drivers
older than the runtime (OpenMM's PTX, Paddle's image), container images and containers started without
the NVIDIA runtime, cuDNN/cuBLAS/CUDA runtime libraries missing, libcuda missing for a ROS nodelet and for
inductor's -lcuda link, compiled ops and wheels built for another CUDA or torch, shared memory vs host
RAM, a taken rendezvous port, an NCCL watchdog timeout, glibc and GLIBCXX, NumPy 2's ABI, pip with no
wheel for the Python or a pin that never existed, JAX's CPU fallback, MXNet's CPU build, MPS float64,
ROCm without code objects for an APU, CUDA_HOME unset, Paddle's CPU build, CUDA's unknown error,
onnxruntime's CUDA provider libraries, torch without CUDA, with traps from user data, configs and
checkpoints and from harmless notices. Many are titles only, cut or screenshots-only reports, Chinese,
Japanese and Portuguese, ROS and Docker logs, Windows paths, from threads quoted nowhere else, labelled
from what each thread established before envdoctor was run on it. Computed as
tests/test_explain_heldout22.py: the primary diagnosis must carry one of the codes of the labelled
cause (causes.toml); a trap (label ``user`` or ``none``) is right when the answer is not an environment
claim. The first-run figure goes in the README.
"""

from __future__ import annotations

import pytest

from tests.explain_heldout import HeldoutSet, check_trap

SET = HeldoutSet("heldout23", batch="V", at_least=40, traps_at_least=8,
                 repos_at_least=36, phenomena_at_least=25)
# first run on 947b2ec: 33/41 (80.5 %), one trap claim (README.md)
# after round 2 (fixes from other threads): 39/41 (95.1 %), no trap claim
FLOOR = 0.95
# traps the first run answered with an environment claim (README.md); strict
KNOWN_TRAP_CLAIMS: frozenset[str] = frozenset()


def test_heldout23_structure_big_sourced_labelled_and_broad():
    SET.check_structure()


def test_heldout23_unseen_threads_quoted_nowhere_else():
    SET.check_unseen()


def test_heldout23_top1():
    SET.check_top1(FLOOR)


@pytest.mark.parametrize(("name", "text"), SET.trap_params(KNOWN_TRAP_CLAIMS))
def test_heldout23_trap_gets_no_environment_claim(name, text):
    check_trap(name, text)
