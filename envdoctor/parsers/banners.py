"""One-line environment banners that training tools print at start-up and users paste.

Ultralytics (YOLOv5/YOLOv8/YOLO11) prints ``Ultralytics YOLOv8.2.54 🚀 Python-3.11.6
torch-2.3.1 CUDA:0 (NVIDIA GeForce RTX 3090, 24576MiB)``; ``CUDA:N (...)`` means torch itself
opened that GPU, ``CPU``/``MPS`` that it ran without one (which may be the user's choice, so
nothing is said about availability then). Gives the torch and Python versions and the GPUs.

ComfyUI prints its own start-up block: ``pytorch version: 2.6.0+cu126`` and ``Device:
cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync`` (beside ``Total VRAM …`` and ``Set vram
state to: …``), in newer logs behind a timestamp (``2025-03-15T22:57:28.208512 - …``) or a
logging prefix (``2024-09-22 03:04:32,316 - root - INFO - …``, ``… 15:45:27,406 INFO …``).
``Device: cuda:N <NVIDIA name>`` means torch opened that GPU; any other device (``cpu``,
``mps``, ``xpu``, an AMD card under ROCm or ZLUDA, DirectML's ``privateuseone``) is read as no
GPU statement at all.
"""

from __future__ import annotations

import re

from envdoctor.facts import Gpu
from envdoctor.parsers._partial import Partial
from envdoctor.parsers._text import ver
from envdoctor.parsers.gpus import clean_name

NAME = "banner"
RANK = 20

_BANNER = re.compile(r"(?:Ultralytics|YOLOv\d)\S*(?:\s+\S+){0,3}?\s+Python-(\d+\.\d+(?:\.\d+)?)"
                     r"\s+torch-(\d+\.\d+(?:\.\d+)?(?:[.+][\w.]+)?)\s+(.*)$", re.MULTILINE)
# the name may hold one "(...)"; the class after it only follows that group, so no two
# adjacent repeats of one class can split a long run between them (that is quadratic)
_RELEASE = re.compile(r"(?:Ultralytics|YOLOv\d)\S*?\s?(?:YOLOv)?v?(\d+\.\d+(?:\.\d+)?)")
_DEVICE = re.compile(r"CUDA:(\d+)\s*\(([^,()]+(?:\([^()]*\)[^,()]*)?),\s*(\d+)\s*MiB\)")


# ComfyUI's start-up lines, after an optional timestamp or logging prefix
_COMFY_PREFIX = (r"^(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d[.,]\d{1,6}"
                 r"(?: - [\w.-]{1,40} - [A-Z]{4,8} - | - | [A-Z]{4,8} ))?")
_COMFY_TORCH = re.compile(_COMFY_PREFIX + r"pytorch version: (\d+\.\d+(?:\.\d+)?(?:[+.][\w.]+)?)[ \t]*$",
                          re.MULTILINE)
_COMFY_MARK = re.compile(_COMFY_PREFIX + r"(?:Total VRAM \d+ MB, total RAM|Set vram state to: )",
                         re.MULTILINE)
_COMFY_DEVICE = re.compile(_COMFY_PREFIX + r"Device: cuda:(\d{1,2}) (NVIDIA [^:\n]{2,80}?) : "
                           r"(?:native|cudaMallocAsync)[ \t]*$", re.MULTILINE)

_COMFY_ANY_DEVICE = re.compile(_COMFY_PREFIX + r"Device: [^\n]{1,120}$", re.MULTILINE)


def _comfyui(text: str, part: Partial) -> bool:
    """ComfyUI's start-up block: the torch it runs and the NVIDIA GPU torch opened."""
    if "pytorch version: " not in text:
        return False
    versions = {m.group(1) for m in _COMFY_TORCH.finditer(text)}
    # one torch across the log's starts, and ComfyUI's own memory line beside it
    if len(versions) != 1 or not _COMFY_MARK.search(text):
        return False
    # a device that is not an NVIDIA GPU (an AMD card under ROCm or ZLUDA, cpu, xpu, mps,
    # DirectML) belongs to other readers: a "+cu118" torch there says nothing of NVIDIA
    if any(not _COMFY_DEVICE.match(m.group(0)) for m in _COMFY_ANY_DEVICE.finditer(text)):
        return False
    part.set("frameworks.torch.version", ver(versions.pop()))
    part.observe("torch", "import", "ok")
    seen: dict[int, str] = {}
    for m in _COMFY_DEVICE.finditer(text):
        seen.setdefault(int(m.group(1)), m.group(2).strip())
        if len(seen) >= 16:
            break
    if seen:
        part.gpus.extend(Gpu(index=i, name=clean_name(n)) for i, n in sorted(seen.items()))
        part.observe("torch", "cuda_available", True)
    return True


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    found = list(_banners(text))
    if not found:
        _comfyui(text, part)
        return part
    # Banners of two runs (an older one that used the GPU, a newer one on a CPU-only torch):
    # the newest Ultralytics release is the state the paste asks about; a GPU an earlier run
    # opened is this machine's unless the other run names Apple's chip (another machine).
    current = max(range(len(found)), key=lambda i: (found[i][0], i))
    _, python, torch, gpus, device = found[current]
    part.set("host.python_version", ver(python))
    part.set("frameworks.torch.version", ver(torch))
    part.observe("torch", "import", "ok")
    if gpus:
        part.gpus.extend(gpus)
        part.observe("torch", "cuda_available", True)
    elif not re.search(r"Apple|MPS", device):
        for other in found:
            if other[3] and len({other[2], torch}) > 1:
                part.gpus.extend(other[3])
                break
    return part


def _banners(text: str):
    """(Ultralytics release, Python, torch, GPUs it opened, the device words) per banner."""
    matches = []
    for m in _BANNER.finditer(text):
        matches.append(m)
        if len(matches) >= 16:
            break
    for n, m in enumerate(matches):
        # a multi-GPU banner continues on the next lines ("CUDA:1 (A100-SXM4-40GB, 40536MiB)"),
        # up to the next banner; a banner's own device words come first ("CPU (…)" opens none)
        end = matches[n + 1].start() if n + 1 < len(matches) else len(text)
        rest = text[m.start(3):min(end, m.start(3) + 4000)]
        gpus: list[Gpu] = []
        for d in _DEVICE.finditer(rest):
            if not gpus and rest[:d.start()].strip():
                break
            gpus.append(Gpu(index=int(d.group(1)), name=clean_name(d.group(2).strip()),
                            memory_total_mb=int(d.group(3))))
            if len(gpus) >= 64:
                break
        release = _RELEASE.search(m.group(0))
        yield (ver(release.group(1)) if release else None) or ver("0"), m.group(1), \
            m.group(2), gpus, m.group(3)[:200]
