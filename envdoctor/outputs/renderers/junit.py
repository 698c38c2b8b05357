"""JUnit XML for CI test tabs: one test case per check evaluated.

A finding at or above ``--fail-on`` is a ``<failure>``; a finding below it passes with the
finding in ``<system-out>``; a check whose facts were unavailable, or that the policy ignores,
is ``<skipped>``; a check that could not be evaluated is an ``<error>``. Built with
xml.etree, so every attribute and text is escaped.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from envdoctor.engine.findings import FAIL_ON, Finding
from envdoctor.outputs.report import Report
from envdoctor.outputs.sanitise import visible


def _clean(text: str) -> str:
    """XML 1.0 forbids most control characters, lone surrogates and U+FFFE/U+FFFF, even
    escaped: they are spelled out (``\\x1b``), like every unsafe character (the xml sink
    does the same to the whole document)."""
    return visible(text)


def _body(f: Finding) -> str:
    parts = [f.title, "", f.why.strip()]
    if f.fix:
        parts += ["", "fix: " + f.fix.strip()]
    parts += [f"see: {r}" for r in f.references]
    return _clean("\n".join(parts).strip())


def _area(code: str, finding: Finding | None) -> str:
    if finding is not None and finding.area:
        return finding.area
    from envdoctor.engine.checks import area_of_family
    prefix = re.match(r"[A-Z]+", code)
    return area_of_family(prefix.group(0), "checks") if prefix else "checks"


def render(report: Report, color: bool = False) -> str:
    threshold = FAIL_ON[report.fail_on]
    suite = ET.Element("testsuite", name="envdoctor")
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}

    def case(code: str, name: str, finding: Finding | None) -> ET.Element:
        counts["tests"] += 1
        return ET.SubElement(suite, "testcase", classname=f"envdoctor.{_area(code, finding)}",
                             name=_clean(f"{code} {name}"))

    def judge(tc: ET.Element, f: Finding) -> None:
        if f.severity.rank >= threshold:
            counts["failures"] += 1
            node = ET.SubElement(tc, "failure", message=_clean(f.title), type=f.severity.value)
            node.text = _body(f)
        else:
            ET.SubElement(tc, "system-out").text = f"{f.severity.value}: " + _body(f)

    seen: set[int] = set()
    for r in report.results:
        tc = case(r.code, r.id, r.finding)
        if r.finding is not None:
            seen.add(id(r.finding))
        if r.state == "error":
            counts["errors"] += 1
            ET.SubElement(tc, "error", message=_clean(r.detail or "evaluation failed"),
                          type="check-error")
        elif r.state in ("unknown", "ignored", "n/a"):
            counts["skipped"] += 1
            message = r.detail or "facts unavailable"
            if r.finding is not None:
                message = r.finding.title
            ET.SubElement(tc, "skipped", message=_clean(message))
        elif r.state == "fired" and r.finding is not None:
            judge(tc, r.finding)
    # findings added outside the rule engine (smoke, live probes) get a case of their own
    for f in report.findings:
        if id(f) not in seen:
            judge(case(f.code, f.id, f), f)

    for key, value in counts.items():
        suite.set(key, str(value))
    root = ET.Element("testsuites", name="envdoctor", tests=str(counts["tests"]),
                      failures=str(counts["failures"]), errors=str(counts["errors"]),
                      skipped=str(counts["skipped"]))
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") \
        + "\n"
