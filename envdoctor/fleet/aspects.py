"""The vocabulary of fleet rules: named values per node or per rank.

A fleet rule (``rules/fleet/*.toml``) names one aspect; this module says how to read it from
a node's facts or a rank's payload. A value is a string, a number, a bool, or a map
``key -> value`` (one entry per GPU, per port, per package, per variable); ``None`` means
*not known* (the probe failed or never ran) and is never compared: unknown is not drift.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable
from typing import Any, TypeGuard

from envdoctor.facts import Facts, Status
from envdoctor.facts.aspects import ASPECTS, Aspect
from envdoctor.fleet.model import Fleet, NodeView, RankView

Value = Any
NodeFn = Callable[[NodeView, Fleet], Value]
RankFn = Callable[[RankView, NodeView, Fleet], Value]
NODE: dict[str, tuple[str, NodeFn]] = {}
RANK: dict[str, tuple[str, RankFn]] = {}
SEVERE_THROTTLE = ("hw_slowdown", "hw_thermal_slowdown", "sw_thermal_slowdown",
                   "hw_power_brake_slowdown")


def node_aspect(name: str, label: str) -> Callable[[NodeFn], NodeFn]:
    def register(fn: NodeFn) -> NodeFn:
        NODE[name] = (label, fn)
        return fn
    return register


def rank_aspect(name: str, label: str) -> Callable[[RankFn], RankFn]:
    def register(fn: RankFn) -> RankFn:
        RANK[name] = (label, fn)
        return fn
    return register


# What a shared aspect reads as when its probe answered "not there" (default "none"): a
# value drift rules compare. None: not compared (the driver's CUDA without a driver, an
# unstated Python).
_ABSENT: dict[str, Callable[[Facts], Value]] = {
    "cuda_driver": lambda f: None,
    "python": lambda f: None,
    "torch": lambda f: "not installed" if f.frameworks.torch is None else None,
}


def _shared(aspect: Aspect) -> None:
    """Register an aspect of the vocabulary `diff` shares (facts/aspects.py) under its fleet
    name and label: unknown when its probe did not answer."""
    def read(node: NodeView, fleet: Fleet) -> Value:
        facts = node.facts
        if facts is None or not aspect.known(facts):
            return None
        value = aspect.read(facts)
        if value is None:
            return _ABSENT.get(aspect.fleet, lambda f: "none")(facts)
        return value if isinstance(value, int) else str(value)
    NODE[aspect.fleet] = (aspect.label, read)


def _known(facts: Facts | None, section: str) -> TypeGuard[Facts]:
    return facts is not None and getattr(facts, section).probe.status.known


def _s(value: Any) -> str | None:
    return None if value is None else str(value)


# ---------------------------------------------------------------------------- node: versions
for _aspect in ASPECTS:
    _shared(_aspect)


@node_aspect("torch_build", "PyTorch build variant")
def _torch_build(node: NodeView, fleet: Fleet) -> Value:
    if not _known(node.facts, "frameworks") or node.facts.frameworks.torch is None:
        return None
    t = node.facts.frameworks.torch
    return f"CUDA {t.cuda}" if t.cuda else f"ROCm {t.hip}" if t.hip else "CPU-only"


@node_aspect("packages", "Python package")
def _packages(node: NodeView, fleet: Fleet) -> Value:
    if not _known(node.facts, "packages"):
        return None
    return {d.name: _s(d.version) or "?" for d in node.facts.packages.distributions}


# Variables that name the node or the process, not its setup: expected to differ per node.
IDENTITY_VARS = frozenset({"RANK", "LOCAL_RANK", "GROUP_RANK", "NODE_RANK", "ROLE_RANK",
                           "LOCAL_WORLD_SIZE", "HOSTNAME", "SLURMD_NODENAME", "SLURM_NODEID",
                           "SLURM_PROCID", "SLURM_LOCALID", "OMPI_COMM_WORLD_RANK",
                           "OMPI_COMM_WORLD_LOCAL_RANK", "PMI_RANK", "CUDA_CACHE_PATH"})


@node_aspect("node_env", "environment variable")
def _node_env(node: NodeView, fleet: Fleet) -> Value:
    """A saved snapshot's variables (fleet compare); a node with ranks is left to the ranks'
    own variables (FLEET010), which are what the job's processes see."""
    if node.ranks or not _known(node.facts, "env"):
        return None
    return {k: v for k, v in node.facts.env.vars.items() if k not in IDENTITY_VARS}


# ---------------------------------------------------------------------------- node: GPUs
@node_aspect("gpu_shortfall", "GPUs missing for the ranks on the node")
def _gpu_shortfall(node: NodeView, fleet: Fleet) -> Value:
    """Ranks on the node minus GPUs it has, on a fleet that trains on GPUs at all."""
    if not _known(node.facts, "nvidia") or not fleet.has_gpus or not node.ranks:
        return None
    expected = len(node.ranks)
    return max(0, expected - node.facts.nvidia.gpu_count)


