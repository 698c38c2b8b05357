"""The JSON Schemas of the rule files (``rules/schemas``) and the small validator that applies
them in ``rules test`` (no runtime dependency).

One schema per kind of rule (``check``, ``signature``, ``requirement``) and one per matrix
(``matrices/<name>.schema.json``). The validator implements the subset of JSON Schema the
files use: ``type``, ``required``, ``properties``, ``additionalProperties``, ``items``,
``enum``, ``const``, ``pattern``, ``minItems``, ``minLength``, ``anyOf`` and ``$ref`` into
``$defs``; tests check it against the reference implementation (``jsonschema``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,),
    "integer": (int,), "number": (int, float), "null": (type(None),),
}


def schema_path(kind: str, name: str = "", root: Path | None = None) -> Path:
    from envdoctor.rulefiles import rules_dir
    base = (root or rules_dir()) / "schemas"
    return base / "matrices" / f"{name}.schema.json" if kind == "matrix" else \
        base / f"{kind}.schema.json"


@lru_cache(maxsize=32)
def load_schema(path: str) -> dict[str, Any] | None:
    from envdoctor.bounded import decode_json, read_file
    try:
        value = decode_json(read_file(path, "a JSON schema", 4 << 20), "a JSON schema")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def problems(data: Any, schema: dict[str, Any]) -> list[str]:
    """What in ``data`` breaks ``schema``, as ``"<path>: message"`` lines (empty: valid)."""
    out: list[str] = []
    _check(data, schema, schema, "$", out)
    return out


def _type_ok(value: Any, want: str | list[str]) -> bool:
    names = [want] if isinstance(want, str) else want
    for name in names:
        types = _TYPES[name]
        if isinstance(value, bool) and name in ("integer", "number"):
            continue
        if isinstance(value, types):
            return True
    return False


def _check(value: Any, schema: dict[str, Any], root: dict[str, Any], where: str,
           out: list[str]) -> None:
    if "$ref" in schema:
        ref = schema["$ref"]
        target = root.get("$defs", {}).get(ref.rsplit("/", 1)[-1]) if ref.startswith("#/") \
            else None
        if target is not None:
            _check(value, target, root, where, out)
        return
    if "anyOf" in schema:
        if not any(not problems_under(value, s, root) for s in schema["anyOf"]):
            out.append(f"{where}: matches none of the allowed shapes")
        return
    if "type" in schema and not _type_ok(value, schema["type"]):
        out.append(f"{where}: expected {schema['type']}, got {type(value).__name__}")
        return
    if "const" in schema and value != schema["const"]:
        out.append(f"{where}: must be {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{where}: {value!r} is not one of {schema['enum']}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            out.append(f"{where}: must not be empty")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            out.append(f"{where}: {value!r} does not match {schema['pattern']}")
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            out.append(f"{where}: needs at least {schema['minItems']} item(s)")
        if "items" in schema:
            for i, item in enumerate(value):
                _check(item, schema["items"], root, f"{where}[{i}]", out)
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                out.append(f"{where}: {key} is required")
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                _check(item, props[key], root, f"{where}.{key}", out)
            elif extra is False:
                out.append(f"{where}: unknown key {key!r}")
            elif isinstance(extra, dict):
                _check(item, extra, root, f"{where}.{key}", out)


def problems_under(value: Any, schema: dict[str, Any], root: dict[str, Any]) -> list[str]:
    out: list[str] = []
    _check(value, schema, root, "$", out)
    return out


def _schemas_near(file: Path) -> Path | None:
    """The ``schemas`` folder of the rules tree ``file`` belongs to, else the configured one."""
    for parent in file.resolve().parents:
        if (parent / "schemas").is_dir() and parent.name != "schemas":
            return parent / "schemas"
    from envdoctor.rulefiles import rules_dir
    folder = rules_dir() / "schemas"
    return folder if folder.is_dir() else None


def file_problems(file: Path, data: Any, kind: str) -> list[str]:
    """Schema problems of one rule file (kind: check, signature, requirement or matrix);
    a file with no schema to check against (a new matrix) has none."""
    folder = _schemas_near(file)
    if folder is None:
        return []
    path = folder / "matrices" / f"{file.stem}.schema.json" if kind == "matrix" else \
        folder / f"{kind}.schema.json"
    schema = load_schema(str(path))
    return [f"schema: {p}" for p in problems(data, schema)] if schema is not None else []
