"""Rendezvous, arrival and gather, every step with a deadline, without pickle or NumPy.

The rendezvous store (TCP at MASTER_ADDR:MASTER_PORT, torchrun's agent store, or a shared
file) carries the protocol; the gloo group is formed on top of it only when every rank came:

1. **announce**: each rank writes ``hello/R`` (rank, node, pid) and starts a heartbeat (a
   counter it bumps every second on its own store connection), before anything else can fail;
2. **meet**: rank 0 waits until every rank of WORLD_SIZE has announced or ``--timeout`` has
   passed and writes its decision (``meet`` = ``go`` or ``closed``); only on ``go`` the gloo
   group forms (``init_process_group(timeout=...)``). A rank never announced is *absent*;
3. **arrive**: after its probes each rank writes ``arrived/R``; rank 0 waits for the announced
   ranks until the deadline, watching their heartbeats: a rank whose heartbeat stopped is
   *dead* (killed, crashed) and not waited for, one still beating is *late* (hung or slow);
4. **gather**: when all arrived in a formed group, a gloo barrier (the clock is read right
   after it), an ``all_gather`` of payload lengths and a ``gather`` of uint8 tensors to rank
   0 (bytes through ``tolist()``: torch runs without NumPy); otherwise, or when a collective
   fails, every rank posts its payload to the store and rank 0 reads what came.

The store's connections, the heartbeat and the watchdog are in ``store``. torch is imported
there, here, and in ``bench`` only: it is a dependency of the job being checked, not of
envdoctor.
"""

from __future__ import annotations

import json
import os
import time
import uuid
import zlib
from dataclasses import dataclass, field
from typing import Any

from envdoctor.fleet.layout import Layout
from envdoctor.fleet.store import (
    BEAT,
    DEAD_AFTER,
    STORE_GONE,
    Heart,
    StoreError,
    Watchdog,
    beat_count,
    bounded,
    counter,
    get_bytes,
    gone_with_rank0,
    has,
    kill_children,
    one_line,
    open_store,
    process_alive,
    rank0_hosts,
    td,
    where,
)

__all__ = ["STORE_GONE", "Heart", "StoreError", "Watchdog", "bounded", "gone_with_rank0",
           "kill_children", "one_line", "open_store", "rank0_hosts", "where"]

MAX_PAYLOAD = 8 << 20  # bytes one rank may send; more is replaced by an error payload
GRACE = 5.0            # seconds the others wait on rank 0's decisions; rank 0 on posted payloads
POLL = 0.05


@dataclass
class Outcome:
    """What this rank learned. ``payloads`` (rank -> bytes) is filled on rank 0 only."""

    joined: bool = False              # the gloo group formed
    barrier: bool = False             # every rank arrived in time and the gather went through
    late: list[int] = field(default_factory=list)     # announced, alive, did not arrive
    dead: list[int] = field(default_factory=list)     # announced, then stopped beating
    absent: list[int] = field(default_factory=list)   # never announced
    payloads: dict[int, bytes] = field(default_factory=dict)
    error: str = ""                   # this rank's own view of what went wrong
    failure: str = ""                 # a failure that is no rank's doing (store, gloo group)
    seconds: dict[str, float] = field(default_factory=dict)
    group: Any = None                 # the live gloo group (for --bench), None when broken
    hello: dict[int, dict[str, Any]] = field(default_factory=dict)  # announcements (rank 0)
    announced: bool = False           # this rank reached the store and said hello
    cancelled: str = ""               # "cancelled by SIGTERM during …": a signal ended it
    stray: dict[int, int] = field(default_factory=dict)  # rank -> the other WORLD_SIZE it has
    unreached: bool = False           # this rank (not 0) never reached the store rank 0 hosts
    nogroup: dict[int, str] = field(default_factory=dict)  # rank -> why it left the gloo group
    # rank -> the nodes of the other processes started with that RANK (rank 0); on a
    # process that found its RANK taken: the owner's hello
    duplicate: dict[int, list[str]] = field(default_factory=dict)
    duplicate_of: dict[str, Any] = field(default_factory=dict)
    patience: float = 0.0             # rank 0, store gather: see ``gather``

    def to_dict(self, world_size: int) -> dict[str, Any]:
        """The run's outcome as a snapshot records it (``fleet compare`` reads it back)."""
        return {"complete": self.barrier, "joined": self.joined, "barrier": self.barrier,
                "announced": self.announced, "error": self.error, "failure": self.failure,
                "world_size": world_size, "late": self.late, "dead": self.dead,
                "absent": self.absent, **({"cancelled": self.cancelled} if self.cancelled
                                          else {}),
                **({"stray": {str(r): w for r, w in self.stray.items()}} if self.stray
                   else {}),
                **({"store_unreached": True} if self.unreached else {}),
                **({"group_failed": {str(r): w for r, w in self.nogroup.items()}}
                   if self.nogroup else {}),
                **({"duplicate": {str(r): w for r, w in self.duplicate.items()}}
                   if self.duplicate else {}),
                **({"duplicate_of": self.duplicate_of} if self.duplicate_of else {})}


