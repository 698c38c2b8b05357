"""The GPU and the CUDA builds a text states, read for the impossibility readings
(envdoctor.explain.impossible) and for the stated readings that need only them
(envdoctor.explain.stated): kept apart from ``impossible`` so that ``stated`` can read them
without importing the diagnosis machinery ``impossible`` builds on (no import cycle)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from envdoctor.explain.textfacts import stated_gpu_cc

if TYPE_CHECKING:
    from envdoctor.explain.textfacts import TextFacts

MAX_TEXT = 1 << 18  # a title and its paragraphs: a long log has its own error lines

# "SM70", "sm 86" (textfacts reads sm_70 and "compute capability 7.0")
SM_WORD = re.compile(r"(?i)\bsm ?(\d{1,2})(\d)\b")
# a workstation board named without its "Quadro" ("an old K2000", "my P4000", "T1000"): a name
# only where the GPU table knows it as a Quadro board (``stated_gpu_cc``)
BOARD = re.compile(r"(?<![\w./-])([KMPT]\d{4})(?![\w.-])")


def boards(text: str) -> list[str]:
    return [m.group(1) for m in BOARD.finditer(text)]


def gpu_cc(facts: TextFacts, text: str) -> tuple[str, str] | None:
    """(GPU, compute capability) when the text names exactly one GPU architecture."""
    named: dict[str, str] = {}
    for gpu in (*facts.gpus, *boards(text)):
        known = stated_gpu_cc(gpu)
        if known is not None:
            named.setdefault(known, gpu)
    stated = set(facts.compute_capabilities)
    stated.update(f"{m.group(1)}.{m.group(2)}" for m in SM_WORD.finditer(text))
    if len(named) == 1:
        only, gpu = next(iter(named.items()))
        return (gpu, only) if stated <= {only} else None
    if not named and len(stated) == 1:
        return "GPU", next(iter(stated))
    return None



def _ver_key(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))


# The CUDA a text states for the build that runs: collect_env's "CUDA used to build PyTorch:
# 9.0.176" first; else any CUDA release it names ("cuda9.0", "CUDA 9.0", "Cuda-9.0", "CUDA:
# 10.0", "cuda=10.0"), never nvidia-smi's "CUDA Version:" beside "Driver Version:" (the
# driver's ceiling) nor a "cudnn"/"cudatoolkit" word
_TORCH_BUILT_CUDA = re.compile(r"(?i)\bCUDA used to build PyTorch:\s{0,3}(\d{1,2})\.(\d)")
_CUDA_ANY = re.compile(r"(?i)(?<![\w.-])cuda[ _-]?(?:version)?[ \t]{0,2}[:=]?[ \t]{0,2}v?(\d{1,2})\.(\d)"
                       r"(?:\.\d{1,4})?(?![\d.]*\d)")
_SMI_LINE = re.compile(r"(?i)Driver Version:?[^\n]{0,40}CUDA Version")


def _stated_cudas(text: str) -> set[str]:
    built = {f"{m.group(1)}.{m.group(2)}" for m in _TORCH_BUILT_CUDA.finditer(text)}
    if built:
        return built
    found: set[str] = set()
    for line in text.splitlines():
        if _SMI_LINE.search(line) or "runtime version" in line.lower():
            continue
        found.update(f"{m.group(1)}.{m.group(2)}" for m in _CUDA_ANY.finditer(line))
    return found


def libraries_predate_gpu_reason(text: str) -> str | None:
    """The note when the one GPU architecture a text names has a ``libraries_first_cuda`` in
    gpus.toml (the first CUDA whose libraries, cuBLAS and cuDNN, work on it: Turing, 10.0) and
    every CUDA the text states for its build is older: a CUDA 9 build of the framework on an RTX
    20xx, whose cuBLAS fails there ('the GPU program failed to execute')."""
    text = text[:MAX_TEXT]
    from envdoctor.explain.textfacts import text_facts
    named = gpu_cc(text_facts(text), text)
    if named is None:
        return None
    gpu, cc = named
    cudas = _stated_cudas(text)
    from envdoctor.engine.knowledge.impossible import libraries_predate
    floor = libraries_predate(sorted(cudas), cc)
    if floor is None:
        return None
    stated = ", ".join(f"CUDA {c}" for c in sorted(cudas, key=_ver_key))
    return (f"The text states a {gpu} (compute capability {cc}) and {stated}: this GPU needs a "
            f"build for CUDA {floor} or newer; the libraries of an older CUDA (cuBLAS, cuDNN) "
            "fail on it.")


PATTERNS = (SM_WORD, BOARD, _TORCH_BUILT_CUDA, _CUDA_ANY, _SMI_LINE)
