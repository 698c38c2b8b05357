"""Ctrl-C at a prompt on a terminal: a real pty, a real SIGINT from its line discipline.

`envdoctor explain` reading a terminal and `check --from -` wait on stdin; the engineer who
presses Ctrl-C there gets exit 130 and one line, never a traceback.
"""

from __future__ import annotations

import os
import pty
import re
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not hasattr(pty, "fork"), reason="needs a pty")


def _reading_the_terminal(pid: int) -> bool:
    """The child sleeps in a read of its terminal (Linux shows it in wchan)."""
    try:
        wchan = Path(f"/proc/{pid}/wchan").read_text()
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return stat[0] == "S" and wchan in ("n_tty_read", "wait_woken", "do_select")


def _read_all(fd: int, until: float) -> bytes:
    out = b""
    while time.monotonic() < until:
        try:
            piece = os.read(fd, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not piece:
            break
        out += piece
    return out


def _interrupt_at_prompt(args: list[str]) -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    pid, fd = pty.fork()
    if pid == 0:  # the child: envdoctor on the pty, its session's foreground
        os.chdir(REPO)
        os.execve(sys.executable, [sys.executable, "-m", "envdoctor", *args], env)
    try:
        out = b""
        end = time.monotonic() + 60
        os.set_blocking(fd, False)
        while time.monotonic() < end and not _reading_the_terminal(pid):
            try:
                out += os.read(fd, 4096)
            except BlockingIOError:
                pass
            except OSError:
                break
            time.sleep(0.05)
        assert _reading_the_terminal(pid), f"never waited on the terminal: {out!r}"
        time.sleep(0.2)
        os.write(fd, b"\x03")  # the terminal's VINTR: SIGINT to the foreground group
        os.set_blocking(fd, True)
        out += _read_all(fd, time.monotonic() + 30)
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(fd)
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except OSError:
            pass
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.decode("utf-8", "replace"))
    return os.waitstatus_to_exitcode(status), text.replace("\r", "")


@pytest.mark.parametrize("args", [["explain"], ["check", "--from", "-"]],
                         ids=["explain", "check-from-stdin"])
def test_ctrl_c_at_a_stdin_prompt_exits_130_with_one_line(args: list[str]) -> None:
    code, text = _interrupt_at_prompt(args)
    assert code == 130, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    # "^C" is the terminal echoing the key (the line is cleared before envdoctor's line)
    said = [line.replace("^C", "") for line in text.splitlines() if line.replace("^C", "").strip()]
    prompt = [line for line in said if "stdin" in line and "SIGINT" not in line]
    rest = [line for line in said if line not in prompt]
    assert rest == ["envdoctor: terminated by SIGINT"], text
