"""Wall time of one child process, exactly.

``subprocess.run(..., timeout=T)`` waits by polling with a sleep that doubles up to 50 ms, so
a 0.13 s command is timed as ~0.16 s (the next poll after it exits) while a 1.5 s one is off by
a few per cent only: a ratio between them would be skewed. Here the wait blocks in ``waitpid``
and returns when the child exits; a timer kills the child's process group if it runs past
``limit`` (the benchmark then fails, it never hangs).
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence


def run_timed(argv: Sequence[str], env: Mapping[str, str] | None = None,
              cwd: str | os.PathLike[str] | None = None, limit: float = 600.0) -> tuple[float, int]:
    """(seconds, exit status) of ``argv``, its output discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(list(argv), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, env=dict(env) if env is not None else None,
                            cwd=cwd, start_new_session=True)
    killer = threading.Timer(limit, _kill_group, (proc.pid,))
    killer.start()
    try:
        code = proc.wait()  # no timeout: a blocking waitpid, woken when the child exits
    finally:
        killer.cancel()
    seconds = time.perf_counter() - start
    if seconds >= limit:
        raise SystemExit(f"{' '.join(argv)} ran past {limit:g} s and was killed")
    return seconds, code


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
