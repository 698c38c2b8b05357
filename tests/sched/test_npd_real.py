"""contrib/node-problem-detector/envdoctor-plugin.json run by a real node-problem-detector.

There is no Debian package of NPD, so the binary comes from ``ENVDOCTOR_NPD`` (a path) or
``node-problem-detector`` on PATH, built from kubernetes/node-problem-detector (v0.8.20 builds
with Debian's backported Go 1.23: ``go build -mod=vendor -tags "disable_system_log_monitor
disable_system_stats_monitor disable_stackdriver_exporter" ./cmd/nodeproblemdetector``). NPD
runs the rule at start-up and exports its conditions as Prometheus gauges, which the test
scrapes on 127.0.0.1: a healthy machine leaves the condition False, a broken one sets it True
with envdoctor's one line as the message."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tests.sched.conftest import BROKEN, HEALTHY, REPO, write_shim

pytestmark = pytest.mark.npd
CONFIG = REPO / "contrib" / "node-problem-detector" / "envdoctor-plugin.json"
NPD = os.environ.get("ENVDOCTOR_NPD") or shutil.which("node-problem-detector")
if not NPD:
    pytest.skip("node-problem-detector not installed (no Debian package; set ENVDOCTOR_NPD "
                "to a binary built from kubernetes/node-problem-detector)",
                allow_module_level=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _gauge(port: int) -> dict[str, str]:
    """NPD's problem_gauge lines for our condition type: labels -> value."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
        metrics = r.read().decode()
    return {ln.split("{", 1)[1].split("}", 1)[0]: ln.rsplit(" ", 1)[1]
            for ln in metrics.splitlines()
            if ln.startswith("problem_gauge{") and "EnvdoctorProblem" in ln}


def _wait_for(path: Path, deadline: float) -> None:
    while not path.exists():
        assert time.monotonic() < deadline, "NPD never ran the rule"
        time.sleep(0.2)


def _run_npd(tmp_path: Path, machine: Path) -> tuple[dict[str, str], str]:
    shim = write_shim(tmp_path / "bin")
    ran = tmp_path / "ran"
    # the rule as configured, with a marker written once envdoctor has answered NPD
    rule_path = tmp_path / "bin" / "rule"
    rule_path.write_text(f'#!/bin/sh\n"{shim}" "$@"\nrc=$?\necho $rc > "{ran}"\nexit $rc\n')
    rule_path.chmod(0o755)
    cfg = json.loads(CONFIG.read_text())
    cfg["pluginConfig"]["invoke_interval"] = "2s"
    rule = cfg["rules"][0]
    rule["path"] = str(rule_path)
    rule["args"] = [*rule["args"], "--facts", str(machine)]
    (tmp_path / "plugin.json").write_text(json.dumps(cfg))
    port = _free_port()
    log = tmp_path / "npd.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [NPD, f"--config.custom-plugin-monitor={tmp_path / 'plugin.json'}",
             "--enable-k8s-exporter=false", "--prometheus-address=127.0.0.1",
             f"--prometheus-port={port}", "--logtostderr", "--hostname-override=node-a",
             "--address=127.0.0.1", f"--port={_free_port()}"],
            stdout=out, stderr=subprocess.STDOUT, env=dict(os.environ, NO_COLOR="1"))
    try:
        _wait_for(ran, time.monotonic() + 60)
        time.sleep(1.0)  # NPD turns the answer into the condition
        found = _gauge(port)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
    return found, log.read_text(errors="replace")


def test_a_broken_machine_sets_the_condition(tmp_path):
    found, log = _run_npd(tmp_path, BROKEN)
    failed = [k for k, v in found.items() if "EnvdoctorCheckFailed" in k]
    assert failed and found[failed[0]] == "1", (found, log[-3000:])
    assert "DRV001" in log  # the message NPD logged is envdoctor's one line


def test_a_healthy_machine_leaves_it_false(tmp_path):
    found, log = _run_npd(tmp_path, HEALTHY)
    assert found, log[-3000:]
    assert not any(v == "1" for k, v in found.items()), (found, log[-3000:])
