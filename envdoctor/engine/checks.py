"""The rule engine: load checks from ``rules/checks``, evaluate them on facts, run their examples.

A check file (TOML) holds one check and its proof, side by side::

    code = "TORCH001"            # stable, never reused; family prefix = area
    id = "torch-cpu-build-on-gpu-host"
    severity = "warning"         # or a table by intent: {auto = "info", gpu = "error", cpu = "off"}
    title = "PyTorch {torch} is a CPU-only build on a machine with {gpus} NVIDIA GPU(s)"
    when = "nvidia.gpu_count > 0 and torch is not None and torch.cuda is None"
    evidence = { torch = "torch.version", gpus = "nvidia.gpu_count" }
    why = "..."; fix = "..."; references = ["https://..."]
    [[examples]]                 # at least one that fires and one that does not
    fires = true
    facts = { nvidia = {...}, frameworks = {...} }

``{name}`` in title/why/fix is filled from the evidence. Adding a check touches no code.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from packaging.version import Version

from envdoctor.engine import expr
from envdoctor.engine.findings import CheckResult, Finding, Severity
from envdoctor.engine.views import View
from envdoctor.engine.vocabulary import known_names as vocabulary_names
from envdoctor.engine.vocabulary import names_for
from envdoctor.facts import SECTIONS, Facts, FactsError
from envdoctor.rulefiles import RuleFileError, check_identity, is_url, load_tree_cached

INTENTS = ("auto", "gpu", "cpu")
SEVERITIES = ("error", "warning", "info", "off")
CODE_RE = re.compile(r"^[A-Z]{2,8}\d{3}$")
REQUIRED = ("code", "id", "severity", "title", "when", "why", "fix", "references", "examples")


def area_of_family(prefix: str, default: str | None = None) -> str:
    """The area of a check family (rules/areas.toml ``[family]``), else ``default`` (the
    family in lower case)."""
    from envdoctor.rulefiles import load_file_cached
    areas = load_file_cached("areas").get("family", {})
    return areas.get(prefix, prefix.lower() if default is None else default)


@dataclass(frozen=True)
class Example:
    fires: bool
    facts: dict[str, Any]
    intent: str = "auto"
    name: str = ""
    severity: str = ""   # optional: the severity a firing example must get


@dataclass(frozen=True)
class Check:
    code: str
    id: str
    severity: dict[str, str]      # by intent
    title: str
    when: ast.Expression
    when_source: str
    why: str
    fix: str
    references: tuple[str, ...]
    # compiled, or (from the rule cache) the source, compiled when the check fires
    evidence: dict[str, ast.Expression | str] = field(default_factory=dict)
    area: str = ""
    examples: tuple[Example, ...] = ()
    path: str = ""
    # Optional: an expression that says whether the matrix cells behind a finding are
    # confirmed. When it is not True (False, None or UNKNOWN), an error is reported as a
    # warning: a fact we could not confirm never yields an error on its own.
    confirmed: ast.Expression | None = None
    # Codes whose findings this check replaces when it fires: one cause, one finding, with
    # the most specific fix (a failed NVIDIA probe supersedes "no driver" guesses).
    supersedes: tuple[str, ...] = ()
    # Optional: when this is False the check does not apply to the machine (GPU health on a
    # machine without a GPU): its state is "n/a", never "passed".
    applies: ast.Expression | None = None
    applies_source: str = ""
    # Optional: the other summary areas a finding is about (a list of area names), so the
    # per-area summary marks those lines from this finding (INTENT002: the CPU-only builds)
    about: ast.Expression | None = None

    def severity_for(self, intent: str) -> str:
        return self.severity.get(intent, self.severity.get("auto", "off"))


# ---------------------------------------------------------------------------- loading
def parse_check(data: dict[str, Any], path: Path | str, validated: bool = False,
                areas: dict[str, str] | None = None) -> Check:
    """Validate one check file's data; errors name the file and the field.

    ``validated``: the data comes from the rule cache, written only after this function
    accepted the same bytes, so the (pure-Python, slow) walk over every expression is skipped.
    ``areas``: rules/areas.toml ``[family]``, read once by a caller that parses many checks.
    """
    check_identity(data, path, REQUIRED, CODE_RE, "TORCH001 (family + 3 digits)")
    code, rid = data["code"], data["id"]
    sev = data["severity"]
    severity = {i: sev for i in INTENTS} if isinstance(sev, str) else dict(sev) \
        if isinstance(sev, dict) else None
    if not severity or any(v not in SEVERITIES for v in severity.values()) \
            or any(k not in INTENTS for k in severity):
        raise RuleFileError(path, "severity",
                            f"{sev!r}: use one of {SEVERITIES[:3]} or a table by intent "
                            f"{INTENTS} with values {SEVERITIES}")
    for key in ("title", "when", "why", "fix"):
        if not isinstance(data[key], str) or not data[key].strip():
            raise RuleFileError(path, key, "must be a non-empty string")
    refs = data["references"]
    if not isinstance(refs, list) or not refs or not all(is_url(r) for r in refs):
        raise RuleFileError(path, "references", "must be a non-empty list of URLs (sources)")
    try:
        when = expr.compile_expr(data["when"], validate=not validated)
    except expr.ExprError as exc:
        raise RuleFileError(path, "when", str(exc)) from None
    evidence: dict[str, ast.Expression | str] = {}
    for key, source in (data.get("evidence") or {}).items():
        if validated:  # compiled when the check fires (most never do): see _evidence_tree
            evidence[key] = source
            continue
        try:
            evidence[key] = expr.compile_expr(source, validate=True)
        except (expr.ExprError, AttributeError) as exc:
            raise RuleFileError(path, f"evidence.{key}", str(exc)) from None
    confirmed = None
    if "confirmed" in data:
        if not isinstance(data["confirmed"], str) or not data["confirmed"].strip():
            raise RuleFileError(path, "confirmed", "must be an expression (a string)")
        try:
            confirmed = expr.compile_expr(data["confirmed"], validate=not validated)
        except expr.ExprError as exc:
            raise RuleFileError(path, "confirmed", str(exc)) from None
    applies = None
    if "applies" in data:
        if not isinstance(data["applies"], str) or not data["applies"].strip():
            raise RuleFileError(path, "applies", "must be an expression (a string)")
        try:
            applies = expr.compile_expr(data["applies"], validate=not validated)
        except expr.ExprError as exc:
            raise RuleFileError(path, "applies", str(exc)) from None
    about = None
    if "about" in data:
        if not isinstance(data["about"], str) or not data["about"].strip():
            raise RuleFileError(path, "about", "must be an expression (a string)")
        try:
            about = expr.compile_expr(data["about"], validate=not validated)
        except expr.ExprError as exc:
            raise RuleFileError(path, "about", str(exc)) from None
    trees = [("when", when), *(("evidence." + k, t) for k, t in evidence.items()
                               if not isinstance(t, str))]
    if confirmed is not None:
        trees.append(("confirmed", confirmed))
    if applies is not None:
        trees.append(("applies", applies))
    if about is not None:
        trees.append(("about", about))
    for key, tree in [] if validated else trees:
        check_names(tree, path, key)
    supersedes = data.get("supersedes", [])
    if not isinstance(supersedes, list) or not all(
            isinstance(c, str) and CODE_RE.match(c) and c != code for c in supersedes):
        raise RuleFileError(path, "supersedes", "must be a list of other check codes "
                            "(e.g. [\"INTENT001\"])")
    examples = tuple(_parse_example(e, i, path, validated)
                     for i, e in enumerate(data["examples"]))
    if not any(e.fires for e in examples) or all(e.fires for e in examples):
        raise RuleFileError(path, "examples",
                            "needs at least one example that fires and one that does not")
    prefix = code.rstrip("0123456789")  # CODE_RE: letters, then three digits
    return Check(code=code, id=rid, severity=severity, title=data["title"].strip(), when=when,
                 when_source=data["when"], why=data["why"].strip(), fix=data["fix"].strip(),
                 references=tuple(refs), evidence=evidence,
                 area=data.get("area") or (areas.get(prefix, prefix.lower())
                                           if areas is not None else area_of_family(prefix)),
                 examples=examples, path=str(path), confirmed=confirmed,
                 supersedes=tuple(supersedes), applies=applies,
                 applies_source=data.get("applies", ""), about=about)


@lru_cache(maxsize=1)
def known_names() -> frozenset[str]:
    """Every name a rule expression may use: builtins, facts sections, knowledge functions."""
    return frozenset(expr.BUILTINS) | vocabulary_names()


def check_names(tree: ast.Expression, path: Path | str, key: str) -> None:
    """Every name and fact path ``tree`` reads exists (``engine.factpaths``): a misspelt
    field is a load error naming the file, the field and the name, never "not there"."""
    unknown = expr.free_names(tree) - known_names()
    if unknown:
        raise RuleFileError(path, key, f"unknown name(s) {sorted(unknown)}; known: "
                            f"{', '.join(sorted(known_names()))}")
    from envdoctor.engine import factpaths
    wrong = factpaths.problems(tree)
    if wrong:
        raise RuleFileError(path, key, "; ".join(wrong))


def _parse_example(raw: Any, index: int, path: Path | str, validated: bool = False) -> Example:
    where = f"examples[{index}]"
    if not isinstance(raw, dict) or not isinstance(raw.get("fires"), bool) \
            or not isinstance(raw.get("facts"), dict):
        raise RuleFileError(path, where, "needs `fires = true|false` and a `facts` table")
    if not validated:
        check_example_facts(raw["facts"], path, f"{where}.facts")
    intent = raw.get("intent", "auto")
    if intent not in INTENTS:
        raise RuleFileError(path, f"{where}.intent", f"{intent!r} is not one of {INTENTS}")
    severity = raw.get("severity", "")
    if severity not in ("", *SEVERITIES[:3]):
        raise RuleFileError(path, f"{where}.severity", f"{severity!r} is not one of "
                            f"{SEVERITIES[:3]}")
    return Example(fires=raw["fires"], facts=raw["facts"], intent=intent,
                   name=str(raw.get("name", "")), severity=severity)


def check_example_facts(facts: Any, path: Path | str, where: str) -> None:
    """An example's facts name only fields of the facts model (the snapshot decoder drops
    an unknown key, so a misspelt one would prove the rule on facts it never set)."""
    from envdoctor.engine import factpaths
    wrong = factpaths.data_problems(facts)
    if wrong:
        raise RuleFileError(path, where, "; ".join(wrong))


def load_checks(root: Path | None = None) -> list[Check]:
    """Every check under ``rules/checks``; duplicate codes or ids are an error."""
    fresh: list[Check] = []

    def accept(items: list[tuple[Path, dict[str, Any]]]) -> None:
        areas = _family_areas() if items else None
        fresh.extend(parse_check(data, p, areas=areas) for p, data in items)
        _unique(fresh)

    tree, from_cache = load_tree_cached("checks", root, accept)
    if from_cache:
        areas = _family_areas() if tree else None  # once, not once per check
        checks = [parse_check(data, p, validated=True, areas=areas) for p, data in tree]
    else:
        checks = fresh
    return sorted(checks, key=lambda c: c.code)


def _family_areas() -> dict[str, str]:
    from envdoctor.rulefiles import load_file_cached
    return load_file_cached("areas").get("family", {})


def _unique(checks: list[Check]) -> None:
    seen: dict[str, str] = {}
    for check in checks:
        for key in (check.code, check.id):
            if key in seen:
                raise RuleFileError(check.path, "code/id", f"{key} is also used by {seen[key]}")
            seen[key] = check.path


# ---------------------------------------------------------------------------- evaluation
def evaluate(facts: Facts, checks: list[Check], intent: str = "auto") -> list[CheckResult]:
    # the builtins and the snapshot's names merged once, not once per check and expression
    names = {**expr.BUILTINS, **names_for(facts, intent)}
    return supersede(checks, [evaluate_one(check, names, intent, merged=True)
                              for check in checks])


def supersede(checks: list[Check], results: list[CheckResult]) -> list[CheckResult]:
    """Results with the findings of superseded checks set aside (state ``superseded``)."""
    by_code = {c.code: c for c in checks}
    winners: dict[str, str] = {}
    for r in results:
        if r.state == "fired" and r.code in by_code:
            for code in by_code[r.code].supersedes:
                winners.setdefault(code, r.code)
    if not winners:
        return results
    return [CheckResult(r.code, r.id, "superseded", None,
                        detail=f"superseded by {winners[r.code]}")
            if r.state == "fired" and r.code in winners else r for r in results]


def evaluate_one(check: Check, names: dict[str, Any], intent: str,
                 merged: bool = False) -> CheckResult:
    """One check's result; ``merged``: ``names`` already holds the expression builtins."""
    severity = check.severity_for(intent)
    if severity == "off":
        return CheckResult(check.code, check.id, "passed", detail=f"off under --expect {intent}")
    if not merged:
        names = {**expr.BUILTINS, **names}
    try:
        if check.applies is not None and \
                expr.truth(expr.Evaluator(names)(check.applies)) is False:
            return CheckResult(check.code, check.id, "n/a",
                               detail=f"not applicable: {check.applies_source} is false")
        verdict = expr.Evaluator(names)(check.when)
    except Exception as exc:  # a bad rule must not take the report down
        return CheckResult(check.code, check.id, "error", detail=f"{type(exc).__name__}: {exc}")
    if verdict is expr.UNKNOWN:
        return CheckResult(check.code, check.id, "unknown", detail="facts unavailable")
    if not verdict:
        return CheckResult(check.code, check.id, "passed")
    evidence = {}
    for key, tree in check.evidence.items():
        try:
            evidence[key] = _plain(expr.Evaluator(names, lenient=True)(_evidence_tree(tree)))
        except Exception as exc:
            evidence[key] = f"<{type(exc).__name__}: {exc}>"
    if severity == "error" and check.confirmed is not None and not _is_confirmed(check, names):
        severity = "warning"
        evidence["confirmed"] = False
    finding = Finding(code=check.code, id=check.id, severity=Severity(severity),
                      title=no_none(fill(check.title, evidence)), why=fill(check.why, evidence),
                      fix=fill(check.fix, evidence), references=check.references,
                      evidence=evidence, area=check.area, about=_about(check, names))
    return CheckResult(check.code, check.id, "fired", finding)


