"""envdoctor's own output pasted back: ``check --format json``, ``facts``, or a Markdown
report that embeds the JSON (in a fenced block or ``<details>``).

The snapshot is complete, so it is taken as it is (origin "report"); a JSON object is found
by trying to decode at every ``{`` that starts a line, so surrounding prose does not matter.
"""

from __future__ import annotations

from dataclasses import replace

from envdoctor.facts import Facts, FactsError

NAME = "envdoctor"


def find_facts(text: str) -> Facts | None:
    """The first envdoctor snapshot (or whole JSON report) in the text, else None."""
    if '"schema_version"' not in text:
        return None
    from envdoctor.bounded import json_at  # depth, number and NaN limits
    pos = 0
    while True:
        start = text.find("{", pos)
        if start < 0:
            return None
        line_start = text.rfind("\n", 0, start) + 1
        pos = start + 1
        if text[line_start:start].strip():
            continue
        try:
            data, _ = json_at(text, start)
        except ValueError:
            continue
        if not isinstance(data, dict) or ("facts" not in data and "host" not in data):
            continue
        try:
            facts = Facts.from_dict(data)
        except (FactsError, TypeError, ValueError, KeyError, AttributeError):
            continue
        return replace(facts, origin="report")
