"""`envdoctor rules test`: every rule and matrix file validated, every example run.

One function for every kind: checks (their examples must fire or stay quiet, at the stated
severity), error signatures (each example must be recognised, or not, by the whole set),
requirements (each example met or not), fleet rules (each example fires or not, naming whom
it must) and matrices (every row sourced, typed cells parse,
the JSON Schema of that matrix in rules/schemas holds). Every problem names its file.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from envdoctor.engine.schemas import file_problems
from envdoctor.rulefiles import RuleFileError, load_toml

KIND_FOLDERS = ("checks", "signatures", "requirements", "fleet", "matrices", "phrases",
                "platforms")
TOP_FILES = ("areas", "diff")   # rules/<name>.toml, each with rules/schemas/<name>.schema.json


@dataclass
class Outcome:
    checks: list[Any] = field(default_factory=list)
    signatures: list[Any] = field(default_factory=list)
    requirements: list[Any] = field(default_factory=list)
    fleet: list[Any] = field(default_factory=list)
    matrices: list[str] = field(default_factory=list)
    phrases: list[Any] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        parts = []
        for name, rules in (("checks", self.checks), ("signatures", self.signatures),
                            ("requirements", self.requirements), ("fleet rules", self.fleet)):
            if rules or (name == "checks" and not (self.signatures or self.requirements
                                                   or self.fleet)):
                parts.append(f"{len(rules)} {name}, "
                             f"{sum(len(r.examples) for r in rules)} examples")
        if self.phrases:
            parts.append(f"{len(self.phrases)} phrases, "
                         f"{sum(len(p.fire) + len(p.quiet) for p in self.phrases)} examples")
        if self.matrices:
            parts.append(f"{len(self.matrices)} matrices")
        return "; ".join(parts) + ": " + (f"{len(self.problems)} problem(s)" if self.problems
                                          else "all good")


def is_rules_root(path: Path) -> bool:
    return any((path / kind).is_dir() for kind in KIND_FOLDERS)


def kind_of(path: Path, data: dict[str, Any]) -> str:
    """Which kind a file is: by the folder it sits in, else by its keys."""
    for part in reversed(path.parts[:-1]):
        if part in KIND_FOLDERS:
            return part
    if "phrase" in data:
        return "phrases"
    if "platform" in data:
        return "platforms"
    if "patterns" in data:
        return "signatures"
    if "when" in data:
        return "checks"
    if "aspect" in data:
        return "fleet"
    if "kind" in data and "value" in data:
        return "requirements"
    return "matrices" if "code" not in data else "checks"


def validate(root: Path) -> Outcome:
    """Validate a rules folder, a folder of rule files, or one file."""
    if root.is_file():
        files = [root]
    elif is_rules_root(root):
        files = [f for kind in KIND_FOLDERS for f in sorted((root / kind).rglob("*.toml"))]
    else:
        files = sorted(root.rglob("*.toml"))
    out = Outcome()
    parsed: dict[str, list[tuple[Path, dict[str, Any]]]] = {k: [] for k in KIND_FOLDERS}
    for file in files:
        try:
            data = load_toml(file)
        except RuleFileError as exc:
            out.problems.append(str(exc))
            continue
        parsed[kind_of(file, data)].append((file, data))
    if root.is_dir() and is_rules_root(root):
        for name in TOP_FILES:
            _top_file(root / f"{name}.toml", name, out)
    _checks(parsed["checks"], out)
    _signatures(parsed["signatures"], out)
    _requirements(parsed["requirements"], out)
    _fleet(parsed["fleet"], out)
    _matrices(parsed["matrices"], out)
    _phrases(parsed["phrases"], out)
    _platforms(parsed["platforms"], out)
    _regex_audit(root, parsed["matrices"], out)
    return out


def _platforms(files: list[tuple[Path, dict[str, Any]]], out: Outcome) -> None:
    """Each platform's mentions name its ``fire`` texts and none of its ``quiet`` ones."""
    from envdoctor.explain.platforms import parse_platform
    for file, data in files:
        for i, raw in enumerate(data.get("platform", [])):
            try:
                platform = parse_platform(raw, file, i)
            except RuleFileError as exc:
                out.problems.append(str(exc))
                continue
            out.problems.extend(f"{file}: platform {platform.name} does not name {t!r}"
                                for t in platform.fire if platform.named_in(t) is None)
            out.problems.extend(f"{file}: platform {platform.name} names quiet {t!r}"
                                for t in platform.quiet if platform.named_in(t) is not None)


def _unique(rule: Any, seen: dict[str, str], out: Outcome, keys: tuple[str, ...]) -> None:
    for key in keys:
        if key in seen:
            out.problems.append(f"{rule.path}: code/id: {key} is also used by {seen[key]}")
        seen[key] = rule.path


