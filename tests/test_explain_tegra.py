"""Top-1 of `envdoctor explain` on real Jetson error texts (tests/corpus/explain/tegra).

Collected from public threads and labelled before any Tegra signature existed (first run
0/13, tests/probes/JETSON.md); none of these threads is quoted by a signature example. The
primary diagnosis must carry one of the labelled cause's codes.
"""

from __future__ import annotations

from pathlib import Path

from envdoctor.explain import diagnose_text, primary
from tests.explain_sets import assert_sourced_labelled_unquoted, load_set, wrong_answers

SET = Path(__file__).parent / "corpus" / "explain" / "tegra"
CASES, CAUSES = load_set(SET, "t*.toml")
FLOOR = 12 / 13  # measured after the Tegra signatures (JETSON.md, 11/13); t11 since branch plat (ETEGRA005 reads ETORCH006's English on a Jetson)


def test_tegra_set_is_sourced_labelled_and_unquoted():
    assert_sourced_labelled_unquoted(CASES, CAUSES)


def test_tegra_top1():
    wrong = wrong_answers(CASES, CAUSES)
    assert 1 - len(wrong) / len(CASES) >= FLOOR - 1e-9, wrong


def test_without_a_jetson_in_the_text_the_desktop_answer_stands():
    """The same lines with nothing that says Jetson keep their desktop diagnosis."""
    for text, code in (("OSError: libcurand.so.10: cannot open shared object file: No such "
                        "file or directory", "ECUDNN008"),
                       # no CPU in the text: the answer names both branches (x86 AVX, ARM OpenBLAS)
                       ("Illegal instruction (core dumped)", "ESYS020"),
                       ("RuntimeError: CUDA error: no kernel image is available for execution "
                        "on the device", "ECUDA003"),
                       ("AssertionError: Torch not compiled with CUDA enabled", "ETORCH006")):
        d = primary(diagnose_text(text))
        assert d is not None and d.code == code, (text, d and d.code)
