"""``pip list``, ``pip freeze``, ``conda list`` and collect_env's ``[pip3]``/``[conda]`` lines.

Line-oriented and tolerant: a name and a version separated by ``==``, `` @ `` or columns;
``conda list`` adds build and channel columns (``pytorch 1.3.0 py3.7_cuda10.1.243_cudnn7.6.3_0
pytorch``: the build string says which CUDA a conda package was built for). A line counts only
when the name looks like a distribution and the version like a version, so prose is ignored.
"""

from __future__ import annotations

import re

from envdoctor.parsers._partial import Partial
from envdoctor.parsers._text import ver
from envdoctor.versions import canonical_name as canonicalize_name

NAME = "packages"
RANK = 40

_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]|[A-Za-z0-9]"
_VER = r"v?\d+(?:[.!]\w+)*(?:[+-][\w.]+)?"
FREEZE = re.compile(rf"^\s*(?:\[(?:pip3?|conda)\]\s+)?({_NAME})(?:\[[\w,]+\])?\s*===?\s*({_VER})\s*$")
COLUMNS = re.compile(rf"^\s*(?:\[(?:pip3?|conda)\]\s+)?({_NAME})\s+({_VER})(?:\s+(\S+))?"
                     rf"(?:\s+(\S+))?(?:\s+(\S+))?\s*$")
