"""The knowledge-function registry documents itself and carries nothing dead.

Every registered function is called by at least one rule (in a check's ``when``,
``applies``, ``about``, ``confirmed`` or ``evidence``, a signature condition's ``when``, or
through another registered function that reads its result or a ``FirstOf`` that names it),
every one has a docstring, and rules/README.md lists exactly what ``envdoctor rules
functions`` generates from them.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from envdoctor.engine.knowledge import REGISTRY, function
from envdoctor.engine.knowledge._reads import FirstOf
from envdoctor.rulebook import functions
from envdoctor.rulefiles import load_toml

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "rules"
EXPRESSION_KEYS = ("when", "confirmed", "applies", "about")


def _expressions(node: object, under_evidence: bool = False):
    """Every expression string of a rule file's data (examples are facts, not rules)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "examples":
                continue
            if isinstance(value, str) and (under_evidence or key in EXPRESSION_KEYS):
                yield value
            else:
                yield from _expressions(value, under_evidence or key == "evidence")
    elif isinstance(node, list):
        for item in node:
            yield from _expressions(item, under_evidence)


def names_called(root: Path) -> set[str]:
    """The names the expressions of every rule file under ``root`` read."""
    out: set[str] = set()
    for path in sorted(root.rglob("*.toml")):
        if path.parent.name == "matrices" or path.parent == root:
            continue
        for source in _expressions(load_toml(path)):
            try:
                tree = ast.parse(source.strip(), mode="eval")
            except SyntaxError:
                continue
            out |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return out


def used(called: set[str]) -> set[str]:
    """Registered names reachable from ``called``: through FirstOf entries and through the
    results other functions declare they read."""
    seen: set[str] = set()
    todo = [n for n in called if n in REGISTRY]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        fn = function(name)
        if isinstance(fn, FirstOf):
            todo += list(fn.names)
        else:
            todo += [r.function for r in getattr(fn, "reads", {}).values() if r.function]
    return seen


def test_every_registered_function_is_used_by_a_rule():
    unused = sorted(set(REGISTRY) - used(names_called(RULES)))
    assert unused == [], "remove them from REGISTRY (dead), or use them in a rule"


def test_every_registered_function_has_a_docstring():
    bare = [name for name, doc in ((d.name, d.summary) for d in functions.entries())
            if len(doc.split()) < 3]
    assert bare == []


def test_the_readme_section_is_the_generated_one():
    readme = (RULES / "README.md").read_text(encoding="utf-8")
    start, end = readme.index(functions.BEGIN), readme.index(functions.END)
    assert readme[start:end + len(functions.END)] == functions.markdown(), \
        "regenerate it: envdoctor rules functions --format markdown"


def test_the_usage_scan_sees_evidence_and_conditions_and_can_fail(tmp_path):
    (tmp_path / "checks").mkdir()
    (tmp_path / "checks" / "X001.toml").write_text(
        'when = "len(gpu_throttling()) > 0"\n[evidence]\nwhy = "tf_release(\'2.18\')"\n'
        '[[examples]]\nfacts = { note = "probe_failures()" }\n', encoding="utf-8")
    (tmp_path / "signatures").mkdir()
    (tmp_path / "signatures" / "E001.toml").write_text(
        '[[conditions]]\nwhen = "torch_archs() is not None"\nnote = "x"\n', encoding="utf-8")
    called = names_called(tmp_path)
    assert {"gpu_throttling", "tf_release", "torch_archs"} <= called
    assert "probe_failures" not in called          # an example is data, not a rule
    assert {"torch_archs_live", "torch_archs_matrix"} <= used(called)   # through FirstOf
    assert "paddle_variant" in used({"paddle_install"})    # through a declared result read
    assert set(REGISTRY) - used(called)                    # most are unused here: it can fail


def test_rules_functions_prints_every_registered_name():
    proc = subprocess.run([sys.executable, "-m", "envdoctor", "rules", "functions"],
                          capture_output=True, text=True, timeout=60, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    listed = {line.strip().split("(")[0] for line in proc.stdout.splitlines()
              if line.startswith("  ") and not line.startswith("   ")}
    assert listed == set(REGISTRY)
