"""`envdoctor suggest` end to end: JSON contract, exit codes, --facts / --from inputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import tomllib

from envdoctor import pipeline
from envdoctor.suggest.machine import machine_of

from .suggest_support import MACHINES, check_command

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "tests" / "corpus" / "reports"
KEYS = {"framework", "status", "version", "variant", "command", "packages", "index_url",
        "reasons", "alternatives", "references", "remove", "remove_command", "data"}


def envdoctor(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "envdoctor", "suggest", *args], input=stdin,
                          capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)


def test_json_contract():
    got = envdoctor("--facts", str(MACHINES / "a100-driver550.json"), "torch", "jax",
                    "--format", "json")
    assert got.returncode == 0, got.stderr
    data = json.loads(got.stdout)
    assert data["schema_version"] == 1 and data["data_as_of"] == "2026-12-02"
    assert data["machine"]["platform"] == "linux_x86_64"
    torch, jax = data["suggestions"]
    assert set(torch) == KEYS and set(jax) == KEYS
    assert torch["packages"] == ["torch==2.14.1", "torchvision==0.29.1"]
    assert torch["index_url"] == "https://download.pytorch.org/whl/cu126"
    assert all(set(r) == {"constraint", "text", "source", "confirmed"} for r in torch["reasons"])
    assert all(r["source"].startswith("https://") for r in torch["reasons"] if r["confirmed"])
    assert {"text", "version", "variant", "command", "price", "source"} == \
        set(torch["alternatives"][0])


def test_text_says_how_old_the_data_is():
    got = envdoctor("--facts", str(MACHINES / "gtx1080-driver580.json"), "torch")
    assert got.returncode == 0
    assert "as of 2026-12-02 (no network used)" in got.stdout
    assert "$ pip install torch==2.14.1 torchvision==0.29.1 --index-url " \
           "https://download.pytorch.org/whl/cu126" in got.stdout


def test_no_release_for_a_named_framework_exits_1():
    got = envdoctor("--facts", str(MACHINES / "linux-ppc64le-cpu.json"), "torch")
    assert got.returncode == 1
    assert "nothing in the data runs here" in got.stdout


def test_unknown_framework_is_one_line_exit_2():
    got = envdoctor("--facts", str(MACHINES / "a100-driver550.json"), "caffe")
    assert got.returncode == 2 and got.stdout == ""
    assert got.stderr.count("\n") == 1 and "unknown framework 'caffe'" in got.stderr


def test_unreadable_inputs_exit_2(tmp_path):
    missing = envdoctor("--facts", str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert envdoctor("--facts", str(bad)).returncode == 2
    empty = tmp_path / "empty.txt"
    empty.write_text("nothing useful here\n")
    got = envdoctor("--from", str(empty))
    assert got.returncode == 2 and "no environment report found" in got.stderr
    both = envdoctor("--facts", str(bad), "--from", str(empty))
    assert both.returncode == 2 and "exclude each other" in both.stderr
    for r in (missing, got, both):
        assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1


def _report_text(name: str) -> str:
    return tomllib.loads((REPORTS / f"{name}.toml").read_text(encoding="utf-8"))["text"]


def test_from_a_pasted_report_on_stdin():
    """A real pasted report (tests/corpus/reports, with its source URL): RTX 4090, driver 580."""
    got = envdoctor("--from", "-", "torch", "--format", "json",
                    stdin=_report_text("047-system-md-rtx4090-580-torch2.5.1-cu124"))
    assert got.returncode == 0, got.stderr
    torch = json.loads(got.stdout)["suggestions"][0]
    assert (torch["version"], torch["variant"]) == ("2.15.0", "cu132")
    assert any(not r["confirmed"] and "does not state Python" in r["text"]
               for r in torch["reasons"])


def test_pasted_nvidia_smi_header_without_gpu_rows_still_counts_as_a_gpu(tmp_path):
    """jax-ml/jax#21295's paste ends after the nvidia-smi header: driver 550, GPUs cut off."""
    path = tmp_path / "report.txt"
    path.write_text(_report_text("002-jax-print-env-8x-a10g-550"), encoding="utf-8")
    got = envdoctor("--from", str(path), "jax", "--format", "json")
    jax = json.loads(got.stdout)["suggestions"][0]
    assert jax["variant"] == "jax[cuda12]"   # driver 550 < 580: no cuda13


def test_installer_uv_json_commands_are_on_the_index():
    path = MACHINES / "windows-rtx3070-driver546.json"
    got = envdoctor("--facts", str(path), "torch", "--installer", "uv", "--format", "json")
    m = machine_of(pipeline.load_facts_file(str(path)))
    torch = json.loads(got.stdout)["suggestions"][0]
    assert torch["command"].startswith("uv pip install torch==2.14.1")
    check_command("torch", torch["command"], m)
