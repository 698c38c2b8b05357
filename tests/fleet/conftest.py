"""Helpers for fleet tests: real torchrun ranks on gloo, bounded, and nothing left behind."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"



def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rank_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_", "TORCHELASTIC",
                                "SLURM_", "OMPI_", "PMI_", "GROUP_RANK", "NCCL_"))}
    env.update(OMP_NUM_THREADS="1", GLOO_SOCKET_IFNAME="lo", NO_COLOR="1",
               PYTHONPATH=str(REPO))
    env.update(extra)
    return env


class Launched:
    """A child process group (torchrun and its ranks) that is always reaped."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path):
        self.start = time.monotonic()
        self.proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, start_new_session=True)
        self.seconds = 0.0

    def wait(self, timeout: float) -> tuple[int | None, str, str]:
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            out, err = self.proc.communicate()
            self.seconds = time.monotonic() - self.start
            return None, out, err
        self.seconds = time.monotonic() - self.start
        return self.proc.returncode, out, err

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def torchrun(*args: str) -> list[str]:
    return [sys.executable, "-m", "torch.distributed.run", *args]


def envdoctor(*args: str) -> list[str]:
    return [sys.executable, "-m", "envdoctor", *args]


def leftovers(marker: str) -> list[str]:
    """Processes still alive whose command line contains ``marker`` (a unique path/id)."""
    found = []
    for p in psutil.process_iter(["pid", "cmdline"]):
        try:
            if any(marker in part for part in p.info["cmdline"] or ()):
                found.append(f"{p.info['pid']}: {' '.join(p.info['cmdline'])[:200]}")
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return found


def no_leftovers(marker: str, grace: float = 10.0) -> list[str]:
    end = time.monotonic() + grace
    while time.monotonic() < end:
        found = leftovers(marker)
        if not found:
            return []
        time.sleep(0.2)
    return leftovers(marker)
