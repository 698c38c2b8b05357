"""Held-out pasted ROCm collect_env reports (tests/heldout/rocm_reports/*.txt, source and label
in the first lines) through `check --from FILE --expect gpu`: healthy ones get no error or
warning and exit 0; broken ones exit 1 with a finding."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "rocm_reports"
REPORTS = sorted(HERE.glob("*.txt"))


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: p.stem)
def test_rocm_report(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# source: https://") and lines[1].startswith("# label: ")
    healthy = lines[1].startswith("# label: healthy")
    done = subprocess.run([sys.executable, "-m", "envdoctor", "check", "--from", str(path),
                           "--expect", "gpu", "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    loud = [(f["code"], f["severity"]) for f in json.loads(done.stdout)["findings"]
            if f["severity"] in ("error", "warning")]
    if healthy:
        assert loud == [] and done.returncode == 0
    else:
        assert any(sev == "error" for _, sev in loud) and done.returncode == 1, loud


def test_the_set_has_both_kinds():
    labels = [p.read_text(encoding="utf-8").splitlines()[1] for p in REPORTS]
    assert sum("healthy" in x for x in labels) >= 2 and sum("broken" in x for x in labels) >= 2
