"""One rank's part of ``envdoctor fleet``: meet, probe, wait, (bench), send; rank 0 reports.

The order matters. The rendezvous comes first, so a node that cannot reach MASTER_ADDR is found
within ``--timeout``, and each rank says hello (its node) to the store before probing, so a
rank whose probes then hang can still be placed on its node. Then every rank has ``--timeout``
again to probe and reach the barrier: a slow rank is named, not waited for. Every rank leaves
with exit 0 except rank 0, whose exit code is the report's.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envdoctor import __version__
from envdoctor.errors import BadInput
from envdoctor.fleet import collective
from envdoctor.fleet.layout import Layout, LayoutError, detect
from envdoctor.fleet.model import PAYLOAD_VERSION
from envdoctor.outputs.sink import write

NO_TORCH = ("envdoctor fleet runs inside the job's ranks and needs torch (torch.distributed) "
            "there: {why}; without torch, save `envdoctor check --format json` per node and run "
            "`envdoctor fleet compare DIR`")


CANCEL_GRACE = 10.0  # `fleet --help`: a signalled rank has left (with its last words) by then


@dataclass
class Options:
    static: bool = False
    timeout: float = 60.0
    bench: bool = False
    out_dir: str = ""
    store: str = ""
    frameworks: tuple[str, ...] = ()
    suite: str = "quick"
    root: str = ""                 # --root: every node's system files are read under it
    # rank 0, when a signal cancels the run: publish the report of what it has (the result
    # so far); given CANCEL_GRACE less the children's stop
    on_cancel: Callable[[RankResult], None] | None = None


@dataclass
class RankResult:
    layout: Layout
    outcome: collective.Outcome
    payload: dict[str, Any]
    snapshot: str = ""                     # where this rank's snapshot was written
    seconds: dict[str, float] = field(default_factory=dict)


def import_torch(timeout: float | None = None, first_on_node: bool = True) -> Any:
    """torch, or BadInput (exit 2) with the one line that points to ``fleet compare``. With
    ``timeout``, the node's first rank has a child import it first (``preflight``): an import
    that hangs or crashes is named within ``timeout`` seconds instead of taking this rank with
    it; the node's other ranks import it here under the same progress watch."""
    watch = None
    if timeout is not None:
        from envdoctor.fleet import preflight
        if first_on_node:
            problem = preflight.torch_import_problem(timeout)
            if problem:
                raise BadInput(NO_TORCH.format(why=problem))
        else:
            watch = preflight.ImportWatch(timeout, NO_TORCH)
    try:
        if watch is not None:
            with watch:
                import torch
                import torch.distributed as dist
        else:
            import torch
            import torch.distributed as dist
    except Exception as exc:  # noqa: BLE001 - ImportError, a broken install's OSError …
        raise BadInput(NO_TORCH.format(why=f"{type(exc).__name__}: {exc}"[:200])) from None
    if not dist.is_available() or not dist.is_gloo_available():
        raise BadInput(NO_TORCH.format(why="this torch build has no gloo backend"))
    return torch


def _node_part(layout: Layout, options: Options, deadline: float) -> dict[str, Any]:
    """The node's static facts and fleet extras; run by the node's local rank 0 only.

    Rank 0 collects the report, so its probes are cut at the deadline (a hung probe there
    becomes a failed probe in its facts); any other node's probes get their usual deadline,
    and a node whose probes hang past ``--timeout`` misses the barrier and is named.
    """
    from envdoctor.fleet import node_probe
    from envdoctor.probes import DEFAULT_DEADLINE, SYSTEM, collect

    root = Path(options.root) if options.root else SYSTEM
    if layout.rank == 0:
        facts = collect(deadline=max(1.0, min(DEFAULT_DEADLINE,
                                              deadline - time.monotonic() - 1.0)), root=root)
    else:
        facts = collect(root=root)
    if options.frameworks:
        from envdoctor.live import run_live
        facts = run_live(facts, list(options.frameworks), suite=options.suite,
                         timeout=max(5.0, deadline - time.monotonic()))
    extra = node_probe.probe(dict(os.environ), facts.nvidia.gpu_count > 0, root=root)
    return {"facts": facts.to_dict(), "extra": extra}


