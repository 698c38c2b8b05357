"""The rendezvous store and the deadlines around it: bounded connects, heartbeat, watchdog.

A TCPStore client whose server accepts and never answers waits forever, whatever its
timeout; so every connect runs in a thread joined with a deadline (``bounded``), each rank
bumps a heartbeat counter on a connection of its own (``Heart``: rank 0 tells a dead rank from
a slow one by it), and ``Watchdog`` ends a rank that outlives the run's bound anyway, with one
line on stderr and its child processes killed.
"""

from __future__ import annotations

import datetime
import os
import re
import threading
import time
from collections.abc import Callable
from typing import Any

from envdoctor.bounded import env
from envdoctor.fleet.layout import Layout
from envdoctor.outputs.stderr import say

PREFIX = "envdoctor/fleet/"
BEAT = 1.0             # heartbeat period
DEAD_AFTER = 4.0       # a heartbeat unchanged this long: the rank is gone

class StoreError(RuntimeError):
    """The rendezvous store could not be opened or stopped answering."""


def td(seconds: float) -> datetime.timedelta:
    return datetime.timedelta(seconds=max(1.0, seconds))


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300] if text else ''}".rstrip(": ")


def bounded(fn: Callable[[], Any], seconds: float, what: str) -> Any:
    """``fn()`` in a daemon thread, given up after ``seconds``: for the C++ calls that do not
    keep their own timeout (a TCPStore connect to a server that never answers)."""
    box: dict[str, Any] = {}

    def call() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box["error"] = exc

    thread = threading.Thread(target=call, name=f"envdoctor-{what}", daemon=True)
    thread.start()
    thread.join(max(0.1, seconds))
    if thread.is_alive():
        raise TimeoutError(f"{what}: no answer in {seconds:.0f} s")
    if "error" in box:
        raise box["error"]
    return box.get("value")


# ---------------------------------------------------------------------------- the store
def _prefix(environ: dict[str, str] | os._Environ[str]) -> str:
    """Keys of one run: under torchrun the agent store outlives a worker restart."""
    run = environ.get("TORCHELASTIC_RUN_ID", "")
    attempt = environ.get("TORCHELASTIC_RESTART_COUNT", "0")
    return f"{PREFIX}{run}/{attempt}/" if run else PREFIX


def _agent_store(layout: Layout) -> bool:
    return layout.launcher == "torchrun" and \
        env("TORCHELASTIC_USE_AGENT_STORE", "").lower() == "true"


def rank0_hosts(layout: Layout) -> bool:
    """Rank 0's process serves the store: when it is gone, so is the store."""
    return not layout.store_file and not _agent_store(layout)


def gone_with_rank0(layout: Layout) -> bool:
    """The store goes away only with rank 0 or its node: rank 0 hosts it, or torchrun's
    agent on node 0 does (and an agent that leaves takes its ranks with it)."""
    return not layout.store_file


STORE_GONE = "the rendezvous store stopped answering (rank 0 finished or died)"


def process_alive(pid: int) -> bool:
    """A process of this host that exists and is not a zombie (a killed rank not yet reaped
    by its launcher is one)."""
    try:
        import psutil
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except Exception:  # noqa: BLE001 - NoSuchProcess, AccessDenied, no psutil
        return False


def is_local_address(addr: str, seconds: float = 3.0) -> bool:
    """Whether ``addr`` (a name or an address) resolves to an address of this host: one a
    socket can bind to. True when that cannot be told (resolving it hangs or fails), so that
    only a known elsewhere is reported as such."""
    import socket

    def check() -> bool:
        infos = socket.getaddrinfo(addr, None, proto=socket.IPPROTO_TCP)
        for family, _, _, _, sockaddr in infos:
            with socket.socket(family, socket.SOCK_STREAM) as s:
                try:
                    s.bind((sockaddr[0], 0))
                    return True
                except OSError:
                    continue
        return not infos
    try:
        return bool(bounded(check, seconds, "resolve MASTER_ADDR"))
    except Exception:  # noqa: BLE001 - a name that does not resolve, a resolver that hangs
        return True


def where(layout: Layout) -> str:
    if layout.store_file:
        return f"the store file {layout.store_file}"
    return f"{layout.master_addr}:{layout.master_port} (MASTER_ADDR:MASTER_PORT)"


_TIMED_OUT = re.compile(r"timed out|timeout", re.IGNORECASE)


def _master_elsewhere(layout: Layout, client: bool) -> bool:
    """Rank 0 hosts the store here, yet MASTER_ADDR (where every client connects, its own
    included) is known not to be an address of this host."""
    return (layout.rank == 0 and rank0_hosts(layout) and not client
            and not is_local_address(layout.master_addr))


def _unanswered(layout: Layout, seconds: float, client: bool) -> StoreError:
    """Why the store did not answer in time, whichever timer (torch's or ours) fired first."""
    if _master_elsewhere(layout, client):
        # rank 0 serves the store on every address of this host, but its own client (as
        # every rank's) connects to MASTER_ADDR, which is elsewhere
        return StoreError(f"MASTER_ADDR={layout.master_addr[:100]} is not an address of "
                          f"this host ({layout.host[:100]}), where rank 0 hosts the store: "
                          f"no rank reached it in {seconds:.0f} s; set MASTER_ADDR to rank "
                          "0's host")
    if layout.rank != 0 and rank0_hosts(layout):
        return StoreError(f"{where(layout)} did not answer in {seconds:.0f} s: rank 0, "
                          "which hosts the store there, is not serving it (not started, "
                          "dead), or MASTER_PORT is held by another program")
    return StoreError(f"{where(layout)} accepted the connection but never answered in "
                      f"{seconds:.0f} s: is MASTER_PORT held by another program?")


