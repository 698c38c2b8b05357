"""One-line environment banners that training tools print at start-up and users paste.

Ultralytics (YOLOv5/YOLOv8/YOLO11) prints ``Ultralytics YOLOv8.2.54 🚀 Python-3.11.6
torch-2.3.1 CUDA:0 (NVIDIA GeForce RTX 3090, 24576MiB)``; ``CUDA:N (...)`` means torch itself
opened that GPU, ``CPU``/``MPS`` that it ran without one (which may be the user's choice, so
nothing is said about availability then). Gives the torch and Python versions and the GPUs.
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


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    found = list(_banners(text))
    if not found:
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
