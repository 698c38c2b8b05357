"""Fleet rules: drift between nodes and odd ones out, as data in ``rules/fleet/*.toml``.

A rule has the metadata of every check (code, id, severity, title, why, fix, references,
examples that must fire and must not) and, instead of a ``when`` expression over one machine,
an ``aspect`` (see ``aspects``) and a ``kind`` that says how the fleet's values are judged:

* ``drift``     the known values differ: the subjects off the majority value are named, with
                what the majority has. A map aspect (packages, variables) drifts per key.
* ``duplicate`` one value held by two or more subjects (a GPU UUID on two ranks).
* ``outlier``   a number below ``below`` × the fleet median (matmul TFLOP/s, bus bandwidth).
* ``predicate`` each value on its own: ``op`` and ``value`` (``>``, ``>=``, ``<``, ``<=``,
                ``==``, ``!=``, ``true``, ``nonempty``); a map is judged entry by entry.

``scope`` is ``node`` or ``rank``. Titles may use {label}, {key}, {odd}, {odd_values},
{majority}, {count}, {median}, {below}. Unknown values (None) are never judged.

Examples give the aspect's values directly, one per subject, e.g.
``values = ["550.54.15", "550.54.15", "535.104.05"]``; ``names`` (optional) the subjects a
firing example must name.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envdoctor.engine.findings import Finding, Severity
from envdoctor.engine.loader import RuleFileError, check_identity, is_url, load_tree_cached
from envdoctor.fleet import aspects

KINDS = ("drift", "duplicate", "outlier", "predicate")
OPS = (">", ">=", "<", "<=", "==", "!=", "true", "nonempty")
CODE_RE = re.compile(r"^FLEET\d{3}$")
REQUIRED = ("code", "id", "severity", "title", "kind", "scope", "aspect", "why", "fix",
            "references", "examples")
MAX_NAMED = 12  # subjects written out in a title; the evidence has them all


@dataclass(frozen=True)
class Subject:
    """One node or rank with its value of the rule's aspect."""

    name: str           # node name, or "rank N"
    node: str           # the node it is on
    value: Any
    rank: int | None = None


@dataclass(frozen=True)
class FleetRule:
    code: str
    id: str
    severity: str
    title: str
    kind: str
    scope: str
    aspect: str
    why: str
    fix: str
    references: tuple[str, ...]
    op: str = ""
    value: Any = None
    below: float = 0.0
    examples: tuple[dict[str, Any], ...] = ()
    path: str = ""


@dataclass
class Verdict:
    """What a rule made of the fleet: findings, and the subjects it judged / named."""

    findings: list[Finding] = field(default_factory=list)
    judged: set[str] = field(default_factory=set)     # nodes with a known value
    named: dict[str, Finding] = field(default_factory=dict)  # node -> the finding naming it


# ---------------------------------------------------------------------------- loading
def parse_rule(data: dict[str, Any], path: str) -> FleetRule:
    check_identity(data, path, REQUIRED, CODE_RE, "FLEET001")
    if data["severity"] not in ("error", "warning", "info"):
        raise RuleFileError(path, "severity", "must be error, warning or info")
    if data["kind"] not in KINDS:
        raise RuleFileError(path, "kind", f"{data['kind']!r} is not one of {KINDS}")
    if data["scope"] not in ("node", "rank"):
        raise RuleFileError(path, "scope", "must be node or rank")
    table = aspects.NODE if data["scope"] == "node" else aspects.RANK
    if data["aspect"] not in table:
        raise RuleFileError(path, "aspect", f"{data['aspect']!r} is not a {data['scope']} "
                            f"aspect; known: {', '.join(sorted(table))}")
    for key in ("title", "why", "fix"):
        if not isinstance(data[key], str) or not data[key].strip():
            raise RuleFileError(path, key, "must be a non-empty string")
    refs = data["references"]
    if not isinstance(refs, list) or not refs or not all(is_url(r) for r in refs):
        raise RuleFileError(path, "references", "must be a non-empty list of URLs (sources)")
    op = data.get("op", "")
    if data["kind"] == "predicate" and op not in OPS:
        raise RuleFileError(path, "op", f"{op!r} is not one of {OPS}")
    below = data.get("below", 0.0)
    if data["kind"] == "outlier" and not (isinstance(below, (int, float)) and 0 < below < 1):
        raise RuleFileError(path, "below", "an outlier rule needs 0 < below < 1")
    examples = data["examples"]
    if not isinstance(examples, list) or not all(
            isinstance(e, dict) and isinstance(e.get("fires"), bool)
            and isinstance(e.get("values"), list) for e in examples):
        raise RuleFileError(path, "examples", "each needs `fires = true|false` and `values`")
    if not any(e["fires"] for e in examples) or all(e["fires"] for e in examples):
        raise RuleFileError(path, "examples",
                            "needs at least one example that fires and one that does not")
    return FleetRule(code=data["code"], id=data["id"], severity=data["severity"],
                     title=data["title"].strip(), kind=data["kind"], scope=data["scope"],
                     aspect=data["aspect"], why=data["why"].strip(), fix=data["fix"].strip(),
                     references=tuple(refs), op=op, value=data.get("value"),
                     below=float(below or 0.0), examples=tuple(examples), path=path)


