"""``check --format nhc|npd|prometheus`` through the real CLI: the line, the exit code, the
metrics, and what hostile text in the facts becomes in each."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from envdoctor.outputs.sanitise import REASON_MAX, reason
from tests.conftest import run_cli
from tests.sched.conftest import BROKEN, HEALTHY, undecided_machine

SAFE_LINE = re.compile(r"[A-Za-z0-9 .,:;_+\-=/@()\[\]<>%#?~^*]*")
HOSTILE = ('nvidia-smi: "$(touch /tmp/pwned)" `id` \x1b]0;owned\x07 \u202e ; it\'s '
           "HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345 \\ back !bang\nsecond line")


def hostile_machine(folder: Path) -> Path:
    path = undecided_machine(folder)
    data = json.loads(path.read_text())
    data["nvidia"]["probe"]["reason"] = HOSTILE
    path.write_text(json.dumps(data))
    return path


def _one_safe_line(out: str) -> str:
    assert out.endswith("\n") and out.count("\n") == 1, repr(out)
    line = out[:-1]
    assert len(line) <= REASON_MAX, line
    assert SAFE_LINE.fullmatch(line), line
    return line


# ---------------------------------------------------------------------------- nhc
def test_nhc_prints_nothing_and_exits_0_when_healthy():
    r = run_cli("check", "--facts", str(HEALTHY), "--format", "nhc")
    assert (r.returncode, r.stdout) == (0, "")


def test_nhc_prints_one_reason_and_exits_1_when_a_finding_fails():
    r = run_cli("check", "--facts", str(BROKEN), "--format", "nhc")
    assert r.returncode == 1, r.stderr
    line = _one_safe_line(r.stdout)
    assert line.startswith("envdoctor: DRV001 NVIDIA driver 470.256.02 is too old")


def test_nhc_reason_of_hostile_probe_text_is_inert_and_redacted(tmp_path):
    facts = hostile_machine(tmp_path)
    r = run_cli("check", "--facts", str(facts), "--format", "nhc", "--fail-on", "warning")
    assert r.returncode == 1, r.stderr
    line = _one_safe_line(r.stdout)
    assert line.startswith("envdoctor: PROBE001 The NVIDIA probe failed: nvidia-smi:")
    for bad in ('"', "'", "`", "$", "\\", "!", "\x1b", "\u202e", "hf_AbCd"):
        assert bad not in line


def test_nhc_bad_input_is_exit_2_with_nothing_on_stdout(tmp_path):
    r = run_cli("check", "--facts", str(tmp_path / "missing.json"), "--format", "nhc")
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1


# ---------------------------------------------------------------------------- npd
@pytest.mark.parametrize(("facts", "status", "start"), [
    (HEALTHY, 0, "envdoctor: OK"),
    (BROKEN, 1, "envdoctor: DRV001"),
    (None, 2, "envdoctor: unknown: PROBE001 The NVIDIA probe failed: nvidia-smi timed out"),
])
def test_npd_status_and_message(tmp_path, facts, status, start):
    path = facts or undecided_machine(tmp_path)
    r = run_cli("check", "--facts", str(path), "--format", "npd")
    assert r.returncode == status, r.stderr
    assert _one_safe_line(r.stdout).startswith(start)


def test_npd_a_failing_finding_outranks_unknown(tmp_path):
    """Broken and undecided at once: the problem is known, so NonOK (1), not Unknown."""
    data = json.loads(BROKEN.read_text())
    data["libraries"] = {"probe": {"status": "error", "reason": "ldconfig -p timed out"}}
    path = tmp_path / "both.json"
    path.write_text(json.dumps(data))
    r = run_cli("check", "--facts", str(path), "--format", "npd")
    assert r.returncode == 1 and r.stdout.startswith("envdoctor: DRV001"), r.stdout


# ---------------------------------------------------------------------------- the sink
@given(st.text())
def test_reason_is_always_one_short_safe_line(text):
    out = reason(text)
    if out:
        _one_safe_line(out)


def test_reason_keeps_what_it_can():
    assert reason("  café\tdriver's \"580\"  ") == "cafe drivers 580\n"
    assert reason("x" * 200) == "x" * (REASON_MAX - 3) + "...\n"
    assert reason("\n \t") == ""


# ---------------------------------------------------------------------------- prometheus
def _families(text: str) -> dict[str, list]:
    parser = pytest.importorskip("prometheus_client.parser")
    return {f.name: f.samples for f in parser.text_string_to_metric_families(text)}


def _value(samples, **labels) -> float:
    found = [s.value for s in samples if all(s.labels.get(k) == v for k, v in labels.items())]
    assert len(found) == 1, (labels, samples)
    return found[0]


def test_prometheus_metrics_of_a_broken_machine():
    r = run_cli("check", "--facts", str(BROKEN), "--format", "prometheus")
    assert r.returncode == 1, r.stderr
    fam = _families(r.stdout)
    assert _value(fam["envdoctor_check_ok"], fail_on="error") == 0
    assert _value(fam["envdoctor_findings"], severity="error") == 1
    assert _value(fam["envdoctor_finding"], code="DRV001", severity="error") == 1
    assert _value(fam["envdoctor_gpu_count"]) == 4
    assert _value(fam["envdoctor_nvidia_driver_info"], driver_version="470.256.02") == 1
    assert _value(fam["envdoctor_framework_info"], name="torch") == 1
    assert _value(fam["envdoctor_check_timestamp_seconds"]) > 1.7e9
    for line in r.stdout.splitlines():
        if line.startswith("envdoctor_"):
            name = line.split("{")[0].split(" ")[0]
            assert f"# TYPE {name} gauge" in r.stdout and f"# HELP {name} " in r.stdout


def test_prometheus_healthy_machine_passes():
    r = run_cli("check", "--facts", str(HEALTHY), "--format", "prometheus")
    assert r.returncode == 0, r.stderr
    fam = _families(r.stdout)
    assert _value(fam["envdoctor_check_ok"]) == 1
    assert _value(fam["envdoctor_findings"], severity="error") == 0


def test_prometheus_unknown_gpus_are_not_zero_gpus(tmp_path):
    r = run_cli("check", "--facts", str(undecided_machine(tmp_path)), "--format", "prometheus")
    fam = _families(r.stdout)
    assert "envdoctor_gpu_count" not in fam
    assert _value(fam["envdoctor_probe_ok"], section="nvidia", status="error") == 0


def test_prometheus_hostile_label_values_parse_and_stay_inert():
    """Outside text as a label value: the exposition parser reads it back with nothing raw
    (no control, escape or bidi character, no newline) and the rest unchanged."""
    from envdoctor.outputs.sanitise import prom_label
    label = prom_label(HOSTILE)
    assert "\n" not in label and "\x1b" not in label
    parsed = _families('m{v="' + label + '"} 1\n')["m"][0].labels["v"]
    assert "\x1b" not in parsed and "\n" not in parsed and "\u202e" not in parsed
    assert parsed.startswith('nvidia-smi: "$(touch /tmp/pwned)" `id` \\x1b]0;owned\\x07')


def test_prometheus_file_is_written_whole_as_prom(tmp_path):
    out = tmp_path / "envdoctor.prom"
    r = run_cli("check", "--facts", str(HEALTHY), "--format", "prometheus", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["envdoctor.prom"]  # no temp file left
    assert "envdoctor_check_ok" in _families(out.read_text())


@pytest.mark.parametrize("fmt", ["nhc", "npd", "prometheus"])
def test_the_hostile_snapshot_of_every_other_format(tmp_path, fmt):
    """The snapshot tests/outputs/test_hostile_cli.py puts through every format (escapes, bidi,
    workflow commands in a GPU name, a package, an env var, an ImportError)."""
    from tests.outputs.hostile import honoured, raw_unsafe
    from tests.outputs.test_hostile_cli import hostile_snapshot
    snap = hostile_snapshot(tmp_path / "snap.json")
    r = run_cli("check", "--facts", str(snap), "--format", fmt)
    assert r.returncode == 1, r.stderr
    assert raw_unsafe(r.stdout) == [] and honoured(r.stdout) == []
    if fmt == "prometheus":
        _families(r.stdout)
    else:
        _one_safe_line(r.stdout)
