"""Top-1 of `envdoctor explain` on the seventh held-out set (tests/corpus/explain/heldout7, batch F).

Collected by phenomenon from strangers' environment reports across the DL field (PyTorch, TF,
JAX/TPU, Paddle, MindSpore, MXNet, CuPy/numba/CUDA C++, llama.cpp, ComfyUI/webui front ends,
DeepSpeed JIT builds, flash-attn, xFormers, Triton, bitsandbytes, vLLM, onnxruntime,
transformers; Windows, WSL, Docker, Slurm, Mac/MPS, Kaggle/Colab, ROCm), many pasted as Chinese
prose, titles only, hand-typed lines or cut before the last line, from threads the repository
quotes nowhere else, and labelled from what each thread established before envdoctor was run on
it. Computed as tests/test_explain_heldout6.py: the primary diagnosis must carry one of the codes
of the labelled cause (causes.toml); a trap (label ``user`` or ``none``) is right when the answer is
not an environment claim. The first-run figure goes in the README.
"""

from __future__ import annotations

import pytest

from tests.explain_heldout import HeldoutSet, check_trap

SET = HeldoutSet("heldout7", batch="F", at_least=70, traps_at_least=8,
                 repos_at_least=50, phenomena_at_least=15)
# first run on 1e50e5b: 81/112 (72.3 %), README.md
# after this session's class fixes: 104/112 (92.9%); the floor holds it
# after the reading classes (misspelt words, CJK edges, localised messages): 105/112
FLOOR = 0.93
# traps the first run answered with an environment claim (README.md): strict, so fixing one says so
KNOWN_TRAP_CLAIMS: frozenset[str] = frozenset()


def test_heldout7_is_big_sourced_labelled_and_broad():
    SET.check_structure()


def test_heldout7_threads_are_quoted_nowhere_else():
    SET.check_unseen()


def test_heldout7_top1():
    SET.check_top1(FLOOR)


@pytest.mark.parametrize(("name", "text"), SET.trap_params(KNOWN_TRAP_CLAIMS))
def test_heldout7_trap_gets_no_environment_claim(name, text):
    check_trap(name, text)