# ---------------------------------------------------------------------------- the protocol
TOKEN = f"{os.getpid()}-{uuid.uuid4().hex[:12]}"  # this process, among all that say hello


def announce(store: Any, layout: Layout) -> dict[str, Any]:
    """Claim RANK (``owner/R``, first come), then ``hello/R``, then the join counter: rank 0
    counts, then reads hellos. A second process started with the same RANK does not
    overwrite the first one's hello: it posts ``duplicate/K`` and gets the owner's hello
    back ({} when this process owns its RANK; a retried hello of the owner is not a
    duplicate)."""
    hello = json.dumps({
        "rank": layout.rank, "node": layout.node, "host": layout.host,
        "node_rank": layout.node_rank, "local_rank": layout.local_rank, "pid": os.getpid(),
        "world_size": layout.world_size})
    owner = bytes(store.compare_set(f"owner/{layout.rank}", "", TOKEN)).decode("ascii",
                                                                                "replace")
    if owner != TOKEN:
        index = store.add("duplicates", 1)
        store.set(f"duplicate/{index}", hello)
        return read_hello(store, layout.rank) or {"rank": layout.rank, "node": "?"}
    store.set(f"hello/{layout.rank}", hello)
    store.add("announced", 1)
    return {}


MAX_DUPLICATES = 1000  # duplicate announcements rank 0 reads


def _duplicates(store: Any, n: int) -> dict[int, list[str]]:
    """RANK -> the nodes of the processes that found it taken (``duplicate/K``)."""
    out: dict[int, list[str]] = {}
    for k in range(1, min(counter(store, "duplicates"), MAX_DUPLICATES) + 1):
        from envdoctor.bounded import decode_json
        try:
            said = decode_json(get_bytes(store, f"duplicate/{k}")[:4096], "a duplicate hello")
        except Exception:  # noqa: BLE001
            continue
        rank = said.get("rank") if isinstance(said, dict) else None
        if isinstance(rank, int) and 0 <= rank < n:
            out.setdefault(rank, []).append(str(said.get("node") or "?")[:200])
    return out


def _all_hellos(store: Any, n: int) -> bool:
    """Every rank's hello is there (the counter only says when to look: a retried hello
    or a duplicate would otherwise close the rendezvous before a slow rank came)."""
    return bool(store.check([f"hello/{r}" for r in range(n)]))


def read_hello(store: Any, rank: int) -> dict[str, Any]:
    from envdoctor.bounded import decode_json
    key = f"hello/{rank}"
    try:
        if has(store, key):
            value = decode_json(get_bytes(store, key)[:4096], "a rank's hello")
            return value if isinstance(value, dict) else {}
    except Exception:  # noqa: BLE001
        pass
    return {}


def _ranks_text(ranks: list[int]) -> str:
    shown = ", ".join(map(str, ranks[:20])) + (" …" if len(ranks) > 20 else "")
    return ("rank " if len(ranks) == 1 else "ranks ") + shown


