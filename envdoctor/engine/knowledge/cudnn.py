"""cuDNN: which GPUs a cuDNN release supports (cudnn.toml, NVIDIA's cuDNN support matrix)."""

from __future__ import annotations

import re

from packaging.version import Version

from envdoctor.engine.knowledge._common import counted
from envdoctor.engine.knowledge._reads import reads, some
from envdoctor.facts import Distribution, Gpu
from envdoctor.matrices import confirmed
from envdoctor.matrices.cudnn import lookup_cudnn, lookup_cudnn_min_cc
from envdoctor.matrices.gpus import gpu_cc_of


def cudnn_wheels(distributions: tuple[Distribution, ...]) -> list[tuple[str, Version, int | None]]:
    """pip cuDNN wheels: (distribution, version, CUDA major from the -cuNN suffix)."""
    out = []
    for d in distributions:
        m = re.match(r"^nvidia-cudnn(?:-cu(\d+))?$", d.name)
        if m and d.version is not None:
            out.append((d.name, d.version, int(m.group(1)) if m.group(1) else None))
    return out


@reads(gpus="nvidia.gpus", dists=some("packages.distributions"))
def gpus_below_cudnn(*, gpus: tuple[Gpu, ...], dists: tuple[Distribution, ...]) -> list[str]:
    """GPUs older than the installed pip cuDNN supports.

    E.g. ``["GTX 1080 Ti (cc 6.1 < 7.5, nvidia-cudnn-cu12 9.13)"]``; whether every row used
    was confirmed is ``gpus_below_cudnn_confirmed()``.
    """
    out = []
    for dist, version, major in cudnn_wheels(dists):
        floor = lookup_cudnn_min_cc(version, major)
        for gpu in gpus:
            cc = gpu_cc_of(gpu)
            if floor is not None and cc is not None and cc < floor:
                out.append(f"{gpu.name} (cc {cc} < {floor}, {dist} {version})")
    return counted(out)


@reads(dists=some("packages.distributions"))
def gpus_below_cudnn_confirmed(*, dists: tuple[Distribution, ...]) -> bool:
    """Whether every cuDNN row behind ``gpus_below_cudnn()`` is confirmed."""
    return all(confirmed(lookup_cudnn(v)) for _, v, _ in cudnn_wheels(dists)
               if lookup_cudnn(v) is not None)
