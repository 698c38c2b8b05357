"""Fleet fault round 4 (FLEET_MATRIX.md, "Round 4"): real ranks, one fault each, placed with
the launcher's variables or a per-rank ``sitecustomize`` (what a broken site's Python does).

Each must name exactly the rank at fault, on its node, and no healthy one; end within the
bound; leave no process behind.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fleet.conftest import REPO, Launched, envdoctor, free_port, no_leftovers, rank_env
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

pytest.importorskip("torch.distributed")
pytestmark = pytest.mark.fleet


def _site(tmp: Path, name: str, code: str) -> dict[str, str]:
    """PYTHONPATH with a sitecustomize that runs ``code`` first in that rank."""
    folder = tmp / name
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(code)
    return {"PYTHONPATH": f"{folder}:{REPO}"}


def _compare(tmp: Path) -> tuple[int | None, dict]:
    run = Launched(envdoctor("fleet", "compare", str(tmp / "snaps"), "--format", "json"),
                   rank_env(), REPO)
    rc, out, err = run.wait(120)
    return rc, json.loads(out or "{}") if rc in (0, 1) else {"err": err}


def test_a_rank_started_with_another_world_size_is_named_and_no_one_else(
        tmp_path: Path) -> None:
    """Rank 2 (node 1) has WORLD_SIZE=5 in a 3-rank job (a stale rendezvous, another job's
    launcher): rank 2 is named, as started with another WORLD_SIZE, on its node; not "late"
    and no rank 3 or 4 invented; nobody waits in a gloo group that cannot form."""
    runs = _ranks(tmp_path, 3, [0, 1, 2], free_port(), nodes={0: 0, 1: 0, 2: 1},
                  extra={2: {"WORLD_SIZE": "5"}})
    with _cleanup(tmp_path, runs):
        results = _wait_all(runs)
    rc0, out0, err0 = results[0]
    assert rc0 == 1, err0[-2000:]
    assert all(results[r][0] == 0 for r in (1, 2)), results[2][2][-2000:]
    report = json.loads(out0)
    assert _named(report) == {2}
    lost = next(f for f in report["findings"] if f["code"] == "FLEET036")
    assert lost["evidence"]["ranks"] == [2] and lost["evidence"]["nodes"] == ["host-1#1"]
    assert "WORLD_SIZE" in lost["title"]
    assert report["fleet"]["late_ranks"] == [] and report["fleet"]["dead_ranks"] == []
    assert "WORLD_SIZE=5" in results[2][2]
    _within(runs, TIMEOUT + GRACE + SLACK)
    rc, shown = _compare(tmp_path)
    assert rc == 1 and _named(shown) == {2}, shown
    assert "WORLD_SIZE" in json.dumps(shown["findings"])
    assert no_leftovers(str(tmp_path)) == []


def test_healthy_ranks_that_start_before_rank0_hosts_the_store_are_not_named(
        tmp_path: Path) -> None:
    """Rank 0 starts serving the store only after its torch import (and its node's pre-flight
    import): a rank that starts earlier, here by 1.5 x --timeout (both ranks are their
    node's first, so both run the pre-flight import), must wait for the store, not give up
    and be named absent while nothing is wrong. Only rank 0's own process sleeps (its
    pre-flight child runs the same sitecustomize)."""
    delay = 1.5 * TIMEOUT
    flag = tmp_path / "slept"
    late_start = _site(tmp_path, "slow0", (
        f"import os, time\nif not os.path.exists({str(flag)!r}):\n"
        f"    open({str(flag)!r}, 'w').close()\n    time.sleep({delay})\n"))
    runs = _ranks(tmp_path, 2, [0, 1], free_port(), nodes={0: 0, 1: 1},
                  extra={0: late_start})
    with _cleanup(tmp_path, runs):
        results = _wait_all(runs)
    (rc0, out0, err0), (rc1, _, err1) = results[0], results[1]
    assert (rc0, rc1) == (0, 0), err0[-2000:] + err1[-2000:]
    report = json.loads(out0)
    assert _named(report) == set() and report["fleet"]["absent_ranks"] == []
    _within(runs, TIMEOUT + GRACE + SLACK + delay)
    assert no_leftovers(str(tmp_path)) == []


def test_a_rank_that_exits_0_in_the_store_gather_is_dead_not_late(tmp_path: Path) -> None:
    """WORLD_SIZE=3, rank 2 never starts, so the payloads go through the store; rank 1 (node
    1) beats a little longer in the gather, then exits 0 without posting: it is dead (its
    process is gone), not late; rank 2 absent; rank 0 is not blamed."""
    code = ("import os, time\nimport envdoctor.fleet.collective as c\n"
            "def _gone(*a, **k):\n    time.sleep(1.5)\n    os._exit(0)\n"
            "c._store_gather = _gone\n")
    runs = _ranks(tmp_path, 3, [0, 1], free_port(), nodes={0: 0, 1: 1, 2: 2},
                  extra={1: _site(tmp_path, "exit0", code)})
    with _cleanup(tmp_path, runs):
        results = _wait_all(runs)
    rc0, out0, err0 = results[0]
    assert rc0 == 1, err0[-2000:]
    report = json.loads(out0)
    fleet = report["fleet"]
    assert (fleet["late_ranks"], fleet["dead_ranks"], fleet["absent_ranks"]) == ([], [1], [2])
    lost = next(f for f in report["findings"] if f["code"] == "FLEET036")
    assert "host-1#1" in lost["evidence"]["nodes"]
    _within(runs, TIMEOUT + GRACE + SLACK)
    assert no_leftovers(str(tmp_path)) == []


@pytest.mark.parametrize("garbage", ["malformed", "oversized"])
def test_a_rank_whose_payload_cannot_be_read_is_named(tmp_path: Path, garbage: str) -> None:
    """Rank 1 (node 1) sends bytes rank 0 cannot read (not JSON, or over the payload limit):
    its facts are missing, so the run is not clean (exit 1) and rank 1 is named on its node,
    not dropped with a line in `errors` only."""
    body = "b'{not json\\xff'" if garbage == "malformed" else "b' ' * ((8 << 20) + 1)"
    code = ("import envdoctor.fleet.collective as c\n_o = c.gather\n"
            f"def _g(store, layout, out, payload, go):\n    _o(store, layout, out, {body}, go)\n"
            "c.gather = _g\n")
    runs = _ranks(tmp_path, 2, [0, 1], free_port(), nodes={0: 0, 1: 1},
                  extra={1: _site(tmp_path, "garbage", code)})
    with _cleanup(tmp_path, runs):
        results = _wait_all(runs)
    rc0, out0, err0 = results[0]
    assert rc0 == 1, err0[-2000:]
    report = json.loads(out0)
    assert _named(report) == {1}
    lost = next(f for f in report["findings"] if f["code"] == "FLEET036")
    assert lost["evidence"]["nodes"] == ["host-1#1"] and "read" in lost["title"]
    assert report["fleet"]["unreadable_ranks"] == [1]
    if garbage == "oversized":
        assert "over the" in json.dumps(report["fleet"]["errors"])
    _within(runs, TIMEOUT + GRACE + SLACK)
    assert no_leftovers(str(tmp_path)) == []


def test_a_rank_that_cannot_join_the_gloo_group_is_named_not_the_rendezvous(
        tmp_path: Path) -> None:
    """Rank 1 (node 1) has GLOO_SOCKET_IFNAME=nosuch0: its join fails at once, rank 0's times
    out. Rank 1 is named (with gloo's own words), not a failed rendezvous that blames no one
    (FLEET037 on rank 0)."""
    runs = _ranks(tmp_path, 2, [0, 1], free_port(), nodes={0: 0, 1: 1},
                  extra={1: {"GLOO_SOCKET_IFNAME": "nosuch0"}})
    with _cleanup(tmp_path, runs):
        results = _wait_all(runs)
    rc0, out0, err0 = results[0]
    assert rc0 == 1 and results[1][0] == 0, err0[-2000:]
    report = json.loads(out0)
    codes = {f["code"] for f in report["findings"]}
    assert _named(report) == {1} and "FLEET037" not in codes, codes
    lost = next(f for f in report["findings"] if f["code"] == "FLEET036")
    assert lost["evidence"]["nodes"] == ["host-1#1"] and "gloo group" in lost["title"]
    assert report["fleet"]["group_failed_ranks"] == [1]
    assert "nosuch0" in json.dumps(report["fleet"]["errors"])
    _within(runs, TIMEOUT + GRACE + SLACK)
    rc, shown = _compare(tmp_path)
    assert rc == 1 and _named(shown) == {1}, shown
    assert no_leftovers(str(tmp_path)) == []


def test_rank_zero_killed_in_the_gather_is_named_dead_by_the_snapshots(tmp_path: Path) -> None:
    """Rank 0 (it hosts the store) is SIGKILLed as the gather starts: the others leave in
    time, and `fleet compare` names rank 0 dead, not late (a store `set` is not answered, so
    a rank must ask the store something to learn that it went)."""
    code = ("import os, signal\nimport envdoctor.fleet.collective as c\n_o = c.gather\n"
            "def _g(*a, **k):\n    os.kill(os.getpid(), signal.SIGKILL)\n"
            "c.gather = _g\n")
    runs = _ranks(tmp_path, 2, [0, 1], free_port(), nodes={0: 0, 1: 1},
                  extra={0: _site(tmp_path, "kill0", code)})
    with _cleanup(tmp_path, runs):
        results = _wait_all(runs)
    assert results[1][0] == 0, results[1][2][-2000:]
    _within({1: runs[1]}, TIMEOUT + GRACE + SLACK)
    rc, shown = _compare(tmp_path)
    assert rc == 1 and _named(shown) == {0}, shown
    assert shown["fleet"]["dead_ranks"] == [0] and shown["fleet"]["late_ranks"] == []
    assert no_leftovers(str(tmp_path)) == []
