"""Start the framework workers in parallel, each under a timeout, and collect what they said.

Every worker is ``subprocess.Popen`` of an argument list (never a shell) in its own session, so
a timeout kills it and anything it started (torch.compile's compiler workers). The parent only
reads bytes here; ``envdoctor.live.parse`` turns them into facts. Tests substitute the command
with ``use_worker_command`` to inject segfaults, hangs and garbage.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from envdoctor.workers import WORKERS

DEFAULT_TIMEOUT = 120.0
REPO_ROOT = str(Path(__file__).resolve().parents[2])


@dataclass(frozen=True)
class WorkerRun:
    """The raw outcome of one worker process."""

    name: str
    argv: tuple[str, ...]
    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    error: str = ""          # could not start


CommandFactory = Callable[[str, Sequence[str]], Sequence[str]]


def default_command(name: str, args: Sequence[str]) -> Sequence[str]:
    return [sys.executable, "-m", WORKERS[name], *args]


_command: CommandFactory = default_command


@contextlib.contextmanager
def use_worker_command(factory: CommandFactory) -> Iterator[None]:
    """Test hook: build each worker's argv with ``factory(name, args)`` instead."""
    global _command
    old, _command = _command, factory
    try:
        yield
    finally:
        _command = old


def worker_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a worker: quiet logs, no whole-GPU grabs, envdoctor importable."""
    env = dict(os.environ if base is None else base)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")            # keep warnings (why no GPU), no INFO
    env.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX: not 75 % of GPU memory
    env.setdefault("TF_FORCE_GPU_ALLOW_GROWTH", "true")     # TF: grow, do not preallocate
    env.setdefault("PYTHONUNBUFFERED", "1")
    env.setdefault("KMP_WARNINGS", "0")
    env["PYTHONWARNINGS"] = env.get("PYTHONWARNINGS") or "ignore"
    path = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = REPO_ROOT + (os.pathsep + path if path else "")
    return env


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError, OSError):
        with contextlib.suppress(OSError):
            proc.kill()


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")


def run_one(name: str, args: Sequence[str], timeout: float,
            on_done: Callable[[WorkerRun], None] | None = None) -> WorkerRun:
    """Run one worker to completion or timeout; never raises."""
    argv = tuple(_command(name, args))
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"envdoctor-{name}-") as cwd:
        try:
            proc = subprocess.Popen(
                list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, env=worker_env(), cwd=cwd,
                start_new_session=os.name == "posix")
        except OSError as exc:
            run = WorkerRun(name, argv, None, "", "", time.monotonic() - start,
                            error=f"could not start: {exc.strerror or exc}")
            if on_done:
                on_done(run)
            return run
        timed_out = False
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill(proc)
            try:
                out, err = proc.communicate(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover - a process that ignores KILL
                out, err = b"", b""
        finally:
            if proc.poll() is None:
                _kill(proc)
        run = WorkerRun(name, argv, proc.returncode, _text(out), _text(err),
                        round(time.monotonic() - start, 3), timed_out)
    if on_done:
        on_done(run)
    return run


def run_all(names: Sequence[str], args: Sequence[str], timeout: float = DEFAULT_TIMEOUT,
            on_start: Callable[[str], None] | None = None,
            on_done: Callable[[WorkerRun], None] | None = None) -> dict[str, WorkerRun]:
    """Run the workers concurrently (one thread each waits on its process)."""
    results: dict[str, WorkerRun] = {}
    threads = []
    for name in names:
        if on_start:
            on_start(name)

        def target(n: str = name) -> None:
            results[n] = run_one(n, args, timeout, on_done)

        thread = threading.Thread(target=target, name=f"worker-{name}", daemon=True)
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join(timeout + 15)
    for name in names:  # a thread that never returned: report it, do not wait
        results.setdefault(name, WorkerRun(name, (), None, "", "", timeout, True,
                                           "worker thread did not return"))
    return {n: results[n] for n in names}
