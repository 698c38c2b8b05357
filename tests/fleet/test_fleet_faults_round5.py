"""Fleet fault round 5 (FLEET_MATRIX.md, "Round 5"): real ranks, one fault each, placed with
the launcher's variables or a per-rank ``sitecustomize``.

Each must name exactly the rank at fault (or, where no rank is, the cause) and no healthy
one, end within the bound and leave no process behind. Slow (a real job each): marked
``boundary`` like the matrix rows.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.fleet.conftest import REPO, Launched, free_port, no_leftovers, rank_env
from tests.fleet.test_fleet_faults import (
    GRACE,
    SLACK,
    TIMEOUT,
    _cleanup,
    _named,
    _ranks,
    _wait_all,
    _within,
)
from tests.fleet.test_fleet_faults_round4 import _compare, _site

pytest.importorskip("torch.distributed")
pytestmark = [pytest.mark.fleet, pytest.mark.boundary]

NODES = {0: 0, 1: 0, 2: 1, 3: 1}


def test_one_rank_started_twice_is_named_on_both_nodes_and_kept_apart(tmp_path: Path) -> None:
    """RANK=1 given to two processes (node 0 and node 1), RANK 3 to none: rank 1 is named
    as started twice (both nodes said), rank 3 never joined, nobody else; the second
    process does not overwrite the first one's snapshot, and `fleet compare` names the same
    ranks instead of refusing the folder."""
    port = free_port()
    runs = _ranks(tmp_path, 4, [0, 1, 2], port, nodes=NODES)
    twin = _ranks(tmp_path, 4, [1], port, nodes={0: 0, 1: 1})  # RANK=1 on node 1
    with _cleanup(tmp_path, {**runs, 9: twin[1]}):
        results = _wait_all({**runs, 9: twin[1]})
    rc0, out0, err0 = results[0]
    assert rc0 == 1, err0[-2000:]
    report = json.loads(out0)
    fleet = report["fleet"]
    assert (fleet["duplicate_ranks"], fleet["absent_ranks"]) == ([1], [3]), fleet
    assert _named(report) == {1, 3}
    assert any("RANK 1 was started as 2 processes" in e for e in fleet["errors"]), fleet
    lost = next(f for f in report["findings"] if f["code"] == "FLEET036")
    # on the node of whichever process said hello first (the other is the duplicate)
    assert "started as two processes" in lost["title"], lost["title"]
    assert set(lost["evidence"]["nodes"]) <= {"host-1#0", "host-1#1"}
    # whichever of the two said hello second leaves, exit 0, saying why
    assert results[1][0] == 0 and results[9][0] == 0
    assert sum("started this RANK twice" in results[k][2] for k in (1, 9)) == 1
    snaps = sorted(p.name for p in (tmp_path / "snaps").glob("rank00001-*.json"))
    assert len(snaps) == 2, snaps
    rc, shown = _compare(tmp_path)
    assert rc == 1 and _named(shown) == {1, 3}, shown
    assert shown["fleet"]["duplicate_ranks"] == [1]
    _within(runs, TIMEOUT + GRACE + SLACK)
    assert no_leftovers(str(tmp_path)) == []


def test_a_retried_hello_does_not_close_the_rendezvous_on_a_slow_rank(tmp_path: Path) -> None:
    """Rank 2 says hello twice (a retry); rank 3 reaches the store 3 s late. The join counter
    reaches WORLD_SIZE before rank 3 said hello: rank 0 must still wait for it, and name
    nobody (not rank 3 as never joined, not "two processes run as one RANK")."""
    twice = _site(tmp_path, "twice", (
        "import envdoctor.fleet.collective as c\n_o = c.announce\n"
        "def _a(store, layout):\n    _o(store, layout)\n    return _o(store, layout)\n"
        "c.announce = _a\n"))
    slow = _site(tmp_path, "slow", (
        "import time\nimport envdoctor.fleet.run as r\n_o = r._connect\n"
        "def _c(*a, **k):\n    time.sleep(3.0)\n    return _o(*a, **k)\nr._connect = _c\n"))
    runs = _ranks(tmp_path, 4, [0, 1, 2, 3], free_port(), nodes=NODES,
                  extra={2: twice, 3: slow})
    with _cleanup(tmp_path, runs):
        results = _wait_all(runs)
    rc0, out0, err0 = results[0]
    report = json.loads(out0)
    assert rc0 == 0, (report["fleet"]["errors"], err0[-2000:])
    assert _named(report) == set() and report["fleet"]["errors"] == []
    _within(runs, TIMEOUT + GRACE + SLACK + 3.0)
    assert no_leftovers(str(tmp_path)) == []


def test_a_payload_that_claims_another_rank_names_its_sender(tmp_path: Path) -> None:
    """Rank 2 (node 1) sends a payload whose layout says rank 1: rank 2 is named (its payload
    could not be taken), on its node; rank 1, which sent its own, is not."""
    code = ("import json\nimport envdoctor.fleet.collective as c\n_o = c.gather\n"
            "def _g(store, layout, out, payload, go):\n    d = json.loads(payload)\n"
            "    d['layout']['rank'] = 1\n    _o(store, layout, out, json.dumps(d).encode(), go)\n"
            "c.gather = _g\n")
    runs = _ranks(tmp_path, 4, [0, 1, 2, 3], free_port(), nodes=NODES,
                  extra={2: _site(tmp_path, "claims", code)})
    with _cleanup(tmp_path, runs):
        results = _wait_all(runs)
    rc0, out0, err0 = results[0]
    assert rc0 == 1, err0[-2000:]
    report = json.loads(out0)
    assert _named(report) == {2} and report["fleet"]["unreadable_ranks"] == [2]
    lost = next(f for f in report["findings"] if f["code"] == "FLEET036")
    assert lost["evidence"]["nodes"] == ["host-1#1"]
    assert "says it is rank 1" in json.dumps(report["fleet"]["errors"])
    ranks = [r["rank"] for n in report["fleet"]["nodes"] for r in n["ranks"]]
    assert sorted(ranks) == [0, 1, 2, 3], ranks  # no rank 1 twice
    _within(runs, TIMEOUT + GRACE + SLACK)
    assert no_leftovers(str(tmp_path)) == []


def test_a_rank_with_another_envdoctor_is_named(tmp_path: Path) -> None:
    """Rank 3 imports another envdoctor (its own sys.path): named as drift, on its node."""
    runs = _ranks(tmp_path, 4, [0, 1, 2, 3], free_port(), nodes=NODES,
                  extra={3: _site(tmp_path, "old", "import envdoctor\n"
                                  "envdoctor.__version__ = '0.0.1'\n")})
    with _cleanup(tmp_path, runs):
        results = _wait_all(runs)
    rc0, out0, err0 = results[0]
    report = json.loads(out0)
    drift = [f for f in report["findings"] if f["code"] == "FLEET041"]
    assert drift and drift[0]["evidence"]["ranks"] == [3], report["findings"]
    assert "0.0.1" in drift[0]["title"] and "host-1#1" in drift[0]["title"]
    assert _named(report) == set()
    assert no_leftovers(str(tmp_path)) == []


def test_master_addr_elsewhere_is_said_not_a_busy_port(tmp_path: Path) -> None:
    """MASTER_ADDR names an address of no host here (TEST-NET-1): rank 0 hosts the store on
    its own host, and nobody reaches it. No rank is blamed; the failure says MASTER_ADDR is
    not rank 0's host (not "MASTER_PORT held by another program")."""
    addr = {"MASTER_ADDR": "192.0.2.1"}
    runs = _ranks(tmp_path, 2, [0, 1], free_port(), nodes={0: 0, 1: 1},
                  extra={0: addr, 1: addr})
    with _cleanup(tmp_path, runs):
        results = _wait_all(runs)
    rc0, out0, err0 = results[0]
    assert rc0 == 1, err0[-2000:]
    report = json.loads(out0)
    assert _named(report) == set()
    failed = [f["title"] for f in report["findings"] if f["code"] == "FLEET037"]
    assert failed and "is not an address of this host" in failed[0], failed
    assert "held by another program" not in failed[0]
    _within(runs, 2 * TIMEOUT + GRACE + SLACK)
    assert no_leftovers(str(tmp_path)) == []


