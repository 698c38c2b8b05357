"""A reader that leaves early (`envdoctor … | head -1`) changes nothing but the output.

Every command keeps the exit code it has with a reader that stays (its verdict, else 0) and
prints nothing on stderr; under `set -o pipefail` a closed pipe must not fail CI, and for
`rules test` exit 1 would mean "a rule has a problem". The deterministic case gives the
command a pipe whose read end is already closed, so its very first write meets EPIPE; the
`| head -1` case is the shell pipeline itself.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

COMMANDS = [
    ["rules", "list"],
    ["rules", "test"],
    ["rules", "show", "TORCH001"],
    ["--help"],
    ["check", "--help"],
    ["--version"],
    ["check", "--static"],
    ["check", "--static", "-v"],
    ["check", "--static", "--format", "json"],
    ["check", "--static", "--expect", "gpu"],
    ["check", "--static", "--format", "github"],
    ["facts"],
    ["explain", "-"],
    ["explain", "ETORCH001"],
]
OOM = "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total)\n"


def _env(tmp_path: Path) -> dict[str, str]:
    return dict(os.environ, NO_COLOR="1", HOME=str(tmp_path), PYTHONPATH=str(REPO))


def _run(args: list[str], tmp_path: Path, stdout: int, stdin: str = OOM * 50
         ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "envdoctor", *args], input=stdin.encode(),
                          stdout=stdout, stderr=subprocess.PIPE, env=_env(tmp_path),
                          cwd=tmp_path, timeout=120)


def _closed_pipe() -> int:
    read, write = os.pipe()
    os.close(read)
    return write


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_a_reader_that_left_keeps_the_exit_code_and_stderr_quiet(tmp_path, args):
    kept = _run(args, tmp_path, subprocess.DEVNULL)
    write = _closed_pipe()
    try:
        left = _run(args, tmp_path, write)
    finally:
        os.close(write)
    assert kept.returncode in (0, 1), kept.stderr[-2000:]
    assert left.returncode == kept.returncode, left.stderr[-2000:]
    assert left.stderr == b"" == kept.stderr


def test_rules_test_that_finds_a_problem_stays_exit_1_when_the_reader_left(tmp_path):
    root = tmp_path / "rules"
    shutil.copytree(REPO / "rules", root)
    path = root / "signatures" / "torch" / "ETORCH001.toml"
    text = path.read_text()
    line = next(x for x in text.splitlines() if x.startswith("patterns = "))
    path.write_text(text.replace(line, "patterns = ['no such error text xyzzy']"))
    write = _closed_pipe()
    try:
        left = _run(["rules", "test", str(root)], tmp_path, write)
    finally:
        os.close(write)
    assert left.returncode == 1 and left.stderr == b"", left.stderr[-2000:]


@pytest.mark.parametrize("command", [
    "rules list", "rules test", "--help", "check --static -v", "explain < tb.txt",
])
def test_head_minus_one_under_pipefail(tmp_path, command):
    if shutil.which("bash") is None or shutil.which("head") is None:
        pytest.skip("needs bash and head")
    (tmp_path / "tb.txt").write_text(OOM * 2000)
    line = f'"{sys.executable}" -m envdoctor {command} | head -1 >/dev/null'
    done = subprocess.run(["bash", "-o", "pipefail", "-c", line], env=_env(tmp_path),
                          cwd=tmp_path, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr == b""
