"""``python -m torch.utils.collect_env`` output, from PyTorch 1.0 to 2.x (and vLLM's copy).

Read line by line as ``Key: value``; keys are matched case-insensitively on their start so
that old and new spellings ("Is debug build: No" in 1.x, "False" in 2.x) both work, lines
may be indented, bulleted or quoted, and a value may continue on the following lines
("GPU models and configuration:" then "GPU 0: …"; "cuDNN version: Probably one of the
following:" then paths). "CUDA runtime version" is what collect_env got from ``nvcc
--version``; "N/A", "None", "Could not collect" and "No CUDA" mean "no value".
"""

from __future__ import annotations

import re

from envdoctor.facts import Gpu
from envdoctor.parsers import packages
from envdoctor.parsers._common import add_cudnn, os_fields, python_fields
from envdoctor.parsers._partial import Partial
from envdoctor.parsers._text import missing, plain, to_bool, ver
from envdoctor.parsers.gpus import clean_name

NAME = "collect_env"
RANK = 60

KEYS = {
    "pytorch version": "torch", "is debug build": "debug", "cuda used to build pytorch": "cuda",
    "rocm used to build pytorch": "rocm", "os": "os", "gcc version": "gcc",
    "clang version": "clang", "cmake version": "cmake", "libc version": "libc",
    "python version": "python", "python platform": "platform",
    "is cuda available": "cuda_available", "cuda runtime version": "nvcc",
    "cuda_module_loading set to": "lazy", "gpu models and configuration": "gpus",
    "nvidia driver version": "driver", "cudnn version": "cudnn",
    "hip runtime version": "hip_runtime", "miopen runtime version": "miopen",
    "is xnnpack available": "xnnpack", "is xpu available": "xpu",
    "versions of relevant libraries": "libs", "cpu": "cpu", "vllm version": "vllm",
}
# keys are short: a bounded lazy key keeps "key ... :" linear on a long line of spaces
_KEY = re.compile(r"^\s*(?:[-*]\s+)?([A-Za-z][A-Za-z0-9_ ./()-]{0,80}?)\s*:\s?(.*)$")
_NOCOLON = re.compile(r"^\s*(?:[-*]\s+)?(pytorch version|is debug build|cuda used to build pytorch|"
                      r"python version|is cuda available|cuda runtime version|"
                      r"nvidia driver version|cudnn version)\s+(\S.*)$", re.IGNORECASE)
SIGNATURE = ("pytorch version", "is debug build", "cuda used to build pytorch",
             "is cuda available", "gpu models and configuration", "nvidia driver version",
             "cudnn version", "rocm used to build pytorch", "cuda runtime version")


# collect_env's own spelling of its keys, for pastes whose line breaks the tracker or a mail
# client dropped ("PyTorch version: 2.1.0+cu121 Is debug build: False CUDA used to build …")
_WRAPPED_KEY = re.compile(
    r"(?<=\s)(?=(?:PyTorch version|Is debug build|CUDA used to build PyTorch|ROCM used to build "
    r"PyTorch|OS|GCC version|Clang version|CMake version|Libc version|Python version|Python "
    r"platform|Is CUDA available|CUDA runtime version|CUDA_MODULE_LOADING set to|GPU models and "
    r"configuration|Nvidia driver version|cuDNN version|HIP runtime version|MIOpen runtime "
    r"version|Is XNNPACK available|Is XPU available|Versions of relevant libraries):|"
    r"\[(?:pip3?|conda)\] )")


def unwrap(text: str) -> str:
    """Each line that holds three or more collect_env fields, split back into one per line."""
    out: list[str] = []
    for line in text.split("\n"):
        if len(_WRAPPED_KEY.findall(line)) >= 2:  # the first field starts the line itself
            out.extend(piece.rstrip() for piece in _WRAPPED_KEY.split(line))
        else:
            out.append(line)
    return "\n".join(out)


def _fields(text: str) -> list[tuple[str, str, list[str]]]:
    """(key, value, continuation lines) for every known key, in order."""
    out: list[tuple[str, str, list[str]]] = []
    for line in text.split("\n"):
        m = _KEY.match(line)
        key = m.group(1).strip().lower() if m else ""
        if not (m and key in KEYS):
            m = _NOCOLON.match(line)  # "PyTorch version 1.5.0": a colon lost in the paste
            key = m.group(1).lower() if m else ""
        if m and key in KEYS:
            out.append((KEYS[key], m.group(2).strip(), []))
        elif out and line.strip():
            out[-1][2].append(line.strip())
        elif out and not line.strip():
            out.append(("", "", []))  # a blank line ends a continuation
    return [f for f in out if f[0]]


