"""Named aspects of a snapshot: the one vocabulary `diff` and `fleet` share.

`envdoctor diff` (two machines) and `envdoctor fleet` (many nodes; ``rules/fleet/*.toml`` name
an aspect) compare the same things: the driver, the CUDA it supports, the toolkit, cuDNN,
NCCL, PyTorch, Python, the GPUs. Each of those is defined here once: the key `diff` reports
it under, the name a fleet rule uses, the label both print, the area findings attach to, the
facts section that must have answered, and how its value is read. What each tool does with a
value that is absent is its own (a diff shows it as added or removed; a fleet rule compares
``"none"``), so ``read`` returns None for "not there" and the tools map it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from envdoctor.facts import Facts


@dataclass(frozen=True)
class Aspect:
    key: str        # `diff`'s key and JSON name ("nvidia.driver")
    fleet: str      # the name a fleet rule gives in ``aspect = …`` ("driver")
    label: str      # what both print
    area: str       # the findings' area it can be explained by (`diff`)
    section: str    # the facts section whose probe must have answered
    read: Callable[[Facts], Any]

    def known(self, facts: Facts | None) -> bool:
        """Whether the probe behind this aspect answered (else its value is unknown)."""
        return facts is not None and getattr(facts, self.section).probe.status.known


def _newest_library(name: str) -> Callable[[Facts], Any]:
    def read(facts: Facts) -> Any:
        versions = sorted({lib.version for lib in facts.libraries.named(name) if lib.version})
        return versions[-1] if versions else None
    return read


def _gpu_models(facts: Facts) -> str | None:
    names = Counter(g.name for g in facts.nvidia.gpus)
    return ", ".join(f"{n} ×{c}" for n, c in sorted(names.items())) or None


def _cuda_driver(facts: Facts) -> Any:
    return facts.nvidia.cuda_driver_version if facts.nvidia.has_driver else None


def _torch(facts: Facts) -> Any:
    return facts.frameworks.torch.version if facts.frameworks.torch else None


ASPECTS: tuple[Aspect, ...] = (
    Aspect("nvidia.driver", "driver", "NVIDIA driver (branch = major)", "driver", "nvidia",
           lambda f: f.nvidia.driver_version),
    Aspect("nvidia.cuda", "cuda_driver", "CUDA version the driver supports", "driver",
           "nvidia", _cuda_driver),
    Aspect("gpu.model", "gpu_model", "GPU model", "gpu", "nvidia", _gpu_models),
    Aspect("gpu.count", "gpu_count", "GPU count", "gpu", "nvidia",
           lambda f: f.nvidia.gpu_count),
    Aspect("torch", "torch", "PyTorch", "torch", "frameworks", _torch),
    Aspect("lib.cudnn", "cudnn", "cuDNN library", "cudnn", "libraries",
           _newest_library("cudnn")),
    Aspect("lib.nccl", "nccl", "NCCL library", "nccl", "libraries", _newest_library("nccl")),
    Aspect("cuda.nvcc", "cuda_toolkit", "CUDA toolkit (nvcc on PATH)", "cuda", "cuda",
           lambda f: f.cuda.nvcc_version),
    Aspect("python", "python", "Python", "python", "host", lambda f: f.host.python_version),
)
BY_KEY = {a.key: a for a in ASPECTS}
BY_FLEET_NAME = {a.fleet: a for a in ASPECTS}