def _about(check: Check, names: dict[str, Any]) -> tuple[str, ...]:
    """The areas a finding is about besides its own: the ``about`` expression's strings."""
    if check.about is None:
        return ()
    try:
        value = expr.Evaluator(names, lenient=True)(check.about)
    except Exception:  # a bad rule must not take the report down; its own area still counts
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)):
        return tuple(v for v in value if isinstance(v, str))
    return ()


def _evidence_tree(tree: ast.Expression | str) -> ast.Expression:
    """An evidence expression, compiled now if it came from the rule cache as its source (the
    cache holds only bytes this module already validated)."""
    return expr.compile_expr(tree, validate=False) if isinstance(tree, str) else tree


def _is_confirmed(check: Check, names: dict[str, Any]) -> bool:
    """True only when the check's ``confirmed`` expression evaluates to exactly True."""
    try:
        return check.confirmed is not None and expr.Evaluator(names)(check.confirmed) is True
    except Exception:
        return False


def _plain(value: Any) -> Any:
    """Evidence as JSON: versions and dataclasses become strings, UNKNOWN becomes None."""
    if value is expr.UNKNOWN or value is None:
        return None
    if isinstance(value, View):
        value = value._obj
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Version):
        return str(value)
    if isinstance(value, (list, tuple, set)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if hasattr(value, "name") and isinstance(value.name, str):
        version = getattr(value, "version", None)
        return f"{value.name} {version}" if version is not None else value.name
    return str(value)


_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def fill(template: str, evidence: dict[str, Any]) -> str:
    """Replace ``{name}`` with evidence; unknown names are left as they are.

    An empty list reads "none" (a sentence never ends in "matched: ."), a value that could
    not be known reads "unknown".
    """
    def sub(m: re.Match[str]) -> str:
        if m.group(1) not in evidence:
            return m.group(0)
        value = evidence[m.group(1)]
        if isinstance(value, list):
            return ", ".join(str(v) for v in value) if value else "none"
        return "unknown" if value is None else str(value)
    return _FIELD.sub(sub, template)


_NONE_WORD = re.compile(r"(?<![\w'\"=])None(?![\w'\"])")


def no_none(title: str) -> str:
    """A title with a missing value's ``None`` (a version a knowledge function formatted
    before the boundary) said as "(not shown)": a title never reads "tensorflow None"."""
    return _NONE_WORD.sub("(not shown)", title) if "None" in title else title


def findings_of(results: list[CheckResult]) -> list[Finding]:
    found = [r.finding for r in results if r.finding is not None]
    return sorted(found, key=lambda f: (-f.severity.rank, f.code))


# ---------------------------------------------------------------------------- examples
def example_facts(partial: dict[str, Any]) -> Facts:
    """A snapshot from an example's partial facts: sections not given are unknown.

    Conveniences for short examples: a section without ``probe`` is ``ok``;
    ``packages.distributions`` may be a table name -> version; ``env`` may be the variables
    themselves.
    """
    data: dict[str, Any] = {"schema_version": Facts().schema_version, "origin": "example"}
    for key, value in partial.items():
        if key in SECTIONS:
            value = dict(value)
            value.setdefault("probe", {"status": "ok"})
            if key == "packages" and isinstance(value.get("distributions"), dict):
                value["distributions"] = [{"name": n, "version": v}
                                          for n, v in value["distributions"].items()]
            if key == "env" and "vars" not in value:
                probe = value.pop("probe")
                value = {"probe": probe, "vars": value}
        data[key] = value
    facts = Facts.from_dict(data)
    if facts.packages.probe.status.known:
        from envdoctor.probes.packages import find_conflicts
        if not facts.packages.conflicts:
            facts = replace(facts, packages=replace(
                facts.packages, conflicts=find_conflicts(facts.packages.distributions)))
    return facts


def run_examples(check: Check) -> list[str]:
    """Evaluate a check's own examples; returns what went wrong (empty = all good)."""
    problems = []
    for i, example in enumerate(check.examples):
        label = f"{check.path}: examples[{i}]" + (f" ({example.name})" if example.name else "")
        try:
            facts = example_facts(example.facts)
        except (FactsError, TypeError, ValueError) as exc:
            problems.append(f"{label}: facts do not fit the schema: {exc}")
            continue
        result = evaluate_one(check, names_for(facts, example.intent), example.intent)
        if result.state == "error":
            problems.append(f"{label}: evaluation failed: {result.detail}")
        elif (result.state == "fired") != example.fires:
            want = "fire" if example.fires else "not fire"
            problems.append(f"{label}: expected to {want}, but it was {result.state}")
        elif example.severity and result.finding is not None \
                and result.finding.severity.value != example.severity:
            problems.append(f"{label}: expected severity {example.severity}, "
                            f"got {result.finding.severity.value}")
    return problems