def open_store(layout: Layout, seconds: float, *, client: bool = False) -> Any:
    """The rendezvous store, or StoreError naming where and why, within ``seconds``.

    Rank 0 hosts a TCP store unless torchrun's agent does; ``client`` opens one more
    connection to it (the heartbeat's, so that it never waits behind a blocking call).
    """
    import torch.distributed as dist

    def connect() -> Any:
        if layout.store_file:
            return dist.FileStore(layout.store_file, -1)
        host = layout.rank == 0 and not client and rank0_hosts(layout)
        return dist.TCPStore(layout.master_addr, layout.master_port, None, host,
                             td(seconds), wait_for_workers=False)

    try:
        base = bounded(connect, seconds + 1.0, "store connect")
    except TimeoutError:
        raise _unanswered(layout, seconds, client) from None
    except Exception as exc:  # noqa: BLE001 - DistNetworkError, RuntimeError, OSError …
        text = one_line(exc)
        if "EADDRINUSE" in text or "address already in use" in text.lower():
            raise StoreError(f"rank 0 cannot host the store on port {layout.master_port} "
                             "(MASTER_PORT): the address is in use by another program") from None
        if _TIMED_OUT.search(text) and _master_elsewhere(layout, client):
            # torch's own connect timeout fired before ours (a loaded host): the same state
            raise _unanswered(layout, seconds, client) from None
        raise StoreError(f"cannot reach {where(layout)} in {seconds:.0f} s: {text}") from None
    return dist.PrefixStore(_prefix(os.environ), base)


def counter(store: Any, key: str) -> int:
    return int(store.add(key, 0))


def beat_count(store: Any, rank: int) -> int:
    try:
        return counter(store, f"beat/{rank}")
    except Exception:  # noqa: BLE001
        return -1


def has(store: Any, key: str) -> bool:
    return bool(store.check([key]))


def get_bytes(store: Any, key: str) -> bytes:
    return bytes(store.get(key))


# ---------------------------------------------------------------------------- heartbeat
class Heart:
    """Bumps ``beat/R`` every BEAT s on its own connection; records when the store went away.

    ``on_closed`` is called (from this thread) when rank 0 has closed the arrival while the
    main thread is still before its arrival: nothing this rank sends will be read any more.
    """

    def __init__(self, store: Any, rank: int, on_gone: Callable[[str], None]) -> None:
        self.store, self.rank, self.on_gone = store, rank, on_gone
        self.stop = threading.Event()
        self.arrived = threading.Event()   # set by the main thread once it has arrived
        self.thread = threading.Thread(target=self._run, name="envdoctor-heartbeat",
                                       daemon=True)

    def beat(self) -> None:
        self.store.add(f"beat/{self.rank}", 1)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        failing_since: float | None = None
        while not self.stop.wait(BEAT):
            try:
                self.store.add(f"beat/{self.rank}", 1)
                failing_since = None
                if self.rank != 0 and not self.arrived.is_set() and has(self.store, "verdict"):
                    if get_bytes(self.store, "verdict") != b"go":
                        self.on_gone("rank 0 closed the arrival while this rank was still "
                                     "probing (its probes took longer than --timeout)")
                        return
            except Exception:  # noqa: BLE001 - the store's host finished or died
                failing_since = failing_since or time.monotonic()
                if self.rank != 0 and time.monotonic() - failing_since > DEAD_AFTER:
                    self.on_gone(STORE_GONE)
                    return


class Watchdog:
    """Ends the process when the run outlives its bound, with one clear line on stderr.

    The last resort behind every other deadline: a rank stuck in a C call (a collective, a
    driver query) must not hold its launcher, and its children (probes) go with it.
    """

    def __init__(self, layout: Layout, seconds: float,
                 last_words: Callable[[str], None] | None = None) -> None:
        self.layout, self.seconds, self.last_words = layout, seconds, last_words
        self.phase = "start"
        self.done = threading.Event()
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, name="envdoctor-watchdog",
                                       daemon=True)

    def start(self) -> None:
        self.thread.start()

    def _run(self) -> None:
        if self.done.wait(self.seconds):
            return
        self.fire(f"still in {self.phase} after {self.seconds:.0f} s (the bound of "
                  "`envdoctor fleet --help`); giving up", code=3 if self.layout.rank == 0 else 0)

    def fire(self, why: str, code: int = 0) -> None:
        """Leave now: a line, the snapshot's last words, no children left, os._exit."""
        if not self.lock.acquire(blocking=False):
            return
        if self.done.is_set():
            return
        try:
            say(f"envdoctor fleet: rank {self.layout.rank} on {self.layout.node}: {why}")
            if self.last_words is not None:
                self.last_words(why)
        except Exception:  # noqa: BLE001 - leaving anyway
            pass
        kill_children()
        os._exit(code)


def kill_children() -> None:
    """This rank's child processes (probes run in their own sessions), killed: what the
    registry started (with its groups and marked escapees), then any other descendant."""
    from envdoctor import children
    children.kill_all()
    try:
        import psutil
        for child in psutil.Process().children(recursive=True):
            try:
                child.kill()
            except psutil.Error:
                pass
    except Exception:  # noqa: BLE001
        pass
