"""Top-1 of `envdoctor explain` on the plat24d platform batch (tests/corpus/explain/plat24d).

Forty-three texts (batch 1: 35, batch x: 8) from containers (c*), WSL / Docker Desktop (w*), ROCm (r*), Jetson (j*) and
Apple silicon (a*), each from a thread no project file quoted at collection, labelled from what
the thread established before envdoctor was run on them. A label is a signature code or a list
of acceptable codes. The first-run figure is in the set's README.
"""

from __future__ import annotations

import sys
from pathlib import Path

from envdoctor.explain import diagnose_text, primary
from envdoctor.rulefiles import is_url, load_toml

SET = Path(__file__).parent / "corpus" / "explain" / "plat24d"
CASES = [(p.name, load_toml(p)) for p in sorted(SET.glob("*.toml"))]
FIRST_RUN = {"1": (4, 35), "x": (5, 8)}  # (right, texts) per batch, each before its own fixes (README.md)
FLOOR = 0.95


def _right(label: str | list[str], code: str) -> bool:
    return code in label if isinstance(label, list) else code == label


def test_plat24d_is_sourced_and_labelled():
    assert len(CASES) >= 40
    for name, case in CASES:
        assert is_url(case["source"]) and case["source"].startswith("https://github.com/"), name
        assert case["text"].strip() and case["note"].strip() and case["phenomenon"], name
    sources = [case["source"] for _, case in CASES]
    assert len(set(sources)) == len(sources), "one text per thread"


def test_plat24d_top1():
    misses = []
    for name, case in CASES:
        d = primary(diagnose_text(case["text"]))
        code = d.code if d else "none"
        if not _right(case["label"], code):
            misses.append(f"  {name}: label {case['label']}, got {code}")
    right = len(CASES) - len(misses)
    first = ", ".join(f"batch {b} {r}/{n}" for b, (r, n) in FIRST_RUN.items())
    print(f"\nexplain plat24d top-1: {right}/{len(CASES)} (first runs: {first})",
          *misses, sep="\n", file=sys.stderr)
    assert right / len(CASES) >= FLOOR, "\n".join(misses)


BARE_LINUX = (  # the platform lines with nothing that says container / WSL / AMD / Mac / Jetson
    ("Failed to initialize NVML: Unknown Error", "ECTR020"),
    ("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA "
     "GPU and installed a driver from http://www.nvidia.com/Download/index.aspx", "EROCM023"),
    ("AssertionError: Torch not compiled with CUDA enabled", "EMPS021"),
    ("numba.cuda.cudadrv.driver.CudaAPIError: [100] Call to cuInit results in "
     "CUDA_ERROR_NO_DEVICE", "EWSL022"),
    ('docker: Error response from daemon: could not select device driver "" with capabilities: '
     "[[gpu]].", "EWSL021"),
    ("user@box:~$ nvidia-smi\nbash: nvidia-smi: command not found", "ECTR022"),
    ("OSError: libcurand.so.10: cannot open shared object file: No such file or directory",
     "ETEGRA020"),
    ('docker: Error response from daemon: error gathering device information while adding '
     'custom device "/dev/kfd": no such file or directory.', "EROCM021"),
)


def test_platform_answers_stay_off_bare_linux_texts():
    for text, platform_code in BARE_LINUX:
        d = primary(diagnose_text(text))
        assert d is None or d.code != platform_code, (text, d.code)


def test_the_same_lines_with_platform_evidence_get_the_platform_answer():
    for text, code in (
            ("root@1f2e3d4c5b6a:/# nvidia-smi\nFailed to initialize NVML: Unknown Error\n"
             "it worked until systemctl daemon-reload on the host", "ECTR020"),
            ("I have an AMD Radeon RX 6800\nRuntimeError: Found no NVIDIA driver on your system.",
             "EROCM023"),
            ('  File "/Users/me/x.py", line 3\nAssertionError: Torch not compiled with CUDA enabled',
             "EMPS021"),
            ("C:\\Users\\me>docker run --gpus all img\ndocker: Error response from daemon: could not "
             'select device driver "" with capabilities: [[gpu]].', "EWSL021")):
        d = primary(diagnose_text(text))
        assert d is not None and d.code == code, (text, d and d.code)
