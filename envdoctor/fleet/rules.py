"""Fleet rules: drift between nodes and odd ones out, as data in ``rules/fleet/*.toml``.

A rule has the metadata of every check (code, id, severity, title, why, fix, references,
examples that must fire and must not) and, instead of a ``when`` expression over one machine,
an ``aspect`` (see ``aspects``) and a ``kind`` that says how the fleet's values are judged:

* ``drift``     the known values differ: the subjects off the majority value are named, with
                what the majority has; a majority is more than half of the subjects, and
                without one every subject is named with its value (two nodes that disagree
                are told so, neither is "the majority"). Given what the site expects (a
                baseline node's value), every subject off it is named, even a majority.
                A map aspect (packages, variables) drifts per key; a key some subjects lack
                is "(unset)" there, so a variable set on 3 of 200 nodes is drift.
* ``duplicate`` one value held by two or more subjects (a GPU UUID on two ranks).
* ``outlier``   a number below ``below`` × the fleet median (matmul TFLOP/s, bus bandwidth).
* ``predicate`` each value on its own: ``op`` and ``value`` (``>``, ``>=``, ``<``, ``<=``,
                ``==``, ``!=``, ``true``, ``nonempty``); a map is judged entry by entry.

``scope`` is ``node`` or ``rank``. Titles may use {label}, {key}, {odd} (a compressed host
list), {odd_values}, {verdict} (drift: the values with their nodes, then what the majority or
the baseline has, or that there is no majority), {expected} (drift: the value to converge
on), {majority}, {count}, {median}, {below}. Unknown values (None) are never judged.

Examples give the aspect's values directly, one per subject, e.g.
``values = ["550.54.15", "550.54.15", "535.104.05"]``; ``names`` (optional) the subjects a
firing example must name.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envdoctor.engine.findings import Finding, Severity
from envdoctor.fleet import aspects, hostlist
from envdoctor.rulefiles import RuleFileError, check_identity, is_url, load_tree_cached

KINDS = ("drift", "duplicate", "outlier", "predicate")
OPS = (">", ">=", "<", "<=", "==", "!=", "true", "nonempty")
CODE_RE = re.compile(r"^FLEET\d{3}$")
REQUIRED = ("code", "id", "severity", "title", "kind", "scope", "aspect", "why", "fix",
            "references", "examples")
MAX_NAMED = 12  # ranks written out in a title; the evidence has them all
MAX_RANGES = 6  # host-list ranges written out in a title (``gpu[001-040,043]`` is two)
MAX_VALUES = 4  # distinct values written out in a title, each with its nodes


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
    """Node names as a compressed host list (``gpu[001-040,043]``), cut short for big sets."""
    return hostlist.compress(items, MAX_RANGES)


def _who(subjects: list[Subject]) -> str:
    """Node names; for ranks, grouped by node: ``host-2#1 (ranks 8, 9)``."""
    if all(s.rank is None for s in subjects):
        return _names([s.name for s in subjects])
    by_node: dict[str, list[int]] = {}
    for s in subjects:
        by_node.setdefault(s.node, []).append(s.rank if s.rank is not None else -1)
    parts = [f"{node or 'no known node'} ({'rank' if len(r) == 1 else 'ranks'} "
             f"{_rank_list(r)})" for node, r in by_node.items()]
    shown = ", ".join(parts[:MAX_RANGES])
    return shown + (f" and {len(parts) - MAX_RANGES} more nodes" if len(parts) > MAX_RANGES
                    else "")


def _rank_list(ranks: list[int]) -> str:
    shown = ", ".join(str(x) for x in ranks[:MAX_NAMED])
    return shown + (f" and {len(ranks) - MAX_NAMED} more" if len(ranks) > MAX_NAMED else "")


def _listing(groups: dict[str, list[Subject]]) -> str:
    """``v1 on A; v2 on B`` for the first MAX_VALUES values, then how many more."""
    items = list(groups.items())
    text = "; ".join(f"{v} on {_who(g)}" for v, g in items[:MAX_VALUES])
    if len(items) > MAX_VALUES:
        rest = sum(len(g) for _, g in items[MAX_VALUES:])
        text += f"; and {len(items) - MAX_VALUES} more values on {rest} more"
    return text


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


def _subject_names(subjects: list[Subject]) -> dict[str, Any]:
    """Rank subjects by name ("rank 3"); node subjects are their nodes, already listed."""
    if all(s.rank is None and s.name == s.node for s in subjects):
        return {}
    return {"subjects": [s.name for s in subjects]}


class _Unset:
    """No expectation given (no baseline): the fleet's values are judged among themselves."""


NO_BASELINE: Any = _Unset()


def judge(rule: FleetRule, subjects: list[Subject], expected: Any = NO_BASELINE) -> Verdict:
    """Apply one rule to the subjects' values (unknowns are left out). ``expected`` is what
    the site expects (a baseline node's value of the aspect): a drift rule then names every
    subject that differs from it, however many share its value; None (the baseline does not
    know it) judges the values among themselves.

    Subjects that hold one value object (the nodes of a compared group) are judged as one:
    the cost grows with the distinct values, not with the nodes."""
    verdict = Verdict()
    label = aspects.label(rule.aspect)
    known = [s for s in subjects if s.value is not None]
    verdict.judged = {s.node for s in known}
    if not known:
        return verdict
    maps = [s for s in known if isinstance(s.value, dict)]
    if maps:  # one judgement per key; a key a subject lacks is "(unset)" for drift
        classes = _classes(maps)
        order = {id(s): i for i, s in enumerate(maps)}
        keys = sorted({k for c in classes for k in c[0].value})
        if isinstance(expected, dict):
            keys = sorted({*keys, *expected})
        missing = "(unset)" if rule.kind == "drift" else None
        for key in keys:
            want = NO_BASELINE if not isinstance(expected, dict) else \
                expected.get(key, missing)
            _judge_flat(rule, _by_value(classes, lambda v: v.get(key, missing), order), label,
                        key, verdict, want)
        return verdict
    scalars = [s for s in known if _scalar(s.value)]
    order = {id(s): i for i, s in enumerate(scalars)}
    _judge_flat(rule, _by_value(_classes(scalars), lambda v: v, order), label, "", verdict,
                expected if _scalar(expected) or expected is NO_BASELINE else None)
    return verdict


