"""Intel GPUs (Arc, Data Center GPU Max, Core Ultra graphics): PyTorch reaches them through its
XPU backend, which only the ``+xpu`` wheels of download.pytorch.org/whl/xpu carry
(https://docs.pytorch.org/docs/stable/notes/get_start_xpu.html). Never CUDA: an Intel GPU
machine is not told to install the NVIDIA driver or a CUDA wheel.

The GPUs are the host probe's (``host.intel_gpus``: PCI vendor 0x8086, display class, the
i915 / xe kernel driver bound), read from /sys without importing a framework. The integrated
graphics of older Intel CPUs (UHD, Iris Xe) sit at 0000:00:02.0 too and are not XPU targets,
so an integrated GPU counts only where an XPU torch is installed for it (the user's choice
says which one it is); a discrete one (Arc A/B-series, Data Center GPU Max) counts as it is.
"""

from __future__ import annotations

from typing import Any

from envdoctor.engine.knowledge._reads import optional, reads
from envdoctor.facts import DeviceNode, IntelGpu, NvidiaFacts, RocmFacts, TorchBuild

XPU_INDEX = "https://download.pytorch.org/whl/xpu"
INTEL_DRIVERS = ("i915", "xe")


def is_xpu_build(t: TorchBuild | None) -> bool:
    """A torch whose version carries the ``+xpu`` tag of PyTorch's XPU wheels."""
    local = (t.version.local or "") if t is not None and t.version is not None else ""
    return local.lower().startswith("xpu")


def _other_gpu(nv: NvidiaFacts | None, rocm: RocmFacts | None) -> bool:
    """An NVIDIA or AMD GPU (listed, on the PCI bus, or /dev/kfd) where those facts were read."""
    nvidia = nv is not None and bool(nv.gpus or (nv.pci_devices or 0) > 0)
    amd = rocm is not None and bool(rocm.gpus or (rocm.pci_devices or 0) > 0
                                    or rocm.kfd is not None)
    return nvidia or amd


def _driven(gpus: tuple[IntelGpu, ...]) -> list[IntelGpu]:
    return [g for g in gpus if g.driver in INTEL_DRIVERS]


@reads(gpus=optional("host.intel_gpus", ()), nv=optional("nvidia"), rocm=optional("rocm"),
       t=optional("frameworks.torch"))
def intel_machine(*, gpus: tuple[IntelGpu, ...], nv: NvidiaFacts | None,
                  rocm: RocmFacts | None, t: TorchBuild | None) -> bool:
    """``intel_machine()``: the only GPUs here are Intel ones with their kernel driver (i915 or
    xe) bound, and one of them is an XPU target: a discrete card, or an integrated GPU with an
    XPU torch installed for it. Such a GPU is reached through XPU, never CUDA. False when an
    NVIDIA or AMD GPU is there (those checks speak), or no Intel GPU was seen."""
    driven = _driven(gpus)
    if not driven or _other_gpu(nv, rocm):
        return False
    return any(not g.integrated for g in driven) or is_xpu_build(t)


@reads(gpus=optional("host.intel_gpus", ()))
def intel_gpu_list(*, gpus: tuple[IntelGpu, ...]) -> str:
    """``intel_gpu_list()``: the Intel GPUs with their driver, for a finding's text
    ("Intel GPU 0x56a0 at 0000:03:00.0 (i915)")."""
    return ", ".join(f"Intel GPU {g.device or '?'} at {g.pci_address} ({g.driver or 'no driver'})"
                     for g in _driven(gpus)) or "an Intel GPU"


@reads(gpus=optional("host.intel_gpus", ()), nv=optional("nvidia"), rocm=optional("rocm"),
       t="frameworks.torch")
def torch_not_xpu_on_intel(*, gpus: tuple[IntelGpu, ...], nv: NvidiaFacts | None,
                           rocm: RocmFacts | None, t: TorchBuild | None) -> str | None:
    """``torch_not_xpu_on_intel()``: a torch that cannot use the Intel GPU of a machine whose
    only GPU is a discrete Intel one: "torch 2.6.0 is a CUDA 12.4 build" (a CPU-only or ROCm
    build likewise); None for an XPU build, on other machines, or when the build was not
    observed (a pasted "torch 2.6.0" says nothing of it)."""
    if t is None or t.version is None or is_xpu_build(t):
        return None
    driven = _driven(gpus)
    if not any(not g.integrated for g in driven) or _other_gpu(nv, rocm):
        return None
    if t.cuda is not None:
        kind = f"a CUDA {t.cuda} build"
    elif t.hip is not None:
        kind = f"a ROCm {t.hip.major}.{t.hip.minor} build"
    else:
        kind = "a CPU-only build"
    return f"torch {t.version} is {kind}"


@reads(gpus=optional("host.intel_gpus", ()), nv=optional("nvidia"), rocm=optional("rocm"),
       t=optional("frameworks.torch"))
def intel_access_problem(*, gpus: tuple[IntelGpu, ...], nv: NvidiaFacts | None,
                         rocm: RocmFacts | None, t: TorchBuild | None) -> str | None:
    """``intel_access_problem()``: the render nodes of this machine's Intel GPUs that this user
    cannot open ("/dev/dri/renderD128 (group render, mode 0660)"), when every XPU target's
    node was judged and none opens; None otherwise (a node opens, one was not judged, or an
    NVIDIA/AMD GPU is here). Level Zero and OpenCL open the render node read-write, so
    torch.xpu sees no device without it."""
    nodes = _shut_nodes(gpus, nv, rocm, t)
    return " and ".join(f"{n.path} (group {n.group or '?'}, mode {n.mode})"
                        for n in nodes) if nodes else None


@reads(gpus=optional("host.intel_gpus", ()), nv=optional("nvidia"), rocm=optional("rocm"),
       t=optional("frameworks.torch"))
def intel_render_group(*, gpus: tuple[IntelGpu, ...], nv: NvidiaFacts | None,
                       rocm: RocmFacts | None, t: TorchBuild | None) -> str:
    """``intel_render_group()``: the group that owns the render node this user cannot open
    (XPU002's fix), "render" where it was not read."""
    nodes = _shut_nodes(gpus, nv, rocm, t)
    return next((n.group for n in nodes if n.group), "render")


def _shut_nodes(gpus: tuple[IntelGpu, ...], nv: NvidiaFacts | None, rocm: RocmFacts | None,
                t: TorchBuild | None) -> list[DeviceNode]:
    """The render nodes of the XPU targets here when every one was judged shut for this user
    while its group may open it (mode g+rw: group membership is the fix); [] otherwise."""
    if _other_gpu(nv, rocm):
        return []
    targets = [g for g in _driven(gpus) if not g.integrated or is_xpu_build(t)]
    nodes = [g.render_node for g in targets]
    shut = [n for n in nodes if n is not None and n.accessible is False
            and _group_may_open(n.mode)]
    return shut if targets and len(shut) == len(nodes) else []


def _group_may_open(mode: str) -> bool:
    try:
        return int(mode, 8) & 0o060 == 0o060
    except ValueError:
        return False


@reads(dists=optional("packages.distributions", ()))
def xpu_install_line(*, dists: Any) -> str:
    """``xpu_install_line()``: the install line of PyTorch's XPU wheels, with torchvision and
    torchaudio where they are installed (their XPU builds come from the same index)."""
    names = {getattr(d, "name", "") for d in dists or ()}
    pkgs = ["torch"] + [n for n in ("torchvision", "torchaudio") if n in names]
    return (f"pip uninstall -y {' '.join(pkgs)} && pip install {' '.join(pkgs)} "
            f"--index-url {XPU_INDEX}")