def wait_for_rank0(store: Any, layout: Layout, key: str, deadline: float, out: Outcome) -> bool:
    """Wait for rank 0's decision ``key``: until ``deadline`` + GRACE, and longer (up to
    ``deadline`` + GRACE + the time the phase had) while rank 0 is alive, since rank 0's
    deadline is counted from its own start. A rank 0 whose heartbeat stopped is not waited
    for (and recorded dead). False when the decision did not come."""
    start = time.monotonic()
    soft = deadline + GRACE
    hard = soft + max(0.0, deadline - start)
    beat, seen, checked = -1, start, 0.0
    while not has(store, key):
        now = time.monotonic()
        if now >= hard:
            return False
        if now - checked >= 0.5:
            checked = now
            count = counter(store, "beat/0")
            if count != beat:
                beat, seen = count, now
            elif now - seen > DEAD_AFTER and has(store, "hello/0") and \
                    not _frozen_here(store, layout, 0):
                # (a rank 0 whose process this host can see is starved or stopped, not dead:
                # leaving now would leave every other rank waiting in the gloo group for it)
                out.dead = [0]
                out.error = "rank 0 stopped answering after it joined (killed or crashed)"
                return False
            if now >= soft and not has(store, "hello/0"):
                return False
        time.sleep(POLL)
    return True


def meet(store: Any, layout: Layout, out: Outcome, deadline: float) -> None:
    """Wait for every rank's hello (rank 0 decides), then form the gloo group on ``go``."""
    import torch.distributed as dist

    start = time.monotonic()
    n = layout.world_size
    if layout.rank == 0:
        while time.monotonic() < deadline and not (
                counter(store, "announced") >= n and _all_hellos(store, n)):
            time.sleep(POLL)
        out.absent = [r for r in range(n) if not has(store, f"hello/{r}")]
        if out.absent:
            out.error = (f"{_ranks_text(out.absent)} of {n} never joined the rendezvous "
                         f"in {deadline - start:.0f} s")
        # a rank started with another WORLD_SIZE (a stale rendezvous, a launcher set up for
        # another job) cannot be in this group: named, and the group is not formed with it
        for r in range(n):
            other = read_hello(store, r).get("world_size") if r not in out.absent else None
            if isinstance(other, int) and other != n:
                out.stray[r] = other
                out.hello[r] = read_hello(store, r)
        if out.stray:
            out.absent = sorted(set(out.absent) | set(out.stray))
            out.error = "; ".join(([out.error] if out.error else []) + [
                f"rank {r} was started with WORLD_SIZE={w}, the job has {n}"
                for r, w in sorted(out.stray.items())])
        # a launcher that started one RANK twice (and so, often, another never): named, on
        # the nodes of both processes, and no group is formed with two processes as one rank
        out.duplicate = {r: nodes for r, nodes in _duplicates(store, n).items()
                         if r not in out.absent}
        for r, nodes in sorted(out.duplicate.items()):
            out.hello[r] = read_hello(store, r)
            first = str(out.hello[r].get("node") or "?")
            out.error = "; ".join(([out.error] if out.error else []) + [
                f"RANK {r} was started as {1 + len(nodes)} processes: on {first} and on "
                f"{', '.join(nodes)}"])
        closed = sorted(set(out.absent) | set(out.duplicate))
        store.set("meet", "closed:" + ",".join(map(str, closed)) if closed else "go")
        go = not closed
    else:
        if not wait_for_rank0(store, layout, "meet", deadline, out):
            out.error = out.error or ("rank 0 did not open the rendezvous (it is late, dead "
                                      "or elsewhere)")
            go = False
        else:
            decision = get_bytes(store, "meet").decode("ascii", "replace")
            go = decision == "go"
            theirs = read_hello(store, 0).get("world_size")
            if isinstance(theirs, int) and theirs != n:
                go = False
                out.error = (f"this rank was started with WORLD_SIZE={n}, rank 0 with "
                             f"{theirs}: a stale rendezvous or another job's launcher")
            elif not go:
                missing = [int(x) for x in decision.partition(":")[2].split(",")
                           if x.isdigit()]
                out.error = ("rank 0 closed the rendezvous: "
                             f"{_ranks_text(missing) if missing else 'some rank'} never came")
    if go:
        try:
            dist.init_process_group("gloo", store=dist.PrefixStore("pg/", store),
                                    rank=layout.rank, world_size=n,
                                    timeout=td(deadline + GRACE - time.monotonic()))
            out.joined, out.group = True, dist.group.WORLD
            _say_group(store, layout, "")
        except Exception as exc:  # noqa: BLE001 - every way of not forming is a result
            out.error = f"the gloo group did not form: {one_line(exc)}"
            _say_group(store, layout, one_line(exc)[:300])
            if layout.rank == 0:
                out.nogroup = _group_culprits(store, n)
                if out.nogroup:  # their own word: a bad interface, a crash in the join …
                    out.error += "; " + "; ".join(f"rank {r}: {w or 'never joined it'}"
                                                  for r, w in sorted(out.nogroup.items()))
                else:
                    out.failure = out.error
    out.seconds["rendezvous"] = round(time.monotonic() - start, 3)