def _classes(subjects: list[Subject]) -> list[list[Subject]]:
    """Subjects that hold one value object (a compared group's nodes), in order."""
    by_object: dict[int, list[Subject]] = {}
    for s in subjects:
        by_object.setdefault(id(s.value), []).append(s)
    return list(by_object.values())


def _by_value(classes: list[list[Subject]], value_of: Any, order: dict[int, int]
              ) -> dict[str, tuple[Any, list[Subject]]]:
    """Shown value -> (the value, its subjects in their given order: ``order`` maps id() to
    place), values in order of first appearance; unknowns left out. One look-up per class,
    not per subject."""
    parts: dict[str, tuple[Any, list[list[Subject]]]] = {}
    for members in classes:
        value = value_of(members[0].value)
        if value is None:
            continue
        shown = _show(value)
        entry = parts.get(shown)
        if entry is None:
            entry = parts[shown] = (value, [])
        entry[1].append(members)
    out: dict[str, tuple[Any, list[Subject]]] = {}
    for shown, (value, lists) in parts.items():
        if len(lists) == 1:
            out[shown] = (value, list(lists[0]))
            continue
        merged = [s for c in lists for s in c]
        merged.sort(key=lambda s: order[id(s)])
        out[shown] = (value, merged)
    return out


def _judge_flat(rule: FleetRule, values: dict[str, tuple[Any, list[Subject]]], label: str,
                key: str, verdict: Verdict, expected: Any = NO_BASELINE) -> None:
    if not values:
        return
    fields: dict[str, Any] = {"label": label, "key": key, "below": rule.below}
    odd: list[Subject] = []
    evidence: dict[str, Any] = {"aspect": rule.aspect, "scope": rule.scope}
    if key:
        evidence["key"] = key
    groups = {v: members for v, (_, members) in values.items()}
    total = sum(len(g) for g in groups.values())
    if rule.kind == "drift":
        if expected is not NO_BASELINE and expected is not None:
            want = _show(expected)
            off = {v: g for v, g in groups.items() if v != want}
            if not off:
                return
            odd = [s for g in off.values() for s in g]
            on = len(groups.get(want, ()))
            listing = _listing(off)
            fields.update(
                majority=want, expected=want, count=f"{on} of {total}", odd_values=listing,
                verdict=f"{listing}; the baseline has {want} ({on} of {total} match it)")
            evidence.update(expected=want, baseline=True, matching=on, total=total,
                            odd=[{"value": v, **_place(g), **_subject_names(g)}
                                 for v, g in off.items()])
        else:
            if len(groups) < 2:
                return
            top = max(groups, key=lambda v: len(groups[v]))
            strict = 2 * len(groups[top]) > total
            if strict:
                off = {v: g for v, g in groups.items() if v != top}
                listing = _listing(off)
                verdict_text = f"{listing}; the majority ({len(groups[top])} of {total}) " \
                    f"has {top}"
                expected_text = top
            else:  # no value on more than half: every subject is named with its value
                off = dict(sorted(groups.items(), key=lambda item: -len(item[1])))
                listing = _listing(off)
                verdict_text = f"no clear majority, the values disagree: {listing}"
                expected_text = "one version (the nodes disagree, none is on more than " \
                    "half: choose which)"
            odd = [s for g in off.values() for s in g]
            fields.update(majority=top if strict else f"{top} (no clear majority)",
                          count=f"{len(groups[top])} of {total}", odd_values=listing,
                          verdict=verdict_text, expected=expected_text)
            evidence.update(majority=top if strict else None,
                            majority_count=len(groups[top]), clear_majority=strict,
                            total=total,
                            odd=[{"value": v, **_place(g), **_subject_names(g)}
                                 for v, g in off.items()])
    elif rule.kind == "duplicate":
        dups = {v: g for v, g in groups.items() if len(g) > 1}
        if not dups:
            return
        odd = [s for g in dups.values() for s in g]
        fields.update(odd_values=_listing(dups))
        evidence["duplicates"] = [{"value": v, **_place(g), **_subject_names(g)}
                                  for v, g in dups.items()]
    elif rule.kind == "outlier":
        numbers = [(value, members) for value, members in values.values()
                   if isinstance(value, (int, float)) and not isinstance(value, bool)]
        if sum(len(m) for _, m in numbers) < 3:  # a median of two says nothing
            return
        median = statistics.median(v for v, m in numbers for _ in m)
        odd = sorted((s for v, m in numbers if v < rule.below * median for s in m),
                     key=lambda s: s.rank if s.rank is not None else -1)
        fields.update(median=f"{median:.3g}",
                      odd_values="; ".join(f"{_who([s])} {s.value:.3g}"
                                           for s in odd[:MAX_NAMED]))
        evidence.update(median=median, below=rule.below,
                        odd=[{"subject": s.name, "node": s.node, "value": s.value,
                              **({"rank": s.rank} if s.rank is not None else {})} for s in odd])
    else:  # predicate
        hit = {v: g for v, (value, g) in values.items() if _pass(rule, rule.op, value,
                                                                    rule.value)}
        odd = [s for g in hit.values() for s in g]
        fields.update(odd_values=_listing(hit), value=rule.value)
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
