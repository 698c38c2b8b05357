"""JUnit XML: one test case per check evaluated, parsed back with xml.etree."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from envdoctor import pipeline
from envdoctor.engine.findings import FAIL_ON
from envdoctor.gate import policy
from envdoctor.outputs.renderers import render

FIX = Path(__file__).parents[1] / "fixtures" / "diff"


def _report(fail_on: str = "error"):
    facts = pipeline.load_facts_file(str(FIX / "h100-driver-470.json"))
    gate = policy.parse_policy({"require": ["driver>=550", "gpus>=8", "smoke=torch"],
                                "ignore": {"ENV001": "tested elsewhere"}}, "envdoctor.toml")
    return policy.apply(pipeline.diagnose(facts, fail_on=fail_on), gate)


def test_one_case_per_check_failures_skips_and_counts():
    report = _report()
    root = ET.fromstring(render("check", "junit", report))
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    assert len(cases) == len(report.results) == int(suite.get("tests"))
    failures = [c for c in cases if c.find("failure") is not None]
    blocking = [f for f in report.findings if f.severity.rank >= FAIL_ON["error"]]
    assert sorted(c.find("failure").get("message") for c in failures) == \
        sorted(f.title for f in blocking)
    assert int(suite.get("failures")) == len(failures) == int(root.get("failures"))
    by_name = {c.get("name"): c for c in cases}
    # the driver requirement failed; smoke was never run: skipped, not passed
    assert by_name["REQ004 require-driver-550"].find("failure").get("type") == "error"
    assert by_name["REQ010 require-smoke-torch"].find("skipped") is not None
    assert by_name["REQ007 require-gpus-8"].find("failure") is None
    unknown = [r for r in report.results if r.state in ("unknown", "ignored")]
    assert int(suite.get("skipped")) == len(unknown) == \
        sum(c.find("skipped") is not None for c in cases)
    assert by_name["DRV001 driver-too-old-for-framework-cuda"].find("failure") is not None


def test_findings_below_fail_on_pass_with_output():
    strict, lax = (ET.fromstring(render("check", "junit", _report(f))).find("testsuite")
                   for f in ("warning", "never"))
    assert int(lax.get("failures")) == 0
    assert int(strict.get("failures")) >= 2
    outs = [c for c in lax.findall("testcase") if c.find("system-out") is not None]
    assert len(outs) == int(strict.get("failures"))


def test_cli_writes_junit_next_to_text(cli, tmp_path):
    out = tmp_path / "envdoctor.xml"
    proc = cli("check", "--facts", str(FIX / "h100-driver-470.json"), "--format", "text",
               "--require", "driver>=550", "--report", f"junit:{out}")
    assert proc.returncode == 1
    assert proc.stdout.startswith("envdoctor check")
    names = [c.get("name") for c in ET.parse(out).getroot().iter("testcase")]
    assert "REQ004 require-driver-550" in names
