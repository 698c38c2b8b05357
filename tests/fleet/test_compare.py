"""`envdoctor fleet compare`: the fleet rules over saved snapshots, no torch needed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fleet.conftest import FIXTURES, REPO, rank_env

H100_550 = FIXTURES / "diff" / "h100-driver-550.json"
H100_470 = FIXTURES / "diff" / "h100-driver-470.json"


def run(*args: str, env: dict[str, str] | None = None, pre: str = ""):
    """The CLI in a child; ``pre`` runs first (e.g. make torch unimportable)."""
    code = f"{pre}\nfrom envdoctor.cli import main\nmain({list(args)!r})"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, env=env or rank_env(), timeout=120)


@pytest.fixture
def cluster(tmp_path: Path) -> Path:
    folder = tmp_path / "snaps"
    folder.mkdir()
    for i in range(3):
        (folder / f"gpu{i:02d}.json").write_text(H100_550.read_text())
    (folder / "gpu03.json").write_text(H100_470.read_text())
    hot = json.loads(H100_550.read_text())
    hot["nvidia"]["gpus"][5]["ecc_uncorrected"] = 3
    (folder / "gpu04.json").write_text(json.dumps(hot))
    return folder


def test_compare_names_the_odd_node_and_the_majority(cluster: Path) -> None:
    proc = run("fleet", "compare", str(cluster), "--format", "json", "--no-redact")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    found = {f["code"]: f for f in report["findings"]}
    drift = found["FLEET001"]
    assert drift["evidence"]["nodes"] == ["gpu03"] and drift["evidence"]["majority"] == "550.54.15"
    assert found["FLEET002"]["evidence"]["nodes"] == ["gpu03"]
    ecc = found["FLEET019"]
    assert ecc["evidence"]["nodes"] == ["gpu04"] and ecc["evidence"]["key"] == "GPU 5"
    fleet = report["fleet"]
    assert fleet["source"] == "snapshots" and len(fleet["nodes"]) == 5
    top = fleet["differences"][0]
    assert top["key"] == "nvidia.driver" and top["odd"] == [{"value": "470.256.02",
                                                              "nodes": ["gpu03"]}]


def test_compare_text_redacts_nothing_it_needs_and_junit_has_a_case_per_node(
        cluster: Path, tmp_path: Path) -> None:
    proc = run("fleet", "compare", str(cluster))
    assert proc.returncode == 1
    assert "[✗] gpu03: snapshot" in proc.stdout and "FLEET001" in proc.stdout
    assert "Differences between nodes" in proc.stdout
    junit = run("fleet", "compare", str(cluster), "--format", "junit")
    assert junit.stdout.count('name="FLEET001 fleet-driver-drift @ ') == 5
    assert junit.stdout.count("<failure") >= 2
    sarif = json.loads(run("fleet", "compare", str(cluster), "--format", "sarif").stdout)
    assert "FLEET001" in {r["ruleId"] for r in sarif["runs"][0]["results"]}


def test_fail_on_and_require_per_node(cluster: Path) -> None:
    assert run("fleet", "compare", str(cluster), "--fail-on", "never").returncode == 0
    proc = run("fleet", "compare", str(cluster), "--require", "driver>=550", "--format", "json",
               "--fail-on", "error")
    req = [f for f in json.loads(proc.stdout)["findings"] if f["code"].startswith("REQ")]
    assert [f["evidence"]["nodes"] for f in req] == [["gpu03"]]


def test_identical_snapshots_give_no_fleet_finding(tmp_path: Path) -> None:
    for i in range(4):
        (tmp_path / f"n{i}.json").write_text(H100_550.read_text())
    report = json.loads(run("fleet", "compare", str(tmp_path), "--format", "json").stdout)
    assert not [f for f in report["findings"] if f["code"].startswith("FLEET")]
    assert report["fleet"]["differences"] == []


def test_compare_needs_no_torch(cluster: Path) -> None:
    proc = run("fleet", "compare", str(cluster), pre="import sys; sys.modules['torch'] = None")
    assert proc.returncode == 1 and "FLEET001" in proc.stdout


def test_fleet_without_torch_is_one_line_and_exit_2() -> None:
    env = rank_env(RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT="29999")
    proc = run("fleet", "--static", env=env, pre="import sys; sys.modules['torch'] = None")
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "fleet compare" in proc.stderr and "Traceback" not in proc.stderr


def test_fleet_outside_a_launcher_is_exit_2() -> None:
    proc = run("fleet", "--static")
    assert proc.returncode == 2 and "no launcher found" in proc.stderr


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"), ('{"schema_version": 99}', "schema_version"),
    ('{"payload_version": 1, "nope": 1}', "not an envdoctor fleet payload"),
])
def test_bad_snapshots_are_one_line_exit_2(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "bad.json").write_text(content)
    proc = run("fleet", "compare", str(tmp_path / "bad.json"))
    assert proc.returncode == 2 and message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_missing_path_is_exit_2(tmp_path: Path) -> None:
    proc = run("fleet", "compare", str(tmp_path / "nothing"))
    assert proc.returncode == 2 and "no such file" in proc.stderr


def test_saved_check_reports_bring_their_own_results(tmp_path: Path) -> None:
    """The documented Slurm workflow: `check --format json` per node, then compare."""
    for i, source in enumerate([H100_550, H100_550, H100_470]):
        proc = run("check", "--facts", str(source), "--format", "json", "--output",
                   str(tmp_path / f"node{i}.json"))
        assert proc.returncode in (0, 1), proc.stderr
    # mark node2's own finding: compare must show what that node's check saw, not recompute
    saved = json.loads((tmp_path / "node2.json").read_text())
    for f in saved["findings"]:
        if f["code"] == "DRV001":
            f["title"] += " [as saved]"
    (tmp_path / "node2.json").write_text(json.dumps(saved))
    report = json.loads(run("fleet", "compare", str(tmp_path), "--format", "json",
                            "--no-redact").stdout)
    found = {f["code"]: f for f in report["findings"]}
    assert found["DRV001"]["evidence"]["nodes"] == ["node2"]
    assert found["DRV001"]["title"].endswith("[as saved] (on node2)")
    assert found["FLEET001"]["evidence"]["nodes"] == ["node2"]


def test_several_outputs_from_one_run(cluster: Path, tmp_path: Path) -> None:
    junit, text = tmp_path / "fleet.xml", tmp_path / "fleet.txt"
    proc = run("fleet", "compare", str(cluster), "--format", "json", "--report",
               f"junit:{junit}", "--report", f"text:{text}")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["fleet"]["source"] == "snapshots"
    assert "<testsuites" in junit.read_text()
    assert "Differences between nodes" in text.read_text()
    bad = run("fleet", "compare", str(cluster), "--report", "nonsense")
    assert bad.returncode == 2 and "FORMAT:FILE" in bad.stderr
