"""Start the framework workers in parallel, each under a timeout, and collect what they said.

Every worker is an argument list (never a shell) started by ``envdoctor.children`` in its own
session, so a timeout or a terminating signal kills it and anything it started
(torch.compile's compiler workers). The parent only
reads bytes here; ``envdoctor.live.parse`` turns them into facts. Tests substitute the command
with ``use_worker_command`` to inject segfaults, hangs and garbage.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from envdoctor import children
from envdoctor.workers import WORKERS

DEFAULT_TIMEOUT = 120.0
PACKAGE_DIR = str(Path(__file__).resolve().parents[1])   # .../envdoctor
# Loads envdoctor from PACKAGE_DIR without putting anything on sys.path, then runs the worker
# as ``python -m`` would: the worker imports exactly what the user's interpreter imports (the
# user's PYTHONPATH and site-packages, in their order), and nothing of envdoctor's location
# can shadow the user's torch.
BOOT = (
    "import importlib.util as u, runpy, sys\n"
    "pkg, mod = sys.argv[1], sys.argv[2]\n"
    "spec = u.spec_from_file_location('envdoctor', pkg + '/__init__.py',"
    " submodule_search_locations=[pkg])\n"
    "m = u.module_from_spec(spec); sys.modules['envdoctor'] = m; spec.loader.exec_module(m)\n"
    "sys.argv = [mod] + sys.argv[3:]\n"
    "runpy.run_module(mod, run_name='__main__', alter_sys=True)\n"
)


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


class CommandFactory(Protocol):
    """``factory(name, args) -> argv``: how the worker for framework ``name`` is started with
    the worker's own ``args``; tests start a recorded or broken worker instead."""

    def __call__(self, name: str, args: Sequence[str], /) -> Sequence[str]: ...


def default_command(name: str, args: Sequence[str]) -> Sequence[str]:
    return [sys.executable, "-c", BOOT, PACKAGE_DIR, WORKERS[name], *args]


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
    """The environment of a worker: the user's own (PYTHONPATH untouched), quiet logs, no
    whole-GPU grabs, and this run's mark so a timeout finds every descendant."""
    env = dict(os.environ if base is None else base)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")            # keep warnings (why no GPU), no INFO
    env.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX: not 75 % of GPU memory
    env.setdefault("TF_FORCE_GPU_ALLOW_GROWTH", "true")     # TF: grow, do not preallocate
    env.setdefault("PYTHONUNBUFFERED", "1")
    env.setdefault("KMP_WARNINGS", "0")
    env["PYTHONWARNINGS"] = env.get("PYTHONWARNINGS") or "ignore"
    env[children.MARK_VAR] = children.run_mark()
    return env


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """The worker, its process group and every marked descendant (one that left the group)."""
    children.kill_tree(proc)


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")


@contextlib.contextmanager
def _scratch(name: str) -> Iterator[str]:
    """A scratch folder as the worker's cwd (what it writes goes away with it); with no usable
    temp dir, the root folder, so a missing /tmp cannot turn into an internal error."""
    try:
        tmp = tempfile.TemporaryDirectory(prefix=f"envdoctor-{name}-")
    except OSError:
        yield os.path.abspath(os.sep)
        return
    with tmp as cwd:
        yield cwd


def run_one(name: str, args: Sequence[str], timeout: float,
            on_done: Callable[[WorkerRun], None] | None = None) -> WorkerRun:
    """Run one worker to completion or timeout; never raises."""
    argv = tuple(_command(name, args))
    start = time.monotonic()
    with _scratch(name) as cwd:
        try:
            proc = children.spawn(argv, env=worker_env(), cwd=cwd)
        except (OSError, ValueError) as exc:
            why = str(exc) if isinstance(exc, children.NotStarted) else \
                f"could not start: {getattr(exc, 'strerror', None) or exc}"
            run = WorkerRun(name, argv, None, "", "", time.monotonic() - start, error=why)
            if on_done:
                on_done(run)
            return run
        from envdoctor import runner
        timed_out = False
        try:  # bounded: stdout capped, only the tail of a long stderr kept
            out, err, error = runner.collect_output(proc, start + timeout, stderr_tail=True)
            if error:
                timed_out = "timed out" in error
                _kill(proc)
                if not timed_out:
                    err += f"\nenvdoctor: the worker {error}\n".encode()
            else:
                proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # closed its output but did not exit
            timed_out = True
            _kill(proc)
        finally:
            if proc.poll() is None:
                _kill(proc)
            children.release(proc)
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
