"""Top-1 of `envdoctor explain` on platform held-out batch P3 (tests/corpus/explain/platform_heldout3).

A third, independently collected batch of real error texts from AMD ROCm, Apple silicon / macOS,
Jetson, WSL2, containers and Cloud TPU hosts, from threads the repository quotes nowhere else,
labelled from what each thread established before envdoctor was run on them. Scored as the first
two platform batches (tests/test_explain_platform_heldout2.py): the primary diagnosis must carry
one of the codes of the labelled cause (causes.toml); a trap (label ``user`` or ``none``) is right
when the answer is not an environment claim, and no trap may get one. Figures are printed per
platform and per cause; the floor is 0.0 until the first run is recorded in the set's README.

The structural tests (``-k "structure or unseen"``) read the files only and never call envdoctor;
only ``test_platform_heldout3_top1_per_platform_and_traps_clean`` diagnoses.
"""

from __future__ import annotations

from tests.explain_platform_heldout import PlatformSet

SET = PlatformSet("platform_heldout3", letter="q", batch="P3",
                  platforms=("apple", "jetson", "rocm", "wsl", "container", "tpu"),
                  at_least=36, repos_at_least=24, traps_at_least=8, per_platform_at_least=4,
                  earlier=("platform_heldout", "platform_heldout2"), quoted_at_most=3)
FLOOR = 0.72  # first run on 057adfe: 16/36 and one trap claim; after: 17/36, then 25/36, then 26/36, none (README.md)
# traps the first run answered with an environment claim (README.md): strict, so fixing one says so
KNOWN_TRAP_CLAIMS: frozenset[str] = frozenset()


def test_platform_heldout3_structure_sourced_labelled_and_broad():
    SET.check_structure()


def test_platform_heldout3_unseen_quoted_nowhere_else_and_not_in_earlier_batches():
    SET.check_unseen()


def test_platform_heldout3_top1_per_platform_and_traps_clean():
    SET.check_top1(FLOOR, KNOWN_TRAP_CLAIMS)
