"""SARIF 2.1.0 output, validated against the OASIS schema vendored in tests/data/sarif."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from envdoctor import pipeline
from envdoctor.gate import policy
from envdoctor.outputs.renderers import render

FIX = Path(__file__).parents[1] / "fixtures" / "diff"
SCHEMA = json.loads((Path(__file__).parents[1] / "data" / "sarif" / "sarif-schema-2.1.0.json")
                    .read_text(encoding="utf-8"))


def _validate(log: dict) -> None:
    jsonschema.Draft4Validator(SCHEMA).validate(log)


def test_schema_rejects_a_broken_log():
    """The validator is live: a log without `runs` or with a bad level fails."""
    with pytest.raises(jsonschema.ValidationError):
        _validate({"version": "2.1.0"})
    with pytest.raises(jsonschema.ValidationError):
        _validate({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}},
                                                  "results": [{"message": {"text": "m"},
                                                               "level": "fatal"}]}]})


@pytest.mark.parametrize("source", ["envdoctor.toml", "--require"])
def test_sarif_validates_and_carries_every_finding(source):
    facts = pipeline.load_facts_file(str(FIX / "h100-driver-470.json"))
    gate = policy.parse_policy({"require": ["driver>=550", "smoke=torch"]}, source)
    report = policy.apply(pipeline.diagnose(facts), gate)
    log = json.loads(render("check", "sarif", report))
    _validate(log)
    run = log["runs"][0]
    assert [r["ruleId"] for r in run["results"]] == [f.code for f in report.findings]
    rules = run["tool"]["driver"]["rules"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels["REQ004"] == "error" and levels["REQ010"] == "warning"
    location = run["results"][0]["locations"][0]
    if source == "envdoctor.toml":
        assert location["physicalLocation"]["artifactLocation"]["uri"] == "envdoctor.toml"
    else:
        assert "physicalLocation" not in location
    assert run["invocations"][0]["exitCode"] == report.exit_code == 1


def test_sarif_of_this_machine_validates(cli, tmp_path):
    out = tmp_path / "out.sarif"
    proc = cli("check", "--static", "--report", f"sarif:{out}", "--require", "gpus>=0")
    assert proc.returncode in (0, 1), proc.stderr
    _validate(json.loads(out.read_text()))