def _per_gpu(node: NodeView, fn: Callable[[Any], Any]) -> Value:
    if not _known(node.facts, "nvidia") or node.facts.nvidia.probe.status is not Status.OK:
        return None
    out = {f"GPU {g.index}": fn(g) for g in node.facts.nvidia.gpus}
    out = {k: v for k, v in out.items() if v is not None}
    return out or None


@node_aspect("ecc_uncorrected", "uncorrected ECC errors")
def _ecc(node: NodeView, fleet: Fleet) -> Value:
    return _per_gpu(node, lambda g: g.ecc_uncorrected)


def _nvml(node: NodeView, key: str) -> Value:
    gpus = node.extra.get("nvml_gpus") if isinstance(node.extra, dict) else None
    if not isinstance(gpus, list):
        return None
    out = {f"GPU {g.get('index')}": g[key] for g in gpus if isinstance(g, dict) and key in g}
    return out or None


@node_aspect("remap_pending", "row remapping or page retirement pending")
def _remap(node: NodeView, fleet: Fleet) -> Value:
    retired = _per_gpu(node, lambda g: g.retired_pages_pending) or {}
    remap = _nvml(node, "remap_pending") or {}
    merged = {k: bool(retired.get(k)) or bool(remap.get(k)) for k in {*retired, *remap}}
    return merged or None


@node_aspect("throttle", "clock throttle reasons")
def _throttle(node: NodeView, fleet: Fleet) -> Value:
    return _per_gpu(node, lambda g: ",".join(r for r in g.throttle_reasons
                                             if r in SEVERE_THROTTLE))


@node_aspect("temperature", "GPU temperature (°C)")
def _temperature(node: NodeView, fleet: Fleet) -> Value:
    return _per_gpu(node, lambda g: g.temperature_c)


@node_aspect("pcie_width", "PCIe link width")
def _pcie_width(node: NodeView, fleet: Fleet) -> Value:
    """"x8 of x16" where a GPU's link trained narrower than it can (gen drops at idle to save
    power and is not compared; width does not)."""
    def width(g: Any) -> Any:
        if g.pcie_width is None or g.pcie_width_max is None:
            return None
        return "" if g.pcie_width >= g.pcie_width_max else f"x{g.pcie_width} of x{g.pcie_width_max}"
    return _per_gpu(node, width)


@node_aspect("app_clocks", "GPU application clocks (SM MHz)")
def _app_clocks(node: NodeView, fleet: Fleet) -> Value:
    clocks = _nvml(node, "app_clock_mhz")
    return None if not clocks else ", ".join(str(v) for v in sorted(set(clocks.values())))


@node_aspect("nvlink_down", "NVLink links down")
def _nvlink(node: NodeView, fleet: Fleet) -> Value:
    return _nvml(node, "nvlink_down")


@node_aspect("p2p", "GPU pairs without peer-to-peer access")
def _p2p(node: NodeView, fleet: Fleet) -> Value:
    """How many GPU pairs on the node cannot use P2P (a count, comparable across nodes)."""
    peers = _nvml(node, "p2p_unreadable_peers")
    return None if peers is None else sum(peers.values()) // 2


@node_aspect("xid", "XID errors in the kernel log")
def _xid(node: NodeView, fleet: Fleet) -> Value:
    found = node.extra.get("xids") if isinstance(node.extra, dict) else None
    if not isinstance(found, dict):
        return None
    return {bus: ", ".join(str(c) for c in codes) for bus, codes in found.items()}


# ---------------------------------------------------------------------------- node: network
@node_aspect("nccl_net_plugin", "NCCL network plugin")
def _plugin(node: NodeView, fleet: Fleet) -> Value:
    found = node.extra.get("nccl_net_plugins") if isinstance(node.extra, dict) else None
    if not isinstance(found, list):
        return None
    return ", ".join(sorted({p.rsplit("/", 1)[-1] for p in found})) or "none"


def _ib(node: NodeView) -> dict[str, Any] | None:
    ports = node.extra.get("ib_ports") if isinstance(node.extra, dict) else None
    if not isinstance(ports, dict):
        return None
    return {k: v for k, v in ports.items()
            if isinstance(v, dict) and v.get("link_layer", "InfiniBand") == "InfiniBand"}


@node_aspect("ib_port_state", "InfiniBand port state")
def _ib_state(node: NodeView, fleet: Fleet) -> Value:
    ports = _ib(node)
    return None if not ports else {k: v.get("state", "") for k, v in ports.items()}


@node_aspect("ib_rates", "InfiniBand port rates")
def _ib_rates(node: NodeView, fleet: Fleet) -> Value:
    ports = _ib(node)
    if ports is None:
        return None
    rates = Counter(v.get("rate", "") for v in ports.values() if v.get("state") == "ACTIVE")
    return ", ".join(f"{r} ×{c}" for r, c in sorted(rates.items())) or "none active"


