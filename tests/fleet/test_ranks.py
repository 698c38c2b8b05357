"""Real torchrun ranks on gloo: gather, drift between two simulated nodes, late ranks, a
rendezvous that never completes. No mock of torch.distributed anywhere.

Each scenario is one launch; the time bounds are hang guards, not speed tests (speed is in
benchmarks/bench_fleet.py).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.fleet.conftest import (
    REPO,
    Launched,
    envdoctor,
    free_port,
    no_leftovers,
    rank_env,
    torchrun,
)

pytest.importorskip("torch.distributed")
pytestmark = pytest.mark.fleet


def _codes(report: dict) -> dict[str, dict]:
    return {f["code"]: f for f in report["findings"]}


def test_sixteen_ranks_gather_on_one_node(tmp_path: Path) -> None:
    out = tmp_path / "fleet16.json"
    run = Launched(torchrun("--standalone", "--nproc-per-node=16", "-m", "envdoctor", "fleet",
                            "--static", "--timeout", "240", "--format", "json", "--output",
                            str(out)), rank_env(), REPO)
    rc, stdout, stderr = run.wait(600)
    assert rc == 0, stderr[-3000:]
    report = json.loads(out.read_text())
    fleet = report["fleet"]
    assert fleet["world_size"] == 16 and fleet["launcher"] == "torchrun"
    assert len(fleet["nodes"]) == 1
    ranks = fleet["nodes"][0]["ranks"]
    assert [r["rank"] for r in ranks] == list(range(16))
    assert [r["local_rank"] for r in ranks] == list(range(16))
    assert all(r["arrived"] for r in ranks) and fleet["late_ranks"] == []
    assert fleet["nodes"][0]["host"] == "host-1"  # redacted, stable
    assert not [f for f in report["findings"] if f["code"].startswith("FLEET")]
    assert no_leftovers(str(out)) == []


def _fake_site(root: Path) -> Path:
    """A package of another version on one node's PYTHONPATH only."""
    dist = root / "site" / "nvidia_nccl_cu12-2.18.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: nvidia-nccl-cu12\n"
                                   "Version: 2.18.1\n")
    return root / "site"


def _hanging_smi(root: Path) -> Path:
    folder = root / "bin"
    folder.mkdir()
    smi = folder / "nvidia-smi"
    smi.write_text("#!/bin/sh\nexec sleep 600\n")
    smi.chmod(0o755)
    return folder


def test_two_nodes_drift_and_a_hung_probe_are_named(tmp_path: Path) -> None:
    port = free_port()
    out = tmp_path / "report.json"
    snaps = tmp_path / "snaps"
    common = ["--nnodes=2", "--nproc-per-node=2", "--rdzv-backend=c10d",
              f"--rdzv-endpoint=127.0.0.1:{port}", f"--rdzv-id=fleet{port}", "--max-restarts=0",
              "-m", "envdoctor", "fleet", "--static", "--timeout", "8", "--out-dir", str(snaps)]
    a = Launched(torchrun(*common, "--format", "json", "--output", str(out)), rank_env(), REPO)
    time.sleep(1.0)  # the first agent gets the lower pid, hence group rank 0 (c10d sorts)
    b_env = rank_env(NCCL_SOCKET_IFNAME="eth9",
                     PATH=f"{_hanging_smi(tmp_path)}:{rank_env()['PATH']}",
                     PYTHONPATH=f"{REPO}:{_fake_site(tmp_path)}")
    b = Launched(torchrun(*common, "--format", "json", "--output", str(tmp_path / "b.json")),
                 b_env, REPO)
    rc_a, _, err_a = a.wait(400)
    b.wait(400)
    assert rc_a == 1, err_a[-3000:]  # findings at error severity
    report = json.loads(out.read_text())
    fleet = report["fleet"]
    assert fleet["world_size"] == 4
    nodes = {n["node"]: n for n in fleet["nodes"]}
    assert sorted(nodes) == ["host-1#0", "host-1#1"]  # one host, two agents: two nodes
    assert [r["rank"] for r in nodes["host-1#1"]["ranks"]] == [2, 3]
    found = _codes(report)
    # the node whose nvidia-smi hangs: its local rank 0 (rank 2) missed the barrier
    late = found["FLEET017"]
    assert late["evidence"]["ranks"] == [2] and late["evidence"]["nodes"] == ["host-1#1"]
    assert fleet["late_ranks"] == [2]
    # its NCCL variable differs, named with its node and rank
    env = found["FLEET010"]
    assert env["evidence"]["key"] == "NCCL_SOCKET_IFNAME"
    assert env["evidence"]["odd"][0]["value"] == "eth9"
    assert env["evidence"]["odd"][0]["nodes"] == ["host-1#1"]
    assert env["evidence"]["odd"][0]["ranks"] == [3]  # rank 2 never reported
    assert "host-1#1" in env["title"] and "(unset)" in env["title"]
    # every rank left a snapshot, the late one at least its first record
    assert sorted(p.name.split("-")[0] for p in snaps.glob("*.json")) == \
        ["rank00000", "rank00001", "rank00002", "rank00003"]
    assert a.seconds < 300  # a hang guard: the fake nvidia-smi would sleep 600 s
    assert no_leftovers(str(snaps)) == []


