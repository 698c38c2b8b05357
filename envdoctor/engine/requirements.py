"""Requirement rules (``rules/requirements/REQ*.toml``): one per kind of ``--require``.

A requirement rule documents and proves one kind of requirement a policy may state (``gpus>=8``,
``bf16``, ``torch>=2.4``): its code, the value it takes (version specifier, number, flag or
list), title, why, fix, references and examples (a requirement text, the facts, and whether
it is met). ``envdoctor.gate.policy`` judges them; this module only loads and validates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from envdoctor.engine.loader import (
    RuleFileError,
    check_identity,
    is_url,
    load_tree_cached,
    rules_dir,
)

CODE_RE = re.compile(r"^REQ\d{3}$")
VALUES = ("version", "number", "flag", "list")
REQUIRED = ("code", "id", "kind", "value", "title", "why", "fix", "references", "examples")


@dataclass(frozen=True)
class ReqExample:
    require: str
    met: bool
    facts: dict[str, Any]


@dataclass(frozen=True)
class Requirement:
    code: str
    id: str
    kind: str                  # the key a policy uses: package, python, cuda, gpus, bf16 …
    value: str                 # version | number | flag | list
    title: str
    why: str
    fix: str
    references: tuple[str, ...]
    examples: tuple[ReqExample, ...] = ()
    path: str = ""

    @property
    def reference(self) -> str:
        return self.references[0]


def parse_requirement_rule(data: dict[str, Any], path: Path | str,
                           strict: bool = True) -> Requirement:
    """Validate one requirement file; errors name the file and the field.

    ``strict``: also check that the examples' facts name only fields of the facts model
    (skipped for files the rule cache already accepted)."""
    check_identity(data, path, REQUIRED, CODE_RE, "REQ001")
    if not isinstance(data["kind"], str) or not re.fullmatch(r"[a-z][a-z0-9_]*", data["kind"]):
        raise RuleFileError(path, "kind", f"{data['kind']!r} must be a lower-case key")
    if data["value"] not in VALUES:
        raise RuleFileError(path, "value", f"{data['value']!r} is not one of {VALUES}")
    for key in ("title", "why", "fix"):
        if not isinstance(data[key], str) or not data[key].strip():
            raise RuleFileError(path, key, "must be a non-empty string")
    refs = data["references"]
    if not isinstance(refs, list) or not refs or not all(is_url(r) for r in refs):
        raise RuleFileError(path, "references", "must be a non-empty list of URLs (sources)")
    examples = []
    for i, raw in enumerate(data["examples"] if isinstance(data["examples"], list) else []):
        if not isinstance(raw, dict) or not isinstance(raw.get("require"), str) \
                or not isinstance(raw.get("met"), bool) or not isinstance(raw.get("facts"), dict):
            raise RuleFileError(path, f"examples[{i}]",
                                "needs require = \"…\", met = true|false and a facts table")
        if strict:
            from envdoctor.engine.checks import check_example_facts
            check_example_facts(raw["facts"], path, f"examples[{i}].facts")
        examples.append(ReqExample(raw["require"], raw["met"], raw["facts"]))
    if not examples:
        raise RuleFileError(path, "examples", "needs at least one example")
    return Requirement(code=data["code"], id=data["id"], kind=data["kind"], value=data["value"],
                       title=data["title"].strip(), why=data["why"].strip(),
                       fix=data["fix"].strip(), references=tuple(refs),
                       examples=tuple(examples), path=str(path))


def load_requirements(root: Path | None = None) -> tuple[Requirement, ...]:
    """Every requirement rule under ``rules/requirements``; codes and kinds must be unique."""
    return _load(str(root or rules_dir()))


@lru_cache(maxsize=4)
def _load(root: str) -> tuple[Requirement, ...]:
    def accept(items: list[tuple[Path, dict[str, Any]]]) -> None:
        unique([parse_requirement_rule(d, p) for p, d in items])

    tree, _ = load_tree_cached("requirements", Path(root), accept)
    rules = [parse_requirement_rule(d, p, strict=False) for p, d in tree]
    unique(rules)
    return tuple(sorted(rules, key=lambda r: r.code))


def unique(rules: list[Requirement]) -> None:
    seen: dict[str, str] = {}
    for rule in rules:
        for key in (rule.code, rule.id, f"kind {rule.kind}"):
            if key in seen:
                raise RuleFileError(rule.path, "code/id/kind", f"{key} is also used by {seen[key]}")
            seen[key] = rule.path


def by_kind(root: Path | None = None) -> dict[str, Requirement]:
    return {r.kind: r for r in load_requirements(root)}
