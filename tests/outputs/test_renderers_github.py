"""GitHub workflow annotations: escaping, severities, and the default under Actions."""

from __future__ import annotations

from pathlib import Path

from envdoctor import pipeline
from envdoctor.gate import policy
from envdoctor.outputs.renderers import render
from envdoctor.outputs.renderers.github import escape_data, escape_property

FIX = Path(__file__).parents[1] / "fixtures" / "diff"


def test_escaping_follows_the_actions_toolkit():
    assert escape_data("50%\r\nnext") == "50%25%0D%0Anext"
    assert escape_property("a: b, c") == "a%3A b%2C c"


def test_one_annotation_per_finding_then_folded_text():
    facts = pipeline.load_facts_file(str(FIX / "h100-driver-470.json"))
    gate = policy.parse_policy({"require": ["driver>=550", "smoke=torch"]}, "envdoctor.toml")
    report = policy.apply(pipeline.diagnose(facts), gate)
    lines = render("check", "github", report).splitlines()
    notes = [ln for ln in lines if ln.startswith(("::error ", "::warning ", "::notice "))]
    assert len(notes) == len(report.findings)
    req = next(ln for ln in notes if "REQ004" in ln)
    assert req.startswith("::error file=envdoctor.toml,title=REQ004 Requirement driver>=550")
    assert "\n" not in req and "%0Afix%3A" not in req and "%0Afix: " in req
    assert any(ln.startswith("::warning ") and "REQ010" in ln for ln in notes)
    assert lines.index("::group::envdoctor report") < lines.index("::endgroup::")
    assert lines[-1].startswith("envdoctor: FAIL")


def test_github_is_the_default_format_under_actions(cli):
    fixture = str(FIX / "h100-driver-470.json")
    under = cli("check", "--facts", fixture, env={"GITHUB_ACTIONS": "true"})
    plain = cli("check", "--facts", fixture, env={"GITHUB_ACTIONS": ""})
    assert under.stdout.startswith("::error ")
    assert plain.stdout.startswith("envdoctor check")
    explicit = cli("check", "--facts", fixture, "--format", "text",
                   env={"GITHUB_ACTIONS": "true"})
    assert explicit.stdout == plain.stdout