def test_package_drift_between_nodes_is_named(tmp_path: Path) -> None:
    """Both nodes' probes finish; one has another package on its PYTHONPATH."""
    port = free_port()
    out = tmp_path / "report.json"
    common = ["--nnodes=2", "--nproc-per-node=1", "--rdzv-backend=c10d",
              f"--rdzv-endpoint=127.0.0.1:{port}", f"--rdzv-id=pkg{port}", "--max-restarts=0",
              "-m", "envdoctor", "fleet", "--static", "--bench", "--timeout", "120",
              "--format", "json"]
    a = Launched(torchrun(*common, "--output", str(out)), rank_env(), REPO)
    time.sleep(1.0)
    b = Launched(torchrun(*common, "--output", str(tmp_path / "b.json")),
                 rank_env(PYTHONPATH=f"{REPO}:{_fake_site(tmp_path)}"), REPO)
    rc_a, _, err_a = a.wait(400)
    b.wait(400)
    assert rc_a in (0, 1), err_a[-3000:]
    found = _codes(json.loads(out.read_text()))
    drift = found["FLEET009"]
    assert drift["evidence"]["key"] == "nvidia-nccl-cu12"
    # two nodes that disagree: no majority, each value with its node
    odd = {o["value"]: o["nodes"] for o in drift["evidence"]["odd"]}
    assert odd["2.18.1"] == ["host-1#1"] and len(odd) == 2
    assert drift["evidence"]["clear_majority"] is False and "majority (" not in drift["title"]
    assert "2.18.1" in drift["title"]
    assert "FLEET017" not in found
    # --bench with one rank per node: the cross-node sweep ran between the two nodes
    report = json.loads(out.read_text())
    cross = report["fleet"]["bench"]["cross"]
    assert cross["ranks"] == 2 and cross["busbw_gbs"] > 0
    assert no_leftovers(str(out)) == []


def test_rendezvous_that_never_completes_ends_in_time_with_snapshots(tmp_path: Path) -> None:
    """Two of three ranks start: nobody waits past --timeout, each writes its snapshot, and
    only the rank that never came is named (rank 1 came: its facts are in the report)."""
    port = free_port()
    snaps = tmp_path / "snaps"
    runs = [Launched(envdoctor("fleet", "--static", "--timeout", "6", "--out-dir", str(snaps),
                               "--format", "json"),
                     rank_env(RANK=str(r), WORLD_SIZE="3", LOCAL_RANK=str(r),
                              MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port)), REPO)
            for r in (0, 1)]
    results = [r.wait(300) for r in runs]
    assert [rc for rc, _, _ in results] == [1, 0]  # rank 0 reports the missing ranks
    for r in runs:
        assert r.seconds < 200  # a hang guard; the rendezvous itself gives up after 6 s
    report = json.loads(results[0][1])
    assert report["fleet"]["late_ranks"] == [] and report["fleet"]["absent_ranks"] == [2]
    assert [r["rank"] for n in report["fleet"]["nodes"] for r in n["ranks"]] == [0, 1]
    assert any("never joined" in e for e in report["fleet"]["errors"])
    files = sorted(snaps.glob("*.json"))
    assert [p.name.split("-")[0] for p in files] == ["rank00000", "rank00001"]
    for p in files:
        snap = json.loads(p.read_text())
        assert snap["outcome"]["joined"] is False and snap["outcome"]["complete"] is False
        assert "never" in snap["outcome"]["error"]
        assert snap["binding"]["device"] == "cpu"
    assert json.loads(files[0].read_text())["outcome"]["absent"] == [2]
    assert json.loads(files[0].read_text())["node"]["facts"]["host"]["os"] == "Linux"
    assert no_leftovers(str(snaps)) == []


