"""Top-1 of `envdoctor explain` on platform held-out batch P20 (tests/corpus/explain/platform_heldout20).

A twentieth, independently collected batch of real error texts from Apple silicon (Core ML, MPS,
MLX), containers (Singularity, the GPU Operator, image builds), Jetson, WSL2, Intel XPU, AMD ROCm /
DirectML and Huawei Ascend, from GitHub threads the repository quotes nowhere else, labelled from
what each thread established before envdoctor was run on them. Sampled as typical pasted errors (not
selected for difficulty), many through downstream apps (stable-diffusion-webui-amdgpu, SD.Next,
ollama, ExecuTorch, vllm-ascend, onnx-web, MIGraphX). Scored as the earlier platform batches
(tests/test_explain_platform_heldout19.py): the primary diagnosis must carry one of the codes of the
labelled cause (causes.toml); a trap (label ``user`` or ``none``) is right when the answer is not an
environment claim, and no trap may get one. The floor is 0.0 until the first run is recorded in the
set's README.

The structural tests (``-k "structure or unseen"``) read the files only and never call envdoctor;
only ``test_platform_heldout20_top1_per_platform_and_traps_clean`` diagnoses.
"""

from __future__ import annotations

from tests.explain_platform_heldout import PlatformSet

SET = PlatformSet("platform_heldout20", letter="f", batch="P20",
                  platforms=("apple", "container", "jetson", "wsl", "xpu", "rocm", "ascend"),
                  at_least=20, repos_at_least=15, traps_at_least=4, per_platform_at_least=1,
                  earlier=("platform_heldout", "platform_heldout2", "platform_heldout3",
                           "platform_heldout4", "platform_heldout5", "platform_heldout6",
                           "platform_heldout7", "platform_heldout8", "platform_heldout9",
                           "platform_heldout10", "platform_heldout11", "platform_heldout12",
                           "platform_heldout13", "platform_heldout14", "platform_heldout15",
                           "platform_heldout16", "platform_heldout17", "platform_heldout18",
                           "platform_heldout19"))
FLOOR = 0.65  # 13/20 (65.0 %), trap claim f002 after fixes from other threads; first run on ae237d01: 12/20 (60.0 %), trap claims f002, f019 (README.md)
# traps the first run answers with an environment claim (README.md)
KNOWN_TRAP_CLAIMS: frozenset[str] = frozenset({
    "f002-apple-coremltools-3-0b3-wheel-built-for-10-15-on-10-13.toml"})  # first run
# (f019 no longer claimed: EROCM001's "invalid device function" on a GPU AMD lists, with no build
# of its own, names no cause, rocm_listed_gpu)


def test_platform_heldout20_structure_sourced_labelled_and_broad():
    SET.check_structure()


def test_platform_heldout20_unseen_quoted_nowhere_else_and_not_in_earlier_batches():
    SET.check_unseen()


def test_platform_heldout20_top1_per_platform_and_traps_clean():
    SET.check_top1(FLOOR, KNOWN_TRAP_CLAIMS)
