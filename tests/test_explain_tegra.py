"""Top-1 of `envdoctor explain` on real Jetson error texts (tests/corpus/explain/tegra).

Collected from public threads and labelled before any Tegra signature existed (first run
0/13, tests/probes/JETSON.md); none of these threads is quoted by a signature example. The
primary diagnosis must carry one of the labelled cause's codes.
"""

from __future__ import annotations

from pathlib import Path

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.signatures import load_signatures
from envdoctor.rulefiles import is_url, load_toml

SET = Path(__file__).parent / "corpus" / "explain" / "tegra"
CASES = [(p.name, load_toml(p)) for p in sorted(SET.glob("t*.toml"))]
CAUSES = load_toml(SET / "causes.toml")
FLOOR = 11 / 13  # measured after the Tegra signatures (JETSON.md); the misses are named there


def test_tegra_set_is_sourced_labelled_and_unquoted():
    assert len(CASES) >= 10
    held = set()
    for name, case in CASES:
        assert is_url(case["source"]) and case["label"] in CAUSES and case["text"].strip(), name
        held.add(case["source"].rstrip("/"))
    assert len(held) == len(CASES), "one text per thread"
    examples = {e.source.rstrip("/") for s in load_signatures() for e in s.examples}
    assert not held & examples, sorted(held & examples)


def test_tegra_top1():
    wrong = []
    for name, case in CASES:
        d = primary(diagnose_text(case["text"]))
        code = d.code if d else "none"
        if code not in CAUSES[case["label"]]["codes"]:
            wrong.append((name, case["label"], code))
    assert 1 - len(wrong) / len(CASES) >= FLOOR - 1e-9, wrong


def test_without_a_jetson_in_the_text_the_desktop_answer_stands():
    """The same lines with nothing that says Jetson keep their desktop diagnosis."""
    for text, code in (("OSError: libcurand.so.10: cannot open shared object file: No such "
                        "file or directory", "ECUDNN008"),
                       ("Illegal instruction (core dumped)", "ESYS006"),
                       ("RuntimeError: CUDA error: no kernel image is available for execution "
                        "on the device", "ECUDA003"),
                       ("AssertionError: Torch not compiled with CUDA enabled", "ETORCH006")):
        d = primary(diagnose_text(text))
        assert d is not None and d.code == code, (text, d and d.code)