def payload(layout: Layout, torch: Any, options: Options, deadline: float,
            out: dict[str, Any] | None = None) -> dict[str, Any]:
    """This rank's payload, filled into ``out`` as it is learned (a cancelled rank sends what
    it had)."""
    from envdoctor.fleet import rank_probe

    start = time.monotonic()
    out = {} if out is None else out
    out.update({"payload_version": PAYLOAD_VERSION, "envdoctor_version": __version__,
                "layout": layout.to_dict(), "run": run_key(layout),
                "env": rank_probe.rank_env(os.environ), "node": None, "live": None,
                "bench": None, "clock": None, "error": ""})
    out["binding"] = rank_probe.binding(torch, layout.local_rank)
    if layout.local_rank == 0:
        out["node"] = _node_part(layout, options, deadline)
    if not options.static:
        out["live"] = rank_probe.smoke(torch, options.suite)
    out["seconds"] = {"probes": round(time.monotonic() - start, 3)}
    return out


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", text)[:80] or "host"


def write_snapshot(folder: str, layout: Layout, data: dict[str, Any], suffix: str = "") -> str:
    """``DIR/rank00003-HOST.json``: this rank's payload and what it learned of the rendezvous
    (``suffix``: a process that is not the RANK's owner does not overwrite the owner's)."""
    path = Path(folder) / f"rank{layout.rank:05d}-{_safe(layout.host)}{suffix}.json"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BadInput(f"{folder}: cannot write the rank snapshot: {exc.strerror or exc}") from None
    try:
        write(json.dumps(data, indent=1), str(path), "json")  # atomic: a reader sees all or none
    except BadInput as exc:
        raise BadInput(f"{folder}: cannot write the rank snapshot: {exc.message}") from None
    return str(path)


def bound(timeout: float) -> float:
    """Seconds after torch is imported by which every rank has left, whatever happened: the
    rendezvous and the probes have ``timeout`` each, the decisions and the gather GRACE; a
    rank that reached the store before rank 0 opened it waits up to 2 x ``timeout`` more."""
    return 4 * timeout + 4 * collective.GRACE + 5.0


def run_key(layout: Layout, environ: Mapping[str, str] | None = None) -> str:
    """What every rank of one run shares without talking: the launcher's job id, else the
    rendezvous address and WORLD_SIZE. `fleet compare` keeps one run's snapshots."""
    env_ = os.environ if environ is None else environ
    if env_.get("TORCHELASTIC_RUN_ID"):
        return (f"torchrun:{env_['TORCHELASTIC_RUN_ID'][:100]}:"
                f"{env_.get('TORCHELASTIC_RESTART_COUNT', '0')[:10]}")
    if env_.get("SLURM_JOB_ID"):
        return f"slurm:{env_['SLURM_JOB_ID'][:40]}.{env_.get('SLURM_STEP_ID', '')[:20]}"
    if env_.get("PMIX_NAMESPACE"):
        return f"pmix:{env_['PMIX_NAMESPACE'][:100]}"
    where = layout.store_file or f"{layout.master_addr}:{layout.master_port}"
    return f"{where[:200]}/{layout.world_size}"


def _first_record(layout: Layout, why: str) -> dict[str, Any]:
    return {"payload_version": PAYLOAD_VERSION, "layout": layout.to_dict(), "run": run_key(layout),
            "outcome": {"complete": False, "started": time.time(), "error": why,
                        "world_size": layout.world_size}}


