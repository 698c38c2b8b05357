"""`suggest --online` / `check --online` as a user runs them: an index that is down, slow or
hostile costs a bounded time and yields the shipped answer with one line saying so (same exit
code); without --online no socket is ever opened; old shipped data says its age."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from envdoctor.suggest.data import data_as_of

from .index_fixture import closed_port, serving

AS_OF = data_as_of()  # the date every answer resting on rules/matrices names


def _after(days: int) -> str:
    """The day ``days`` after the shipped data's date (ENVDOCTOR_TODAY's format)."""
    return (date.fromisoformat(AS_OF) + timedelta(days=days)).isoformat()

ROOT = Path(__file__).resolve().parents[2]
MACHINES = Path(__file__).parent / "machines"
H100 = str(MACHINES / "h100-driver580-nvcc.json")
INTEL_MAC = str(MACHINES / "macos-x86_64.json")


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.lower().endswith("_proxy") and k not in ("PIP_INDEX_URL",
                                                             "ENVDOCTOR_CACHE_DIR")}
    return {**env, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "PIP_CONFIG_FILE": os.devnull,
            "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_STATE_HOME": str(tmp_path / "st"),
            **extra}


def envdoctor(tmp_path: Path, *args: str, **env: str) -> tuple[subprocess.CompletedProcess,
                                                                  float]:
    start = time.monotonic()
    got = subprocess.run([sys.executable, "-m", "envdoctor", *args], capture_output=True,
                         text=True, env=_env(tmp_path, **env), timeout=120, cwd=ROOT)
    return got, time.monotonic() - start


def _notes(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("Note: online:")]


def _commands(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.strip().startswith("$ ")]


@pytest.mark.parametrize("machine", [H100, INTEL_MAC])
def test_unreachable_index_gives_the_shipped_answer_and_one_line(tmp_path, machine):
    port = closed_port()
    shipped, _ = envdoctor(tmp_path, "suggest", "--facts", machine, "torch", "tensorflow")
    got, took = envdoctor(tmp_path, "suggest", "--facts", machine, "torch", "tensorflow",
                          "--online", "--index-url", f"http://127.0.0.1:{port}/simple",
                          "--torch-index-url", f"http://127.0.0.1:{port}/whl")
    assert got.returncode == shipped.returncode, got.stderr
    assert _commands(got.stdout) == _commands(shipped.stdout)
    notes = _notes(got.stdout)
    assert len(notes) == 1 and "connection refused" in notes[0] and AS_OF in notes[0]
    assert took < 15 and "Traceback" not in got.stderr
    assert f"Data: rules/matrices as of {AS_OF} (no index could be read)" in got.stdout


def test_slow_index_answers_within_15_seconds_with_the_default_deadline(tmp_path):
    with serving("json", "slow") as index:
        shipped, _ = envdoctor(tmp_path, "suggest", "--facts", H100, "torch", "jax")
        got, took = envdoctor(tmp_path, "suggest", "--facts", H100, "torch", "jax", "--online",
                              "--index-url", index.url, "--torch-index-url", index.torch_root)
    assert took < 15, took
    assert got.returncode == shipped.returncode == 0
    assert _commands(got.stdout) == _commands(shipped.stdout)
    notes = _notes(got.stdout)
    assert len(notes) == 1 and ("timed out" in notes[0] or "deadline" in notes[0]), notes


@pytest.mark.parametrize("mode,why", [("huge", "larger than 8 MB"), ("deep", "nested deeper"),
                                      ("bad", "not a simple-index page")])
def test_hostile_index_gives_the_shipped_answer(tmp_path, mode, why):
    shipped, _ = envdoctor(tmp_path, "suggest", "--facts", H100, "torch", "--format", "json")
    with serving("json", mode) as index:
        got, took = envdoctor(tmp_path, "suggest", "--facts", H100, "torch", "--format", "json",
                              "--online", "--online-timeout", "5", "--index-url", index.url,
                              "--torch-index-url", index.torch_root)
    data = json.loads(got.stdout)
    assert got.returncode == 0 and took < 15
    want = json.loads(shipped.stdout)["suggestions"][0]
    assert data["suggestions"][0]["version"] == want["version"] != "2.16.0"  # the shipped one
    assert data["suggestions"][0]["command"] == want["command"]
    assert len(data["notes"]) == 1 and why in data["notes"][0], data["notes"]


def test_online_cli_picks_from_the_index_and_says_so(tmp_path):
    with serving("html") as index:
        got, _ = envdoctor(tmp_path, "suggest", "--facts", INTEL_MAC, "torch", "--online",
                           "--index-url", index.url, "--torch-index-url", index.torch_root)
    assert got.returncode == 0, got.stdout
    assert "$ pip install torch==2.2.2" in got.stdout
    assert "Data: releases from the package indexes" in got.stdout
    assert "days old" not in got.stdout and not _notes(got.stdout)


def test_check_online_fixes_use_the_same_planner(tmp_path):
    """check's keep-installed torch fix, read from the index's torch root."""
    machine = str(MACHINES / "rtx4090-torch-cpu-installed.json")
    with serving("json") as index:
        got, _ = envdoctor(tmp_path, "check", "--facts", machine, "--online", "--no-redact",
                           "--index-url", index.url, "--torch-index-url", index.torch_root)
        suggest_keep = _keep_line(machine, index)
    fixes = [line.strip()[len("fix: "):] for line in got.stdout.splitlines()
             if line.strip().startswith("fix: pip install torch")]
    assert fixes == [suggest_keep]
    assert f"--index-url {index.torch_root}/cu126" in fixes[0]
    assert "install commands in fixes: releases as" in got.stderr


def _keep_line(machine: str, index) -> str:
    from envdoctor import pipeline
    from envdoctor.suggest import online_mode
    from envdoctor.suggest.index import Online
    from envdoctor.suggest.lines import line_of
    with online_mode(Online(index.url, index.torch_root, 10)):
        return line_of(pipeline.load_facts_file(machine), "torch", keep_installed=True)


def test_check_names_the_date_of_its_fixes_data(tmp_path):
    machine = str(MACHINES / "rtx4090-torch-cpu-installed.json")
    got, _ = envdoctor(tmp_path, "check", "--facts", machine, ENVDOCTOR_TODAY=_after(192))
    lines = [x for x in got.stderr.splitlines() if "install commands in fixes" in x]
    assert any(f"rules/matrices as of {AS_OF}" in x for x in lines)
    assert any("192 days old" in x for x in lines)


@pytest.mark.parametrize("today,old", [(_after(142), True), (_after(120), False),
                                       (_after(121), True), ("not-a-date", None)])
def test_the_age_line(tmp_path, today, old):
    got, _ = envdoctor(tmp_path, "suggest", "--facts", H100, "torch", "--format", "json",
                       ENVDOCTOR_TODAY=today)
    notes = json.loads(got.stdout)["notes"]
    if old is None:   # an unreadable pin is today's date, never an error
        assert got.returncode == 0
        return
    assert bool(notes) is old, notes
    if old:
        assert len(notes) == 1 and f"days old (as of {AS_OF})" in notes[0]
        assert "--online" in notes[0]


def test_no_age_line_with_online(tmp_path):
    with serving("json") as index:
        got, _ = envdoctor(tmp_path, "suggest", "--facts", H100, "torch", "--online",
                           "--index-url", index.url, "--torch-index-url", index.torch_root,
                           ENVDOCTOR_TODAY=_after(272))
    assert "days old" not in got.stdout and "torch 2.16.0" in got.stdout


@pytest.mark.parametrize("args,why", [
    (["--index-url", "https://example.org/simple"], "needs --online"),
    (["--online", "--index-url", "file:///srv/simple"], "must be an http(s) address"),
    (["--online", "--torch-index-url", "ftp://x/whl"], "must be an http(s) address"),
    (["--online", "--online-timeout", "0"], "0.5"),
])
def test_bad_online_flags_exit_2(tmp_path, args, why):
    got, _ = envdoctor(tmp_path, "suggest", "--facts", H100, "torch", *args)
    assert got.returncode == 2 and why in got.stderr and "Traceback" not in got.stderr


class _NoSockets:
    """socket.socket.connect and create_connection, recorded and refused."""

    def __init__(self, monkeypatch):
        self.calls: list[object] = []
        real = socket.socket.connect

        def connect(sock, address):
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                self.calls.append(address)
                raise OSError("network use in a test without --online")
            return real(sock, address)

        monkeypatch.setattr(socket.socket, "connect", connect)
        monkeypatch.setattr(socket.socket, "connect_ex", connect)


def test_no_socket_is_opened_without_online(tmp_path, monkeypatch):
    from envdoctor.cli import cli
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    guard = _NoSockets(monkeypatch)
    runner = CliRunner()
    for args in (["suggest", "--facts", H100], ["suggest", "--facts", INTEL_MAC, "torch"],
                 ["check", "--facts", str(MACHINES / "rtx4090-torch-cpu-installed.json")]):
        got = runner.invoke(cli, args)
        assert got.exit_code in (0, 1), got.output
    assert guard.calls == []
    # the guard does see a socket: --online opens one (refused here, so the shipped answer)
    got = runner.invoke(cli, ["suggest", "--facts", H100, "torch", "--online",
                              "--online-timeout", "2", "--index-url", "http://127.0.0.1:9/s",
                              "--torch-index-url", "http://127.0.0.1:9/whl"])
    assert got.exit_code == 0 and guard.calls and "could not be read" in got.output
