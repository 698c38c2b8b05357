"""SIGTERM, SIGHUP, SIGINT and SIGQUIT sent to a real `python -m envdoctor` mid-run.

What `timeout`, a Slurm/Kubernetes cancel, a dropped ssh session, Ctrl-C and Ctrl-\\ do. Each case
starts the CLI with children that would outlive it (a framework worker whose fake torch
starts a grandchild in a session of its own, then hangs; a hung nvidia-smi whose grandchild
left its session and its environment), waits until those children really run, sends the
signal, and asserts: exit 128 + n, exactly one line on stderr naming the signal, no
traceback, and no process left, found both by an environment marker every descendant
inherits and by the grandchildren's unique command lines (the env-less one has no marker).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import pytest

REPO = Path(__file__).resolve().parents[1]
SIGNALS = [signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGQUIT]


def _sleep_arg() -> str:
    """A `sleep` duration no other process on the machine uses: its command line is its id."""
    return f"{900 + uuid.uuid4().int % 99}.{uuid.uuid4().int % 10**6:06d}"


def _fake_torch(root: Path, grandchild: str) -> Path:
    pkg = root / "shadow" / "torch"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        "import subprocess, time\n"
        f"subprocess.Popen(['setsid', 'sleep', {grandchild!r}])\n"
        "time.sleep(1000)\n")
    return root / "shadow"


def _hung_smi(root: Path, grandchild: str, own: str) -> Path:
    bin_dir = root / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text(f"#!/bin/sh\nsetsid env -i sleep {grandchild} &\nexec sleep {own}\n")
    smi.chmod(0o755)
    return bin_dir


def _marked(marker: str, whole: bool = False) -> list[str]:
    """Live processes carrying the marker: "pid: command line" (its end, unless ``whole``)."""
    found = []
    for p in psutil.process_iter(["pid", "cmdline", "status"]):
        try:
            if p.pid != os.getpid() and p.info["status"] != psutil.STATUS_ZOMBIE and \
                    p.environ().get("EDSIG_MARKER") == marker:
                cmd = " ".join(p.info["cmdline"] or ())
                found.append(f"{p.pid}: {cmd if whole else cmd[-160:]}")
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def _running(*needles: str) -> list[str]:
    found = []
    for p in psutil.process_iter(["pid", "cmdline", "status"]):
        try:
            cmd = " ".join(p.info["cmdline"] or ())
            if p.info["status"] != psutil.STATUS_ZOMBIE and any(n in cmd for n in needles):
                found.append(f"{p.pid}: {cmd[:120]}")
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return found


def _reap(marker: str, *needles: str) -> None:
    """Whatever a failing run left, so one failure does not leak into the next tests."""
    for p in psutil.process_iter(["cmdline"]):
        try:
            cmd = " ".join(p.info["cmdline"] or ())
            if p.pid != os.getpid() and (any(n in cmd for n in needles) or
                                         p.environ().get("EDSIG_MARKER") == marker):
                p.kill()
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue


def _start(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "envdoctor", *args], env=env, cwd=cwd,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def _wait_for(needle: str, proc: subprocess.Popen[str], limit: float = 90.0) -> None:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if _running(needle):
            time.sleep(0.3)  # the rest of the tree (the worker's own sleep) settles
            return
        if proc.poll() is not None:
            pytest.fail(f"envdoctor ended before its child started: {proc.communicate()}")
        time.sleep(0.05)
    pytest.fail(f"no process {needle!r} within {limit:g}s")


def _signal_and_judge(proc: subprocess.Popen[str], number: signal.Signals, marker: str,
                      *needles: str) -> None:
    sent = time.monotonic()
    proc.send_signal(number)
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"envdoctor did not exit within 30 s of {number.name}")
    took = time.monotonic() - sent
    time.sleep(0.3)  # an orphan being reparented
    left = _marked(marker) + _running(*needles)
    assert proc.returncode == 128 + number, (proc.returncode, err[-2000:])
    assert err.splitlines() == [f"envdoctor: terminated by {number.name}"], err[-2000:]
    assert "Traceback" not in out + err
    assert left == [], left
    assert took < 10, took  # SIGTERM, a short grace, SIGKILL: not a worker's 60 s timeout


@pytest.mark.parametrize("number", SIGNALS, ids=lambda s: s.name)
def test_a_signal_ends_the_live_workers_and_their_escaped_children(tmp_path, number):
    grandchild = _sleep_arg()
    marker = uuid.uuid4().hex
    env = dict(os.environ, EDSIG_MARKER=marker, NO_COLOR="1", HOME=str(tmp_path),
               PYTHONPATH=f"{_fake_torch(tmp_path, grandchild)}:{REPO}")
    proc = _start(["check", "--framework", "torch", "--timeout", "60", "--format", "json"],
                  env, tmp_path)
    try:
        _wait_for(grandchild, proc)
        assert _marked(marker), "the worker should be running (and marked) now"
        _signal_and_judge(proc, number, marker, grandchild)
    finally:
        _reap(marker, grandchild)


@pytest.mark.parametrize("number", SIGNALS, ids=lambda s: s.name)
def test_a_signal_ends_a_hung_nvidia_smi_and_its_unmarked_grandchild(tmp_path, number):
    grandchild, own = _sleep_arg(), _sleep_arg()
    marker = uuid.uuid4().hex
    env = dict(os.environ, EDSIG_MARKER=marker, NO_COLOR="1", HOME=str(tmp_path),
               PYTHONPATH=str(REPO))
    env["PATH"] = f"{_hung_smi(tmp_path, grandchild, own)}:{env['PATH']}"
    proc = _start(["check", "--static"], env, tmp_path)
    try:
        _wait_for(grandchild, proc)
        _signal_and_judge(proc, number, marker, grandchild, own)
    finally:
        _reap(marker, grandchild, own)


def test_a_signal_while_fleet_imports_torch_ends_the_import_child(tmp_path):
    """The fleet's pre-flight import child is a registered child like any other."""
    hang = tmp_path / "hang" / "torch"
    hang.mkdir(parents=True)
    (hang / "__init__.py").write_text("import time\ntime.sleep(1000)\n")
    marker = uuid.uuid4().hex
    env = _fleet_env(tmp_path / "hang", EDSIG_MARKER=marker)
    proc = _start(["fleet", "--static", "--timeout", "120"], env, tmp_path)
    try:
        end = time.monotonic() + 60
        while not any("sys.meta_path" in line for line in _marked(marker, whole=True)):
            if time.monotonic() > end or proc.poll() is not None:
                pytest.fail("the import child did not start")
            time.sleep(0.05)
        time.sleep(0.5)  # inside `import torch` by now
        _signal_and_judge(proc, signal.SIGTERM, marker)
    finally:
        _reap(marker)