def test_bench_and_smoke_in_the_ranks(tmp_path: Path) -> None:
    """Not --static: each rank runs the torch smoke itself; --bench checks the all-reduce
    exactly and reports bus bandwidth by the nccl-tests definition."""
    out = tmp_path / "bench.json"
    run = Launched(torchrun("--standalone", "--nproc-per-node=3", "-m", "envdoctor", "fleet",
                            "--bench", "--timeout", "240", "--format", "json", "--output",
                            str(out), "--report", f"text:{tmp_path / 'bench.txt'}"),
                   rank_env(), REPO)
    rc, _, stderr = run.wait(500)
    assert rc == 0, stderr[-3000:]
    report = json.loads(out.read_text())
    ranks = report["fleet"]["nodes"][0]["ranks"]
    assert [r["smoke"]["status"] for r in ranks] == ["passed"] * 3
    assert [r["bench"]["allreduce_check"] for r in ranks] == ["exact"] * 3
    world = report["fleet"]["bench"]["world"]
    for row in world["sizes"]:
        assert row["busbw_gbs"] == pytest.approx(row["algbw_gbs"] * 2 * 2 / 3, rel=0.002)
    gather = world["all_gather"]
    assert gather["busbw_gbs"] == pytest.approx(gather["algbw_gbs"] * 2 / 3, rel=0.002)
    codes = {f["code"] for f in report["findings"]}
    assert not codes & {"FLEET030", "FLEET031", "FLEET032", "FLEET033"}
    # the text report shows the figures too, not only the JSON
    text = (tmp_path / "bench.txt").read_text()
    busbw = world["busbw_gbs"]
    assert f"all-reduce busbw {busbw:.3g} GB/s" in text, text
    assert f"all-gather busbw {gather['busbw_gbs']:.3g} GB/s" in text, text
    tflops = sorted(r["bench"]["matmul_tflops"] for r in ranks)
    shown = f"{tflops[0]:.3g}" if tflops[0] == tflops[-1] else f"{tflops[0]:.3g}–{tflops[-1]:.3g}"
    assert f"matmul {shown} TFLOP/s" in text and "all-reduce exact" in text, text
    assert no_leftovers(str(out)) == []


def test_file_store_rendezvous_without_master_addr(tmp_path: Path) -> None:
    """Launchers without MASTER_ADDR meet through a file on a shared file system."""
    store = tmp_path / "rdzv-store"
    runs = [Launched(envdoctor("fleet", "--static", "--timeout", "120", "--store", str(store),
                               "--format", "json"),
                     rank_env(OMPI_COMM_WORLD_RANK=str(r), OMPI_COMM_WORLD_SIZE="2",
                              OMPI_COMM_WORLD_LOCAL_RANK=str(r)), REPO)
            for r in (0, 1)]
    results = [r.wait(300) for r in runs]
    assert [rc for rc, _, _ in results] == [0, 0], results[0][2][-2000:]
    fleet = json.loads(results[0][1])["fleet"]
    assert fleet["launcher"] == "openmpi" and fleet["world_size"] == 2
    assert [r["rank"] for n in fleet["nodes"] for r in n["ranks"]] == [0, 1]
    assert no_leftovers(str(store)) == []