def _schema(file: Path, data: dict[str, Any], kind: str, out: Outcome) -> None:
    """What the kind's JSON Schema finds beyond the loader (an unknown key, a typo)."""
    out.problems.extend(f"{file}: {p}" for p in file_problems(file, data, kind))


def _top_file(path: Path, name: str, out: Outcome) -> None:
    if not path.is_file():
        return
    try:
        data = load_toml(path)
    except RuleFileError as exc:
        out.problems.append(str(exc))
        return
    out.problems.extend(f"{path}: {p}" for p in file_problems(path, data, name))


def _checks(files: list[tuple[Path, dict[str, Any]]], out: Outcome) -> None:
    from envdoctor.engine.checks import parse_check, run_examples
    seen: dict[str, str] = {}
    for file, data in files:
        try:
            check = parse_check(data, file)
        except RuleFileError as exc:
            out.problems.append(str(exc))
            continue
        _unique(check, seen, out, (check.code, check.id))
        _schema(file, data, "check", out)
        out.checks.append(check)
        out.problems.extend(run_examples(check))
    out.checks.sort(key=lambda c: c.code)


def _signatures(files: list[tuple[Path, dict[str, Any]]], out: Outcome) -> None:
    if not files:
        return
    from envdoctor.explain.signatures import parse_signature
    seen: dict[str, str] = {}
    for file, data in files:
        try:
            sig = parse_signature(data, file)
        except RuleFileError as exc:
            out.problems.append(str(exc))
            continue
        _unique(sig, seen, out, (sig.code,))
        _schema(file, data, "signature", out)
        out.signatures.append(sig)
    if not out.signatures:
        return
    from envdoctor.explain.rank import rank
    from envdoctor.explain.scan import Scanner
    scanner = Scanner(tuple(out.signatures))
    for sig in out.signatures:
        carrier = bool(sig.extra.get("only_as_yield"))
        for i, ex in enumerate(sig.examples):
            result = scanner.scan_stream(io.BytesIO(ex.text.encode("utf-8", "replace")))
            found = rank(result, None)
            got = {d.code for d in found}
            if carrier:  # a carrier is read as the cause it yields to, or as none
                from envdoctor.explain.stated import with_stated_facts
                targets = {str(t["code"]) for t in sig.extra.get("yields_to", ())}
                yielded = {d.code for d in with_stated_facts(ex.text, found,
                                                             tuple(out.signatures))}
                got = {sig.code} if yielded & targets else set()
            if sig.extra.get("no_claim_when") and not carrier:
                # the text's own facts may withhold the claim, as explain reads it
                from envdoctor.explain.stated import with_stated_facts
                got = {d.code for d in with_stated_facts(ex.text, found, tuple(out.signatures))}
            if ex.matches and sig.code not in got and not carrier:
                # reached through another signature's yields_to (a generic answer that the
                # text's own facts turn into this one), as explain reads it
                from envdoctor.explain.stated import with_stated_facts
                got = got | {d.code for d in with_stated_facts(ex.text, found,
                                                               tuple(out.signatures))}
            if ex.matches and sig.code not in got:
                out.problems.append(f"{sig.path}: examples[{i}] ({ex.source}): expected to "
                                    f"match, but it did not")
            elif not ex.matches and sig.code in got:
                out.problems.append(f"{sig.path}: examples[{i}] ({ex.source}): must not "
                                    f"match, but it did")


def _phrases(files: list[tuple[Path, dict[str, Any]]], out: Outcome) -> None:
    """Non-English phrase entries: each ``fire`` text must be rewritten to the canonical
    English, each ``quiet`` text left as it is."""
    if not files:
        return
    from envdoctor.explain.phrases import normalise, parse_phrase
    for file, data in files:
        entries = data.get("phrase", [])
        if not isinstance(entries, list) or not entries:
            out.problems.append(f"{file}: phrase: a phrases file holds [[phrase]] tables")
            continue
        for entry in entries:
            try:
                phrase = parse_phrase(entry, file) if isinstance(entry, dict) else None
            except RuleFileError as exc:
                out.problems.append(str(exc))
                continue
            if phrase is None:
                out.problems.append(f"{file}: phrase: must be a table")
                continue
            out.phrases.append(phrase)
            for i, text in enumerate(phrase.fire):
                if phrase.canonical not in normalise(text, (phrase,)):
                    out.problems.append(f"{file}: {phrase.id}: fire[{i}] is not rewritten")
            for i, text in enumerate(phrase.quiet):
                if normalise(text, (phrase,)) != text:
                    out.problems.append(f"{file}: {phrase.id}: quiet[{i}] is rewritten")


