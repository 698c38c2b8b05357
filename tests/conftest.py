"""Shared test helpers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Tests send SIGHUP, SIGINT and SIGQUIT to the envdoctor they start and expect 129/130/131;
# a run under ``nohup`` or as a background job would hand those down ignored, and envdoctor
# leaves an ignored one ignored (terminate.STOP): children of the suite start with defaults.
for _name in ("SIGHUP", "SIGINT", "SIGQUIT"):
    _number = getattr(signal, _name, None)
    if _number is not None and signal.getsignal(_number) is signal.SIG_IGN:
        signal.signal(_number, signal.default_int_handler if _name == "SIGINT"
                      else signal.SIG_DFL)
DATA = Path(__file__).resolve().parent / "data"


def run_cli(*args: str, stdin: str | None = None, env: dict[str, str] | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `python -m envdoctor …` in a child process, as a user would."""
    full_env = dict(os.environ, NO_COLOR="1", **(env or {}))
    return subprocess.run([sys.executable, "-m", "envdoctor", *args], input=stdin,
                          capture_output=True, text=True, timeout=timeout, env=full_env,
                          cwd=REPO)


@pytest.fixture
def cli():
    return run_cli