def _fleet_env(shadow: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_", "TORCHELASTIC",
                                "SLURM_", "OMPI_", "PMI_", "GROUP_RANK"))}
    env.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", MASTER_ADDR="127.0.0.1",
               MASTER_PORT="29999", NO_COLOR="1", PYTHONPATH=f"{shadow}:{REPO}", **extra)
    return env


@pytest.mark.parametrize(("body", "cause"), [
    ("import time\ntime.sleep(1000)\n",
     "importing torch made no progress for 4s (--timeout), stuck in torch"),
    ("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n",
     "importing torch killed the interpreter (SIGSEGV"),
    ("raise OSError('libtorch_cuda.so: cannot open shared object file')\n",
     "OSError: libtorch_cuda.so: cannot open shared object file"),
], ids=["hangs", "segfaults", "raises"])
def test_fleet_names_a_torch_import_that_hangs_or_crashes_within_its_timeout(tmp_path, body,
                                                                           cause):
    pkg = tmp_path / "shadow" / "torch"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(body)
    marker = uuid.uuid4().hex
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "envdoctor", "fleet", "--static", "--timeout",
                           "4"], env=_fleet_env(tmp_path / "shadow", EDSIG_MARKER=marker),
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    took = time.monotonic() - start
    try:
        assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("envdoctor: error: "), lines
        assert cause in lines[0] and "fleet compare" in lines[0], lines[0]
        assert "Traceback" not in done.stdout + done.stderr
        assert took < 4 + 15, took
        time.sleep(0.3)
        assert _marked(marker) == []
    finally:
        _reap(marker)