def test_torchrun_rank0_killed_before_its_hello_is_dead_in_the_snapshots(
        tmp_path: Path) -> None:
    """torchrun (agent store, 3 workers): rank 0 is SIGKILLed before its hello; the agent
    stops the other workers (SIGTERM). `fleet compare` names rank 0 dead (it left nothing
    but its first record while the others were cancelled), not late."""
    code = ("import os, signal\n"
            "if os.environ.get('RANK') == '0' and os.environ.get('TORCHELASTIC_RUN_ID'):\n"
            "    import envdoctor.fleet.collective as c\n"
            "    def _a(*a, **k):\n        os.kill(os.getpid(), signal.SIGKILL)\n"
            "    c.announce = _a\n")
    env = rank_env(**_site(tmp_path, "kill0", code))
    port = free_port()
    run = Launched([sys.executable, "-m", "torch.distributed.run", "--nnodes", "1",
                    "--nproc-per-node", "3", "--rdzv-backend", "c10d", "--rdzv-endpoint",
                    f"127.0.0.1:{port}", "--max-restarts", "0", "--monitor-interval", "0.2",
                    "-m", "envdoctor", "fleet", "--static", "--timeout", str(TIMEOUT),
                    "--out-dir", str(tmp_path / "snaps"), "--format", "json"], env, REPO)
    try:
        rc, _, err = run.wait(240)
    finally:
        run.kill()
    assert rc == 1, err[-2000:]
    rc, shown = _compare(tmp_path)
    assert rc == 1 and _named(shown) == {0}, shown
    assert shown["fleet"]["dead_ranks"] == [0] and shown["fleet"]["late_ranks"] == []
    assert no_leftovers(str(tmp_path)) == []


