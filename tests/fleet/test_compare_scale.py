"""`fleet compare` at scale and on the drift patterns a cluster really has, through the CLI.

Snapshots are made by benchmarks/fleet_snapshots.py (the H100 fixture, each node with its own
GPU UUIDs, temperatures, power draw, free space and time; drift planted). No timing is
asserted (that is benchmarks/bench_fleet_scale.py's job); a hang guard, the text's line
bound and the peak RSS of the child are.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from envdoctor.fleet.hostlist import compress
from tests.fleet.conftest import REPO, rank_env

sys.path.insert(0, str(REPO / "benchmarks"))
import fleet_snapshots  # noqa: E402

# The CLI in a fresh parent that reports the child's own peak RSS (KiB) on its last line.
MEASURE = """\
import resource, subprocess, sys
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(proc.stdout)
sys.stderr.write(proc.stderr)
print(proc.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "envdoctor", *args], capture_output=True,
                          text=True, cwd=REPO, env=rank_env(), timeout=timeout)


def findings(proc: subprocess.CompletedProcess[str]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for f in json.loads(proc.stdout)["findings"]:
        out.setdefault(f["code"], []).append(f)
    return out


@pytest.fixture(scope="module")
def few(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("few") / "snaps"
    fleet_snapshots.write(folder, 200, "few")
    return folder


def test_thousands_of_snapshots_in_80_lines_and_bounded_memory(tmp_path: Path) -> None:
    """3 000 scattered nodes (hundreds of groups, findings on thousands of nodes): the text
    stays within 80 lines, names nodes as host lists, and the child's peak RSS is bounded."""
    folder = tmp_path / "snaps"
    fleet_snapshots.write(folder, 3000, "scattered")
    argv = [sys.executable, "-m", "envdoctor", "fleet", "compare", str(folder)]
    proc = subprocess.run([sys.executable, "-c", MEASURE, *argv], capture_output=True,
                          text=True, cwd=REPO, env=rank_env(), timeout=120)
    *text, last = proc.stdout.rstrip("\n").split("\n")
    code, rss_kib = map(int, last.split())
    assert code == 1, proc.stderr[-2000:]
    assert len(text) <= 80, "\n".join(text)
    assert rss_kib < 600 * 1024
    assert "group(s) of identical facts" in text[0]
    body = "\n".join(text)
    assert "gpu[" in body and "more group(s)" in body and "--format json" in body
    # every finding shown names its nodes
    for line in text:
        if line.startswith(("ERROR ", "WARNING ")):
            assert " on gpu" in line or "(on gpu" in line, line
    # the JSON has every node and every group
    data = json.loads(run("fleet", "compare", str(folder), "--format", "json").stdout)
    groups = data["fleet"]["groups"]
    assert sum(g["size"] for g in groups) == 3000 == len(data["fleet"]["nodes"])
    drift = next(f for f in data["findings"] if f["code"] == "FLEET001")
    # ~1 % of the nodes each on a driver of its own: every one of them named
    assert len(drift["evidence"]["nodes"]) == len([i for i in range(1, 3001) if i % 97 == 5])


def test_keys_present_on_some_nodes_only_are_named(few: Path) -> None:
    """NCCL_IB_HCA set on 3 of 200 nodes, flash-attn installed on 4: found, with the nodes."""
    proc = run("fleet", "compare", str(few), "--format", "json")
    found = findings(proc)
    env = [f for f in found["FLEET040"] if f["evidence"]["key"] == "NCCL_IB_HCA"]
    assert [f["evidence"]["nodes"] for f in env] == [["gpu00010", "gpu00011", "gpu00112"]]
    assert env[0]["evidence"]["majority"] == "(unset)"
    pkg = [f for f in found["FLEET009"] if f["evidence"]["key"] == "flash-attn"]
    assert pkg[0]["evidence"]["nodes"] == ["gpu00004", "gpu00040", "gpu00199"]
    diffs = {d["key"]: d for d in json.loads(proc.stdout)["fleet"]["differences"]}
    assert diffs["env.NCCL_IB_HCA"]["odd"] == [{"value": "mlx5_0", "nodes": [
        "gpu00010", "gpu00011", "gpu00112"]}]
    text = run("fleet", "compare", str(few)).stdout
    assert "$NCCL_IB_HCA differs between nodes: mlx5_0 on gpu[00010-00011,00112]" in text


def test_two_nodes_that_disagree_have_no_majority(tmp_path: Path) -> None:
    fleet_snapshots.write(tmp_path, 2, "none")
    data = json.loads((tmp_path / "gpu00002.json").read_text())
    data["nvidia"]["driver_version"] = "535.104.05"
    (tmp_path / "gpu00002.json").write_text(json.dumps(data))
    text = run("fleet", "compare", str(tmp_path)).stdout
    assert "majority" not in text.replace("no clear majority", ""), text
    line = next(x for x in text.splitlines() if x.startswith("ERROR FLEET001"))
    assert "550.54.15 on gpu00001" in line and "535.104.05 on gpu00002" in line
    [drift] = findings(run("fleet", "compare", str(tmp_path), "--format", "json"))["FLEET001"]
    assert drift["evidence"]["nodes"] == ["gpu00001", "gpu00002"]
    assert drift["evidence"]["majority"] is None and drift["evidence"]["clear_majority"] is False


def test_a_baseline_names_the_wrong_majority(tmp_path: Path) -> None:
    """60 % of the nodes on the old driver: without a baseline the minority is named; with
    the golden node's snapshot (or a policy pin), every node off it is."""
    folder = tmp_path / "snaps"
    fleet_snapshots.write(folder, 50, "wrong-majority")
    old = sorted(p.stem for p in folder.glob("*.json")
                 if json.loads(p.read_text())["nvidia"]["driver_version"] == "535.104.05")
    assert len(old) == 29
    golden = tmp_path / "golden.json"
    golden.write_text((folder / "gpu00001.json").read_text())
    [plain] = findings(run("fleet", "compare", str(folder), "--format", "json"))["FLEET001"]
    assert plain["evidence"]["majority"] == "535.104.05"
    proc = run("fleet", "compare", str(folder), "--baseline", str(golden), "--format", "json")
    [drift] = findings(proc)["FLEET001"]
    assert drift["evidence"]["nodes"] == old and drift["evidence"]["expected"] == "550.54.15"
    text = run("fleet", "compare", str(folder), "--baseline", str(golden)).stdout
    assert "the baseline has 550.54.15 (21 of 50 match it)" in text
    assert "fix: Install driver 550.54.15 on gpu[" in text
    pinned = findings(run("fleet", "compare", str(folder), "--require", "driver==550.54.15",
                          "--format", "json"))
    req = [f for code, fs in pinned.items() if code.startswith("REQ") for f in fs]
    assert sorted(n for f in req for n in f["evidence"]["nodes"]) == old
    bad = run("fleet", "compare", str(folder), "--baseline", str(tmp_path / "nope.json"))
    assert bad.returncode == 2 and "nope.json" in bad.stderr and "Traceback" not in bad.stderr


def test_redacted_host_names_are_said_and_can_be_shown(tmp_path: Path) -> None:
    base = fleet_snapshots.snapshot(1, 3, "none")
    for i, host in enumerate(["node-a17", "node-b03", "node-c11"]):
        data = json.loads(json.dumps(base))
        data["env"]["vars"].update(HOSTNAME=host, MASTER_ADDR="10.20.30.40")
        if i == 2:
            data["nvidia"]["driver_version"] = "535.104.05"
        (tmp_path / f"s{i}.json").write_text(json.dumps(data))
    text = run("fleet", "compare", str(tmp_path)).stdout
    assert "node-c11" not in text and "host-3" in text
    assert "host names are redacted" in text and "--show-hosts" in text
    shown = run("fleet", "compare", str(tmp_path), "--show-hosts").stdout
    assert "redacted" not in shown.split("\n")[1]
    assert "535.104.05 on node-c11" in shown and "10.20.30.40" not in shown
    assert "node-c11" in run("fleet", "compare", str(tmp_path), "--no-redact").stdout
    helptext = run("fleet", "compare", "--help").stdout
    assert "--show-hosts" in helptext and "--baseline" in helptext


def test_shared_results_match_each_node_checked_alone(tmp_path: Path) -> None:
    """Group members share what does not depend on their sensor readings, and only that:
    CUDA_VISIBLE_DEVICES naming one node's GPU UUID is valid there and nowhere else, and a
    hot, throttled GPU is reported on its node only — as `check --facts` says per node."""
    fleet_snapshots.write(tmp_path, 4, "none")
    paths = sorted(tmp_path.glob("*.json"))
    uuid = json.loads(paths[0].read_text())["nvidia"]["gpus"][0]["uuid"]
    for i, p in enumerate(paths):
        data = json.loads(p.read_text())
        data["env"]["vars"]["CUDA_VISIBLE_DEVICES"] = uuid
        data["nvidia"]["gpus"][3]["throttle_reasons"] = ["sw_power_cap"]
        # capped near its 700 W limit is normal under load; capped at 120 W is not
        data["nvidia"]["gpus"][3]["power_draw_w"] = 120.0 if i == 2 else 690.0
        p.write_text(json.dumps(data))
    report = json.loads(run("fleet", "compare", str(tmp_path), "--format", "json").stdout)
    assert len(report["fleet"]["groups"]) == 1  # one signature: sensors aside, all agree
    fired: dict[str, set[str]] = {}
    for f in report["findings"]:
        if not f["code"].startswith("FLEET"):
            fired.setdefault(f["code"], set()).update(f["evidence"]["nodes"])
    alone: dict[str, set[str]] = {}
    for p in paths:
        one = json.loads(run("check", "--facts", str(p), "--format", "json").stdout)
        for f in one["findings"]:
            alone.setdefault(f["code"], set()).add(p.stem)
    assert fired == alone
    assert fired["ENV002"] == {"gpu00002", "gpu00003", "gpu00004"}
    assert fired["GPU004"] == {"gpu00003"}


def test_host_lists() -> None:
    assert compress([f"gpu{i:03d}" for i in (1, 2, 3, 7)] + ["login"]) == \
        "gpu[001-003,007], login (5 nodes)"
    assert compress([f"gpu{i:05d}" for i in range(1, 10001)]) == \
        "gpu[00001-10000] (10000 nodes)"
    assert compress(["n1", "n2", "n10"]) == "n[1-2,10]"
    scattered = compress([f"gpu{i:04d}" for i in range(0, 2000, 2)], limit=3)
    assert scattered == "gpu[0000,0002,0004,…] (1000 nodes)"
    assert compress(["host-2#1"]) == "host-2#1"
