"""SARIF 2.1.0 for code-scanning dashboards (GitHub code scanning, Azure DevOps, IDEs).

One run, one rule per finding code (title, why, fix as help, first source as helpUri) and one
result per finding. A machine has no source line, so results point at the policy file when
the run used one (GitHub code scanning needs a location to show a result); otherwise they
carry a logical location, the machine. Validated against the OASIS schema in the tests.
"""

from __future__ import annotations

import json
from typing import Any

from envdoctor.engine.findings import FAIL_ON
from envdoctor.outputs.report import Report

SCHEMA = ("https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
          "sarif-schema-2.1.0.json")
INFO_URI = "https://github.com/envdoctor/envdoctor"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _policy_file(report: Report) -> str:
    source = (report.extra.get("policy") or {}).get("source") or ""
    if not source or source == "--require":
        return ""
    return source.split(" [", 1)[0]


def render(report: Report, color: bool = False) -> str:
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    results = []
    where = _policy_file(report)
    for f in report.findings:
        if f.code not in index:
            index[f.code] = len(rules)
            rule: dict[str, Any] = {
                "id": f.code, "name": "".join(w.capitalize() for w in f.id.split("-")),
                "shortDescription": {"text": f.title},
                "fullDescription": {"text": " ".join(f.why.split()) or f.title},
                "help": {"text": f.fix.strip() or f.title},
                "defaultConfiguration": {"level": LEVELS[f.severity.value]},
                "properties": {"area": f.area, "tags": [f.area or "envdoctor"]},
            }
            urls = [r for r in f.references if r.startswith(("https://", "http://"))]
            if urls:
                rule["helpUri"] = urls[0]
            rules.append(rule)
        result: dict[str, Any] = {
            "ruleId": f.code, "ruleIndex": index[f.code], "level": LEVELS[f.severity.value],
            "kind": "fail",
            "message": {"text": f.title + (f"\nFix: {f.fix.strip()}" if f.fix else "")},
            "partialFingerprints": {"envdoctor/v1": f"{f.code}:{f.id}"},
            "properties": {"evidence": f.evidence, "severity": f.severity.value,
                           "blocking": f.severity.rank >= FAIL_ON[report.fail_on]},
        }
        if where:
            result["locations"] = [{"physicalLocation": {
                "artifactLocation": {"uri": where},
                "region": {"startLine": 1}}}]
        else:
            result["locations"] = [{"logicalLocations": [
                {"name": "machine", "kind": "module",
                 "fullyQualifiedName": f"machine/{f.area or 'envdoctor'}"}]}]
        results.append(result)
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "envdoctor",
                                "version": report.facts.envdoctor_version or _version(),
                                "informationUri": INFO_URI, "rules": rules}},
            "invocations": [{"executionSuccessful": True, "exitCode": report.exit_code,
                             "properties": {"intent": report.intent,
                                            "failOn": report.fail_on}}],
            "results": results,
            "properties": {"checks": {"evaluated": len(report.results)}},
        }],
    }
    return json.dumps(log, indent=2) + "\n"


def _version() -> str:
    from envdoctor import __version__
    return __version__
