"""Output targets through the real CLI: files written atomically, ``-`` is stdout, and what
cannot take a file (a FIFO, a directory, a device, a socket) is refused before the run."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from envdoctor.errors import BadInput
from envdoctor.outputs import sink

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "diff" / "h100-driver-470.json"
OTHER = REPO / "tests" / "fixtures" / "machines" / "cpu-laptop-cpu-wheels.json"


def cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "envdoctor", *args]


def envdoctor(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run(cmd(*args), capture_output=True, text=True, timeout=timeout,
                          cwd=REPO, env=env)


def test_two_runs_writing_one_file_leave_one_whole_json(tmp_path):
    """Concurrent writers: the file is always the complete JSON of one of them."""
    out = tmp_path / "check.json"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    expected = {}
    for snap in (FIXTURE, OTHER):
        proc = subprocess.run(cmd("check", "--facts", str(snap), "--format", "json"),
                              capture_output=True, text=True, timeout=120, env=env)
        expected[json.loads(proc.stdout)["facts"]["created"]] = proc.stdout
    for _ in range(3):
        procs = [subprocess.Popen(cmd("check", "--facts", str(snap), "--format", "json", "-o",
                                      str(out)), env=env, stderr=subprocess.PIPE)
                 for snap in (FIXTURE, OTHER, FIXTURE, OTHER)]
        seen = set()
        while any(p.poll() is None for p in procs):
            if out.exists():  # a reader at any moment sees a whole file
                text = out.read_text(encoding="utf-8")
                seen.add(text in expected.values())
            time.sleep(0.002)
        codes = [p.wait(timeout=120) for p in procs]
        assert codes[0] == codes[2] == 1 and codes[1] == codes[3] in (0, 1)
        assert out.read_text(encoding="utf-8") in expected.values()
        assert seen <= {True}
    assert [p.name for p in tmp_path.iterdir()] == ["check.json"]  # no temp file left


def test_report_dash_is_stdout(tmp_path):
    proc = subprocess.run(cmd("check", "--facts", str(FIXTURE), "-o", str(tmp_path / "t.txt"),
                              "--report", "json:-"), capture_output=True, text=True,
                          timeout=120, cwd=tmp_path, env={**os.environ,
                                                          "PYTHONPATH": str(REPO)})
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["facts"]["origin"] == "replay"
    assert not (tmp_path / "-").exists()
    assert (tmp_path / "t.txt").read_text().startswith("envdoctor check")


def test_two_documents_on_stdout_are_refused():
    proc = envdoctor("check", "--facts", str(FIXTURE), "--report", "json:-")
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and "stdout" in proc.stderr


def test_dash_output_is_stdout_for_every_command(tmp_path):
    for args in (("check", "--facts", str(FIXTURE), "-o", "-"),
                 ("report", "--facts", str(FIXTURE), "-o", "-"),
                 ("diff", str(FIXTURE), str(OTHER), "-o", "-"),
                 ("explain", "ETORCH001", "-o", "-")):
        proc = subprocess.run(cmd(*args), capture_output=True, text=True, timeout=120,
                              cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)})
        assert proc.returncode in (0, 1), (args, proc.stderr)
        assert proc.stdout.strip() and not (tmp_path / "-").exists(), args


def _targets(tmp_path: Path) -> dict[str, str]:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sock_path = tmp_path / "sock"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(sock_path))
    link = tmp_path / "link-to-fifo"
    link.symlink_to(fifo)
    return {"fifo": str(fifo), "dir": str(tmp_path), "device": "/dev/null",
            "socket": str(sock_path), "link": str(link)}


@pytest.mark.parametrize("what", ["fifo", "dir", "device", "socket", "link"])
def test_a_target_that_is_not_a_file_is_refused_before_the_run(tmp_path, what):
    target = _targets(tmp_path)[what]
    for args in (("check", "--facts", str(FIXTURE), "-o", target),
                 ("check", "--facts", str(FIXTURE), "--report", f"junit:{target}"),
                 ("explain", "ETORCH001", "-o", target),
                 ("report", "--facts", str(FIXTURE), "-o", target)):
        start = time.monotonic()
        proc = envdoctor(*args, timeout=30)  # a FIFO without a reader would block forever
        assert time.monotonic() - start < 30
        assert proc.returncode == 2, (args, proc.stderr)
        assert len(proc.stderr.splitlines()) == 1 and proc.stdout == "", proc.stderr
        assert proc.stderr.startswith("envdoctor: error: ") and "Traceback" not in proc.stderr
    if what == "fifo":
        assert stat.S_ISFIFO(os.stat(target).st_mode)  # left as it was


def test_missing_folder_and_read_only_file(tmp_path):
    proc = envdoctor("check", "--facts", str(FIXTURE), "-o", str(tmp_path / "no" / "x.txt"))
    assert proc.returncode == 2 and "does not exist" in proc.stderr
    if os.geteuid() != 0:
        ro = tmp_path / "ro.txt"
        ro.write_text("keep")
        ro.chmod(0o444)
        proc = envdoctor("check", "--facts", str(FIXTURE), "-o", str(ro))
        assert proc.returncode == 2 and ro.read_text() == "keep"


def test_write_is_atomic_keeps_mode_and_follows_a_link_to_a_file(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    sink.write("new \x1b]0;t\x07\n", str(link), "text")
    assert link.is_symlink() and target.read_text() == "new \\x1b]0;t\\x07\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    fresh = tmp_path / "fresh.txt"
    old = os.umask(0o027)
    try:
        sink.write("x", str(fresh), "text")
    finally:
        os.umask(old)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.txt", "link.txt", "out.txt"]


def test_a_failed_write_leaves_the_old_file_and_no_temp(tmp_path, monkeypatch):
    target = tmp_path / "out.json"
    target.write_text("{}")

    def boom(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(BadInput, match="No space left"):
        sink.write_file(str(target), "[1]")
    assert target.read_text() == "{}" and [p.name for p in tmp_path.iterdir()] == ["out.json"]
