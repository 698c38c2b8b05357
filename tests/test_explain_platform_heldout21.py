"""Top-1 of `envdoctor explain` on platform held-out batch P21 (tests/corpus/explain/platform_heldout21).

A twenty-first, independently collected batch of real error texts from Apple silicon (MPS, MLX),
containers (Podman/CDI, an app's Docker image), Jetson, WSL, Intel XPU, AMD ROCm and DirectML (as a
platform of its own), from GitHub threads the repository quotes nowhere else, labelled from what
each thread established before envdoctor was run on them. Sampled as typical pasted errors (not
selected for difficulty), many through downstream apps (stable-diffusion-webui-amdgpu, ComfyUI
nodes, ollama, mlx-examples, OnnxStack, TRTorch, TransferBench). Scored as the earlier platform
batches (tests/test_explain_platform_heldout20.py): the primary diagnosis must carry one of the
codes of the labelled cause (causes.toml); a trap (label ``user`` or ``none``) is right when the
answer is not an environment claim, and no trap may get one. The floor is 0.0 until the first run
is recorded in the set's README.

The structural tests (``-k "structure or unseen"``) read the files only and never call envdoctor;
only ``test_platform_heldout21_top1_per_platform_and_traps_clean`` diagnoses.
"""

from __future__ import annotations

from tests.explain_platform_heldout import PlatformSet

SET = PlatformSet("platform_heldout21", letter="m", batch="P21",
                  platforms=("apple", "container", "jetson", "wsl", "xpu", "rocm", "directml"),
                  at_least=20, repos_at_least=15, traps_at_least=4, per_platform_at_least=1,
                  earlier=("platform_heldout", "platform_heldout2", "platform_heldout3",
                           "platform_heldout4", "platform_heldout5", "platform_heldout6",
                           "platform_heldout7", "platform_heldout8", "platform_heldout9",
                           "platform_heldout10", "platform_heldout11", "platform_heldout12",
                           "platform_heldout13", "platform_heldout14", "platform_heldout15",
                           "platform_heldout16", "platform_heldout17", "platform_heldout18",
                           "platform_heldout19", "platform_heldout20"))
FLOOR = 0.75  # 15/20 (75.0 %) after fixP21; before: first run on 11669c31: 12/20 (60.0 %), no trap claim (README.md)
# traps the first run answers with an environment claim (README.md): none on the first run
KNOWN_TRAP_CLAIMS: frozenset[str] = frozenset()


def test_platform_heldout21_structure_sourced_labelled_and_broad():
    SET.check_structure()


def test_platform_heldout21_unseen_quoted_nowhere_else_and_not_in_earlier_batches():
    SET.check_unseen()


def test_platform_heldout21_top1_per_platform_and_traps_clean():
    SET.check_top1(FLOOR, KNOWN_TRAP_CLAIMS)