def test_a_rank_stopped_in_the_gather_is_the_only_cause_in_the_snapshots(
        tmp_path: Path) -> None:
    """Rank 2 (node 1) is SIGSTOPped in the gloo gather and resumed after rank 0 reported: it
    is late (alive), on its node; `fleet compare` names it too and does not add a failure
    that is no rank's doing (FLEET037: the gather failed because rank 2 hung)."""
    import psutil
    code = ("import os, signal\nimport envdoctor.fleet.collective as c\n_o = c._tensor_gather\n"
            "def _g(*a, **k):\n    os.kill(os.getpid(), signal.SIGSTOP)\n    return _o(*a, **k)\n"
            "c._tensor_gather = _g\n")
    runs = _ranks(tmp_path, 4, [0, 1, 2, 3], free_port(), nodes=NODES,
                  extra={2: _site(tmp_path, "stop", code)})
    with _cleanup(tmp_path, runs):
        results = _wait_all({r: runs[r] for r in (0, 1, 3)})
        psutil.Process(runs[2].proc.pid).resume()
        results[2] = runs[2].wait(60)
    rc0, out0, err0 = results[0]
    assert rc0 == 1, err0[-2000:]
    report = json.loads(out0)
    assert _named(report) == {2} and report["fleet"]["late_ranks"] == [2]
    rc, shown = _compare(tmp_path)
    codes = {f["code"] for f in shown["findings"]}
    assert rc == 1 and _named(shown) == {2} and "FLEET037" not in codes, shown["findings"]
    assert no_leftovers(str(tmp_path)) == []


def test_compare_keeps_one_run_of_a_reused_out_dir(tmp_path: Path) -> None:
    """An earlier 3-rank run (and its report, `-o DIR/report.json`) left files in --out-dir;
    a 2-rank run writes there next. `fleet compare DIR` compares the new run only: the old
    rank 2 is not a node of it (nor named for its clock), the report is not a node, and both
    are said to be left out."""
    snaps = tmp_path / "snaps"
    snaps.mkdir()
    old = _ranks(tmp_path, 3, [0, 1, 2], free_port(), nodes={0: 0, 1: 1, 2: 2},
                 args=("-o", str(snaps / "report.json")))
    with _cleanup(tmp_path, old):
        assert [r[0] for r in _wait_all(old).values()] == [0, 0, 0]
    runs = _ranks(tmp_path, 2, [0, 1], free_port(), nodes={0: 0, 1: 1})
    with _cleanup(tmp_path, runs):
        results = _wait_all(runs)
    assert results[0][0] == 0, results[0][2][-2000:]
    rc, shown = _compare(tmp_path)
    assert rc == 0, shown
    fleet = shown["fleet"]
    ranks = sorted(r["rank"] for n in fleet["nodes"] for r in n["ranks"])
    assert ranks == [0, 1] and len(fleet["nodes"]) == 2, fleet["nodes"]
    assert not [f for f in shown["findings"] if f["code"].startswith("FLEET")], \
        shown["findings"]
    said = json.dumps(fleet["errors"])
    assert "rank00002" in said and "report.json" in said, said
    assert no_leftovers(str(tmp_path)) == []
