"""contrib/node-problem-detector/envdoctor-plugin.json, run as node-problem-detector's custom
plugin monitor runs a rule, in the default run. NPD has no Debian package (tests/sched/
test_npd_real.py runs a real binary where one was built), so here its rule runner is followed as
written in kubernetes/node-problem-detector
(pkg/custompluginmonitor/types/config.go: defaults, Validate; plugin/plugin.go: run): the
config's own path and args executed, stdout trimmed and cut at max_output_length bytes, exit 0
OK, 1 NonOK, anything else (or a timeout) Unknown."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.sched.conftest import BROKEN, HEALTHY, REPO, undecided_machine

CONFIG = REPO / "contrib" / "node-problem-detector" / "envdoctor-plugin.json"
STATUS = {0: "OK", 1: "NonOK"}  # any other exit status: Unknown


def _duration(text: str) -> float:
    """Go's time.ParseDuration for the units a plugin config uses."""
    parts = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?", text)
    assert parts and text, f"not a duration: {text!r}"
    h, m, s = (int(p or 0) for p in parts.groups())
    return h * 3600 + m * 60 + s


def load(path: Path = CONFIG) -> dict:
    """The config with NPD's defaults applied, validated as NPD does at start-up."""
    cfg = json.loads(path.read_text())
    glob = cfg["pluginConfig"]
    glob.setdefault("timeout", "5s")
    glob.setdefault("invoke_interval", "30s")
    glob.setdefault("max_output_length", 80)
    assert cfg["plugin"] == "custom"
    assert _duration(glob["invoke_interval"]) > 0
    conditions = {c["type"] for c in cfg["conditions"]}
    for rule in cfg["rules"]:
        assert rule["type"] in ("temporary", "permanent")
        assert _duration(rule.get("timeout", glob["timeout"])) <= _duration(glob["timeout"])
        if rule["type"] == "permanent":
            assert rule["condition"] in conditions
        assert isinstance(rule.get("args", []), list)
    return cfg


def run_rule(cfg: dict, rule: dict, path: str, extra: tuple[str, ...] = ()) -> tuple[str, str]:
    """(status, message) as NPD's plugin.run reports them."""
    glob = cfg["pluginConfig"]
    timeout = min(_duration(rule.get("timeout", glob["timeout"])), _duration(glob["timeout"]))
    assert Path(path).exists()  # Validate: the rule's path must exist
    try:
        done = subprocess.run([path, *rule.get("args", []), *extra], capture_output=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return "Unknown", f"Timeout when running plugin {path!r}"[:glob["max_output_length"]]
    message = done.stdout.decode("utf-8", "replace").strip()
    message = message.encode()[:glob["max_output_length"]].decode("utf-8", "replace")
    return STATUS.get(done.returncode, "Unknown"), message


def test_the_config_is_valid_for_npd_and_runs_envdoctor_check_npd():
    cfg = load()
    (rule,) = cfg["rules"]
    assert rule["path"].endswith("/envdoctor")
    assert rule["args"][:1] == ["check"] and "npd" in rule["args"]
    assert cfg["pluginConfig"]["max_output_length"] <= 80


@pytest.mark.parametrize(("machine", "status", "start"), [
    ("healthy", "OK", "envdoctor: OK"),
    ("broken", "NonOK", "envdoctor: DRV001 NVIDIA driver 470.256.02 is too old"),
    ("undecided", "Unknown", "envdoctor: unknown: PROBE001 The NVIDIA probe failed"),
])
def test_each_state_through_the_configured_command(shim, tmp_path, machine, status, start):
    facts = {"healthy": HEALTHY, "broken": BROKEN}.get(machine) or undecided_machine(tmp_path)
    cfg = load()
    got, message = run_rule(cfg, cfg["rules"][0], str(shim), ("--facts", str(facts)))
    assert (got, message[:len(start)]) == (status, start), message
    assert len(message.encode()) <= 80 and "\n" not in message


def test_this_machine_as_configured_agrees_with_the_json_verdict(shim):
    cfg = load()
    status, message = run_rule(cfg, cfg["rules"][0], str(shim))
    verdict = json.loads(run_cli("check", "--static", "--format", "json").stdout)
    expected = "NonOK" if verdict["summary"]["exit_code"] else ("Unknown" if any(
        f["code"].startswith("PROBE") for f in verdict["findings"]) else "OK")
    assert status == expected, message
    assert message.startswith("envdoctor: ")


def test_bad_input_is_unknown_not_a_problem(shim, tmp_path):
    """A flag envdoctor does not know (a config written for another version): exit 2, which
    NPD reads as Unknown, never as a problem on the node."""
    cfg = load()
    rule = dict(cfg["rules"][0], args=[*cfg["rules"][0]["args"], "--no-such-flag"])
    status, _ = run_rule(cfg, rule, str(shim))
    assert status == "Unknown"
