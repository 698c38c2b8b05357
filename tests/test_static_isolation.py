"""`envdoctor check --static` imports no deep-learning framework, in its process or any child.

Fake ``torch``, ``tensorflow`` … packages on PYTHONPATH shadow the real ones (and are inherited
by every child process); importing any of them leaves a marker file. The run must leave none and
must still report torch's version, which the static probes read from dist-info and
``torch/version.py`` on disk.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import subprocess
import sys

import pytest
from conftest import REPO

FRAMEWORKS = ("torch", "tensorflow", "jax", "jaxlib", "keras", "paddle", "mindspore", "mxnet")


@pytest.fixture
def shadowed(tmp_path):
    fakes, markers = tmp_path / "fakes", tmp_path / "markers"
    markers.mkdir()
    for name in FRAMEWORKS:
        pkg = fakes / name
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text(
            f"open({str(markers / name)!r}, 'w').write(__import__('os').environ.get("
            f"'_', '?'))\n")
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(fakes))
    return env, markers


def test_fakes_do_mark_an_import(shadowed):
    """The trap works: a child that imports torch leaves a marker."""
    env, markers = shadowed
    subprocess.run([sys.executable, "-c", "import torch"], env=env, check=True, timeout=60)
    assert (markers / "torch").exists()


def test_static_check_imports_no_framework(shadowed):
    env, markers = shadowed
    proc = subprocess.run([sys.executable, "-m", "envdoctor", "check", "--static", "--format",
                           "json"], env=env, capture_output=True, text=True, timeout=120,
                          cwd=REPO)
    assert proc.returncode in (0, 1), proc.stderr
    assert sorted(p.name for p in markers.iterdir()) == []
    facts = json.loads(proc.stdout)["facts"]
    try:
        torch_version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        torch_version = None
    if torch_version is not None:
        assert facts["frameworks"]["torch"]["version"] == torch_version
        assert facts["packages"]["probe"]["status"] == "ok"
        assert "torch" in {d["name"] for d in facts["packages"]["distributions"]}


def test_importtime_lists_no_framework(shadowed):
    env, _ = shadowed
    env = {k: v for k, v in env.items() if k != "PYTHONPATH"}  # the real packages this time
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "envdoctor", "check",
                           "--static"], env=env, capture_output=True, text=True, timeout=120,
                          cwd=REPO)
    assert proc.returncode in (0, 1)
    imported = {m.group(1).split(".")[0] for m in
                re.finditer(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", proc.stderr, re.MULTILINE)}
    assert "envdoctor" in imported and "click" in imported  # the parse saw the real list
    assert imported & set(FRAMEWORKS) == set()
