"""Fleet under faults: real ranks (started here with the torch.distributed variables, no
launcher in between), one fault each, and what the report must say about it.

Each fault must end within ``--timeout`` plus the grace ``fleet --help`` states, name exactly
the ranks at fault (and their nodes) and no healthy one, and leave no process behind. The
wall-clock limits include starting Python and importing torch on a loaded machine (SLACK).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest

from tests.fleet.conftest import REPO, Launched, envdoctor, free_port, no_leftovers, rank_env

pytest.importorskip("torch.distributed")
pytestmark = pytest.mark.fleet

TIMEOUT = 8.0
GRACE = 15.0   # what `envdoctor fleet --help` promises after --timeout
SLACK = 20.0   # starting the interpreter and importing torch on 2 loaded cores
LOST = ("FLEET017", "FLEET036")  # late (hung, slow) and lost (dead, absent) ranks


def _ranks(tmp: Path, world: int, started: list[int], port: int, *, nodes: dict[int, int],
           extra: dict[int, dict[str, str]] | None = None, args: tuple[str, ...] = ()
           ) -> dict[int, Launched]:
    """Start the given ranks of a ``world``-rank job; ``nodes`` maps rank -> node rank."""
    local: dict[int, int] = {}
    runs = {}
    for r in started:
        node = nodes[r]
        index = sum(1 for x in range(r) if nodes[x] == node)
        local[r] = index
        env = rank_env(**{"RANK": str(r), "WORLD_SIZE": str(world), "LOCAL_RANK": str(index),
                          "NODE_RANK": str(node), "MASTER_ADDR": "127.0.0.1",
                          "MASTER_PORT": str(port), **(extra or {}).get(r, {})})
        runs[r] = Launched(envdoctor("fleet", "--static", "--timeout", str(TIMEOUT),
                                     "--out-dir", str(tmp / "snaps"), "--format", "json",
                                     *args), env, REPO)
    return runs


def _wait_all(runs: dict[int, Launched], limit: float = 240.0) -> dict[int, tuple]:
    return {r: run.wait(limit) for r, run in runs.items()}


def _named(report: dict) -> set[int]:
    """Every rank a late/lost finding names."""
    return {r for f in report["findings"] if f["code"] in LOST
            for r in f["evidence"].get("ranks", ())}


def _hanging_smi(root: Path) -> Path:
    """An nvidia-smi that never answers: the rank whose node probes run it stays in them."""
    folder = root / "bin"
    folder.mkdir(exist_ok=True)
    smi = folder / "nvidia-smi"
    smi.write_text("#!/bin/sh\nwhile :; do sleep 1; done\n")
    smi.chmod(0o755)
    return folder


def _fake_smis(marker: str) -> list[psutil.Process]:
    out = []
    for p in psutil.process_iter(["cmdline"]):
        try:
            if any(marker in part and "nvidia-smi" in part for part in p.info["cmdline"] or ()):
                out.append(p)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return out


@contextmanager
def _cleanup(tmp: Path, runs: dict[int, Launched]) -> Iterator[None]:
    try:
        yield
    finally:
        for run in runs.values():
            run.kill()
        for p in _fake_smis(str(tmp)):
            try:
                p.kill()
            except psutil.NoSuchProcess:
                pass


def _within(runs: dict[int, Launched], bound: float) -> None:
    slow = {r: round(run.seconds, 1) for r, run in runs.items() if run.seconds > bound}
    assert not slow, f"ranks past {bound} s: {slow}"


def test_without_numpy_every_rank_is_gathered(tmp_path: Path) -> None:
    """torch does not need NumPy; neither may the gather."""
    fake = tmp_path / "nonumpy" / "numpy"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(
        'raise ModuleNotFoundError("No module named \'numpy\'", name="numpy")\n')
    path = {"PYTHONPATH": f"{fake.parent}:{REPO}"}
    runs = _ranks(tmp_path, 2, [0, 1], free_port(), nodes={0: 0, 1: 1}, extra={0: path, 1: path})
    with _cleanup(tmp_path, runs):
        results = _wait_all(runs)
    (rc0, out0, err0), (rc1, _, err1) = results[0], results[1]
    assert (rc0, rc1) == (0, 0), err0[-2000:] + err1[-2000:]
    report = json.loads(out0)
    fleet = report["fleet"]
    assert [r["rank"] for n in fleet["nodes"] for r in n["ranks"]] == [0, 1]
    assert all(r["arrived"] for n in fleet["nodes"] for r in n["ranks"])
    assert fleet["late_ranks"] == [] and _named(report) == set()
    assert len(fleet["nodes"]) == 2 and all(n["summary"] for n in fleet["nodes"])
    _within(runs, TIMEOUT + GRACE + SLACK)
    assert no_leftovers(str(tmp_path)) == []


def test_a_rank_killed_after_joining_is_named_dead_and_no_one_else(tmp_path: Path) -> None:
    """Rank 2 (alone on node 1) joins, then dies in its probes; 0 and 1 are healthy."""
    port = free_port()
    smi = {"PATH": f"{_hanging_smi(tmp_path)}:{rank_env()['PATH']}"}
    runs = _ranks(tmp_path, 3, [0, 1, 2], port, nodes={0: 0, 1: 0, 2: 1}, extra={2: smi})
    with _cleanup(tmp_path, runs):
        victim = _in_probes(tmp_path, runs[2])  # past the rendezvous
        killed_at = time.monotonic()
        victim.kill()
        results = _wait_all({r: runs[r] for r in (0, 1)})
    rc0, out0, err0 = results[0]
    assert rc0 == 1, err0[-3000:]
    assert results[1][0] == 0
    report = json.loads(out0)
    fleet = report["fleet"]
    assert _named(report) == {2}
    lost = next(f for f in report["findings"] if f["code"] == "FLEET036")
    assert lost["evidence"]["ranks"] == [2] and lost["evidence"]["nodes"] == ["host-1#1"]
    assert "killed" in lost["title"] or "died" in lost["title"]
    ranks = {r["rank"]: r for n in fleet["nodes"] for r in n["ranks"]}
    assert ranks[0]["arrived"] and ranks[1]["arrived"] and not ranks[2]["arrived"]
    assert fleet["late_ranks"] == []
    # a dead rank is not waited for: rank 0 ends soon after it stops answering
    assert runs[0].start + runs[0].seconds - killed_at < TIMEOUT + GRACE
    assert no_leftovers(str(tmp_path)) == []


def test_a_rank_that_never_joins_is_named_by_number(tmp_path: Path) -> None:
    """WORLD_SIZE=3, ranks 0 and 1 start (two nodes): rank 2 is named absent, the two
    healthy ranks are reported with their facts, and `fleet compare` over the snapshots says
    the run failed."""
    runs = _ranks(tmp_path, 3, [0, 1], free_port(), nodes={0: 0, 1: 1, 2: 2})
    with _cleanup(tmp_path, runs):
        results = _wait_all(runs)
    (rc0, out0, err0), (rc1, _, err1) = results[0], results[1]
    assert (rc0, rc1) == (1, 0), err0[-2000:] + err1[-2000:]
    report = json.loads(out0)
    fleet = report["fleet"]
    assert _named(report) == {2}
    assert fleet["absent_ranks"] == [2]
    assert sorted(n["node"] for n in fleet["nodes"]) == ["host-1#0", "host-1#1"]
    assert all(n["summary"] for n in fleet["nodes"])  # rank 1's facts arrived too
    _within(runs, TIMEOUT + GRACE + SLACK)
    text = Launched(envdoctor("fleet", "compare", str(tmp_path / "snaps")), rank_env(), REPO)
    rc, shown, err = text.wait(120)
    assert rc == 1, shown + err
    assert "rank 2" in shown and "OK:" not in shown
    as_json = Launched(envdoctor("fleet", "compare", str(tmp_path / "snaps"), "--format",
                                 "json"), rank_env(), REPO)
    rc, shown, err = as_json.wait(120)
    assert rc == 1 and _named(json.loads(shown)) == {2}, shown + err
    assert no_leftovers(str(tmp_path)) == []


@contextmanager
def _silent_server() -> Iterator[int]:
    """MASTER_PORT held by something that accepts connections and never says a word."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    sock.settimeout(0.2)
    held: list[socket.socket] = []
    done = threading.Event()

    def accept() -> None:
        while not done.is_set():
            try:
                held.append(sock.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield sock.getsockname()[1]
    finally:
        done.set()
        thread.join(5)
        for c in held:
            c.close()
        sock.close()


@pytest.mark.parametrize("agent_store", [False, True], ids=["rank0-hosts", "agent-store"])
def test_a_silent_master_port_ends_in_time_and_blames_no_rank(tmp_path: Path,
                                                             agent_store: bool) -> None:
    """Rank 0 cannot host the store (the port is taken), or, as under torchrun, every rank is
    a client of a store that accepts and never answers: no rank is at fault, and none waits
    past the bound."""
    with _silent_server() as port:
        extra = {"TORCHELASTIC_RUN_ID": "faults", "TORCHELASTIC_USE_AGENT_STORE": "True",
                 "GROUP_RANK": "0"} if agent_store else {}
        runs = _ranks(tmp_path, 2, [0, 1], port, nodes={0: 0, 1: 1}, extra={0: extra, 1: extra})
        with _cleanup(tmp_path, runs):
            results = _wait_all(runs)
    (rc0, out0, err0), (rc1, _, err1) = results[0], results[1]
    assert rc0 == 1 and rc1 == 0, err0[-2000:] + err1[-2000:]
    report = json.loads(out0)
    assert _named(report) == set()
    assert "FLEET037" in {f["code"] for f in report["findings"]}
    assert str(port) in json.dumps(report["fleet"]["errors"])
    _within(runs, TIMEOUT + GRACE + SLACK)
    assert no_leftovers(str(tmp_path)) == []


def test_a_busy_master_port_blames_no_rank(tmp_path: Path) -> None:
    """MASTER_PORT bound by another process (not listening): rank 0 cannot host the store,
    rank 1 cannot reach one; the report says so and names no rank."""
    holder = socket.socket()
    holder.bind(("0.0.0.0", 0))
    port = holder.getsockname()[1]
    try:
        runs = _ranks(tmp_path, 2, [0, 1], port, nodes={0: 0, 1: 1})
        with _cleanup(tmp_path, runs):
            results = _wait_all(runs)
    finally:
        holder.close()
    (rc0, out0, err0), (rc1, _, err1) = results[0], results[1]
    assert rc0 == 1 and rc1 == 0, err0[-2000:] + err1[-2000:]
    report = json.loads(out0)
    assert _named(report) == set()
    assert "FLEET037" in {f["code"] for f in report["findings"]}
    assert "1" not in {str(r) for f in report["findings"] for r in
                       f["evidence"].get("ranks", ())}
    _within(runs, TIMEOUT + GRACE + SLACK)
    assert no_leftovers(str(tmp_path)) == []


def test_a_slow_rank_is_named_late_and_leaves_in_time(tmp_path: Path) -> None:
    """Rank 1's node probes hang (nvidia-smi never answers): rank 0 names it late, on its node,
    once --timeout has passed; rank 1 does not outstay the bound either."""
    smi = {"PATH": f"{_hanging_smi(tmp_path)}:{rank_env()['PATH']}"}
    runs = _ranks(tmp_path, 2, [0, 1], free_port(), nodes={0: 0, 1: 1}, extra={1: smi})
    with _cleanup(tmp_path, runs):
        results = _wait_all(runs)
    (rc0, out0, err0), (rc1, _, err1) = results[0], results[1]
    assert (rc0, rc1) == (1, 0), err0[-2000:] + err1[-2000:]
    report = json.loads(out0)
    assert _named(report) == {1}
    late = next(f for f in report["findings"] if f["code"] == "FLEET017")
    assert late["evidence"]["ranks"] == [1] and late["evidence"]["nodes"] == ["host-1#1"]
    assert report["fleet"]["late_ranks"] == [1]
    _within(runs, TIMEOUT + GRACE + SLACK)
    assert no_leftovers(str(tmp_path)) == []


def _in_probes(tmp: Path, run: Launched) -> psutil.Process:
    """The rank's process, once its node probes run the never-answering nvidia-smi."""
    proc = psutil.Process(run.proc.pid)
    end = time.monotonic() + 120
    while time.monotonic() < end:
        for smi in _fake_smis(str(tmp)):
            try:
                if proc.pid in [a.pid for a in smi.parents()]:
                    return proc
            except psutil.Error:
                continue
        time.sleep(0.1)
    pytest.fail("the rank never reached its probes")


def test_a_stopped_rank_is_late_not_dead(tmp_path: Path) -> None:
    """SIGSTOP after joining: its heartbeat stops, but its process is there (rank 0's host
    can see it): hung, so late, not dead."""
    smi = {"PATH": f"{_hanging_smi(tmp_path)}:{rank_env()['PATH']}"}
    runs = _ranks(tmp_path, 2, [0, 1], free_port(), nodes={0: 0, 1: 1}, extra={1: smi})
    with _cleanup(tmp_path, runs):
        _in_probes(tmp_path, runs[1]).suspend()
        rc0, out0, err0 = runs[0].wait(240)
    assert rc0 == 1, err0[-3000:]
    report = json.loads(out0)
    assert _named(report) == {1}
    assert report["fleet"]["late_ranks"] == [1] and report["fleet"]["dead_ranks"] == []
    _within({0: runs[0]}, TIMEOUT + GRACE + SLACK)
    assert no_leftovers(str(tmp_path)) == []


def test_rank_zero_killed_after_joining_is_named_by_the_others_snapshots(
        tmp_path: Path) -> None:
    """Rank 0 (which hosts the store) dies in its probes: rank 1 leaves in time, and `fleet
    compare` over the snapshots names rank 0 dead, not rank 1."""
    smi = {"PATH": f"{_hanging_smi(tmp_path)}:{rank_env()['PATH']}"}
    runs = _ranks(tmp_path, 2, [0, 1], free_port(), nodes={0: 0, 1: 1}, extra={0: smi})
    with _cleanup(tmp_path, runs):
        _in_probes(tmp_path, runs[0]).kill()
        rc1, _, err1 = runs[1].wait(240)
    assert rc1 == 0, err1[-2000:]
    assert "rank 0" in err1
    _within({1: runs[1]}, TIMEOUT + GRACE + SLACK)
    shown = Launched(envdoctor("fleet", "compare", str(tmp_path / "snaps"), "--format",
                               "json"), rank_env(), REPO)
    rc, out, err = shown.wait(120)
    assert rc == 1, out + err
    report = json.loads(out)
    assert _named(report) == {0}
    assert report["fleet"]["dead_ranks"] == [0]
    assert no_leftovers(str(tmp_path)) == []
