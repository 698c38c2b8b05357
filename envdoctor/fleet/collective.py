"""Rendezvous and gather over gloo, bounded in time, without pickle.

Every rank meets in a gloo process group (also on GPU nodes: gloo needs no GPU, so a broken
NCCL cannot hide the very report that would explain it). Then:

1. ``monitored_barrier(wait_all_ranks=True)`` until the deadline: rank 0 learns *which* ranks
   did not arrive instead of hanging on them;
2. on success, ``all_gather`` of one int64 pair per rank (payload length, node key), then a
   ``gather`` to rank 0 of the JSON payloads as uint8 tensors padded to the longest;
3. when the barrier fails, gloo's pairs are closed, so the ranks that did arrive post their
   payload to the rendezvous store instead (plain bytes) and rank 0 reads those for a short
   grace period; a rank that comes late sees the "closed" key and does not wait at all.

torch is imported here and only here (and in ``bench``): it is a dependency of the job being
checked, not of envdoctor.
"""

from __future__ import annotations

import datetime
import re
import time
import zlib
from dataclasses import dataclass, field
from typing import Any

from envdoctor.fleet.layout import Layout

PREFIX = "envdoctor/fleet/"
CLOSED = PREFIX + "closed"
MAX_PAYLOAD = 8 << 20  # bytes one rank may send; more is replaced by an error payload
GRACE = 5.0            # seconds rank 0 waits for posted payloads after a failed barrier
_LATE = re.compile(r"Ranks? ([0-9][0-9, ]{0,20000}) failed to pass monitoredBarrier")


@dataclass
class Outcome:
    """What this rank learned. ``payloads`` (rank -> bytes) is filled on rank 0 only."""

    joined: bool = False              # the process group formed
    barrier: bool = False             # every rank arrived in time
    late: list[int] = field(default_factory=list)
    payloads: dict[int, bytes] = field(default_factory=dict)
    error: str = ""
    seconds: dict[str, float] = field(default_factory=dict)
    group: Any = None                 # the live gloo group (for --bench), None when broken
    hello: dict[int, dict[str, Any]] = field(default_factory=dict)  # late ranks' first words


def _td(seconds: float) -> datetime.timedelta:
    return datetime.timedelta(seconds=max(1.0, seconds))


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300] if text else ''}".rstrip(": ")


def open_store(dist: Any, layout: Layout, timeout: float) -> Any:
    """The rendezvous store: a shared file, or TCP at MASTER_ADDR:MASTER_PORT.

    Under torchrun the agent already hosts the store (TORCHELASTIC_USE_AGENT_STORE), which the
    ``env://`` handler knows; other launchers get a TCP store hosted by rank 0.
    """
    if layout.store_file:
        return dist.FileStore(layout.store_file, layout.world_size)
    url = "env://" if layout.launcher in ("torchrun", "env") else \
        f"tcp://{layout.master_addr}:{layout.master_port}"
    store, _, _ = next(dist.rendezvous(url, rank=layout.rank, world_size=layout.world_size,
                                       timeout=_td(timeout)))
    return store


def late_ranks(message: str) -> list[int]:
    """The ranks gloo's monitored_barrier names: "Ranks 3, 5 failed to pass …" -> [3, 5]."""
    match = _LATE.search(message[:100000])
    if not match:
        return []
    return sorted({int(x) for x in re.findall(r"[0-9]+", match.group(1))})


def node_key(node: str) -> int:
    return zlib.crc32(node.encode("utf-8", "replace"))


def meet(layout: Layout, deadline: float) -> tuple[Any, Outcome]:
    """Form the gloo group before ``deadline`` (time.monotonic()); never raises."""
    import torch.distributed as dist

    out = Outcome()
    start = time.monotonic()
    try:
        store = open_store(dist, layout, deadline - start)
        dist.init_process_group("gloo", store=dist.PrefixStore(PREFIX + "pg/", store),
                                rank=layout.rank, world_size=layout.world_size,
                                timeout=_td(deadline - time.monotonic()))
    except Exception as exc:  # noqa: BLE001 - every way of not meeting is a result
        out.error = f"rendezvous failed: {_one_line(exc)}"
        out.seconds["rendezvous"] = round(time.monotonic() - start, 3)
        return None, out
    out.joined = True
    out.group = dist.group.WORLD
    out.seconds["rendezvous"] = round(time.monotonic() - start, 3)
    return store, out


