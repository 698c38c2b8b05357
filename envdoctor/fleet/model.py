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
    state: str = "ok"        # ok | late | dead (stopped) | absent | stray (other WORLD_SIZE)
    failure: str = ""        # rank 0's: a failure that is no rank's doing (the store …)
    cancelled: str = ""      # "cancelled by SIGTERM during …": a signal ended this rank
    version: str | None = None  # the envdoctor that ran in the rank (None: not said)

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
    signature: str = ""           # fleet compare: nodes with one signature (groups.py) agree

    @property
    def rank_numbers(self) -> list[int]:
        return [r.rank for r in self.ranks]


@dataclass
class Fleet:
    launcher: str = ""
    world_size: int | None = None
    nodes: list[NodeView] = field(default_factory=list)
    late: list[int] = field(default_factory=list)     # ranks that did not reach the barrier
    dead: list[int] = field(default_factory=list)     # announced, then stopped answering
    absent: list[int] = field(default_factory=list)   # never announced (WORLD_SIZE says who)
    unheard: list[int] = field(default_factory=list)  # no word: the rendezvous itself failed
    unreadable: list[int] = field(default_factory=list)  # sent a payload that could not be read
    nogroup: list[int] = field(default_factory=list)  # made the gloo group fail (rank 0 saw)
    duplicate: list[int] = field(default_factory=list)  # started as two processes
    unplaced: list[RankView] = field(default_factory=list)  # lost ranks on no known node
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
    def failure(self) -> str:
        """What failed that is no rank's doing, as rank 0 saw it ("" when nothing did)."""
        return next((r.failure for r in self.ranks if r.rank == 0 and r.failure), "")

    @property
    def cancelled(self) -> list[str]:
        """How each cancelled rank was ended ("cancelled by SIGTERM during the probes")."""
        return [r.cancelled for r in self.ranks + self.unplaced if r.cancelled]

    @property
    def has_gpus(self) -> bool:
        return any(n.facts is not None and n.facts.nvidia.gpu_count > 0 for n in self.nodes) \
            or any(r.binding.get("device_count") for r in self.ranks)


def decode_payload(data: bytes | str) -> dict[str, Any]:
    """One rank's JSON payload, read with the bounded reader's limits (depth, number length, no
    NaN) and checked against ``SHAPE``; ValueError naming the field when it is not one."""
    from envdoctor.bounded import InputError, decode_json
    if len(data) > MAX_DECODE:
        raise ValueError(f"payload of {len(data)} bytes is over the limit")
    try:
        value = decode_json(data, "a fleet payload")
    except InputError as exc:
        raise ValueError(str(exc)) from None
    return check_payload(value)


def payload_error(data: bytes | str) -> str:
    """The sender's own word on a payload it could not send (``{"error": …}``), else ""."""
    from envdoctor.bounded import InputError, decode_json
    try:
        value = decode_json(data[:4096], "a fleet payload's error")
    except (InputError, ValueError, TypeError):
        return ""
    error = value.get("error") if isinstance(value, dict) else None
    return str(error)[:300] if isinstance(error, str) else ""


def check_payload(value: Any) -> dict[str, Any]:
    """A decoded payload checked: its version, a layout, and ``SHAPE``'s kinds."""
    if not isinstance(value, dict) or not isinstance(value.get("layout"), dict):
        raise ValueError("not an envdoctor fleet payload (no layout)")
    if value.get("payload_version") != PAYLOAD_VERSION:
        raise ValueError(f"payload_version {shown(value.get('payload_version'))} is not "
                         f"{PAYLOAD_VERSION}")
    check_shape(value, SHAPE, "payload")
    return value


# What the fleet rules and renderers read of a payload, with the JSON kind each must have;
# ``"*"`` is any key. Absent or null is "not seen" everywhere; any other kind is bad input.
_PORT = {"state": str, "rate": str, "link_layer": str}
SHAPE: dict[str, Any] = {
    "layout": {"rank": int, "node": str, "host": str, "local_rank": int, "node_rank": int},
    "binding": {"device": str, "torch": str, "torch_cuda": str, "gpu_uuid": str,
                "device_count": int, "cuda_visible_devices": str},
    "env": {"*": str},
    "live": {"seconds": float},
    "bench": {"local": {"busbw_gbs": float}, "device": str, "matmul_tflops": float,
              "nccl_net": str},
    "clock": float,
    "seconds": {"*": float},
    "error": str,
    "cancelled": str,
    "envdoctor_version": str,
    "run": str,
    "node": {"facts": dict, "extra": {"ib_ports": {"*": _PORT}, "nvml_gpus": [dict],
                                      "xids": {"*": list}, "nccl_net_plugins": [str]}},
}
_INT64 = 1 << 63
_KIND = {str: "a string", int: "an integer", float: "a number", dict: "an object",
         list: "a list", bool: "true or false"}


def shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:20] + "…"


def _kind_of(value: Any) -> str:
    return _KIND.get(type(value), type(value).__name__)


