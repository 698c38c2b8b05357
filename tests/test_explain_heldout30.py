"""Top-1 of `envdoctor explain` on the thirtieth held-out set (tests/corpus/explain/heldout30, batch AD).

A further measure of generalisation, sampled to look like what users typically paste into a bug report
rather than chosen for difficulty: threads taken in the order the issue search returned them for broad
phenomena, from upstream frameworks (TensorFlow, PyTorch, conda, ncnn, qlib, llama-cpp-python) and
downstream apps (DiffDock, MAXIM, StructureNet, Med-ChatGLM, Langchain-Chatchat, chatdocs, ByteTrack,
ComfyUI nodes, SongGeneration, an AMD WebUI fork, Paints-UNDO, haystack, simpletransformers, Hymba,
nlp-recipes, OpenBB, sglang, Dobb-E, DIG, TaskMatrix, whisper-dictation and others), spread over GPUs
absent or not NVIDIA, system and CUDA libraries not on the loader path, pinned versions not on the index,
extensions built for another torch or CUDA, the wrong interpreter, CPU-only jaxlib and llama.cpp builds,
CPUs without AVX, MSVC build tools, device and host memory exhausted, removed NumPy aliases and NumPy ABI
majors, TF1 code under TF2, torch 2.6's weights_only default, conda conflicts, transformers too old or
too new, and no wheel for the interpreter or platform, with traps from input data, import order, a
project bug, hard-coded device indices and a healthy warning. Labelled from what each thread established
before envdoctor was run on it. Computed as tests/test_explain_heldout29.py: the primary diagnosis must
carry one of the codes of the labelled cause (causes.toml); a trap (label ``user`` or ``none``) is right
when the answer is not an environment claim. The first-run figure goes in the README.
"""

from __future__ import annotations

import pytest

from tests.explain_heldout import HeldoutSet, check_trap

SET = HeldoutSet("heldout30", batch="AD", at_least=49, traps_at_least=10,
                 repos_at_least=47, phenomena_at_least=49)
FLOOR = 0.79  # 39/49 (79.6 %) after two rounds of fixes from other threads; first run on cf9e9e89: 32/49 (65.3 %), after the structural improvers 31/49 (README.md)
# traps answered with an environment claim (README.md): a strict xfail each
KNOWN_TRAP_CLAIMS: frozenset[str] = frozenset()


def test_heldout30_structure_big_sourced_labelled_and_broad():
    SET.check_structure()


def test_heldout30_unseen_threads_quoted_nowhere_else():
    SET.check_unseen()


def test_heldout30_top1():
    SET.check_top1(FLOOR)


@pytest.mark.parametrize(("name", "text"), SET.trap_params(KNOWN_TRAP_CLAIMS))
def test_heldout30_trap_gets_no_environment_claim(name, text):
    check_trap(name, text)
