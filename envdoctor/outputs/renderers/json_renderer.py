"""The public JSON contract (see README.md, "JSON output")."""

from __future__ import annotations

import json

from envdoctor.outputs.report import Report


def render(report: Report, color: bool = False) -> str:
    return json.dumps(report.to_dict(), indent=2) + "\n"


def render_bug_report(report: Report, color: bool = False) -> str:
    """`envdoctor report --format json`: the check JSON, marked as a report."""
    return json.dumps({**report.to_dict(), "kind": "envdoctor-report"}, indent=2) + "\n"
