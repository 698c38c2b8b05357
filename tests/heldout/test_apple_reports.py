"""Pasted collect_env reports from Macs (tests/heldout/apple_reports/, source URL on line 1)
through `check --from FILE --expect gpu`: the Mac's facts come from the report's OS, Python
platform and CPU lines; a Mac gets no NVIDIA or CUDA advice; a broken one is named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
REPORTS = Path(__file__).parent / "apple_reports"
# file -> check ids that must fire as errors ([] = healthy: no error or warning)
EXPECT = {
    "r01-torch210-macos13.7.4-m2max.txt": ["apple-macos-too-old-for-mps"],
    "r02-torch113-macos12.2.1.txt": ["apple-macos-too-old-for-mps"],
    "r03-torch21-macos13.3-healthy.txt": [],
}


def test_every_report_has_an_expectation_and_a_source():
    assert sorted(p.name for p in REPORTS.glob("*.txt")) == sorted(EXPECT)
    for p in REPORTS.glob("*.txt"):
        assert p.read_text().startswith("# source: https://"), p.name


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_apple_report(name):
    done = subprocess.run([sys.executable, "-m", "envdoctor", "check", "--from",
                           str(REPORTS / name), "--format", "json", "--expect", "gpu"],
                          capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    found = json.loads(done.stdout)["findings"]
    loud = [(f["id"], f["severity"]) for f in found if f["severity"] in ("error", "warning")]
    want = EXPECT[name]
    if not want:
        assert loud == [] and done.returncode == 0
        return
    assert all((w, "error") in loud for w in want), loud
    assert done.returncode == 1
    for f in found:
        text = f"{f['title']} {f.get('fix', '')}"
        assert "NVIDIA driver" not in text and "+cu1" not in text, (f["code"], text)
