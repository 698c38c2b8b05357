"""Top-1 of `envdoctor explain` on the ninth held-out set (tests/corpus/explain/heldout9, batch H).

Collected by phenomenon beyond PyTorch on NVIDIA: JAX/jaxlib (AVX guard, Rosetta, Windows without
CUDA wheels, cuDNN floors), PaddlePaddle, MindSpore, MXNet, Keras 3, TensorFlow (protobuf, Python
versions, benign CPU notices), onnxruntime and TensorRT providers, CuPy, numba, Triton, ROCm/HIP
(gfx targets, device access, MIOpen), Apple MPS, Jetson, glibc/GLIBCXX loader errors with conda and
system libraries, disk full, /dev/shm, OpenMP duplicates; many pasted as Chinese prose, titles only,
misspelt titles, hand-typed lines or cut before the last line, from threads the repository quotes
nowhere else, and labelled from what each thread established before envdoctor was run on it.
Computed as tests/test_explain_heldout7.py: the primary diagnosis must carry one of the codes of the
labelled cause (causes.toml); a trap (label ``user`` or ``none``) is right when the answer is not an
environment claim. The first-run figure goes in the README.
"""

from __future__ import annotations

import pytest

from tests.explain_heldout import HeldoutSet, check_trap

SET = HeldoutSet("heldout9", batch="H", at_least=69, traps_at_least=15,
                 repos_at_least=55, phenomena_at_least=33)
# the first run (by the lead) sets the floor; README.md
# first run on 0b311c6: 52/69 (75.4 %), README.md
# after this session's class fixes: 65/69 (94.2%); the floor holds it
FLOOR = 0.94
# traps the first run answered with an environment claim (README.md): strict, so fixing one says so
KNOWN_TRAP_CLAIMS: frozenset[str] = frozenset()


def test_heldout9_structure_big_sourced_labelled_and_broad():
    SET.check_structure()


def test_heldout9_unseen_threads_quoted_nowhere_else():
    SET.check_unseen()


def test_heldout9_top1():
    SET.check_top1(FLOOR)


@pytest.mark.parametrize(("name", "text"), SET.trap_params(KNOWN_TRAP_CLAIMS))
def test_heldout9_trap_gets_no_environment_claim(name, text):
    check_trap(name, text)
