"""The pieces behind the fault matrix, one by one: capped reads, bounded output, killed trees,
the stream guard, JSON caps, the crash log's file, the NVIDIA probe's states."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from envdoctor import bounded, crashlog, runner, streams
from envdoctor.errors import BadInput


# ------------------------------------------------------------------ bounded reads
def test_read_regular_refuses_fifo_and_device_without_blocking(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    start = time.monotonic()
    assert bounded.read_regular(fifo) is None
    assert bounded.read_regular("/dev/zero") is None
    assert time.monotonic() - start < 2


def test_read_regular_caps_size_and_text_caps_lines_and_runs(tmp_path):
    big = tmp_path / "big"
    big.write_bytes(b"x" * 5000 + b"\n" + b" " * 500 + b"7" * 500 + b"\n")
    assert len(bounded.read_regular(big, limit=100)) == 100
    text = bounded.read_text(big, max_line=1000)
    first, second = text.split("\n")[:2]
    assert len(first) == 1000
    assert second == " " * bounded.RUN + "7" * bounded.RUN


# ------------------------------------------------------------------ runner
def test_runner_stops_a_flood_at_the_cap():
    start = time.monotonic()
    result = runner.run(["sh", "-c", "yes"], 30)
    assert "printed more than" in result.error and not result.ok
    assert len(result.stdout) <= runner.MAX_OUTPUT
    assert time.monotonic() - start < 15


def test_runner_kills_an_escaped_grandchild(tmp_path):
    pidfile = tmp_path / "pid"
    result = runner.run(["sh", "-c", f"setsid sleep 300 & echo $! > {pidfile}; exec sleep 300"],
                        0.5)
    assert "timed out" in result.error
    pid = int(pidfile.read_text())
    for _ in range(50):
        if not Path(f"/proc/{pid}").exists() or "Z" in _state(pid):
            break
        time.sleep(0.05)
    assert not Path(f"/proc/{pid}").exists() or "Z" in _state(pid)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0]
    except OSError:
        return "Z"


def test_a_cancelled_probe_thread_starts_nothing_more():
    results = []

    def probe():
        results.append(runner.run(["sleep", "30"], 60))
        results.append(runner.run(["true"], 5))  # the retry a deadline must prevent

    t = threading.Thread(target=probe, daemon=True)
    t.start()
    start = time.monotonic()  # a loaded runner may take a while to start `sleep`
    while time.monotonic() - start < 10 and not any(
            owner == t.ident for _, owner in list(runner._live.values())):
        time.sleep(0.02)
    assert runner.kill_owned_by(t.ident) == 1
    t.join(10)
    assert not t.is_alive()
    assert results[1].error.startswith("not started")


# ------------------------------------------------------------------ inputs
def test_open_input_fifo_nobody_writes_to_is_bad_input(tmp_path, monkeypatch):
    monkeypatch.setattr(bounded, "FIFO_WAIT", 0.2)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(BadInput, match="nothing was written"):
        bounded.open_input(str(fifo), "a report")


def test_open_input_fifo_with_a_writer_is_read(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"sleep 0.3; echo hello > {fifo}"])
    with bounded.open_input(str(fifo), "a report") as fh:
        assert fh.read() == b"hello\n"
    writer.wait(5)


@pytest.mark.parametrize("text,message", [
    ("[" * 200000, "nested deeper"),
    ("[" * 70 + "]" * 70, "nested deeper"),
    ('{"a": 1', "not valid JSON"),
])
def test_json_caps(tmp_path, text, message):
    path = tmp_path / "x.json"
    path.write_text(text)
    with pytest.raises(BadInput, match=message):
        bounded.load_json_file(str(path), "a facts file")


def test_json_size_cap(tmp_path):
    path = tmp_path / "x.json"
    path.write_bytes(b'"' + b"a" * 2000 + b'"')
    with pytest.raises(BadInput, match="larger than"):
        bounded.load_json_file(str(path), "a facts file", limit=1000)


def test_devices_are_refused(tmp_path):
    with pytest.raises(BadInput, match="device"):
        bounded.read_input("/dev/zero", "a facts file")


# ------------------------------------------------------------------ crash log
def test_crash_log_is_private_random_and_redacted(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(sys, "argv", ["envdoctor", "check", "--require",
                                      "hf_PLANTEDabcdefghijklmnopqrstuv"])
    monkeypatch.setenv("HF_TOKEN", "hf_PLANTEDabcdefghijklmnopqrstuv")
    paths = {crashlog.write_crash_log(RuntimeError("boom")) for _ in range(2)}
    assert len(paths) == 2  # random names: never the same file twice
    for path in paths:
        st = os.lstat(path)
        assert stat.S_IMODE(st.st_mode) == 0o600
        assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700
        body = Path(path).read_text()
        assert "RuntimeError: boom" in body and "hf_PLANTED" not in body


def test_crash_log_refuses_a_folder_planted_as_a_symlink(tmp_path, monkeypatch):
    victim = tmp_path / "victim"
    victim.mkdir()
    (tmp_path / "state" / "envdoctor").mkdir(parents=True)
    (tmp_path / "state" / "envdoctor" / "crash").symlink_to(victim)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    message = crashlog.write_crash_log(RuntimeError("boom"))
    assert message.startswith("(no crash log") and list(victim.iterdir()) == []


# ------------------------------------------------------------------ streams
def test_unencodable_terminal_gets_ascii():
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="latin-1")
    streams._ascii_if_needed(stream)
    stream.write("[\u2713] driver \u2014 ok \u2192 fine \u2717\n")
    stream.flush()
    assert raw.getvalue() == b"[ok] driver - ok -> fine x\n"


def test_full_stdout_is_one_line_exit_2():
    proc = subprocess.run(
        f"{sys.executable} -m envdoctor rules list > /dev/full", shell=True,  # noqa: S602
        capture_output=True, text=True, timeout=60,
        env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2])))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().startswith("envdoctor: error:")


# ------------------------------------------------------------------ NVIDIA probe states
def test_no_devices_with_a_loaded_kernel_module_is_a_failed_probe(tmp_path, monkeypatch):
    from envdoctor.facts import Status
    from envdoctor.probes import nvidia
    (tmp_path / "proc" / "driver" / "nvidia").mkdir(parents=True)
    (tmp_path / "proc" / "driver" / "nvidia" / "version").write_text(
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar 5 2024\n")
    monkeypatch.setattr(nvidia, "_nvml_raw", lambda trail, timeout: {
        "ok": False, "stage": "query", "error": "No supported GPUs were found"})

    def smi(argv, timeout):
        return runner.CommandResult(tuple(argv), 6, "No devices were found\n", "", 0.1)
    with runner.use_runner(smi, lambda name: "/usr/bin/nvidia-smi"):
        facts = nvidia.probe(tmp_path)
    assert facts.probe.status is Status.ERROR
    assert "No devices were found" in facts.probe.reason
    assert "kernel module 550.54.15 is loaded" in facts.probe.reason


def test_nvml_child_answers_json_from_a_fake_pynvml(tmp_path):
    """The child's own protocol: one JSON object on stdout, steps on stderr."""
    from envdoctor.probes import nvidia
    fake = tmp_path / "pynvml.py"
    fake.write_text("def nvmlInit():\n    raise RuntimeError('Unknown Error')\n")
    source = nvidia.CHILD_SOURCE.read_text()
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", source, str(tmp_path)],
                          capture_output=True, text=True, timeout=30)
    answer = json.loads(proc.stdout)
    assert answer == {"ok": False, "stage": "query", "error": "Unknown Error"}
    assert "step nvmlInit" in proc.stderr