def recognises(text: str) -> bool:
    low = text.lower()
    return sum(1 for k in SIGNATURE if re.search(rf"^\s*(?:[-*]\s+)?{k}\s*:", low, re.MULTILINE)) >= 2


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    if not recognises(text):
        text = unwrap(text)
        if not recognises(text):
            return part
    rocm = False
    torch_imported = False
    torch_na = False
    for key, value, more in _fields(text):
        v = plain(value)
        if key == "torch":
            if missing(v):
                torch_na = True  # collect_env could not import torch: absent, or broken
            else:
                part.set("frameworks.torch.version", ver(v))
                part.observe("torch", "import", "ok")
                torch_imported = True
        elif key == "cuda":
            # "CUDA used to build PyTorch" is torch.version.cuda itself, no command behind it:
            # "None" for a CPU build, and collect_env's replace_nones() prints a None field as
            # "Could not collect" (old releases did so here), so with torch imported that too
            # is the CPU build, not a failed probe (torch/utils/collect_env.py pretty_str).
            if v.lower() == "none" or (torch_imported and missing(v)
                                       and v.lower().startswith("could not")):
                part.set("frameworks.torch.cpu_only", True)
            elif not missing(v):
                part.set("frameworks.torch.cuda", _series(v))
        elif key == "rocm" and not missing(v):
            rocm = True
            part.set("frameworks.torch.hip", ver(v.split("-")[0]))
        elif key == "os":
            os_fields(part, v)
        elif key == "libc" and not missing(v):
            m = re.search(r"glibc-?(\d+\.\d+)", v)
            if m:
                part.set("host.glibc", "glibc-" + m.group(1))
        elif key == "python":
            python_fields(part, " ".join([v, *more]))
        elif key == "platform":
            os_fields(part, v)
        elif key == "cuda_available":
            part.observe("torch", "cuda_available", to_bool(v))
        elif key == "nvcc" and not missing(v):
            part.set("cuda.nvcc_version", ver(v))
        elif key == "gpus":
            _gpus(part, [v, *more])
        elif key == "driver":
            if not missing(v):
                part.set("nvidia.driver_version", ver(v))
        elif key == "cudnn" and not missing(v):
            add_cudnn(part, " ".join([v, *more]))
        elif key == "libs":
            _libs(part, more)
        elif key == "gcc" and not missing(v):
            part.set("host.gcc_version", _gcc(v))
        elif key == "cpu":
            part.set("host.cpu_model", _cpu_model([v, *more]))
    if torch_na and "torch" in part.packages:
        # "PyTorch version: N/A" is collect_env's `import torch` failing; with torch in its own
        # pip/conda list that is torch installed but not importable. Without the list it may
        # simply not be installed (a report written before building it): not observed.
        part.observe("torch", "import", "failed")
    _absent(part, text, rocm)
    return part


def _gcc(value: str) -> str:
    """ "(Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0" -> 11.4.0; "(GCC) 8.5.0 20210514 (Red Hat …)"
    -> 8.5.0: the first version after the vendor's parenthesis."""
    rest = value.split(")", 1)[1] if value.startswith("(") and ")" in value else value
    m = re.search(r"\b(\d+\.\d+(?:\.\d+)?)\b", rest)
    return m.group(1) if m else ""


def _cpu_model(lines: list[str]) -> str:
    """The CPU section: lscpu's "Model name:", wmic's "Name=", or macOS's one line (Apple M1)."""
    for line in lines:
        low = line.lower()
        if low.startswith("model name") and ":" in line:
            return " ".join(line.split(":", 1)[1].split())[:120]
        if low.startswith("name="):
            return line[5:].strip()[:120]
    first = next((ln.strip() for ln in lines if ln.strip()), "")
    return first[:120] if first and ":" not in first and "=" not in first else ""


def _series(value: str):
    """ "10.1.243" (conda builds print the full version) -> 10.1; "12.4" stays."""
    v = ver(value)
    if v is None:
        return None
    return ver(f"{v.major}.{v.minor}") if len(v.release) >= 2 else v


def _gpus(part: Partial, lines: list[str]) -> None:
    names = []
    for line in lines:
        for m in re.finditer(r"GPU\s*(\d+)\s*:\s*(.+?)(?:\s*\(UUID:[^)]*\))?\s*(?=GPU\s*\d+\s*:|$)",
                             line):
            names.append((int(m.group(1)), clean_name(plain(m.group(2)))))
    if not names:
        v = plain(lines[0]) if lines else ""
        # Old collect_env printed a bare name for one GPU; ROCm prints "Device 66a1" / AMD names.
        if not missing(v) and re.search(r"nvidia|geforce|tesla|quadro|titan|rtx|gtx|"
                                        r"\b[ahlvbt]\d{1,3}\b", v, re.IGNORECASE) and \
                not re.search(r"amd|radeon|instinct|device [0-9a-f]{4}", v, re.IGNORECASE):
            names.append((0, clean_name(v)))
    for index, name in names:
        if name and not missing(name):
            part.gpus.append(Gpu(index=index, name=name))


def _libs(part: Partial, lines: list[str]) -> None:
    pip = packages.parse("\n".join(ln for ln in lines if ln.startswith("[")))
    for name, version in pip.packages.items():
        part.package(name, version)
    for key in ("frameworks.torch.cuda", "frameworks.torch.cpu_only"):
        if key in pip.values and key not in part.values:
            part.values[key] = pip.values[key]


def _absent(part: Partial, text: str, rocm: bool) -> None:
    """Nothing: "Could not collect" and "No CUDA" for the GPUs and the driver are not absence.

    collect_env prints "Could not collect" when its nvidia-smi call failed (not on PATH, as on
    many Windows and container setups, or no driver), and "No CUDA" when torch itself cannot
    use CUDA (a CPU wheel on a GPU machine prints it too). Neither observes the driver, so the
    NVIDIA section stays not observed. On macOS it is absent: CUDA 10.2 was NVIDIA's last
    release for macOS (https://docs.nvidia.com/cuda/archive/10.2/cuda-toolkit-release-notes/).
    """
    if rocm or part.gpus or "nvidia.driver_version" in part.values:
        return
    if part.values.get("host.os") == "Darwin":
        part.absent["nvidia"] = "macOS has no NVIDIA CUDA driver (none since CUDA 10.2)"