def _requirements(files: list[tuple[Path, dict[str, Any]]], out: Outcome) -> None:
    if not files:
        return
    from envdoctor.engine.requirements import parse_requirement_rule
    seen: dict[str, str] = {}
    for file, data in files:
        try:
            rule = parse_requirement_rule(data, file)
        except RuleFileError as exc:
            out.problems.append(str(exc))
            continue
        _unique(rule, seen, out, (rule.code, rule.id, f"kind {rule.kind}"))
        _schema(file, data, "requirement", out)
        out.requirements.append(rule)
    from envdoctor.engine.checks import example_facts
    from envdoctor.errors import BadInput
    from envdoctor.facts import FactsError
    from envdoctor.gate import policy
    for rule in out.requirements:
        for i, ex in enumerate(rule.examples):
            where = f"{rule.path}: examples[{i}] ({ex.require})"
            try:
                need = policy.parse_requirement(ex.require)
                facts = example_facts(ex.facts)
            except (BadInput, FactsError, TypeError, ValueError) as exc:
                out.problems.append(f"{where}: {exc}")
                continue
            if need.kind != rule.kind:
                out.problems.append(f"{where}: is a {need.kind!r} requirement, not {rule.kind!r}")
                continue
            (result,) = policy.evaluate(policy.Policy(requirements=(need,)), facts)
            met = result.state == "passed"
            if met != ex.met or result.state not in ("passed", "fired"):
                out.problems.append(f"{where}: expected {'met' if ex.met else 'not met'}, "
                                    f"but it was {result.state} ({result.detail or ''})")


def _fleet(files: list[tuple[Path, dict[str, Any]]], out: Outcome) -> None:
    if not files:
        return
    from envdoctor.fleet.rules import parse_rule, run_examples
    seen: dict[str, str] = {}
    for file, data in files:
        try:
            rule = parse_rule(data, str(file))
        except RuleFileError as exc:
            out.problems.append(str(exc))
            continue
        _unique(rule, seen, out, (rule.code, rule.id))
        _schema(file, data, "fleet", out)
        out.fleet.append(rule)
        out.problems.extend(run_examples(rule))
    out.fleet.sort(key=lambda r: r.code)


def _matrices(files: list[tuple[Path, dict[str, Any]]], out: Outcome) -> None:
    from envdoctor.matrices.check import matrix_problems
    for file, data in files:
        out.matrices.append(file.stem)
        out.problems.extend(f"{file}: {p}" for p in matrix_problems(file.stem, data))
        out.problems.extend(f"{file}: {p}" for p in file_problems(file, data, "matrix"))


# ---------------------------------------------------------------- regexes outside signatures
# Signature patterns are audited as they load (``signatures.compile_pattern``). Rules data
# holds regexes elsewhere too: the value pattern of each PYTORCH_CUDA_ALLOC_CONF option
# (matched against a pasted report's text) and the schemas' "pattern"s.
MATRIX_REGEXES = {"torch": (("alloc_conf", "keys"),)}


def _regex_audit(root: Path, matrices: list[tuple[Path, dict[str, Any]]], out: Outcome) -> None:
    """Every such regex compiles and cannot backtrack catastrophically (``engine.redos``)."""
    import re

    from envdoctor.engine import redos

    def check(where: str, pattern: Any) -> None:
        if not isinstance(pattern, str):
            return
        try:
            re.compile(pattern)
        except re.error as exc:
            out.problems.append(f"{where}: bad regex {pattern!r}: {exc}")
            return
        why = redos.problem(pattern)
        if why:
            out.problems.append(f"{where}: {pattern!r} can backtrack catastrophically: {why}")

    for file, data in matrices:
        for path in MATRIX_REGEXES.get(file.stem, ()):
            table: Any = data
            for key in path:
                table = table.get(key, {}) if isinstance(table, dict) else {}
            if isinstance(table, dict):
                for name, pattern in table.items():
                    check(f"{file}: {'.'.join(path)}.{name}", pattern)
    schemas = root / "schemas" if root.is_dir() else None
    for file in sorted(schemas.rglob("*.json")) if schemas and schemas.is_dir() else ():
        from envdoctor.bounded import decode_json, read_file
        try:
            tree = decode_json(read_file(file, "a JSON schema", 4 << 20), "a JSON schema")
        except ValueError:
            continue  # the loader reports an unreadable schema
        stack = [("$", tree)]
        while stack:
            where, node = stack.pop()
            if isinstance(node, dict):
                check(f"{file}: {where}.pattern", node.get("pattern"))
                stack.extend((f"{where}.{k}", v) for k, v in node.items() if k != "pattern")
            elif isinstance(node, list):
                stack.extend((f"{where}[{i}]", v) for i, v in enumerate(node))
