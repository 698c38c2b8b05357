"""Markdown: the step summary of `check` and the bug report of `report`."""

from __future__ import annotations

from pathlib import Path

from envdoctor import pipeline
from envdoctor.gate import policy
from envdoctor.outputs.renderers import render
from envdoctor.outputs.renderers.markdown import cell, render_bug_report

FIX = Path(__file__).parents[1] / "fixtures" / "diff"


def _report():
    facts = pipeline.load_facts_file(str(FIX / "h100-driver-470.json"))
    gate = policy.parse_policy({"require": ["driver>=550", "gpus>=8"]}, "envdoctor.toml")
    return policy.apply(pipeline.diagnose(facts), gate)


def test_cells_stay_on_one_line_and_escape_pipes():
    assert cell("a | b\nc") == "a \\| b c"
    assert cell(None) == "—"


def test_summary_has_areas_requirements_and_findings():
    report = _report()
    text = render("check", "markdown", report)
    assert text.startswith("## ❌ envdoctor check: FAIL")
    assert "| `driver>=550` | ❌ not met | driver 470.256.02 |" in text
    assert "| `gpus>=8` | ✅ met | 8 NVIDIA GPU(s) |" in text
    for f in report.findings:
        assert f"`{f.code}` {f.title}" in text
    assert text.count("| --- | --- | --- |") == 2


def test_bug_report_adds_facts_smoke_and_snapshot():
    smoke = {"torch": {"status": "failed", "device": "cuda:0", "steps": [
        {"name": "matmul", "status": "failed", "detail": "CUDA driver version is insufficient"}]}}
    facts = pipeline.load_facts_file(str(FIX / "h100-driver-470.json"))
    gate = policy.parse_policy({"require": ["driver>=550", "gpus>=8"]}, "envdoctor.toml")
    report = pipeline.build(facts, policy=gate, extra={"smoke": smoke})
    text = render_bug_report(report)
    # the count and the failed step as `check` prints them (envdoctor.live.smoke_detail)
    assert "| torch | failed | cuda:0 | 0/1 steps passed on cuda:0 (?, 0.0s); failed: matmul " \
        "(CUDA driver version is insufficient) |" in text
    assert "| GPU 7 | NVIDIA H100 80GB HBM3, cc 9.0, 81559 MiB |" in text
    assert '"driver_version": "470.256.02"' in text
