"""Top-1 of `envdoctor explain` on the sixth held-out set (tests/corpus/explain/heldout6, batch E).

Collected by phenomenon from strangers' reports in repositories and frameworks the earlier sets
cover less (ONNX Runtime GPU, TensorRT, DeepSpeed, Megatron/apex, vLLM/SGLang, llama.cpp bindings,
ComfyUI/webui front ends, xFormers/flash-attn, mmcv/detectron2/PyG/spconv extensions, DGL, CuPy,
numba, JAX, Paddle, Docker, WSL, Windows, conda MKL/OpenMP clashes) from threads the repository
quotes nowhere else, and labelled from what each thread established before envdoctor was run on
it. Computed as tests/test_explain_heldout5.py: the primary diagnosis must carry one of the codes
of the labelled cause (causes.toml); a trap (label ``user`` or ``none``) is right when the answer is
not an environment claim. The first-run figure goes in the README.
"""

from __future__ import annotations

import pytest

from tests.explain_heldout import HeldoutSet, check_trap

SET = HeldoutSet("heldout6", batch="E", at_least=100, traps_at_least=10,
                 repos_at_least=70, phenomena_at_least=20)
# first run on ebf6b46: 74/113 (65.5 %), README.md
# after this session's class fixes: 101/113 (89.4%); the floor holds it
FLOOR = 0.89
# traps the first run answered with an environment claim (README.md): strict, so fixing one says so
KNOWN_TRAP_CLAIMS: frozenset[str] = frozenset({
    # a TensorRT 7 path hard-coded in the user's code (ECUDNN008, the library it names
    # cannot be loaded); the Mac, source-checkout and LD_PRELOAD traps yield (explain.owncause)
    "h025-user-libmyelin-hardcoded-trt7.toml",
})


def test_heldout6_is_big_sourced_labelled_and_broad():
    SET.check_structure()


def test_heldout6_threads_are_quoted_nowhere_else():
    SET.check_unseen()


def test_heldout6_top1():
    SET.check_top1(FLOOR)


@pytest.mark.parametrize(("name", "text"), SET.trap_params(KNOWN_TRAP_CLAIMS))
def test_heldout6_trap_gets_no_environment_claim(name, text):
    check_trap(name, text)
