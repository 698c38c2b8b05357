"""The one way envdoctor runs another program: an argument list, a timeout, never a shell.

Every probe goes through ``run`` so that tests can swap in recorded real outputs
(``use_runner``) and so that a hung ``nvidia-smi`` costs its timeout, not the whole report.
Output is bounded (``MAX_OUTPUT`` bytes per stream, lines capped at ``bounded.MAX_LINE``), and
every command is started and tracked by ``envdoctor.children`` until it ends: a deadline,
envdoctor's exit or a terminating signal kills its process group and every descendant carrying
this run's mark (``MARK_VAR``).
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
from typing import Protocol

from envdoctor import children


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


class Runner(Protocol):
    """How a command runs: ``runner(argv, timeout) -> CommandResult``, never raising for a
    command that fails; tests swap in recorded real outputs (``use_runner``)."""

    def __call__(self, argv: Sequence[str], timeout: float, /) -> CommandResult: ...


MAX_OUTPUT = 4 << 20   # bytes kept per stream; a tool that prints more is stopped
LINGER = 0.5           # seconds a command's pipes may stay open once it has exited


def _real_run(argv: Sequence[str], timeout: float) -> CommandResult:
    argv = tuple(argv)
    start = time.monotonic()
    env = dict(os.environ, LC_ALL="C", LANG="C")
    try:
        proc = children.spawn(argv, env=env)
    except children.NotStarted as exc:
        return CommandResult(argv, None, "", "", 0.0, str(exc))
    except FileNotFoundError:
        return CommandResult(argv, None, "", "", time.monotonic() - start, "not found")
    except (OSError, ValueError) as exc:
        return CommandResult(argv, None, "", "", time.monotonic() - start,
                             f"could not run: {getattr(exc, 'strerror', None) or exc}")
    try:
        out, err, error = collect_output(proc, start + timeout)
        if error:
            kill_tree(proc)
            error = error.replace("{timeout}", f"{timeout:g}s")
        returncode = proc.wait(timeout=2.0) if not error else None
    except subprocess.TimeoutExpired:
        kill_tree(proc)
        returncode, error = None, f"did not exit after closing its output ({timeout:g}s)"
    finally:
        if proc.poll() is None:
            kill_tree(proc)
        children.release(proc)
    if returncode is not None and returncode < 0:
        error = f"killed by {_signal_name(-returncode)}"
    return CommandResult(argv, returncode, _text(out), _text(err),
                         time.monotonic() - start, error)


def collect_output(proc: subprocess.Popen[bytes], deadline: float, stderr_tail: bool = False
                   ) -> tuple[bytes, bytes, str]:
    """Read both pipes until EOF, the deadline or ``MAX_OUTPUT`` bytes on one of them.

    Returns (stdout, stderr, error); ``error`` is "" when the command closed its output in
    time. A command that prints without end is stopped at the cap, not read into memory.
    With ``stderr_tail`` (framework workers, whose logs may be long) stderr is never a reason
    to stop: only its last ``MAX_OUTPUT`` bytes are kept. A command that has exited while a
    process it started still holds its pipes open (``tool & exit 0``) has said all it will:
    its output is complete ``LINGER`` seconds after its exit, and what it left is killed
    (``children.kill_tree``: its group and its command mark), not waited on to the deadline.
    """
    import selectors

    pipe_out, pipe_err = proc.stdout, proc.stderr
    if pipe_out is None or pipe_err is None:
        raise ValueError("collect_output reads a process started with stdout and stderr pipes")
    bufs: dict[object, bytearray] = {pipe_out: bytearray(), pipe_err: bytearray()}
    sel = selectors.DefaultSelector()
    for f in (pipe_out, pipe_err):
        sel.register(f, selectors.EVENT_READ)
    error = ""
    exited_at: float | None = None
    try:
        while sel.get_map():
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at >= LINGER:
                children.kill_tree(proc)  # the holders of its pipes; the command is gone
                break
            left = deadline - now
            if left <= 0:
                error = "timed out after {timeout}"
                break
            wait = min(left, 1.0 if exited_at is None else 0.1)
            for key, _ in sel.select(wait):
                piece = os.read(key.fd, 1 << 16)
                if not piece:
                    sel.unregister(key.fileobj)
                    continue
                buf = bufs[key.fileobj]
                if stderr_tail and key.fileobj is proc.stderr:
                    buf += piece
                    if len(buf) > 2 * MAX_OUTPUT:
                        del buf[:-MAX_OUTPUT]
                    continue
                buf += piece[: MAX_OUTPUT - len(buf)]
                if len(buf) >= MAX_OUTPUT:
                    error = f"printed more than {MAX_OUTPUT >> 20} MB (stopped)"
                    break
            if error:
                break
    finally:
        sel.close()
        pipe_out.close()
        pipe_err.close()
    err = bufs[pipe_err]
    return bytes(bufs[pipe_out]), bytes(err[-MAX_OUTPUT:] if stderr_tail else err), error


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


# ------------------------------------------------------------------ no process left behind
# Every child belongs to ``envdoctor.children``; these names stay for the probes that use them.
MARK_VAR = children.MARK_VAR
_live = children._live
run_mark = children.run_mark
kill_owned_by = children.kill_owned_by
kill_all = children.kill_all
kill_tree = children.kill_tree


def _text(data: bytes | str | None) -> str:
    """Decoded output, every line and run capped (``bounded``), ``\\n`` (and ``\\r``) its only
    line breaks (``bounded.one_break``), ready for a regex."""
    from envdoctor.bounded import cap_lines, defuse, one_break
    if data is None:
        return ""
    if isinstance(data, bytes):
        data = data.decode("utf-8", errors="replace")
    return one_break(defuse(cap_lines(data)))


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