@pytest.mark.frameworks
def test_sigterm_during_a_real_full_smoke_ends_every_framework_worker(tmp_path):
    """The real thing: `check --smoke full` with the installed frameworks, SIGTERMed while
    its workers import them."""
    import importlib.util
    if importlib.util.find_spec("torch") is None:
        pytest.skip("needs an installed framework (torch)")
    marker = uuid.uuid4().hex
    env = dict(os.environ, EDSIG_MARKER=marker, NO_COLOR="1", HOME=str(tmp_path),
               PYTHONPATH=str(REPO))
    proc = _start(["check", "--smoke", "full", "--format", "json"], env, tmp_path)
    try:
        end = time.monotonic() + 90
        while not any("envdoctor.workers." in line for line in _marked(marker, whole=True)):
            if time.monotonic() > end or proc.poll() is not None:
                pytest.fail("no framework worker started")
            time.sleep(0.05)
        time.sleep(1.0)  # importing its framework now
        _signal_and_judge(proc, signal.SIGTERM, marker)
    finally:
        _reap(marker)


def test_two_signals_at_once_still_end_with_one_line(tmp_path):
    """A SIGTERM and a SIGINT back to back (`timeout` while the user presses Ctrl-C): the
    first one handled decides the code, and there is still one line and nothing left."""
    grandchild, own = _sleep_arg(), _sleep_arg()
    marker = uuid.uuid4().hex
    env = dict(os.environ, EDSIG_MARKER=marker, NO_COLOR="1", HOME=str(tmp_path),
               PYTHONPATH=str(REPO))
    env["PATH"] = f"{_hung_smi(tmp_path, grandchild, own)}:{env['PATH']}"
    proc = _start(["check", "--static"], env, tmp_path)
    try:
        _wait_for(grandchild, proc)
        proc.send_signal(signal.SIGTERM)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        time.sleep(0.3)
        names = {143: "SIGTERM", 130: "SIGINT"}
        assert proc.returncode in names, (proc.returncode, err[-2000:])
        assert err.splitlines() == [f"envdoctor: terminated by {names[proc.returncode]}"]
        assert _marked(marker) + _running(grandchild, own) == []
    finally:
        _reap(marker, grandchild, own)


def test_sigterm_ends_an_nvml_child_hung_in_nvml_init(tmp_path):
    """The NVML child (a libnvidia-ml whose nvmlInit never returns) is a child like the rest."""
    if shutil.which("gcc") is None:
        pytest.skip("needs gcc")
    lib = tmp_path / "nvml"
    lib.mkdir()
    subprocess.run(["gcc", "-shared", "-fPIC", "-DMODE_HANG", "-o",
                    str(lib / "libnvidia-ml.so.1"), str(REPO / "tests/faults/fake_nvml.c")],
                   check=True, timeout=60)
    (lib / "libnvidia-ml.so").symlink_to("libnvidia-ml.so.1")
    marker = uuid.uuid4().hex
    env = dict(os.environ, EDSIG_MARKER=marker, NO_COLOR="1", HOME=str(tmp_path),
               PYTHONPATH=str(REPO), LD_LIBRARY_PATH=str(lib))
    proc = _start(["check", "--static", "--format", "json"], env, tmp_path)
    try:
        end = time.monotonic() + 60
        while not any("nvmlInit" in line for line in _marked(marker, whole=True)):
            if time.monotonic() > end or proc.poll() is not None:
                pytest.fail("the NVML child did not start")
            time.sleep(0.05)
        time.sleep(0.5)  # inside nvmlInit by now
        _signal_and_judge(proc, signal.SIGTERM, marker)
    finally:
        _reap(marker)
