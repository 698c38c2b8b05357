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
_DEVICE = re.compile(r"CUDA:(\d+)\s*\(([^,()]+(?:\([^()]*\)[^,()]*)?),\s*(\d+)\s*MiB\)")


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    m = _BANNER.search(text)
    if not m:
        return part
    part.set("host.python_version", ver(m.group(1)))
    part.set("frameworks.torch.version", ver(m.group(2)))
    part.observe("torch", "import", "ok")
    # a multi-GPU banner continues on the next lines: "CUDA:1 (A100-SXM4-40GB, 40536MiB)"
    rest = text[m.start(3):m.start(3) + 4000]
    for d in _DEVICE.finditer(rest):
        part.gpus.append(Gpu(index=int(d.group(1)), name=clean_name(d.group(2).strip()),
                             memory_total_mb=int(d.group(3))))
        if len(part.gpus) >= 64:
            break
    if part.gpus:
        part.observe("torch", "cuda_available", True)
    return part