def barrier(store: Any, layout: Layout, out: Outcome, deadline: float) -> None:
    """Wait for every rank until the deadline; rank 0 names those that did not come."""
    import torch.distributed as dist

    start = time.monotonic()
    try:
        if store.check([CLOSED]):
            raise TimeoutError("rank 0 already closed the barrier: this rank came too late")
        # Non-root ranks wait a little longer than rank 0, so that rank 0 (not they) decides.
        wait = deadline - start + (0.0 if layout.rank == 0 else GRACE)
        dist.monitored_barrier(timeout=_td(wait), wait_all_ranks=True)
        out.barrier = True
    except Exception as exc:  # noqa: BLE001
        out.error = f"barrier failed: {_one_line(exc)}"
        out.group = None
        if layout.rank == 0:
            out.late = late_ranks(str(exc))
            try:
                store.set(CLOSED, "1")
            except Exception:  # noqa: BLE001
                pass
    out.seconds["barrier"] = round(time.monotonic() - start, 3)


def gather(store: Any, layout: Layout, out: Outcome, payload: bytes) -> None:
    """Bring every payload to rank 0: tensors when the barrier passed, else the store.

    The tensor gather: an ``all_gather`` of each rank's payload length (int64), then a
    ``gather`` to rank 0 of uint8 tensors padded to the longest. Only rank 0 holds N payloads.
    """
    if len(payload) > MAX_PAYLOAD:
        payload = (b'{"error": "payload of %d bytes is over the %d byte limit"}'
                   % (len(payload), MAX_PAYLOAD))
    start = time.monotonic()
    if out.barrier:
        try:
            _tensor_gather(layout, out, payload)
        except Exception as exc:  # noqa: BLE001
            out.error = f"gather failed: {_one_line(exc)}"
            out.barrier = False
            out.group = None
    if not out.barrier and store is not None:
        _store_gather(store, layout, out, payload)
    out.seconds["gather"] = round(time.monotonic() - start, 3)


def _tensor_gather(layout: Layout, out: Outcome, payload: bytes) -> None:
    import torch
    import torch.distributed as dist

    n = layout.world_size
    mine = torch.tensor([len(payload)], dtype=torch.int64)
    heads = [torch.zeros(1, dtype=torch.int64) for _ in range(n)]
    dist.all_gather(heads, mine)
    lengths = [int(h[0]) for h in heads]
    width = max(max(lengths), 1)
    buf = torch.zeros(width, dtype=torch.uint8)
    if payload:
        buf[:len(payload)] = torch.frombuffer(bytearray(payload), dtype=torch.uint8)
    if layout.rank == 0:
        into = [torch.empty(width, dtype=torch.uint8) for _ in range(n)]
        dist.gather(buf, gather_list=into, dst=0)
        out.payloads = {r: into[r][:lengths[r]].numpy().tobytes() for r in range(n)}
    else:
        dist.gather(buf, dst=0)


def _store_gather(store: Any, layout: Layout, out: Outcome, payload: bytes) -> None:
    key = f"{PREFIX}payload/{layout.rank}"
    try:
        store.set(key, payload)
    except Exception:  # noqa: BLE001 - the store's host may be gone too
        return
    if layout.rank != 0:
        return
    # Wait for the ranks that did arrive; a late rank's payload is taken too if it comes in
    # the grace period, but it is not waited for beyond it.
    expected = {r for r in range(layout.world_size) if r not in out.late}
    end = time.monotonic() + GRACE
    missing = set(range(layout.world_size))
    while missing & expected and time.monotonic() < end:
        for r in sorted(missing):
            try:
                if store.check([f"{PREFIX}payload/{r}"]):
                    out.payloads[r] = bytes(store.get(f"{PREFIX}payload/{r}"))
                    missing.discard(r)
            except Exception:  # noqa: BLE001
                missing.discard(r)
        if missing & expected:
            time.sleep(0.05)
    out.late = sorted(set(out.late) | (missing & expected))
    for r in out.late:
        out.hello[r] = read_hello(store, r)


def say_hello(store: Any, layout: Layout) -> None:
    """Tell the store where this rank runs, first thing: if it never reaches the barrier,
    rank 0 can still name its node."""
    import json
    try:
        store.set(f"{PREFIX}hello/{layout.rank}", json.dumps({
            "node": layout.node, "host": layout.host, "node_rank": layout.node_rank,
            "local_rank": layout.local_rank}))
    except Exception:  # noqa: BLE001
        pass


def read_hello(store: Any, rank: int) -> dict[str, Any]:
    from envdoctor.bounded import decode_json
    key = f"{PREFIX}hello/{rank}"
    try:
        if store.check([key]):
            value = decode_json(bytes(store.get(key))[:4096], "a rank's hello")
            return value if isinstance(value, dict) else {}
    except Exception:  # noqa: BLE001
        pass
    return {}


def close(out: Outcome) -> None:
    """Leave the group when it is healthy; a broken one is left to process exit."""
    if out.group is None:
        return
    import torch.distributed as dist
    try:
        dist.destroy_process_group()
    except Exception:  # noqa: BLE001
        pass
