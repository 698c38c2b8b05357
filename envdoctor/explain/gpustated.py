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



def ver_key(version: str) -> tuple[int, ...]:
    """"3.10" after "3.9", "12.1" after "9.0"."""
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
    stated = ", ".join(f"CUDA {c}" for c in sorted(cudas, key=ver_key))
    return (f"The text states a {gpu} (compute capability {cc}) and {stated}: this GPU needs a "
            f"build for CUDA {floor} or newer; the libraries of an older CUDA (cuBLAS, cuDNN) "
            "fail on it.")




# onnxruntime-gpu's CUDA provider built for one CUDA major on a machine with another. The CUDA
# major the build needs: the library its provider failed to load (cuBLAS, cuBLASLt and cudart
# carry the CUDA major in their soname: libcublasLt.so.11 is CUDA 11.x), else the pre-1.19
# message ("Failed to create CUDAExecutionProvider" with no "Require cuDNN N.* and CUDA M.*"
# part), whose PyPI builds from 1.5 to 1.18 are CUDA 11 (1.17/1.18 for CUDA 12 came from ORT's
# onnxruntime-cuda-12 feed). The CUDA the text installs: nvcc's release, collect_env's "CUDA
# runtime version", a toolkit path or words ("cuda 12.2", "CUDA: 12.4", "cuda toolkit==12.1",
# "cuda12.0"), a pip nvidia-*-cuNN wheel; never nvidia-smi's "CUDA Version:" beside "Driver
# Version:" (the driver's ceiling) nor a line that speaks of what is required or supported.
_ORT_PROVIDER_LIB = re.compile(r"libonnxruntime_providers_cuda\.so\b[^\n]{0,40}?error:\s{0,3}"
                               r"(lib(?:cublasLt|cublas|cudart)\.so\.(\d{1,2}))\b")
_ORT_OLD_FAIL = re.compile(r"Failed to create CUDAExecutionProvider(?![.\s]{0,3}Require)")
_ORT_NEW_FAIL = re.compile(r"Require cuDNN \d{1,2}\.\* and CUDA \d{1,2}\.\*")
_ORT_CUDA12_FEED = re.compile(r"(?i)onnxruntime-cuda-12\b|ort-cuda-12-nightly")
_ORT_VERSION = re.compile(r"(?im)\bonnxruntime[-_]gpu\b[ \t]{0,30}(?:==|:|\bversion:?)?[ \t]{0,3}"
                          r"v?1\.(\d{1,2})(?:\.\d{1,3})?(?![\d.]*\d)"
                          r"|ONNX Runtime Version or Commit ID\s{1,6}v?1\.(\d{1,2})\b")
_ORT_CPU_BESIDE = re.compile(r"(?im)^[ \t]{0,4}(?:\+ )?onnxruntime(?:[ \t]{1,30}|==)v?\d{1,2}\.\d"
                             r"|\bonnxruntime[ \t]{1,30}\d{1,2}\.\d{1,3}(?:\.\d{1,3})?[ \t]{1,30}"
                             r"onnxruntime[-_]gpu\b"
                             r"|\bboth\W{1,3}onnxruntime\W{1,3}and\W{1,3}onnxruntime[-_]gpu\b"
                             # the CPU package itself installed ("pip install onnxruntime 1.5")
                             r"|\bpip3? install\b[^\n]{0,60}?(?<![\w.-])onnxruntime(?![\w-])")
_INSTALLED_CUDA = re.compile(
    r"(?i)\brelease (\d{1,2})\.\d{1,2}, V\d"
    r"|\bCUDA runtime version:\s{0,3}(\d{1,2})\.\d"
    r"|(?<![\w.-])cuda(?:[ _-]?toolkit)?(?:[ _-]?version)?"
    r"(?:\s{0,2}(?:is|==|:|=)\s{0,2}|[ _-]?|[\\/]v?)(\d{1,2})\.\d{1,2}(?:\.\d{1,4})?(?![\d.]*\d)"
    r"|\bnvidia-[a-z-]{3,20}-cu(1[12])\b")
_NOT_INSTALLED = re.compile(r"(?i)requir|support|compatib|\bbuilt (?:for|with)\b|\bneeds?\b"
                            r"|recommend|\bshould\b|CUDA used to build|Require cuDNN")


def _ort_needed_major(text: str) -> int | None:
    libs = {int(m.group(2)) for m in _ORT_PROVIDER_LIB.finditer(text)}
    if libs:
        return next(iter(libs)) if len(libs) == 1 else None
    if not _ORT_OLD_FAIL.search(text) or _ORT_NEW_FAIL.search(text):
        return None
    minors = {int(m.group(1) or m.group(2)) for m in _ORT_VERSION.finditer(text)}
    if any(v >= 19 or v < 5 for v in minors):
        return None
    if _ORT_CUDA12_FEED.search(text):
        return None if minors and max(minors) < 17 else 12
    return 11


def _installed_cuda_majors(text: str) -> set[int]:
    found: set[int] = set()
    for line in text.splitlines():
        if _SMI_LINE.search(line) or _NOT_INSTALLED.search(line):
            continue
        for m in _INSTALLED_CUDA.finditer(line):
            found.add(int(next(g for g in m.groups() if g)))
    return found


def ort_built_cuda11_on_cuda12_reason(text: str) -> str | None:
    """The note when onnxruntime-gpu's CUDA provider needs CUDA 11 and every CUDA the text
    states as installed is CUDA 12, with no CPU ``onnxruntime`` beside it (EORT001's cause)."""
    text = text[:MAX_TEXT]
    if _ort_needed_major(text) != 11 or _installed_cuda_majors(text) != {12}:
        return None
    if _ORT_CPU_BESIDE.search(text):
        return None
    lib = _ORT_PROVIDER_LIB.search(text)
    how = (f"its CUDA provider asks for {lib.group(1)}" if lib else
           "its 'Failed to create CUDAExecutionProvider' is the message of a release before "
           "1.19, whose PyPI builds are CUDA 11")
    return (f"The text states CUDA 12.x, and this onnxruntime-gpu is built for CUDA 11 ({how}): "
            "onnxruntime-gpu 1.19 or newer from PyPI is built for CUDA 12 (with cuDNN 9).")


PATTERNS = (SM_WORD, BOARD, _TORCH_BUILT_CUDA, _CUDA_ANY, _SMI_LINE, _ORT_PROVIDER_LIB,
            _ORT_OLD_FAIL, _ORT_NEW_FAIL, _ORT_CUDA12_FEED, _ORT_VERSION, _ORT_CPU_BESIDE,
            _INSTALLED_CUDA, _NOT_INSTALLED)
