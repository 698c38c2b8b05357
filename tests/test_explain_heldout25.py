"""Top-1 of `envdoctor explain` on the twenty-fifth held-out set (tests/corpus/explain/heldout25, batch X).

A further measure of generalisation, collected by phenomenon and mostly from downstream projects
(ASAP humanoid control, a Wan2GP one-click installer, cuRobo, rl-swarm, healpy, immich-in-lxc, rembg,
FaceFusion's Colab, make_prg, BasicSR, whisper_streaming, Speech-AI-Forge, Langflow, Geti
instant-learn, HunyuanImage-3.0, HunyuanVideo, nnU-Net, ComfyUI, AutoStudio, NVIDIA GVDB, SDPS-Net,
ManiGaussian, FisheyeSeg, TailorNet, pytorch-YOLO-v1, a pose-estimation demo, SIGA, Rerender_A_Video,
Qwen, EfficientNet-PyTorch) and from PyTorch, TensorFlow, PaddlePaddle, PaddleOCR, PaddleX, cuDF,
DeepSpeed-MII, CUDA samples, bitsandbytes and text-generation-inference threads, spread over Blackwell
GPUs without kernels (torch and Paddle builds without sm_120), NumPy too old and NumPy 2 against
NumPy 1 builds, an extension build with another CUDA than torch's, onnxruntime's CUDA provider
without its cuDNN/cuBLAS, glibc and libstdc++ floors, an image needing a newer driver and a PTX newer
than the driver, a missing Windows DLL dependency, device and host out-of-memory, a host compiler too
new for nvcc, cuDNN 8 not loadable, no torch wheel for the Mac in use (uv), compiled parts built for
another torch, an unsolvable conda spec, TensorFlow after 2.10 on native Windows, bitsandbytes
without a CUDA setup and CUDA_HOME unset, with traps from user code, checkpoints and data and from
harmless notices. Many are titles only, screenshots with prose, Chinese, Windows, Colab and Docker
logs, from threads quoted nowhere else, labelled from what each thread established before envdoctor
was run on it. Computed as tests/test_explain_heldout24.py: the primary diagnosis must carry one of
the codes of the labelled cause (causes.toml); a trap (label ``user`` or ``none``) is right when the
answer is not an environment claim. The first-run figure goes in the README.
"""

from __future__ import annotations

import pytest

from tests.explain_heldout import HeldoutSet, check_trap

SET = HeldoutSet("heldout25", batch="X", at_least=40, traps_at_least=8,
                 repos_at_least=36, phenomena_at_least=25)
# the first run is still to be made (README.md); the floor is set from it
# first run on 9dc9054: 34/40 (85.0 %), no trap claim (README.md)
FLOOR = 0.975  # after round 3 (fixes from other threads): 39/40 (97.5 %), no trap claim
# traps the first run answered with an environment claim (README.md): none recorded yet
KNOWN_TRAP_CLAIMS: frozenset[str] = frozenset()


def test_heldout25_structure_big_sourced_labelled_and_broad():
    SET.check_structure()


def test_heldout25_unseen_threads_quoted_nowhere_else():
    SET.check_unseen()


def test_heldout25_top1():
    SET.check_top1(FLOOR)


@pytest.mark.parametrize(("name", "text"), SET.trap_params(KNOWN_TRAP_CLAIMS))
def test_heldout25_trap_gets_no_environment_claim(name, text):
    check_trap(name, text)