def _say_group(store: Any, layout: Layout, error: str) -> None:
    """``group/R``: "" when this rank joined the gloo group, else why not."""
    try:
        store.set(f"group/{layout.rank}", "ok" if not error else "error:" + error)
    except Exception:  # noqa: BLE001 - the store's host may be gone
        pass


def _timed_out(error: str) -> bool:
    text = error.lower()
    return "timeout" in text or "timed out" in text


def _group_culprits(store: Any, n: int) -> dict[int, str]:
    """When the gloo group did not form on rank 0: the ranks that caused it, from their
    ``group/R`` (waited for up to GRACE): one that failed for a reason of its own (a bad
    GLOO_SOCKET_IFNAME, a crash in the join), else one that never tried (it left the
    rendezvous). Ranks that only timed out waiting, like rank 0, are not to blame."""
    end = time.monotonic() + GRACE
    said: dict[int, str] = {}
    while True:
        for r in range(1, n):
            if r not in said:
                try:
                    if has(store, f"group/{r}"):
                        said[r] = get_bytes(store, f"group/{r}").decode("utf-8", "replace")
                except Exception:  # noqa: BLE001
                    return {}
        own = {r: w[6:] for r, w in said.items()
               if w.startswith("error:") and not _timed_out(w)}
        if own or len(said) == n - 1 or time.monotonic() >= end:
            break
        time.sleep(POLL)
    if own:
        return own
    return {r: "" for r in range(1, n) if r not in said}


def arrive(store: Any, layout: Layout, out: Outcome, deadline: float, heart: Heart) -> bool:
    """Say this rank is done probing; rank 0 waits for the announced ranks until
    ``deadline`` (not for the dead) and says ``go`` (gather over gloo) or ``closed``.
    Returns whether the gloo gather goes ahead."""
    start = time.monotonic()
    try:
        store.set(f"arrived/{layout.rank}", "1")
        heart.arrived.set()
        if layout.rank == 0:
            go = _wait_arrivals(store, layout, out, deadline)
            store.set("verdict", "go" if go else "closed")
        else:
            wait_for_rank0(store, layout, "verdict", deadline, out)
            verdict = get_bytes(store, "verdict") if has(store, "verdict") else b""
            go = verdict == b"go" and out.joined
            if not verdict:
                out.error = out.error or "rank 0 did not close the arrival in time"
            elif not go:
                out.error = out.error or "rank 0 closed the arrival: some rank did not come"
    except Exception as exc:  # noqa: BLE001 - the store's host is gone
        go = False
        if layout.rank != 0 and gone_with_rank0(layout):
            out.dead = [0]  # rank 0 would have closed the arrival before leaving
            out.error = out.error or ("rank 0 stopped answering (the store it hosts went "
                                      f"away): {one_line(exc)}")
        out.error = out.error or f"the rendezvous store failed: {one_line(exc)}"
    out.seconds["barrier"] = round(time.monotonic() - start, 3)
    return go


