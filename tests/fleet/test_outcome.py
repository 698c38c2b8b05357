"""How a run's outcome becomes the report: late, dead, absent and unheard ranks, a failed
store; from rank 0's view and from the snapshots of `fleet --out-dir` (no torch needed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from envdoctor.fleet import model, report
from envdoctor.fleet.model import PAYLOAD_VERSION
from tests.fleet.conftest import REPO, rank_env


def _layout(rank: int, node_rank: int, world: int) -> dict[str, Any]:
    return {"launcher": "env", "rank": rank, "world_size": world, "local_rank": 0,
            "local_world_size": None, "node_rank": node_rank, "host": "box",
            "node": f"box#{node_rank}"}


def _payload(rank: int, node_rank: int, world: int, outcome: dict[str, Any] | None = None,
             first_record: bool = False, failure: str = "") -> dict[str, Any]:
    data: dict[str, Any] = {"payload_version": PAYLOAD_VERSION,
                            "layout": _layout(rank, node_rank, world)}
    if not first_record:
        data.update(binding={"device": "cpu"}, env={}, error="", failure=failure)
    if outcome is not None:
        data["outcome"] = {"world_size": world, **outcome}
    return data


def _named(built: Any) -> dict[str, set[int]]:
    return {f.code: set(f.evidence.get("ranks", ())) for f in built.findings
            if f.code in ("FLEET017", "FLEET036", "FLEET037")}


def test_rank_zero_view_names_each_kind_and_places_none_on_a_made_up_node() -> None:
    payloads = {r: _payload(r, r, 5) for r in (0, 1)}
    fleet = model.build(payloads, 5, "env", late=[2], dead=[3], absent=[4],
                        hello={2: {"node": "box#2", "node_rank": 2, "host": "box"},
                               3: {"node": "box#3", "node_rank": 3, "host": "box"}})
    built = report.build(fleet, single_checks=False, redact=False)
    assert _named(built) == {"FLEET017": {2}, "FLEET036": {3, 4}}
    lost = next(f for f in built.findings if f.code == "FLEET036")
    assert lost.evidence["nodes"] == ["box#3"]  # rank 4 never said where it runs
    assert "stopped answering after joining (killed or crashed) on box#3 (rank 3)" in lost.title
    assert "never joined on no known node (rank 4)" in lost.title
    block = built.extra["fleet"]
    assert [n["node"] for n in block["nodes"]] == ["box#0", "box#1", "box#2", "box#3"]
    assert [r["rank"] for r in block["unplaced_ranks"]] == [4]
    assert block["dead_ranks"] == [3] and block["absent_ranks"] == [4]
    assert block["complete"] is False


def test_a_failed_store_names_no_rank_but_the_failure() -> None:
    fleet = model.build({0: _payload(0, 0, 3, failure="rank 0 cannot host the store")}, 3,
                        "env", late=[], unheard=[1, 2])
    built = report.build(fleet, single_checks=False, redact=False)
    assert _named(built) == {"FLEET037": {0}}
    assert built.exit_code == 1
    assert built.extra["fleet"]["unheard_ranks"] == [1, 2]


def test_a_healthy_run_is_complete_and_names_nobody() -> None:
    fleet = model.build({r: _payload(r, 0, 2) for r in (0, 1)}, 2, "env", late=[])
    built = report.build(fleet, single_checks=False, redact=False)
    assert _named(built) == {} and built.extra["fleet"]["complete"] is True


def _compare(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "envdoctor", "fleet", "compare", str(folder),
                           "--format", "json", "--no-redact"], capture_output=True, text=True,
                          cwd=REPO, env=rank_env(), timeout=120)


def _write(folder: Path, snaps: list[dict[str, Any]]) -> Path:
    folder.mkdir()
    for s in snaps:
        (folder / f"rank{s['layout']['rank']:05d}-box.json").write_text(json.dumps(s))
    return folder


def test_compare_reads_a_failed_run_as_failed(tmp_path: Path) -> None:
    """Snapshots of a run where rank 2 never came (WORLD_SIZE=3): not OK, rank 2 named."""
    folder = _write(tmp_path / "snaps", [
        _payload(0, 0, 3, {"complete": False, "absent": [2], "error": "rank 2 never joined"}),
        _payload(1, 1, 3, {"complete": False, "error": "rank 0 closed the rendezvous"})])
    proc = _compare(folder)
    assert proc.returncode == 1, proc.stderr
    found = {f["code"]: f for f in json.loads(proc.stdout)["findings"]}
    assert found["FLEET036"]["evidence"]["ranks"] == [2]
    assert "FLEET017" not in found


def test_compare_counts_a_missing_snapshot_as_absent_and_trusts_rank_zero_on_the_dead(
        tmp_path: Path) -> None:
    folder = _write(tmp_path / "snaps", [
        _payload(0, 0, 4, {"complete": False, "dead": [1]}),
        _payload(1, 0, 4, first_record=True),   # killed while probing: only its first record
        _payload(2, 1, 4, first_record=True)])  # still probing when it was stopped
    proc = _compare(folder)
    assert proc.returncode == 1, proc.stderr
    found = {f["code"]: f for f in json.loads(proc.stdout)["findings"]}
    assert found["FLEET036"]["evidence"]["ranks"] == [1, 3]
    assert found["FLEET017"]["evidence"]["ranks"] == [2]


def test_compare_of_a_run_whose_store_failed_is_failed(tmp_path: Path) -> None:
    folder = _write(tmp_path / "snaps", [
        _payload(0, 0, 1, {"complete": False, "failure": "rank 0 cannot host the store"},
                 failure="rank 0 cannot host the store")])
    proc = _compare(folder)
    assert proc.returncode == 1, proc.stderr
    assert "FLEET037" in {f["code"] for f in json.loads(proc.stdout)["findings"]}


def test_compare_of_a_complete_run_given_part_of_its_snapshots_names_nobody(
        tmp_path: Path) -> None:
    """Rank 0 recorded a complete run: a snapshot not given (another node's folder) is not
    an absent rank."""
    folder = _write(tmp_path / "snaps", [_payload(0, 0, 4, {"complete": True}),
                                         _payload(1, 0, 4, {"complete": True})])
    proc = _compare(folder)
    found = {f["code"] for f in json.loads(proc.stdout)["findings"]}
    assert not found & {"FLEET017", "FLEET036", "FLEET037"}, proc.stdout[-2000:]
