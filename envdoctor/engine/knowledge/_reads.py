"""How a knowledge function declares the facts it reads (no registry, no side effects).

    @reads(gpus="nvidia.gpus", os=optional("host.os", "linux"))
    def any_gpu_cc(spec, *, gpus, os): ...

Each keyword names a parameter and the dotted facts path the engine resolves for it
(``envdoctor.engine.views.resolve``). A required read that is not known (not observed, probe
failed, or something below it unknown) makes the call UNKNOWN without running the function,
so functions only ever see facts that are whole. ``optional(path, default)`` passes
``default`` instead: for a function that decides without that fact (say so in its doc).
``some(path)`` accepts the observed items of a collection seen in part: for functions that
report what they find among the items, never an absence. ``result(name)`` is another
knowledge function's value; ``"intent"`` is the ``--expect`` intent.

A function whose facts are all known but not enough for an answer (a GPU that neither NVML
nor the name table knows) raises ``Undetermined``; the engine answers UNKNOWN for it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

REQUIRED = object()
F = TypeVar("F", bound=Callable[..., Any])


class Undetermined(Exception):
    """Raised by a knowledge function whose known facts do not decide the answer."""


@dataclass(frozen=True)
class Read:
    path: str
    default: Any = REQUIRED
    partial_ok: bool = False
    function: str = ""          # result(name): the value of that knowledge function

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


def optional(path: str, default: Any = None) -> Read:
    return Read(path, default)


def some(path: str) -> Read:
    return Read(path, partial_ok=True)


def result(name: str, default: Any = REQUIRED) -> Read:
    return Read("", default=default, function=name)


def reads(**declared: str | Read) -> Callable[[F], F]:
    """Attach the declaration to the function (``fn.reads``); nothing is registered."""
    def mark(fn: F) -> F:
        fn.reads = {k: v if isinstance(v, Read) else Read(v)  # type: ignore[attr-defined]
                    for k, v in declared.items()}
        return fn
    return mark


@dataclass(frozen=True)
class FirstOf:
    """A registry entry: the first of these functions whose value is known and not None,
    so that what was observed outranks what is inferred (``torch_archs``: the arch list the
    installed torch printed, else the matrix row of its wheel)."""

    names: tuple[str, ...]
    doc: str = ""


# What the install planner (envdoctor.suggest) reads of a snapshot. Declared here, beside the
# read helpers, so knowledge modules can delegate to the planner without importing it on
# the static path; every read is optional (the planner says "undecided" on missing facts).
MACHINE_READS: dict[str, str | Read] = dict(
    host_probe="host.probe", os=optional("host.os", ""), arch=optional("host.arch", ""),
    python=optional("host.python_version", None),
    nvidia_probe="nvidia.probe", driver=optional("nvidia.driver_version", None),
    gpus=optional("nvidia.gpus", ()), pci_devices=optional("nvidia.pci_devices", None),
    nvml_error=optional("nvidia.nvml_error", ""),
    cuda_probe="cuda.probe", nvcc=optional("cuda.nvcc_version", None),
    packages_probe="packages.probe", distributions=optional("packages.distributions", ()),
    frameworks_probe="frameworks.probe", torch=optional("frameworks.torch", None),
    tensorflow=optional("frameworks.tensorflow", None), jax=optional("frameworks.jax", None),
    wsl=optional("host.wsl", None), rocm=optional("rocm", None),
    env_vars=optional("env.vars", {}),
    jetson_probe=optional("jetson.probe", None), jetson_l4t=optional("jetson.l4t", None),
    jetson_jetpack=optional("jetson.jetpack", None), jetson_soc=optional("jetson.soc", ""),
    jetson_model=optional("jetson.model", ""), jetson_kernel=optional("jetson.kernel", ""),
    google_pci=optional("host.google_pci_devices", ()),
)
