"""Text: the summary per area, the findings, and the verdict as the last line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from envdoctor import pipeline
from envdoctor.outputs.renderers import render

FIX = Path(__file__).parents[1] / "fixtures" / "diff"


def _report():
    return pipeline.diagnose(pipeline.load_facts_file(str(FIX / "h100-driver-470.json")))


def test_verbose_lists_every_check_before_the_verdict_line():
    report = _report()
    lines = render("check", "text", report, verbose=True).rstrip("\n").splitlines()
    assert lines[-1].startswith("FAIL: ")
    listed = [ln.split()[1] for ln in lines if ln.startswith("  ") and ln.split()[0] in
              ("passed", "unknown", "fired", "superseded", "error")]
    assert listed == [r.code for r in report.results]
    assert lines.index(next(ln for ln in lines if ln.startswith("  passed"))) < len(lines) - 1


def test_without_verbose_no_check_is_listed():
    text = render("check", "text", _report())
    assert "  passed " not in text and text.rstrip("\n").splitlines()[-1].startswith("FAIL: ")


def test_check_v_ends_with_the_verdict():
    proc = subprocess.run([sys.executable, "-m", "envdoctor", "check", "--facts",
                           str(FIX / "h100-driver-470.json"), "-v"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.rstrip("\n").splitlines()
    assert lines[-1].startswith("FAIL: ") and any(ln.startswith("  passed ") for ln in lines)