@node_aspect("busbw_local", "all-reduce bus bandwidth within the node (GB/s)")
def _busbw_local(node: NodeView, fleet: Fleet) -> Value:
    for r in node.ranks:
        if not _on_gpu(r):
            continue
        value = ((r.bench or {}).get("local") or {}).get("busbw_gbs")
        if isinstance(value, (int, float)) and len(node.ranks) > 1:
            return float(value)
    return None


def _on_gpu(rank: RankView) -> bool:
    """Speed is compared between GPUs only: CPU ranks share cores, so their speeds say how
    the launcher packed them, not whether a device is slow."""
    return str((rank.bench or {}).get("device") or "").startswith("cuda")


# ---------------------------------------------------------------------------- rank
@rank_aspect("late", "reached the barrier")
def _late(rank: RankView, node: NodeView, fleet: Fleet) -> Value:
    return rank.state == "late"


LOST = {"dead": "stopped answering after joining (killed or crashed)",
        "absent": "never joined",
        "stray": "started with another WORLD_SIZE",
        "unreadable": "sent a payload rank 0 could not read",
        "nogroup": "could not join the gloo group",
        "duplicate": "started as two processes (one RANK given twice)"}


@rank_aspect("lost", "left the job or never joined it")
def _lost(rank: RankView, node: NodeView, fleet: Fleet) -> Value:
    return LOST.get(rank.state, "")


@rank_aspect("failure", "the rendezvous as rank 0 saw it")
def _failure(rank: RankView, node: NodeView, fleet: Fleet) -> Value:
    return rank.failure


@rank_aspect("cancelled", "the run, as a signal ended it")
def _cancelled(rank: RankView, node: NodeView, fleet: Fleet) -> Value:
    return rank.cancelled


@rank_aspect("rank_torch", "PyTorch in the rank")
def _rank_torch(rank: RankView, node: NodeView, fleet: Fleet) -> Value:
    return rank.binding.get("torch") if rank.arrived else None


@rank_aspect("envdoctor_version", "envdoctor in the rank")
def _envdoctor_version(rank: RankView, node: NodeView, fleet: Fleet) -> Value:
    return rank.version


@rank_aspect("rank_env", "environment variable")
def _rank_env(rank: RankView, node: NodeView, fleet: Fleet) -> Value:
    return rank.env


@rank_aspect("gpu_uuid", "GPU UUID")
def _uuid(rank: RankView, node: NodeView, fleet: Fleet) -> Value:
    return rank.binding.get("gpu_uuid") or None


@rank_aspect("no_gpu", "has a GPU")
def _no_gpu(rank: RankView, node: NodeView, fleet: Fleet) -> Value:
    if not rank.arrived or not rank.binding or not fleet.has_gpus:
        return None
    return not str(rank.binding.get("device") or "").startswith("cuda")


@rank_aspect("clock_skew", "clock offset from the fleet median at the barrier (s)")
def _skew(rank: RankView, node: NodeView, fleet: Fleet) -> Value:
    clocks = [r.clock for r in fleet.ranks if r.clock is not None]
    if rank.clock is None or len(clocks) < 2:
        return None
    return round(abs(rank.clock - statistics.median(clocks)), 3)


@rank_aspect("smoke", "torch smoke in the rank")
def _smoke(rank: RankView, node: NodeView, fleet: Fleet) -> Value:
    if rank.live is None:
        return None
    if rank.live.probe.status is Status.ERROR:
        return "error"
    return rank.live.smoke.status if rank.live.smoke else None


@rank_aspect("allreduce_exact", "exact all-reduce result")
def _allreduce(rank: RankView, node: NodeView, fleet: Fleet) -> Value:
    return (rank.bench or {}).get("allreduce_check")


@rank_aspect("tflops", "matmul TFLOP/s")
def _tflops(rank: RankView, node: NodeView, fleet: Fleet) -> Value:
    value = (rank.bench or {}).get("matmul_tflops")
    return float(value) if isinstance(value, (int, float)) and _on_gpu(rank) else None


@rank_aspect("socket_not_ib", "NCCL transport where InfiniBand is up")
def _socket(rank: RankView, node: NodeView, fleet: Fleet) -> Value:
    net = (rank.bench or {}).get("nccl_net")
    ports = _ib(node)
    if not net or ports is None:
        return None
    active = any(v.get("state") == "ACTIVE" for v in ports.values())
    return active and net == "Socket"


def node_value(name: str, node: NodeView, fleet: Fleet) -> Value:
    return NODE[name][1](node, fleet)


def rank_value(name: str, rank: RankView, node: NodeView, fleet: Fleet) -> Value:
    return RANK[name][1](rank, node, fleet)


def label(name: str) -> str:
    return (NODE.get(name) or RANK.get(name) or (name, None))[0]