def load_rules(root: Path | None = None) -> list[FleetRule]:
    """Every rule under ``rules/fleet``, through the one rule loader and its cache (as checks,
    signatures and requirements); duplicate codes or ids are an error."""
    def accept(items: list[tuple[Path, dict[str, Any]]]) -> None:
        unique([parse_rule(data, str(path)) for path, data in items])

    tree, _ = load_tree_cached("fleet", root, accept)
    rules = [parse_rule(data, str(path)) for path, data in tree]
    unique(rules)
    return sorted(rules, key=lambda r: r.code)


def unique(rules: list[FleetRule]) -> None:
    seen: dict[str, str] = {}
    for rule in rules:
        for key in (rule.code, rule.id):
            if key in seen:
                raise RuleFileError(rule.path, "code/id", f"{key} is also used by {seen[key]}")
            seen[key] = rule.path


# ---------------------------------------------------------------------------- judging
def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool))


def _show(value: Any) -> str:
    if value is None:
        return "unknown"
    if value == "":
        return "(empty)"
    return str(value)


def _names(items: list[str]) -> str:
    shown = ", ".join(items[:MAX_NAMED])
    return shown + (f" and {len(items) - MAX_NAMED} more" if len(items) > MAX_NAMED else "")


def _who(subjects: list[Subject]) -> str:
    """Node names; for ranks, grouped by node: ``host-2#1 (ranks 8, 9)``."""
    if all(s.rank is None for s in subjects):
        return _names([s.name for s in subjects])
    by_node: dict[str, list[int]] = {}
    for s in subjects:
        by_node.setdefault(s.node, []).append(s.rank if s.rank is not None else -1)
    parts = [f"{node or 'no known node'} ({'rank' if len(r) == 1 else 'ranks'} "
             f"{_names([str(x) for x in r])})" for node, r in by_node.items()]
    return _names(parts)


def _majority(counts: Counter[str], order: list[str]) -> tuple[str, bool]:
    """The most common value; ties go to the value seen first. Second: is it a strict majority
    of the top counts (False when two values are tied)."""
    top = max(counts.values())
    leaders = [v for v in dict.fromkeys(order) if counts[v] == top]
    return leaders[0], len(leaders) == 1


