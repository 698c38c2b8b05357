"""`envdoctor rules list|show|test|functions`: the knowledge base explains and proves itself.

Every kind of rule is covered: checks, error signatures, requirements and fleet rules.
``rules show CODE`` prints a rule's own text with the same printer as ``explain CODE``;
``rules test [PATH]`` validates every rule and matrix file and runs every example
(``rulebook.validate``);
``rules functions`` lists what rule expressions may call, from the registry's docstrings.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from envdoctor.cligroups import SuggestingGroup
from envdoctor.commands._output import emit
from envdoctor.errors import EXIT_FINDINGS, BadInput


def _docs() -> list:
    from envdoctor.rulebook import catalog
    from envdoctor.rulefiles import RuleFileError
    try:
        return catalog.load_docs()
    except RuleFileError as exc:
        raise BadInput(f"invalid rule file: {exc}") from None


@click.group("rules", cls=SuggestingGroup)
def rules() -> None:
    """List, explain and test the rules: checks, error signatures, requirements and fleet
    rules."""


@rules.command("list")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("--kind", type=click.Choice(["all", "check", "signature", "requirement", "fleet"]),
              default="all", show_default=True, help="Only rules of this kind.")
def list_cmd(fmt: str, kind: str) -> None:
    """One line per rule: code, kind, severity, id."""
    docs = [d for d in _docs() if kind in ("all", d.kind)]
    if fmt == "json":
        emit(json.dumps([d.to_dict() for d in docs], indent=2) + "\n", None, "json")
        return
    lines = []
    for d in docs:
        sev = ", ".join(f"{k}={v}" for k, v in d.severity)
        lines.append(f"{d.code:<10} {d.kind:<11} {sev:<34} {d.id}")
    from envdoctor.rulebook.catalog import KINDS
    counts = {k: sum(d.kind == k for d in docs) for k in KINDS}
    names = {"fleet": "fleet rules"}
    lines.append(", ".join(f"{n} {names.get(k, k + 's')}" for k, n in counts.items()
                           if n or kind == "all"))
    emit("".join(line + "\n" for line in lines), None)


@rules.command("show")
@click.argument("code")
def show_cmd(code: str) -> None:
    """A rule's own text: title, severity, why, fix, how it matches, examples, references."""
    from envdoctor.rulebook import catalog
    from envdoctor.rulefiles import RuleFileError
    try:
        doc = catalog.find(code)
    except RuleFileError as exc:
        raise BadInput(f"invalid rule file: {exc}") from None
    if doc is None:
        raise BadInput(f"no rule {code!r} (see `envdoctor rules list`)")
    emit(catalog.render(doc), None)


@rules.command("test")
@click.argument("path", required=False, type=click.Path(exists=True, path_type=Path))
def test_cmd(path: Path | None) -> None:
    """Validate every rule and matrix file and run every example (exit 1 on failure)."""
    from envdoctor.rulebook import validate
    from envdoctor.rulefiles import rules_dir
    root = path or rules_dir()
    if root.is_dir() and not any(root.rglob("*.toml")):
        raise BadInput(f"{root}: no rule files (*.toml) in this folder")
    if not root.is_dir():
        _readable_rule_file(root)
    outcome = validate.validate(root)
    emit("".join(p + "\n" for p in [*outcome.problems, outcome.summary()]), None)
    if outcome.problems:
        raise SystemExit(EXIT_FINDINGS)


def _readable_rule_file(path: Path) -> None:
    """A PATH that is not a folder must be one rule file we can read: a FIFO, a device, an
    unreadable or oversized file is bad input (one line, exit 2), never an empty pass or a
    "problem" about a file that was never a rule file."""
    from envdoctor.bounded import InputError, read_file
    from envdoctor.rulefiles import MAX_RULE_FILE
    try:
        read_file(path, "a rule file", MAX_RULE_FILE)
    except InputError as exc:
        raise BadInput(f"{path}: {exc}") from None


@rules.command("functions")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown"]), default="text",
              show_default=True, help="markdown: the section of rules/README.md.")
def functions_cmd(fmt: str) -> None:
    """The knowledge functions rule expressions may call, each with its own docstring."""
    from envdoctor.rulebook import functions
    emit((functions.markdown() if fmt == "markdown" else functions.text()) + "\n", None)


@rules.command("seed")
def seed_cmd() -> None:
    """The search anchors chosen ahead for the bundled signatures, as JSON: after changing
    signatures, `envdoctor rules seed > envdoctor/explain/anchor_seed.json` (a first large
    `explain` on a fresh cache then skips seconds of choosing them)."""
    from envdoctor.explain.seedgen import build_seed
    emit(json.dumps(build_seed(), indent=0, sort_keys=True) + "\n", None, "json")