def _connect(layout: Layout, outcome: collective.Outcome, deadline: float,
             watchdog: collective.Watchdog, timeout: float = 0.0
             ) -> tuple[Any, collective.Heart | None]:
    """Open the store, announce this rank, start its heartbeat, meet; never raises.

    A rank that connects to the store rank 0 hosts waits 2 x ``timeout`` longer for it:
    rank 0 starts serving only once it has imported torch, after its node's pre-flight
    import, so a healthy rank that imports faster than rank 0 would otherwise give up on a
    store that was about to open, and be named absent while rank 0 was the slow one."""
    store, heart = None, None
    try:
        watchdog.phase = "the store connect"
        hosting = layout.rank == 0 and collective.rank0_hosts(layout)
        waits = layout.rank != 0 and collective.rank0_hosts(layout)  # (an agent's is up)
        store = collective.open_store(layout, max(1.0, deadline - time.monotonic()) +
                                      (2 * timeout if waits else 0.0))
        if not hosting:
            # rank 0's rendezvous deadline runs from its own start, about when the store
            # opened: a rank that waited for the store waits as long for the decision
            deadline = max(deadline, time.monotonic() + timeout)
        beat_store = store if layout.store_file else collective.open_store(
            layout, max(1.0, deadline - time.monotonic()), client=True)
        heart = collective.Heart(beat_store, layout.rank, lambda why: watchdog.fire(why))
        heart.beat()  # before the hello: a rank the others see announced has a heartbeat
        heart.start()
        owner = collective.announce(store, layout)
        if owner:
            # another process runs as this RANK: this one is not part of the job (it must not
            # beat for the owner, nor take its place in the group); rank 0 names the RANK
            heart.stop.set()
            outcome.duplicate_of = {k: owner.get(k) for k in ("node", "pid") if k in owner}
            outcome.error = (f"another process (pid {owner.get('pid', '?')} on "
                             f"{owner.get('node', '?')}) already runs as RANK {layout.rank}: "
                             "the launcher started this RANK twice; this process leaves the job")
            return None, None
        outcome.announced = True
        watchdog.phase = "the rendezvous"
        collective.meet(store, layout, outcome, deadline)
    except collective.StoreError as exc:
        outcome.error = f"rendezvous failed: {exc}"
        # the store rank 0 hosts never answered this rank: with rank 0's own snapshot left
        # unfinished, `fleet compare` can tell that rank 0 died, not this rank
        outcome.unreached = layout.rank != 0 and collective.rank0_hosts(layout) and \
            not outcome.announced
        store = None
    except Exception as exc:  # noqa: BLE001 - a store that stopped answering mid-way
        outcome.error = f"rendezvous failed: {collective.one_line(exc)}"
        store = None
    if store is None and layout.rank == 0:
        outcome.failure = outcome.error
    return store, heart


