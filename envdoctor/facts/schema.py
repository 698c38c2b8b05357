"""The published JSON Schema of a facts snapshot, derived from the dataclasses in facts.py.

One source of truth: the schema is generated from the types, never written by hand, and
``tests/facts/test_schema.py`` fails when the committed ``schema/facts.schema.json`` is stale.
Regenerate after changing facts.py::

    python -m envdoctor.facts.schema            # writes schema/facts.schema.json

An installed copy finds the file inside the wheel (``envdoctor/_schema``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from envdoctor.facts import SCHEMA_VERSION, Facts
from envdoctor.facts.serialize import json_schema

SCHEMA_ID = f"https://github.com/envdoctor/envdoctor/schema/facts-v{SCHEMA_VERSION}.schema.json"
FILE_NAME = "facts.schema.json"
_PACKAGE = Path(__file__).resolve().parents[1]  # envdoctor/


def build() -> dict[str, Any]:
    """The schema as a dict (draft 2020-12)."""
    defs: dict[str, Any] = {}
    root = json_schema(Facts, defs)
    facts = defs["Facts"]
    facts["properties"]["schema_version"] = {"const": SCHEMA_VERSION,
                                             "description": "bumped on incompatible changes"}
    facts["required"] = ["schema_version"]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "envdoctor facts snapshot",
        "description": ("One machine as envdoctor's probes saw it (`envdoctor facts`). Every "
                        "section carries `probe` with its status: ok, not_found, error, skipped "
                        "or unknown. Generated from envdoctor/facts/; do not edit."),
        **root,
        "$defs": dict(sorted(defs.items())),
    }


def render() -> str:
    return json.dumps(build(), indent=2, ensure_ascii=False) + "\n"


def source_path() -> Path:
    """``schema/facts.schema.json`` in a source checkout."""
    return _PACKAGE.parent / "schema" / FILE_NAME


def installed_path() -> Path | None:
    """Where the published schema is: inside the wheel, else in the source checkout."""
    for path in (_PACKAGE / "_schema" / FILE_NAME, source_path()):
        if path.is_file():
            return path
    return None


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0].startswith("-"):  # "--help" is a request, not a file to write
        from envdoctor.outputs.sink import write as say
        say("usage: python -m envdoctor.facts.schema [OUTPUT.json]  (default: "
            "schema/facts.schema.json)\n", None, "terminal")
        return 0 if args[0] in ("-h", "--help") else 2
    target = Path(args[0]) if args else source_path()
    from envdoctor.outputs.sink import write
    target.parent.mkdir(parents=True, exist_ok=True)
    write(render(), str(target), "json")
    write(f"wrote {target}\n", None, "terminal")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
