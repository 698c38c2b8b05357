"""The one way envdoctor runs another program: an argument list, a timeout, never a shell.

Every probe goes through ``run`` so that tests can swap in recorded real outputs
(``use_runner``) and so that a hung ``nvidia-smi`` costs its timeout, not the whole report.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class CommandResult:
    """What a command did. ``error`` is set when it could not run or timed out."""

    argv: tuple[str, ...]
    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error and self.returncode == 0

    @property
    def shown(self) -> str:
        """The command as a person would type it, for ``ProbeInfo.ran``."""
        return " ".join(self.argv)


Runner = Callable[[Sequence[str], float], CommandResult]


def _real_run(argv: Sequence[str], timeout: float) -> CommandResult:
    argv = tuple(argv)
    start = time.monotonic()
    env = dict(os.environ, LC_ALL="C", LANG="C")
    try:
        proc = subprocess.Popen(
            list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL, env=env, start_new_session=os.name == "posix",
        )
    except FileNotFoundError:
        return CommandResult(argv, None, "", "", time.monotonic() - start, "not found")
    except OSError as exc:
        return CommandResult(argv, None, "", "", time.monotonic() - start,
                             f"could not run: {exc.strerror or exc}")
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_tree(proc)
        try:
            stdout, stderr = proc.communicate(timeout=1.0)
        except subprocess.TimeoutExpired:  # a grandchild escaped its session and holds the pipe
            stdout = stderr = b""
        return CommandResult(argv, None, _text(stdout), _text(stderr),
                             time.monotonic() - start, f"timed out after {timeout:g}s")
    return CommandResult(argv, proc.returncode, _text(stdout), _text(stderr),
                         time.monotonic() - start)


def _kill_tree(proc: subprocess.Popen) -> None:
    """Kill a timed-out command and everything it started (a wrapper script's children too)."""
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)  # its own session: the whole group goes
        else:
            proc.kill()
    except OSError:
        proc.kill()


def _text(data: bytes | str | None) -> str:
    if data is None:
        return ""
    if isinstance(data, str):
        return data
    return data.decode("utf-8", errors="replace")


_runner: Runner = _real_run
_which: Callable[[str], str | None] = shutil.which


def run(argv: Sequence[str], timeout: float = 5.0) -> CommandResult:
    """Run ``argv`` (a list, never a shell string) with a timeout; never raises."""
    try:
        return _runner(argv, timeout)
    except Exception as exc:  # a broken fake runner must not break a probe either
        return CommandResult(tuple(argv), None, "", "", 0.0, f"runner failed: {exc}")


def which(program: str) -> str | None:
    """Locate a program on PATH (replaceable in tests, like ``run``)."""
    return _which(program)


@contextlib.contextmanager
def use_runner(runner: Runner, which_fn: Callable[[str], str | None] | None = None
               ) -> Iterator[None]:
    """Temporarily replace how commands run (tests feed recorded real outputs this way)."""
    global _runner, _which
    old = (_runner, _which)
    _runner = runner
    if which_fn is not None:
        _which = which_fn
    try:
        yield
    finally:
        _runner, _which = old
