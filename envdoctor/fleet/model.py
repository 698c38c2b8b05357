"""The fleet as rank 0 (or ``fleet compare``) sees it: nodes, their facts, their ranks.

Built once from the gathered rank payloads (JSON, see ``payload``) or from saved snapshot
files; rules and renderers only read it. A node is a host plus the launcher's node rank.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from envdoctor.facts import Facts, FactsError, LiveFramework

PAYLOAD_VERSION = 1
MAX_DECODE = 16 << 20  # bytes of one rank payload decoded


@dataclass
class RankView:
    rank: int
    node: str = ""
    local_rank: int | None = None
    arrived: bool = True
    binding: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] | None = None          # None: not seen (the rank never reported)
    live: LiveFramework | None = None          # the rank's own torch smoke (not --static)
    bench: dict[str, Any] | None = None
    clock: float | None = None                  # time.time() right after the barrier
    seconds: dict[str, float] = field(default_factory=dict)
    error: str = ""

    @property
    def label(self) -> str:
        return f"rank {self.rank}"


@dataclass
class NodeView:
    name: str                     # host#node_rank (or host, or a file name for snapshots)
    host: str = ""
    node_rank: int | None = None
    facts: Facts | None = None    # the static probes, run on its local rank 0
    extra: dict[str, Any] = field(default_factory=dict)  # node_probe: IB, NCCL plugin, NVML
    ranks: list[RankView] = field(default_factory=list)
    source: str = ""              # which rank or file the facts came from
    # a saved `check --format json` report: (its intent, its results with their findings)
    saved: tuple[str, list[Any]] | None = None

    @property
    def rank_numbers(self) -> list[int]:
        return [r.rank for r in self.ranks]


@dataclass
class Fleet:
    launcher: str = ""
    world_size: int | None = None
    nodes: list[NodeView] = field(default_factory=list)
    late: list[int] = field(default_factory=list)     # ranks that did not reach the barrier
    errors: list[str] = field(default_factory=list)   # rendezvous/barrier/decode problems
    timeout: float | None = None
    bench: dict[str, Any] = field(default_factory=dict)  # fleet-wide bench results (rank 0)
    compare: bool = False                                # built from snapshots

    def node(self, name: str) -> NodeView | None:
        return next((n for n in self.nodes if n.name == name), None)

    @property
    def ranks(self) -> list[RankView]:
        return sorted((r for n in self.nodes for r in n.ranks), key=lambda r: r.rank)

    @property
    def has_gpus(self) -> bool:
        return any(n.facts is not None and n.facts.nvidia.gpu_count > 0 for n in self.nodes) \
            or any(r.binding.get("device_count") for r in self.ranks)


def decode_payload(data: bytes | str) -> dict[str, Any]:
    """One rank's JSON payload; ValueError with a short reason when it is not one."""
    if len(data) > MAX_DECODE:
        raise ValueError(f"payload of {len(data)} bytes is over the limit")
    try:
        value = json.loads(data)
    except ValueError as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(value, dict) or not isinstance(value.get("layout"), dict):
        raise ValueError("not an envdoctor fleet payload (no layout)")
    if value.get("payload_version") != PAYLOAD_VERSION:
        raise ValueError(f"payload_version {value.get('payload_version')!r} is not "
                         f"{PAYLOAD_VERSION}")
    return value


def _live(data: Any) -> LiveFramework | None:
    if not isinstance(data, dict):
        return None
    from envdoctor.live.orchestrate import WorkerRun
    from envdoctor.live.parse import to_live
    run = WorkerRun("torch", ("envdoctor fleet (in the rank)",), 0, json.dumps(data), "",
                    float(data.get("seconds") or 0.0))
    return to_live(run, "envdoctor fleet: torch smoke in the rank process")


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def rank_view(p: dict[str, Any]) -> RankView:
    layout, binding, seconds = p["layout"], p.get("binding"), p.get("seconds")
    return RankView(
        rank=int(layout.get("rank", -1)), node=str(layout.get("node", "")),
        local_rank=_int(layout.get("local_rank")),
        binding=binding if isinstance(binding, dict) else {},
        env=p.get("env") if isinstance(p.get("env"), dict) else None,
        live=_live(p.get("live")), bench=p.get("bench") if isinstance(p.get("bench"), dict)
        else None, clock=p.get("clock") if isinstance(p.get("clock"), (int, float)) else None,
        seconds=seconds if isinstance(seconds, dict) else {},
        error=str(p.get("error") or ""))


def node_facts(p: dict[str, Any]) -> tuple[Facts | None, str]:
    node = p.get("node")
    if not isinstance(node, dict) or not isinstance(node.get("facts"), dict):
        return None, ""
    try:
        return Facts.from_dict(node["facts"]), ""
    except FactsError as exc:
        return None, f"rank {p['layout'].get('rank')}: node facts unreadable: {exc}"


def build(payloads: dict[int, dict[str, Any]], world_size: int | None, launcher: str,
          late: list[int], hello: dict[int, dict[str, Any]] | None = None,
          errors: list[str] | None = None) -> Fleet:
    """Nodes in node-rank order (then host), ranks in rank order; late ranks placed on the
    node their rendezvous hello named, when it did."""
    fleet = Fleet(launcher=launcher, world_size=world_size, late=sorted(late),
                  errors=list(errors or []))
    nodes: dict[str, NodeView] = {}

    def node_for(name: str, layout: dict[str, Any]) -> NodeView:
        if name not in nodes:
            nodes[name] = NodeView(name=name, host=str(layout.get("host", "")),
                                   node_rank=_int(layout.get("node_rank")))
        return nodes[name]

    for rank in sorted(payloads):
        p = payloads[rank]
        view = rank_view(p)
        view.arrived = rank not in late
        node = node_for(view.node, p["layout"])
        node.ranks.append(view)
        facts, problem = node_facts(p)
        if problem:
            fleet.errors.append(problem)
        if facts is not None and node.facts is None:
            node.facts, node.source = facts, f"rank {rank}"
            node.extra = p["node"].get("extra") or {}
    for rank in sorted(set(late) - set(payloads)):
        said = (hello or {}).get(rank) or {}
        name = str(said.get("node") or "(unknown node)")
        node = node_for(name, said)
        node.ranks.append(RankView(rank=rank, node=name, local_rank=_int(said.get("local_rank")),
                                   arrived=False, error="did not reach the barrier"))
    fleet.nodes = sorted(nodes.values(), key=lambda n: (
        n.node_rank if n.node_rank is not None else 1 << 30, n.host, n.name))
    for n in fleet.nodes:
        n.ranks.sort(key=lambda r: r.rank)
    return fleet
