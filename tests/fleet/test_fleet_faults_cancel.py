"""A fleet run cancelled by its scheduler: every rank SIGTERMed (or SIGINTed) in its probes.

No process may be left on any node, every rank exits 128 + the signal, each snapshot says
it was cancelled (with what it had), and rank 0 reports what it has with the cancellation
stated (FLEET038), which `fleet compare` over the snapshots reads back. And a rank killed
with SIGKILL, which can clean nothing up itself, leaves no probe behind either (its guard).
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from tests.fleet.conftest import REPO, Launched, envdoctor, free_port, no_leftovers, rank_env
from tests.fleet.test_fleet_faults import _cleanup, _fake_smis, _hanging_smi, _in_probes, _ranks

pytest.importorskip("torch.distributed")
pytestmark = pytest.mark.fleet

CANCEL_GRACE = 10.0  # what `envdoctor fleet --help` promises after a signal


def _cancel_codes(report: dict) -> list[str]:
    return [f["title"] for f in report["findings"] if f["code"] == "FLEET038"]


@pytest.mark.parametrize("number", [
    signal.SIGTERM, pytest.param(signal.SIGINT, marks=pytest.mark.boundary)],
    ids=["SIGTERM", "SIGINT"])
def test_a_scheduler_cancel_leaves_nothing_and_says_so(tmp_path: Path, number: int) -> None:
    smi = {"PATH": f"{_hanging_smi(tmp_path)}:{rank_env()['PATH']}"}
    runs = _ranks(tmp_path, 2, [0, 1], free_port(), nodes={0: 0, 1: 1},
                  extra={0: smi, 1: smi}, args=("--output", str(tmp_path / "report.json")))
    name = signal.Signals(number).name
    with _cleanup(tmp_path, runs):
        procs = [_in_probes(tmp_path, runs[r]) for r in (0, 1)]
        sent = time.monotonic()
        for p in procs:
            p.send_signal(number)
        results = {r: runs[r].wait(120) for r in (0, 1)}
        left = [p.pid for p in _fake_smis(str(tmp_path))]
    assert [results[r][0] for r in (0, 1)] == [128 + number] * 2, results[0][2][-2000:]
    assert max(runs[r].start + runs[r].seconds for r in (0, 1)) - sent < CANCEL_GRACE
    assert left == []  # the hung probes went with the ranks
    report = json.loads((tmp_path / "report.json").read_text())
    titles = _cancel_codes(report)
    assert titles and f"cancelled by {name} during the probes" in titles[0], report["findings"]
    assert {f["code"] for f in report["findings"]} & {"FLEET017", "FLEET036"} == set()
    assert report["fleet"]["complete"] is False
    for r in (0, 1):
        err = results[r][2]
        assert f"rank {r}" in err and f"cancelled by {name}" in err and "Traceback" not in err
    for snap in sorted((tmp_path / "snaps").glob("*.json")):
        outcome = json.loads(snap.read_text())["outcome"]
        assert outcome["cancelled"].startswith(f"cancelled by {name}"), snap.name
    compared = Launched(envdoctor("fleet", "compare", str(tmp_path / "snaps"), "--format",
                                  "json"), rank_env(), REPO)
    rc, shown, err = compared.wait(120)
    assert rc == 1, shown + err
    again = json.loads(shown)
    assert _cancel_codes(again) and not {f["code"] for f in again["findings"]} & \
        {"FLEET017", "FLEET036"}
    assert no_leftovers(str(tmp_path)) == []


def test_a_rank_killed_with_sigkill_leaves_no_probe_behind(tmp_path: Path) -> None:
    """SIGKILL cannot be handled: the rank's guard sees it go and ends its hung nvidia-smi."""
    smi = {"PATH": f"{_hanging_smi(tmp_path)}:{rank_env()['PATH']}"}
    runs = _ranks(tmp_path, 2, [0, 1], free_port(), nodes={0: 0, 1: 1}, extra={1: smi})
    with _cleanup(tmp_path, runs):
        victim = _in_probes(tmp_path, runs[1])
        assert _fake_smis(str(tmp_path))
        victim.kill()
        end = time.monotonic() + 5.0
        while _fake_smis(str(tmp_path)) and time.monotonic() < end:
            time.sleep(0.1)
        left = [p.pid for p in _fake_smis(str(tmp_path))]
        runs[0].wait(120)
        killed = runs[1].wait(30)[0]
    assert left == []
    assert killed == -signal.SIGKILL
    assert no_leftovers(str(tmp_path)) == []