CONDA_HEADER = re.compile(r"#\s*packages in environment at\s+(\S+)", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
_HEADER_WORD = re.compile(r"package|#\s*name", re.IGNORECASE)  # words of every listing header
PIP_HEADER = re.compile(r"^\s*Package\s+Version\b", re.IGNORECASE)
# Names that look like distributions but are words in prose or table headers.
_NOT_NAMES = {"package", "name", "version", "python", "gpu", "cuda", "cudnn", "nvcc", "driver",
              "os", "platform", "torch.cuda", "cuda_available", "gpu-util", "fan", "processes",
              "requirement", "collecting", "using", "downloading", "successfully", "installing",
              "from", "found", "the", "is", "and", "with", "release", "built", "build",
              "copyright", "nvidia-smi", "numpy:", "jax:", "jaxlib:", "kernel", "wsl",
              "step", "epoch", "loss", "tensorflow:", "v", "at", "in", "on", "to", "of"}


def _is_pkg_name(name: str) -> bool:
    low = name.lower()
    return (low not in _NOT_NAMES and not low.endswith(":") and not low.isdigit()
            and len(low) <= 60 and re.search(r"[a-z]", low) is not None)


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    lines = text.split("\n")
    in_conda = False
    tabular = 0
    digit = _DIGIT.search
    header = _HEADER_WORD.search
    for line in lines:
        if not digit(line) and not header(line):  # neither a name with a version nor a header
            continue
        if CONDA_HEADER.search(line) or re.match(r"^\s*#\s*Name\s+Version\s+Build", line):
            in_conda = True
            m = CONDA_HEADER.search(line)
            if m:
                part.set("host.python_env", "conda")
            continue
        if PIP_HEADER.match(line):
            tabular += 1
            continue
        s = line.strip()
        if not s or s.startswith(("#", "---", "===")):
            continue
        m = FREEZE.match(s)
        if m and _is_pkg_name(m.group(1)):
            part.package(m.group(1), ver(m.group(2)))
            _conda_cuda(part, m.group(1), "")
            continue
        m = COLUMNS.match(s)
        if not m or not _is_pkg_name(m.group(1)):
            continue
        name, version, build = m.group(1), m.group(2), m.group(3) or ""
        conda_line = in_conda or s.startswith("[conda]") or _conda_row(m.group(3), m.group(4),
                                                                       m.group(5))
        pip_line = s.startswith("[pip") or tabular
        # Two-column lines outside a pip/conda listing: only accept obvious package lines.
        if not conda_line and not pip_line and (m.group(4) or not _plausible_pair(name, version)):
            continue
        if conda_line and name.lower() in ("blas",) and version == "1.0":
            continue
        v = ver(version)
        if v is None:
            continue
        part.package(name, v)
        if conda_line:
            _conda_cuda(part, name, build)
    extend_from_conda_pytorch(part)
    return part


# ``conda list | grep jax`` drops the header: a row is still conda's when its last columns are
# a build string (``pypi_0``, ``py39h06a4308_0``, ``h5888daf_0``) and a channel
_CHANNELS = frozenset({"pypi", "conda-forge", "defaults", "pytorch", "pytorch-nightly", "nvidia",
                       "anaconda", "main", "bioconda", "intel", "rapidsai"})
# py39h06a4308_0, py3.8_cpu_0, cpu_py311h1_1, and a bare build number (cpuonly 2.0 0 pytorch)
_BUILD = re.compile(r"^[\w.]{0,80}_\d+$|^\d{1,3}$")


def _conda_row(build: str | None, channel: str | None, extra: str | None) -> bool:
    return bool(build and channel and extra is None and channel.lower() in _CHANNELS
                and _BUILD.match(build))


def _plausible_pair(name: str, version: str) -> bool:
    """``jaxlib   0.4.26+cuda12.cudnn89`` yes; ``Python 3.10`` or ``Windows 11`` no."""
    return ("-" in name or "_" in name or canonicalize_name(name) in _KNOWN) and \
        re.match(r"v?\d+\.\d+", version) is not None


def _conda_cuda(part: Partial, name: str, build: str) -> None:
    """conda's build string names the CUDA a framework package was built for: pytorch's
    ``py3.7_cuda10.1.243_cudnn7.6.3_0`` or ``py3.6_cpu_0``; conda-forge jaxlib's
    ``cuda112py311h…_1`` or ``cpu_py311h…_1`` (a CPU jaxlib: JAX will find no GPU)."""
    key = canonicalize_name(name)
    if not build:
        return
    if key in ("pytorch", "torch", "pytorch-nightly"):
        m = re.search(r"cuda(\d+\.\d+)", build)
        packed = _PACKED_CUDA.search(build)
        if m:
            part.set("frameworks.torch.cuda", ver(m.group(1)))
        elif packed:
            digits = packed.group(1)
            part.set("frameworks.torch.cuda", ver(f"{digits[:-1]}.{digits[-1]}"))
        elif "cpu" in build.lower():
            part.set("frameworks.torch.cpu_only", True)
    elif key == "jaxlib":
        m = _JAXLIB_BUILD.match(build)
        if m:
            part.set("frameworks.jax.conda_build", m.group(1).lower())


# The pytorch channel's older builds pack the CUDA version without its dot: Windows'
# ``py3.7_cuda90_cudnn7_1`` (CUDA 9.0), ``py36_cuda80_cudnn6he774522_2`` (8.0),
# ``py3.7_cuda100_cudnn7_1`` (10.0). Only the majors that were ever packed this way (7-9 as two
# digits, 10-12 as three) are read; anything else is left unknown.
_PACKED_CUDA = re.compile(r"(?:^|_)cuda([7-9]\d|1[0-2]\d)(?![\d.])")

# conda-forge jaxlib: the build string starts with the variant, ``cuda120py312…`` / ``cpu_py…``
_JAXLIB_BUILD = re.compile(r"(cpu|cuda)(?:\d{2,3})?_?py\d", re.IGNORECASE)


_KNOWN = frozenset("""
torch torchvision torchaudio torchtext triton xformers transformers accelerate deepspeed
tensorflow keras jax jaxlib flax optax numpy scipy pandas protobuf onnx onnxruntime pytorch
cudatoolkit cudnn nccl mxnet paddlepaddle mindspore cupy bitsandbytes vllm
""".split())


def extend_from_conda_pytorch(part: Partial) -> None:
    """conda names torch ``pytorch``; record it as torch too so frameworks see it."""
    if "pytorch" in part.packages and "torch" not in part.packages:
        part.packages["torch"] = part.packages["pytorch"]