def _wait_arrivals(store: Any, layout: Layout, out: Outcome, deadline: float) -> bool:
    expected = [r for r in range(layout.world_size) if r not in out.absent]
    missing = [r for r in expected if r != 0]
    beats: dict[int, tuple[int, float]] = {}
    last_scan = 0.0
    while missing and time.monotonic() < deadline:
        now = time.monotonic()
        missing = [r for r in missing if not has(store, f"arrived/{r}")]
        if now - last_scan >= 0.5:
            last_scan = now
            for r in missing:
                count = counter(store, f"beat/{r}")
                if r not in beats or beats[r][0] != count:
                    beats[r] = (count, now)
        dead = [r for r in missing if r in beats and now - beats[r][1] > DEAD_AFTER]
        if missing and len(dead) == len(missing):
            break  # only the dead are missing: they will not come
        time.sleep(POLL)
    now = time.monotonic()
    missing = [r for r in missing if not has(store, f"arrived/{r}")]
    stopped = [r for r in missing if r in beats and now - beats[r][1] > DEAD_AFTER]
    out.dead = [r for r in stopped if not _frozen_here(store, layout, r)]
    out.late = [r for r in missing if r not in out.dead]
    # a rank that announced after the rendezvous closed is late, not absent
    for r in list(out.absent):
        if r not in out.stray and has(store, f"hello/{r}"):
            out.absent.remove(r)
            if has(store, f"arrived/{r}"):
                continue
            out.late.append(r)
    out.late.sort()
    if (out.dead or out.late) and out.failure.startswith("the gloo group"):
        out.failure = ""  # the group could not form without them: they are the cause
    parts = []
    if out.dead:
        parts.append(f"{_ranks_text(out.dead)} stopped answering (killed or crashed)")
    if out.late:
        parts.append(f"{_ranks_text(out.late)} did not finish in time")
    if parts:
        out.error = "; ".join(([out.error] if out.error else []) + parts)
    for r in range(layout.world_size):
        said = read_hello(store, r)
        if said:
            out.hello[r] = said
    # a second process with some RANK that said hello after the rendezvous closed
    for r, nodes in _duplicates(store, layout.world_size).items():
        if r not in out.duplicate and r not in out.absent:
            out.duplicate[r] = nodes
            out.error = "; ".join(([out.error] if out.error else []) + [
                f"RANK {r} was started as {1 + len(nodes)} processes: on "
                f"{out.hello.get(r, {}).get('node', '?')} and on {', '.join(nodes)}"])
    return not missing and out.joined and not out.absent and not out.duplicate


def _frozen_here(store: Any, layout: Layout, rank: int) -> bool:
    """A rank whose heartbeat stopped but whose process is still there (on rank 0's host,
    where that can be seen): stopped or stuck, hence late (hung), not dead."""
    said = read_hello(store, rank)
    pid = said.get("pid")
    return said.get("host") == layout.host and isinstance(pid, int) and process_alive(pid)


def _gone_here(store: Any, layout: Layout, rank: int) -> bool:
    """A rank on rank 0's host whose process has ended (or is a zombie): dead, whatever its
    last heartbeat says."""
    said = read_hello(store, rank)
    pid = said.get("pid")
    return said.get("host") == layout.host and isinstance(pid, int) and not process_alive(pid)


def node_key(node: str) -> int:
    return zlib.crc32(node.encode("utf-8", "replace"))


def gather(store: Any, layout: Layout, out: Outcome, payload: bytes, go: bool) -> None:
    """Bring every payload to rank 0: tensors when all arrived, else through the store.
    ``out.patience``: how much longer than GRACE rank 0 waits there for a rank whose
    heartbeat still moves (a failed collective ends on each rank at its own deadline, and
    those differ by as much as the ranks' starts did)."""
    if len(payload) > MAX_PAYLOAD:
        payload = (b'{"error": "payload of %d bytes is over the %d byte limit"}'
                   % (len(payload), MAX_PAYLOAD))
    start = time.monotonic()
    if go:
        try:
            _tensor_gather(layout, out, payload)
            out.barrier = True
        except Exception as exc:  # noqa: BLE001
            out.error = f"gather failed: {one_line(exc)}"
            out.group = None
            if layout.rank == 0:
                out.failure = out.error
    if not out.barrier and store is not None:
        _store_gather(store, layout, out, payload, out.patience)
    out.seconds["gather"] = round(time.monotonic() - start, 3)


