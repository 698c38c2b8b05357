"""Top-1 of `envdoctor explain` on the fourteenth held-out set (tests/corpus/explain/heldout14, batch M).

A further measure of generalisation, collected by phenomenon to look like what users paste: about
55 % the NVIDIA/CUDA world (out-of-memory in torch and PaddlePaddle, GPUs below a project's or
cuDNN's floor, kernels missing for the GPU, extensions built for another torch or without a CUDA
toolkit, NCCL without shared memory, drivers and runtimes that do not pair, onnxruntime's CUDA
dependencies) and 45 % beyond it (ROCm, JAX, TensorFlow, Keras 3, MindSpore, Apple, Jetson, WSL,
conda, glibc and libstdc++), with traps from user code, model choice and harmless notices. Many are
titles only, screenshots with a line of prose, Chinese, cut tracebacks or logs with noise, from
threads quoted nowhere else, labelled from what each thread established before envdoctor was run
on it. Computed as tests/test_explain_heldout13.py: the primary diagnosis must carry one of the
codes of the labelled cause (causes.toml); a trap (label ``user`` or ``none``) is right when the
answer is not an environment claim. The first-run figure goes in the README.
"""

from __future__ import annotations

import pytest

from tests.explain_heldout import HeldoutSet, check_trap

# ROCm/pytorch#2730 (an RX 7600 on the official ROCm images) is one of plat27's sources for its
# gfx1102 machines, so it left this set's figure then
SET = HeldoutSet("heldout14", batch="M", at_least=54, traps_at_least=11,
                 repos_at_least=51, phenomena_at_least=35, quoted_at_most=1)
# first run on 7ddab00: 44/54 (81.5 %), 0 environment claims on 11 traps (README.md)
# after the fixes by class: 49/54 (90.7 %), still 0 claims (README.md, "After")
FLOOR = 0.90
# traps the first run answered with an environment claim (README.md): strict, so fixing one says so
KNOWN_TRAP_CLAIMS: frozenset[str] = frozenset()


def test_heldout14_structure_big_sourced_labelled_and_broad():
    SET.check_structure()


def test_heldout14_unseen_threads_quoted_nowhere_else():
    SET.check_unseen()


def test_heldout14_top1():
    SET.check_top1(FLOOR)


@pytest.mark.parametrize(("name", "text"), SET.trap_params(KNOWN_TRAP_CLAIMS))
def test_heldout14_trap_gets_no_environment_claim(name, text):
    check_trap(name, text)