def run_rank(options: Options, environ: Mapping[str, str] | None = None) -> RankResult:
    """Everything one rank does; raises BadInput only before any collective (bad layout,
    no torch), so every rank of a badly launched job stops alike."""
    start = time.monotonic()
    try:
        layout = detect(os.environ if environ is None else environ, options.store)
    except LayoutError as exc:
        raise BadInput(f"envdoctor fleet: {exc}") from None
    torch = import_torch(options.timeout, first_on_node=layout.local_rank == 0)
    # Two phases, each bounded by --timeout: the rendezvous waits for every rank to announce
    # (which absorbs ranks that import torch slowly), then every rank has --timeout to probe
    # and arrive, so the arrival measures the probes and nothing else.
    deadline = time.monotonic() + options.timeout
    outcome = collective.Outcome()

    def last_words(why: str) -> None:
        if options.out_dir:
            record = _first_record(layout, why)
            if why == collective.STORE_GONE and layout.rank != 0 and \
                    collective.gone_with_rank0(layout):
                record["outcome"]["dead"] = [0]  # the store went with rank 0 (or its node)
            write_snapshot(options.out_dir, layout, record)

    if options.out_dir:  # a first record, in case this rank is killed while it probes
        first = _first_record(layout, "the rank did not finish (killed or still probing "
                              "when its launcher stopped it)")
        first["outcome"]["first"] = True  # replaced by anything the rank says later
        write_snapshot(options.out_dir, layout, first)
    watchdog = collective.Watchdog(layout, bound(options.timeout), last_words)
    watchdog.start()
    data: dict[str, Any] = {}
    result = RankResult(layout, outcome, data)
    _on_signal(options, result, watchdog)
    from envdoctor import children
    children.guard()  # a rank SIGKILLed by its launcher leaves no probe behind
    store, heart = _connect(layout, outcome, deadline, watchdog, options.timeout)
    if outcome.duplicate_of:  # not part of the job: its record, under a name of its own
        if FINISH.acquire(blocking=False):
            watchdog.done.set()
            if options.out_dir:
                record = _first_record(layout, outcome.error)
                record["outcome"] = {**record["outcome"], **outcome.to_dict(layout.world_size)}
                result.snapshot = write_snapshot(options.out_dir, layout, record,
                                                 f"-duplicate-{os.getpid()}")
            return result
        while True:  # a signal is ending the run: its words stand
            time.sleep(60)
    deadline = time.monotonic() + options.timeout
    watchdog.phase = "the probes"
    payload(layout, torch, options, deadline, data)
    go = False
    if store is not None and heart is not None:
        watchdog.phase = "the arrival"
        go = collective.arrive(store, layout, outcome, deadline, heart)
    if go:
        try:
            data["clock"] = collective.clock_barrier()  # all ranks within milliseconds
        except Exception as exc:  # noqa: BLE001 - a rank that died after arriving
            go = False
            outcome.error = f"barrier failed: {collective.one_line(exc)}"
    if go and options.bench:
        from envdoctor.fleet import bench
        watchdog.phase = "the benchmark"
        bench_start = time.monotonic()
        try:
            data["bench"] = bench.run(layout, collective.node_key(layout.node),
                                      options.timeout)
        except Exception as exc:  # noqa: BLE001 - a failed benchmark is a result
            data["bench"] = {"error": f"{type(exc).__name__}: {exc}"[:400]}
        outcome.seconds["bench"] = round(time.monotonic() - bench_start, 3)
    data["seconds"] = {**data.get("seconds", {}), **outcome.seconds}
    data["error"] = outcome.error
    data["failure"] = outcome.failure
    encoded = json.dumps(data, separators=(",", ":")).encode("utf-8")
    watchdog.phase = "the gather"
    outcome.patience = options.timeout
    collective.gather(store, layout, outcome, encoded, go)
    if heart is not None:
        heart.arrived.set()
        heart.stop.set()
    if not FINISH.acquire(blocking=False):  # a signal is ending the run: its words stand
        while True:
            time.sleep(60)
    watchdog.done.set()
    result.seconds["total"] = time.monotonic() - start
    if options.out_dir:
        snapshot = {**data, "outcome": outcome.to_dict(layout.world_size)}
        result.snapshot = write_snapshot(options.out_dir, layout, snapshot)
    if layout.rank == 0 and 0 not in outcome.payloads:
        outcome.payloads[0] = encoded  # rank 0 reports at least what it alone saw
    return result


FINISH = threading.Lock()  # held by whoever finishes the rank: its own end or a signal


def _on_signal(options: Options, result: RankResult, watchdog: collective.Watchdog) -> None:
    """When SIGTERM/SIGINT/SIGHUP ends this rank (``terminate``, after its children are
    stopped): its snapshot says so, with what it had, and rank 0 reports what it has."""
    from envdoctor import terminate

    def cancelled(number: int) -> str:
        layout, outcome = result.layout, result.outcome
        why = f"cancelled by {terminate.name(number)} during {watchdog.phase}"
        if not FINISH.acquire(blocking=False):
            return ""  # the rank had finished: nothing was cut short
        watchdog.done.set()
        outcome.cancelled = why
        data = {**_first_record(layout, why), **result.payload}
        data.update(binding=data.get("binding") or {}, error=why, cancelled=why,
                    failure=outcome.failure)
        data.pop("outcome", None)
        result.payload = data
        where = ""
        if options.out_dir:
            with contextlib.suppress(BadInput):
                result.snapshot = write_snapshot(options.out_dir, layout, {
                    **data, "outcome": outcome.to_dict(layout.world_size)})
                where = f"; snapshot in {result.snapshot}"
        if layout.rank == 0 and options.on_cancel is not None:
            options.on_cancel(result)
            where = "; the report has what it had" + where
        return f"envdoctor fleet: rank {layout.rank} on {layout.node}: {why}{where}"

    terminate.last_words(cancelled)


def unheard(result: RankResult) -> list[int]:
    """Ranks rank 0 has no word from and no verdict on: the store itself failed, so nothing
    is known about them (they are not named; the failure is)."""
    out = result.outcome
    known = set(out.payloads) | set(out.late) | set(out.dead) | set(out.absent)
    return [r for r in range(result.layout.world_size) if r not in known]
