"""The report is built once, by one function, and cannot be changed afterwards."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from envdoctor import pipeline
from envdoctor.gate import policy
from envdoctor.outputs.renderers import RENDERERS, formats, renderer

MACHINES = Path(__file__).resolve().parents[1] / "fixtures" / "machines"


def _report():
    facts = pipeline.load_facts_file(str(MACHINES / "driver470-torch-cu121.json"))
    gate = policy.load(None, ("gpus>=1", "torch>=2.0"), cwd=Path("/nonexistent"))
    return pipeline.build(facts, intent="auto", policy=gate, redact=True)


def test_assigning_to_a_built_report_raises():
    report = _report()
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.findings = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        report.extra["smoke"] = {}  # type: ignore[index]
    with pytest.raises(AttributeError):
        report.areas.append(None)  # type: ignore[attr-defined]
    assert isinstance(report.results, tuple) and isinstance(report.findings, tuple)


def test_one_build_applies_rules_policy_and_redaction_in_order():
    report = _report()
    codes = {r.code: r.state for r in report.results}
    assert codes["REQ007"] == "passed" and codes["REQ001"] == "passed"
    assert "DRV001" in {f.code for f in report.findings}
    assert report.extra["policy"]["require"] == ["gpus>=1", "torch>=2.0"]
    assert report.extra["redacted"] is True
    assert report.to_dict()["policy"]["source"] == "--require"


def test_report_honours_the_policy(tmp_path):
    from tests.conftest import run_cli
    facts = MACHINES / "driver470-torch-cu121.json"
    proc = run_cli("report", "--facts", str(facts), "--format", "json", "--require", "gpus>=9")
    assert proc.returncode == 0, proc.stderr
    import json
    data = json.loads(proc.stdout)
    assert [c["state"] for c in data["checks"] if c["code"] == "REQ007"] == ["fired"]
    assert data["kind"] == "envdoctor-report"


def test_one_renderer_registry_serves_every_document():
    documents = {doc for doc, _ in RENDERERS}
    assert documents == {"check", "report", "explain", "diff"}
    assert formats("check") == ["github", "json", "junit", "markdown", "nhc", "npd", "prometheus",
                                "sarif", "text"]
    for key in RENDERERS:
        assert callable(renderer(*key))