def _pass(rule: FleetRule, op: str, value: Any, ref: Any) -> bool | None:
    """True when ``value`` matches the predicate (that is, the rule fires)."""
    if value is None:
        return None
    if op == "true":
        return value is True
    if op == "nonempty":
        return bool(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not isinstance(ref, (int, float)):
        if op in ("==", "!="):
            return (str(value) == str(ref)) == (op == "==")
        return None
    return {">": value > ref, ">=": value >= ref, "<": value < ref, "<=": value <= ref,
            "==": value == ref, "!=": value != ref}[op]


def _finding(rule: FleetRule, fields: dict[str, Any], evidence: dict[str, Any]) -> Finding:
    def fill(text: str) -> str:
        return re.sub(r"\{([a-z_]+)\}", lambda m: _show(fields[m.group(1)])
                      if m.group(1) in fields else m.group(0), text)
    return Finding(code=rule.code, id=rule.id, severity=Severity(rule.severity),
                   title=fill(rule.title), why=fill(rule.why), fix=fill(rule.fix),
                   references=rule.references, evidence=evidence, area="fleet")


def _place(subjects: list[Subject]) -> dict[str, Any]:
    """Who is named: nodes, and ranks where the subjects are ranks."""
    out: dict[str, Any] = {"nodes": list(dict.fromkeys(s.node for s in subjects if s.node))}
    ranks = [s.rank for s in subjects if s.rank is not None]
    if ranks:
        out["ranks"] = ranks
    return out


def judge(rule: FleetRule, subjects: list[Subject]) -> Verdict:
    """Apply one rule to the subjects' values (unknowns are left out)."""
    verdict = Verdict()
    label = aspects.label(rule.aspect)
    known = [s for s in subjects if s.value is not None]
    verdict.judged = {s.node for s in known}
    if not known:
        return verdict
    maps = [s for s in known if isinstance(s.value, dict)]
    if maps:  # one judgement per key; a key a subject lacks is "(unset)" for drift
        keys = sorted({k for s in maps for k in s.value})
        for key in keys:
            flat = [Subject(s.name, s.node, s.value.get(key, "(unset)" if rule.kind == "drift"
                                                         else None), s.rank) for s in maps]
            _judge_flat(rule, flat, label, key, verdict)
        return verdict
    _judge_flat(rule, [s for s in known if _scalar(s.value)], label, "", verdict)
    return verdict


def _judge_flat(rule: FleetRule, subjects: list[Subject], label: str, key: str,
                verdict: Verdict) -> None:
    subjects = [s for s in subjects if s.value is not None]
    if not subjects:
        return
    fields: dict[str, Any] = {"label": label, "key": key, "below": rule.below}
    odd: list[Subject] = []
    evidence: dict[str, Any] = {"aspect": rule.aspect, "scope": rule.scope}
    if key:
        evidence["key"] = key
    if rule.kind == "drift":
        values = [_show(s.value) for s in subjects]
        counts = Counter(values)
        if len(counts) < 2:
            return
        majority, strict = _majority(counts, values)
        odd = [s for s, v in zip(subjects, values, strict=True) if v != majority]
        groups: dict[str, list[Subject]] = {}
        for s, v in zip(subjects, values, strict=True):
            if v != majority:
                groups.setdefault(v, []).append(s)
        fields.update(majority=majority if strict else f"{majority} (no clear majority)",
                      count=f"{counts[majority]} of {len(subjects)}",
                      odd_values="; ".join(f"{v} on {_who(g)}" for v, g in groups.items()))
        evidence.update(majority=majority, majority_count=counts[majority],
                        clear_majority=strict, total=len(subjects),
                        odd=[{"value": v, **_place(g), "subjects": [s.name for s in g]}
                             for v, g in groups.items()])
    elif rule.kind == "duplicate":
        holders: dict[str, list[Subject]] = {}
        for s in subjects:
            holders.setdefault(_show(s.value), []).append(s)
        dups = {v: g for v, g in holders.items() if len(g) > 1}
        if not dups:
            return
        odd = [s for g in dups.values() for s in g]
        fields.update(odd_values="; ".join(f"{v} on {_who(g)}" for v, g in dups.items()))
        evidence["duplicates"] = [{"value": v, **_place(g), "subjects": [s.name for s in g]}
                                  for v, g in dups.items()]
    elif rule.kind == "outlier":
        numbers = [s for s in subjects if isinstance(s.value, (int, float))
                   and not isinstance(s.value, bool)]
        if len(numbers) < 3:  # a median of two says nothing about which one is slow
            return
        median = statistics.median(s.value for s in numbers)
        odd = [s for s in numbers if s.value < rule.below * median]
        fields.update(median=f"{median:.3g}",
                      odd_values="; ".join(f"{_who([s])} {s.value:.3g}" for s in odd))
        evidence.update(median=median, below=rule.below,
                        odd=[{"subject": s.name, "node": s.node, "value": s.value,
                              **({"rank": s.rank} if s.rank is not None else {})} for s in odd])
    else:  # predicate
        odd = [s for s in subjects if _pass(rule, rule.op, s.value, rule.value)]
        groups = {}
        for s in odd:
            groups.setdefault(_show(s.value), []).append(s)
        fields.update(odd_values="; ".join(f"{v} on {_who(g)}" for v, g in groups.items()),
                      value=rule.value)
        evidence["values"] = [{"subject": s.name, "node": s.node, "value": s.value,
                               **({"rank": s.rank} if s.rank is not None else {})} for s in odd]
    if not odd:
        return
    place = _place(odd)
    fields["odd"] = _who(odd)
    evidence.update(place)
    finding = _finding(rule, fields, evidence)
    verdict.findings.append(finding)
    for node in place["nodes"]:
        verdict.named.setdefault(node, finding)


# ---------------------------------------------------------------------------- examples
def example_subjects(rule: FleetRule, example: dict[str, Any]) -> list[Subject]:
    values = example["values"]
    if rule.scope == "rank":
        return [Subject(f"rank {i}", f"node-{i // 2 + 1}", v, i) for i, v in enumerate(values)]
    return [Subject(f"node-{i + 1}", f"node-{i + 1}", v) for i, v in enumerate(values)]


def run_examples(rule: FleetRule) -> list[str]:
    """A rule's own examples; returns what went wrong (empty = all good)."""
    problems = []
    for i, example in enumerate(rule.examples):
        label = f"{rule.path}: examples[{i}]"
        verdict = judge(rule, example_subjects(rule, example))
        if bool(verdict.findings) != example["fires"]:
            problems.append(f"{label}: expected to {'fire' if example['fires'] else 'not fire'}")
            continue
        want = example.get("names")
        if want and verdict.findings:
            named = {n for f in verdict.findings for n in
                     [*f.evidence.get("nodes", ()), *(f"rank {r}" for r in
                                                      f.evidence.get("ranks", ()))]}
            missing = [n for n in want if n not in named]
            if missing:
                problems.append(f"{label}: does not name {missing} (named {sorted(named)})")
    return problems