def check_shape(value: Any, shape: Any, where: str) -> None:
    """``value`` has the kinds ``shape`` names (see ``SHAPE``): numbers finite and not bools,
    integers within 64 bits; ValueError "where.field: expected …, got …" otherwise."""
    if value is None:
        return
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            raise ValueError(f"{where}: expected an object, got {_kind_of(value)}")
        for key, sub in shape.items():
            if key == "*":
                for k, v in value.items():
                    check_shape(v, sub, f"{where}.{str(k)[:40]}")
            elif key in value:
                check_shape(value[key], sub, f"{where}.{key}")
        return
    if isinstance(shape, list):
        if not isinstance(value, list):
            raise ValueError(f"{where}: expected a list, got {_kind_of(value)}")
        for i, item in enumerate(value):
            check_shape(item, shape[0], f"{where}[{i}]")
        return
    if shape in (int, float):
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or (shape is int and not isinstance(value, int)):
            raise ValueError(f"{where}: expected {_KIND[shape]}, got {_kind_of(value)}")
        if isinstance(value, int) and not -_INT64 <= value < _INT64:
            raise ValueError(f"{where}: the number {shown(value)} is out of range")
        return
    if not isinstance(value, shape):
        raise ValueError(f"{where}: expected {_KIND[shape]}, got {_kind_of(value)}")


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
        error=str(p.get("error") or ""),
        failure=str(p.get("failure") or "")[:500] if _int(layout.get("rank")) == 0 else "",
        cancelled=_cancelled(p),
        version=str(p["envdoctor_version"])[:40] if isinstance(p.get("envdoctor_version"), str)
        else None)


def _cancelled(p: dict[str, Any]) -> str:
    """The payload's (or its snapshot outcome's) record of the signal that ended it."""
    outcome = p.get("outcome")
    text = p.get("cancelled") or (outcome.get("cancelled") if isinstance(outcome, dict)
                                  else "")
    return str(text)[:200] if isinstance(text, str) else ""


def node_facts(p: dict[str, Any]) -> tuple[Facts | None, str]:
    node = p.get("node")
    if not isinstance(node, dict) or not isinstance(node.get("facts"), dict):
        return None, ""
    try:
        return Facts.from_dict(node["facts"]), ""
    except FactsError as exc:
        return None, f"rank {p['layout'].get('rank')}: node facts unreadable: {exc}"


STATE_ERROR = {"late": "did not reach the barrier in time (alive: hung or slow)",
               "dead": "stopped answering after it joined (killed or crashed)",
               "absent": "never joined the rendezvous",
               "stray": "was started with another WORLD_SIZE (a stale rendezvous or another "
                        "job's launcher): not part of this job",
               "unreadable": "sent a payload rank 0 could not read (oversized or malformed)",
               "nogroup": "could not join the gloo group (its own error is in the errors)",
               "duplicate": "was started as two processes (the launcher gave this RANK "
                            "twice; the nodes of both are in the errors)"}


def build(payloads: dict[int, dict[str, Any]], world_size: int | None, launcher: str,
          late: list[int], hello: dict[int, dict[str, Any]] | None = None,
          errors: list[str] | None = None, dead: list[int] | None = None,
          absent: list[int] | None = None, unheard: list[int] | None = None,
          stray: list[int] | None = None, unreadable: list[int] | None = None,
          nogroup: list[int] | None = None, duplicate: list[int] | None = None) -> Fleet:
    """Nodes in node-rank order (then host), ranks in rank order; a rank that did not report
    is placed on the node its announcement named, and on no node when it never announced."""
    state = {**{r: "nogroup" for r in nogroup or ()}, **{r: "late" for r in late},
             **{r: "dead" for r in dead or ()},
             **{r: "absent" for r in absent or ()}, **{r: "stray" for r in stray or ()},
             **{r: "unreadable" for r in unreadable or ()},
             **{r: "duplicate" for r in duplicate or ()}}
    fleet = Fleet(launcher=launcher, world_size=world_size,
                  late=sorted(r for r, s in state.items() if s == "late"),
                  dead=sorted(r for r, s in state.items() if s == "dead"),
                  absent=sorted(r for r, s in state.items() if s in ("absent", "stray")),
                  unreadable=sorted(r for r, s in state.items() if s == "unreadable"),
                  nogroup=sorted(r for r, s in state.items() if s == "nogroup"),
                  duplicate=sorted(r for r, s in state.items() if s == "duplicate"),
                  unheard=sorted(unheard or ()), errors=list(errors or []))
    nodes: dict[str, NodeView] = {}

    def node_for(name: str, layout: dict[str, Any]) -> NodeView:
        if name not in nodes:
            nodes[name] = NodeView(name=name, host=str(layout.get("host", "")),
                                   node_rank=_int(layout.get("node_rank")))
        return nodes[name]

    for rank in sorted(payloads):
        p = payloads[rank]
        view = rank_view(p)
        view.state = state.get(rank, "ok")
        view.arrived = view.state == "ok"
        node = node_for(view.node, p["layout"])
        node.ranks.append(view)
        facts, problem = node_facts(p)
        if problem:
            fleet.errors.append(problem)
        if facts is not None and node.facts is None:
            node.facts, node.source = facts, f"rank {rank}"
            node.extra = p["node"].get("extra") or {}
    for rank in sorted(set(state) - set(payloads)):
        said = (hello or {}).get(rank) or {}
        name = str(said.get("node") or "")
        view = RankView(rank=rank, node=name, local_rank=_int(said.get("local_rank")),
                        arrived=False, state=state[rank], error=STATE_ERROR[state[rank]])
        if name:
            node_for(name, said).ranks.append(view)
        else:
            fleet.unplaced.append(view)
    fleet.nodes = sorted(nodes.values(), key=lambda n: (
        n.node_rank if n.node_rank is not None else 1 << 30, n.host, n.name))
    for n in fleet.nodes:
        n.ranks.sort(key=lambda r: r.rank)
    return fleet


