"""Top-1 of `envdoctor explain` on the thirty-fourth held-out set (tests/corpus/explain/heldout34, batch AK).

A further measure of generalisation, sampled to look like what users typically paste into a bug report
rather than chosen for difficulty: threads taken in the order the `issues` search returned them for broad
phenomena this round leaned on (TensorRT engine versions, JAX/cuDNN, torch.compile and -lcuda, glibc,
conda and pip resolution, no wheel for Python/platform, mmcv ops, cuDNN loading for ctranslate2 and
nnabla, ComfyUI custom nodes, flashinfer JIT under vLLM, xFormers/Triton warnings), from 23
repositories. Labelled from what each thread established before envdoctor was run on it. Computed as
tests/test_explain_heldout33.py: the primary diagnosis must carry one of the codes of the labelled cause
(causes.toml); a trap (label ``user`` or ``none``) is right when the answer is not an environment claim.
The first-run figure goes in the README.
"""

from __future__ import annotations

import pytest

from tests.explain_heldout import HeldoutSet, check_trap

SET = HeldoutSet("heldout34", batch="AK", at_least=25, traps_at_least=5,
                 repos_at_least=23, phenomena_at_least=25, prefix="a")
FLOOR = 0.96  # 24/25 (96.0 %) after fixes from other threads; first run on e07607ff: 20/25 (80.0 %), no trap claim (README.md)
# traps answered with an environment claim (README.md): a strict xfail each; first run not made yet
KNOWN_TRAP_CLAIMS: frozenset[str] = frozenset()  # none on the first run


def test_heldout34_structure_big_sourced_labelled_and_broad():
    SET.check_structure()


def test_heldout34_unseen_threads_quoted_nowhere_else():
    SET.check_unseen()


def test_heldout34_top1():
    SET.check_top1(FLOOR)


@pytest.mark.parametrize(("name", "text"), SET.trap_params(KNOWN_TRAP_CLAIMS))
def test_heldout34_trap_gets_no_environment_claim(name, text):
    check_trap(name, text)
