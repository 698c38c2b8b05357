"""A signature's ``[lookup]``: the text a named group of its pattern matched, looked up in a
table of ``rules/matrices``, decides whether the hit names a cause and fills the answer.

    patterns = ["No module named '(?P<module>[A-Za-z_]\\w{0,60})'"]

    [lookup]
    group = "module"      # a named group of every pattern
    table = "imports"     # a table of TABLES
    part = "whole"        # how the matched text must sit in the table (the table's modes)
    notes = ["`{module}` is provided by {dist}."]   # optional

A hit whose matched text the table does not hold (a project's own module, a private part of a
package) names nothing: it is dropped, and a signature left with no hit is no diagnosis. The
first hit that holds fills the ``{placeholders}`` of the title, why and fix: the pattern's
named groups (empty when a group did not take part) and the row's fields. A note is added only
when every placeholder it names has a value (``{row_note}``: the row's own note, when it has
one). Placeholder names are checked when the rules load; other braces in the text are left as
they are.

Data flows one way: the table is read through the engine (``engine.knowledge.imports``), and
nothing here is read back by it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from envdoctor.rulefiles import RuleFileError

# A scanned hit (envdoctor.explain.scan.Hit) and a signature (envdoctor.explain.signatures
# .Signature): the signature loader checks this module's tables, so neither is imported here.
Hit = Any
Signature = Any

_PLACEHOLDER = re.compile(r"\{([a-z_]{1,40})\}")
MAX_NOTES = 4
KEYS = {"group", "table", "part", "notes"}


def _imports(name: str, part: str) -> dict[str, str] | None:
    from envdoctor.engine.knowledge.imports import import_lookup
    return import_lookup(name, part)


# table -> (its look-up, the modes ``part`` may name, the fields a row gives)
TABLES: dict[str, tuple[Callable[[str, str], dict[str, str] | None], tuple[str, ...],
                        tuple[str, ...]]] = {
    "imports": (_imports, ("whole", "below", "within"),
                ("import", "dist", "install", "upgrade", "also", "row_note", "below")),
}


def check_lookup(raw: object, patterns: Sequence[str], texts: dict[str, str],
                 path: Path | str) -> None:
    """Validate a ``[lookup]`` table against the signature's patterns and texts: a known
    table and mode, a named group every pattern has, and only placeholders that will have a
    value (a group of the patterns or a field of the table) in ``texts`` and the notes."""
    fld = "lookup"
    if not isinstance(raw, dict):
        raise RuleFileError(path, fld, "must be a table")
    extra = set(raw) - KEYS
    if extra:
        raise RuleFileError(path, fld, f"unknown key(s) {sorted(extra)}; allowed: {sorted(KEYS)}")
    table = raw.get("table")
    if table not in TABLES:
        raise RuleFileError(path, f"{fld}.table", f"must be one of {sorted(TABLES)}")
    _, modes, fields = TABLES[table]
    if raw.get("part", modes[0]) not in modes:
        raise RuleFileError(path, f"{fld}.part", f"must be one of {list(modes)}")
    group = raw.get("group")
    if not isinstance(group, str) or not group:
        raise RuleFileError(path, f"{fld}.group", "must name a group of the patterns")
    groups: set[str] = set()
    for source in patterns:
        names = set(re.compile(source).groupindex)
        if group not in names:
            raise RuleFileError(path, f"{fld}.group",
                                f"pattern {source!r} has no group (?P<{group}>...)")
        groups |= names
    notes = raw.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) and n.strip() for n in notes) \
            or len(notes) > MAX_NOTES:
        raise RuleFileError(path, f"{fld}.notes",
                            f"must be a list of at most {MAX_NOTES} non-empty strings")
    known = groups | set(fields)
    for key, text in [*texts.items(), *((f"{fld}.notes", n) for n in notes)]:
        unknown = sorted(set(_PLACEHOLDER.findall(text)) - known)
        if unknown:
            raise RuleFileError(path, key, f"unknown placeholder(s) {unknown}; known: "
                                           f"{sorted(known)}")


def _values(sig: Signature, hit: Hit, lookup: dict[str, Any]) -> dict[str, str] | None:
    """The values of the first pattern of ``sig`` whose group, on the hit's line, the table
    holds, or None."""
    find, _, _ = TABLES[lookup["table"]]
    part, group = lookup.get("part", TABLES[lookup["table"]][1][0]), lookup["group"]
    for pat in sig.patterns:
        for m in pat.regex.finditer(hit.text):
            name = m.group(group)
            row = find(name, part) if name else None
            if row is not None:
                return {**row, **{k: v or "" for k, v in m.groupdict().items()}}
    return None


def fill(text: str, values: dict[str, str]) -> str:
    """``text`` with the placeholders ``values`` has filled (others are left as written)."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def read_hits(sig: Signature, hits: list[Hit]
              ) -> tuple[list[Hit], dict[str, str], tuple[str, ...]]:
    """(the hits whose matched text the table holds, the values of the first of them, the
    notes they fill). ``sig`` has a ``[lookup]``."""
    lookup = sig.extra["lookup"]
    kept: list[Hit] = []
    first: dict[str, str] = {}
    seen: list[str] = []
    for hit in sorted(hits, key=lambda h: h.line):
        values = _values(sig, hit, lookup)
        if values is None:
            continue
        kept.append(hit)
        first = first or values
        name = values.get(lookup["group"], "")
        if name and name not in seen:
            seen.append(name)
    if not kept:
        return [], {}, ()
    notes = []
    for template in lookup.get("notes", ()):
        names = set(_PLACEHOLDER.findall(template))
        if all(first.get(n) for n in names):
            notes.append(fill(template, first).strip())
    if len(seen) > 1:
        notes.append("The text names more than one: " + ", ".join(f"`{s}`" for s in seen) + ".")
    return kept, first, tuple(notes)