def from_snapshots(payloads: dict[int, dict[str, Any]], unfinished: list[int],
                   duplicates: dict[int, list[str]] | None = None) -> Fleet:
    """The fleet of one ``fleet --out-dir`` run, as its snapshots recorded it.

    WORLD_SIZE (in every layout) says which ranks should have written one: a rank without a
    snapshot is absent (unless rank 0 recorded a complete run); rank 0's outcome says who it
    found late, dead or absent; a rank that
    left only its first record (killed, or still probing) is late unless rank 0 saw it die.
    The outcome rank 0 recorded for a failed store becomes its failure (FLEET037).
    ``duplicates``: RANK -> the nodes of the snapshots of processes that found their RANK
    taken (started twice); rank 0's outcome names the ones it saw, too.
    """
    sizes = {p["layout"].get("world_size") for p in payloads.values()}
    world = max((s for s in sizes if isinstance(s, int) and 0 < s <= 1 << 20), default=None)
    rank0 = payloads.get(0, {}).get("outcome")
    rank0 = rank0 if isinstance(rank0, dict) else {}
    own = payloads.get(0, {}).get("layout", {}).get("world_size")
    if isinstance(own, int) and 0 < own <= 1 << 20:
        world = own  # rank 0's WORLD_SIZE is the job's; a stray rank's is not
    failed = rank0.get("group_failed")
    nogroup = {int(k) for k in failed if str(k).isdigit()} if isinstance(failed, dict) else set()
    strays = rank0.get("stray")
    stray = {int(k) for k in strays if str(k).isdigit()} if isinstance(strays, dict) else set()

    def listed(key: str) -> set[int]:
        value = rank0.get(key)
        return {r for r in value if isinstance(r, int)} if isinstance(value, list) else set()

    dead = listed("dead")
    doubled = rank0.get("duplicate")
    twice = {int(k) for k in doubled if str(k).isdigit()} if isinstance(doubled, dict) \
        else set()
    twice |= {r for r in duplicates or {} if isinstance(r, int) and (world is None or
                                                                  0 <= r < world)}
    saw_rank0_stop = any(isinstance(o := p.get("outcome"), dict) and isinstance(
        o.get("dead"), list) and 0 in o["dead"] for r, p in payloads.items() if r)
    # a rank 0 that started (its first record is there) while the ranks could not reach the
    # store it hosts died before it served, or with it
    unreached = any(isinstance(o := p.get("outcome"), dict) and o.get("store_unreached")
                    is True for r, p in payloads.items() if r)
    if 0 in payloads and "binding" not in payloads[0] and (saw_rank0_stop or unreached):
        dead.add(0)  # rank 0 left only its first record, and the others saw it stop
    # a rank that left only its first record, not a word more (no last words: SIGKILL, a
    # crash), in a run whose launcher cancelled the others (torchrun stops every worker
    # when one dies): it is the one that died, not one that was late
    stopped = any(_cancelled(p) for p in payloads.values())
    dead |= {r for r in unfinished if stopped and not _cancelled(payloads[r]) and
             isinstance(o := payloads[r].get("outcome"), dict) and o.get("first") is True}
    # a rank without a snapshot: absent, unless rank 0 saw every rank come (then its file
    # was just not given to compare, e.g. another node's local folder)
    vouched = rank0.get("complete") is True
    absent = listed("absent") | ({r for r in range(world) if r not in payloads}
                                 if world and not vouched else set())
    late = (listed("late") | set(unfinished)) - dead - absent
    hello = {r: p["layout"] for r, p in payloads.items()}
    errors = [f"rank {r}: {o['error']}"[:400] for r, p in sorted(payloads.items())
              if isinstance(o := p.get("outcome"), dict) and o.get("error")]
    fleet = build(payloads, world, "snapshots", sorted(late), hello, errors,
                  sorted(dead), sorted(absent), stray=sorted(stray),
                  nogroup=sorted(nogroup - dead - absent),
                  duplicate=sorted(twice - dead - absent))
    for twin, nodes in sorted((duplicates or {}).items()):
        fleet.errors.append(f"RANK {twin} was also started on {', '.join(nodes)[:300]} (a "
                            "second process, which left the job)")
    failure = str(rank0.get("failure") or "")
    for r in fleet.ranks:
        if r.rank == 0 and failure and not r.failure:
            r.failure = failure[:500]
    return fleet
