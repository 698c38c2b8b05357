"""Top-1 of `envdoctor explain` on the thirteenth held-out set (tests/corpus/explain/heldout13, batch L).

A further measure of generalisation, collected by phenomenon to look like what users paste: about
60 % the NVIDIA/CUDA world (out-of-memory in torch, PaddleOCR and MXNet, drivers older than the
runtime, CPU-only torch seen through Lightning, no GPU visible, detectron2 built for another torch,
OpenCV without its CUDA DNN backend, onnxruntime's CUDA provider on CPU, TensorRT engines from
another release, /dev/shm in containers, a GPU below a project's floor) and 40 % beyond it (ROCm
without code objects or support, CuPy's CUDA runtime, JAX falling back to CPU, Keras 3 refusing a
SavedModel, glibc on CentOS, pip finding no TensorFlow for the Python, conda solver conflicts,
system libraries missing from Docker images). Many are Chinese prose, titles only, screenshots
with a line of prose, cut tracebacks or logs with unrelated noise, from threads quoted nowhere
else, labelled from what each thread established before envdoctor was run on it. Computed as
tests/test_explain_heldout12.py: the primary diagnosis must carry one of the codes of the labelled
cause (causes.toml); a trap (label ``user`` or ``none``) is right when the answer is not an
environment claim. The first-run figure goes in the README.
"""

from __future__ import annotations

import pytest

from tests.explain_heldout import HeldoutSet, check_trap

SET = HeldoutSet("heldout13", batch="L", at_least=50, traps_at_least=11,
                 repos_at_least=44, phenomena_at_least=31)
# first run on 54739ae: 35/50 (70.0 %) as labelled, 37/50 with ECONDA001 mapped (README.md)
# after this session's class fixes: 45/50 (90.0%); the floor holds it
FLOOR = 0.92  # after: 45/50, then 46/50 (README.md)
# traps the first run answered with an environment claim (README.md): strict, so fixing one says so
KNOWN_TRAP_CLAIMS: frozenset[str] = frozenset()


def test_heldout13_structure_big_sourced_labelled_and_broad():
    SET.check_structure()


def test_heldout13_unseen_threads_quoted_nowhere_else():
    SET.check_unseen()


def test_heldout13_top1():
    SET.check_top1(FLOOR)


@pytest.mark.parametrize(("name", "text"), SET.trap_params(KNOWN_TRAP_CLAIMS))
def test_heldout13_trap_gets_no_environment_claim(name, text):
    check_trap(name, text)
