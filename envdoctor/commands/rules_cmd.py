"""`envdoctor rules list|show|test`: the knowledge base explains and proves itself.

``rules show CODE`` prints one check's own text (like ``ruff rule``); ``rules test`` validates
every check and matrix file and runs every check's examples. ``validate_rules`` is the one
function behind ``rules test`` and tests/test_rules_examples.py.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import click

from envdoctor import engine
from envdoctor.engine.loader import RuleFileError, load_toml, rules_dir, toml_files
from envdoctor.errors import EXIT_FINDINGS, BadInput


def validate_rules(path: Path | None = None) -> tuple[list[engine.Check], list[str]]:
    """Load and check every rule file under ``path``: a rules folder (with ``checks/`` and
    ``matrices/``), a folder of check files (``rules/checks/gpu``) or one check file.

    Returns the checks that loaded and every problem found, each naming file and field: schema
    errors, duplicate codes, examples that do not behave, matrix rows without a source.
    """
    from envdoctor.engine.knowledge.compat import matrix_problems
    root = path or rules_dir()
    if root.is_file():
        files = [root]
    elif _is_rules_root(root):
        files = toml_files("checks", root)
    else:
        files = sorted(root.rglob("*.toml"))
    checks, problems, seen = [], [], {}
    for file in files:
        try:
            check = engine.parse_check(load_toml(file), file)
        except RuleFileError as exc:
            problems.append(str(exc))
            continue
        for key in (check.code, check.id):
            if key in seen:
                problems.append(f"{file}: code/id: {key} is also used by {seen[key]}")
            seen[key] = str(file)
        checks.append(check)
        problems.extend(engine.run_examples(check))
    for file in toml_files("matrices", root) if _is_rules_root(root) else []:
        try:
            data = load_toml(file)
        except RuleFileError as exc:
            problems.append(str(exc))
            continue
        problems.extend(f"{file}: {p}" for p in matrix_problems(file.stem, data))
    return sorted(checks, key=lambda c: c.code), problems


def _is_rules_root(path: Path) -> bool:
    return (path / "checks").is_dir() or (path / "matrices").is_dir()


def _load() -> list[engine.Check]:
    try:
        return engine.load_checks()
    except RuleFileError as exc:
        raise BadInput(f"invalid rule file: {exc}") from None


def _severity(check: engine.Check) -> str:
    values = {check.severity_for(i) for i in engine.INTENTS}
    if len(values) == 1:
        return values.pop()
    return ", ".join(f"{i}={check.severity_for(i)}" for i in engine.INTENTS)


@click.group("rules")
def rules() -> None:
    """List, explain and test the checks in the knowledge base."""


@rules.command("list")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
def list_cmd(fmt: str) -> None:
    """One line per check: code, severity, id, title."""
    checks = _load()
    if fmt == "json":
        click.echo(json.dumps([{"code": c.code, "id": c.id, "area": c.area,
                                "severity": {i: c.severity_for(i) for i in engine.INTENTS},
                                "title": c.title, "references": list(c.references),
                                "confirmed_field": c.confirmed is not None}
                               for c in checks], indent=2))
        return
    for c in checks:
        click.echo(f"{c.code:<9} {_severity(c):<34} {c.id}")
    click.echo(f"{len(checks)} checks")


@rules.command("show")
@click.argument("code")
def show_cmd(code: str) -> None:
    """A check's own text: title, severity, why, fix, examples, references."""
    wanted = code.strip().upper()
    match = [c for c in _load() if c.code == wanted or c.id == code.strip().lower()]
    if not match:
        raise BadInput(f"no check {code!r} (see `envdoctor rules list`)")
    c = match[0]
    out = [f"{c.code} ({c.id})", f"  severity: {_severity(c)}   area: {c.area}",
           f"  title: {c.title}", "", "Why", textwrap.indent(c.why, "  "), "",
           "Fix", textwrap.indent(c.fix, "  "), "", f"When\n  {c.when_source}"]
    if c.confirmed is not None:
        out.append("  (reported as a warning, not an error, when its matrix cells are "
                   "unconfirmed)")
    out += ["", "Examples"]
    for e in c.examples:
        facts = json.dumps(e.facts, separators=(", ", ": "))
        out.append(f"  {'fires' if e.fires else 'quiet'}: {e.name or '-'}"
                   + (f" [--expect {e.intent}]" if e.intent != "auto" else ""))
        out.append(textwrap.indent(textwrap.fill(facts, 96), "      "))
    out += ["", "References", *(f"  {r}" for r in c.references), f"\nFile: {c.path}"]
    click.echo("\n".join(out))


@rules.command("test")
@click.argument("path", required=False, type=click.Path(exists=True, path_type=Path))
def test_cmd(path: Path | None) -> None:
    """Validate every rule and matrix file and run every check's examples (exit 1 on failure)."""
    if path is not None and path.is_dir() and not _is_rules_root(path) \
            and not any(path.rglob("*.toml")):
        raise BadInput(f"{path}: no rule files (*.toml) in this folder")
    checks, problems = validate_rules(path)
    for problem in problems:
        click.echo(problem)
    examples = sum(len(c.examples) for c in checks)
    click.echo(f"{len(checks)} checks, {examples} examples: "
               + (f"{len(problems)} problem(s)" if problems else "all good"))
    if problems:
        raise SystemExit(EXIT_FINDINGS)
