"""Shared test helpers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
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