def clock_barrier() -> float:
    """A gloo barrier, then the wall clock: every rank reads it within milliseconds."""
    import torch.distributed as dist
    dist.barrier()
    return time.time()


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
        out.payloads = {r: bytes(into[r][:lengths[r]].tolist()) for r in range(n)}
    else:
        dist.gather(buf, dst=0)


def _store_gather(store: Any, layout: Layout, out: Outcome, payload: bytes,
                  patience: float = 0.0) -> None:
    """Every rank posts; rank 0 waits GRACE for the ranks that arrived, takes a late rank's
    payload when it is there, and does not wait for the late, dead or absent."""
    try:
        store.set(f"payload/{layout.rank}", payload)
        if layout.rank != 0:
            has(store, f"payload/{layout.rank}")  # a set is not answered; a check is
    except Exception as exc:  # noqa: BLE001 - the store's host may be gone too
        if layout.rank != 0 and gone_with_rank0(layout) and 0 not in out.dead:
            # the gather broke and the store went: rank 0 (or its node) died in the gather
            out.dead = sorted({*out.dead, 0})
            out.error = "; ".join(([out.error] if out.error else []) + [
                f"rank 0 stopped answering in the gather (its store went away): "
                f"{one_line(exc)}"])
        return
    if layout.rank != 0:
        return
    lost = set(out.late) | set(out.dead) | set(out.absent)
    expected = {r for r in range(layout.world_size) if r not in lost}
    end = time.monotonic() + GRACE
    missing = set(range(layout.world_size))
    start = time.monotonic()
    beats = {r: (beat_count(store, r), start) for r in expected if r != 0}
    last_scan = start
    while True:
        for r in sorted(missing):
            try:
                if has(store, f"payload/{r}"):
                    out.payloads[r] = get_bytes(store, f"payload/{r}")
                    missing.discard(r)
            except Exception:  # noqa: BLE001
                missing.discard(r)
        now = time.monotonic()
        # past GRACE, only a rank still beating is waited for, up to ``patience`` more
        beating = {r for r in missing & set(beats) if now - beats[r][1] < 2 * BEAT + 0.5}
        if not (missing & expected) or now >= end + patience or \
                (now >= end and not beating):
            break
        if now - last_scan >= 0.5:  # when each missing rank's heartbeat last moved
            last_scan = now
            for r in missing & set(beats):
                count = beat_count(store, r)
                if count != beats[r][0]:
                    beats[r] = (count, now)
        time.sleep(POLL)
    # an expected rank that did not post: dead when its heartbeat stood still for DEAD_AFTER
    # (one that beat once more and then died in the gather is dead too, not late), or when
    # its process is gone from this host
    now = time.monotonic()
    gone = {r for r in missing & expected if r in beats and
            (now - beats[r][1] >= min(DEAD_AFTER, GRACE - 1.0) or _gone_here(store, layout, r))
            and not _frozen_here(store, layout, r)}
    out.dead = sorted(set(out.dead) | gone)
    out.late = sorted(set(out.late) | (missing & expected) - gone)
    if (missing & expected) and out.failure.startswith("gather failed"):
        out.failure = ""  # the collective failed because they died or hung: they are named
    for r in out.late + out.dead:
        out.hello.setdefault(r, read_hello(store, r))


def close(out: Outcome) -> None:
    """Leave the group when it is healthy; a broken one is left to process exit."""
    if out.group is None:
        return
    import torch.distributed as dist
    try:
        dist.destroy_process_group()
    except Exception:  # noqa: BLE001
        pass
