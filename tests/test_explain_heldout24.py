"""Top-1 of `envdoctor explain` on the twenty-fourth held-out set (tests/corpus/explain/heldout24, batch W).

A further measure of generalisation, collected by phenomenon with the emphasis on recent threads
(2024-2026) and mostly from downstream projects (RFantibody, unitree_rl_gym, an RVC web UI fork,
Anima LoRA, prime-rl, LLaMA-Factory, COMPASS on Isaac Sim, pygnss, cugraph-gnn's CI, Linly-Dubbing,
KAITO, Mooncake, rational_kat_cu, pyLowOrder, MultiDimensionalFeatures, torch for R, batman, a HiDream
ComfyUI node, CroCo, Open WebUI, a RAG advisor, starVLA, lmm-r1, open-r1, FoNDUE-HTR, AI-Hypercomputer's
GPU recipes, SubgraphRAG, LASER, SAM2-UNet, ComfyUI, text-generation-webui, EchoMimic, NetsPresso
Trainer, ComfyUI_ExtraModels) and from flash-attention, bitsandbytes, uv, TensorFlow, torchtitan and
cuVS threads, spread over Blackwell GPUs without kernels in the installed builds (sm_120, sm_100, a
flash-attn wheel without one sm_89 kernel), compiled parts built for another torch or CUDA major, an
extension build against another CUDA, NumPy 2's removed names, drivers older than the torch wheels,
cuDNN 9 and nvJitLink libraries, Python 3.13/3.14 without wheels, bitsandbytes without a CUDA 12.8
binary, torchvision against a nightly torch, torch 2.6's weights_only default, glibc 2.29, Python 3.12's
distutils, a Triton older than the GPU, a CPU-only torch, Docker without an NVIDIA runtime (Linux and an
Apple-silicon Mac), device and host out-of-memory, an NCCL watchdog timeout and a jax-cuda12 plugin
newer than jaxlib, with traps from user configs, checkpoints, data and access and from harmless notices.
Many are titles only, cut or prose-only reports, Chinese, Windows, Docker and CI logs, from threads
quoted nowhere else, labelled from what each thread established before envdoctor was run on it.
Computed as tests/test_explain_heldout23.py: the primary diagnosis must carry one of the codes of the
labelled cause (causes.toml); a trap (label ``user`` or ``none``) is right when the answer is not an
environment claim. The first-run figure goes in the README.
"""

from __future__ import annotations

import pytest

from tests.explain_heldout import HeldoutSet, check_trap

SET = HeldoutSet("heldout24", batch="W", at_least=40, traps_at_least=8,
                 repos_at_least=36, phenomena_at_least=25)
# first run on 947b2ec: 32/40 (80.0 %), no trap claim (README.md)
# after round 2 (fixes from other threads): 39/40 (97.5 %), no trap claim
FLOOR = 0.97
# traps the first run answered with an environment claim (README.md): none; strict
KNOWN_TRAP_CLAIMS: frozenset[str] = frozenset()


def test_heldout24_structure_big_sourced_labelled_and_broad():
    SET.check_structure()


def test_heldout24_unseen_threads_quoted_nowhere_else():
    SET.check_unseen()


def test_heldout24_top1():
    SET.check_top1(FLOOR)


@pytest.mark.parametrize(("name", "text"), SET.trap_params(KNOWN_TRAP_CLAIMS))
def test_heldout24_trap_gets_no_environment_claim(name, text):
    check_trap(name, text)
