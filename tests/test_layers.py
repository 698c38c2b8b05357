"""One-way layers: which part of envdoctor may import which.

Every module's imports (any depth: a function-level import counts as much as a top-level one)
are parsed with ``ast`` and mapped to the top-level part of the package they belong to (a
subpackage such as ``engine`` or a top-level module such as ``runner``; the sanitisers of
``outputs``, which errors and facts print through, are a layer of their own). ``ALLOWED`` is the
explicit table of what each part may import; the test fails on an edge the table does not
list, on a part the table does not know, and on any cycle in the table itself: a layer that
is needed below must move down, never be imported back up.
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "envdoctor"

# part -> the parts it may import. Lower layers first; the package root (``envdoctor``:
# ``__version__``) may be imported by anything.
_BASE = {"envdoctor"}
ALLOWED: dict[str, set[str]] = {
    "envdoctor": set(),
    "outputs.sanitise": set(),
    "outputs.stderr": {"outputs.sanitise"},
    "errors": {"outputs.stderr"},
    "bounded": {"errors"},
    "lazyre": set(),
    "astparse": set(),
    "versions": set(),
    "children": {"bounded"},
    "terminate": {"children"},
    "runner": {"bounded", "children"},
    "streams": {"errors"},
    "outputs.sink": {"errors", "outputs.sanitise", "secrets", "streams"},
    "secrets": {"lazyre"},
    "facts": {"outputs.sink", "versions"},
    "seal": {"bounded"},
    # a cache entry is written by the one atomic writer (``sink.write_file``, follow=False)
    "rulefiles": {"bounded", "errors", "outputs.sink", "seal"},
    "matrices": {"astparse", "bounded", "errors", "facts", "outputs.sink", "outputs.stderr", "rulefiles",
                 "versions"},
    "outputs": {"bounded", "engine", "facts", "lazyre", "outputs.sanitise", "rulefiles", "secrets"},
    "crashlog": {"bounded", "outputs", "outputs.sanitise", "probes"},
    "workers": {"bounded", "errors", "facts", "runner"},
    "probes": {"astparse", "bounded", "facts", "matrices", "runner", "secrets", "versions"},
    "suggest": {"bounded", "errors", "facts", "matrices", "outputs.sink", "rulefiles", "seal",
                "versions"},
    "engine": {"astparse", "bounded", "errors", "facts", "matrices", "outputs.sanitise", "probes",
              "rulefiles", "suggest", "versions"},
    "explain": {"bounded", "children", "engine", "facts", "outputs.sanitise", "rulefiles"},
    "gate": {"bounded", "engine", "errors", "facts", "matrices", "outputs", "rulefiles",
            "versions"},
    "rulebook": {"bounded", "engine", "errors", "explain", "facts", "fleet", "gate", "matrices",
                "rulefiles"},
    "live": {"bounded", "children", "errors", "explain", "facts", "outputs", "outputs.sanitise",
            "runner", "workers"},
    "parsers": {"bounded", "errors", "facts", "live", "matrices", "probes", "versions"},
    "diff": {"engine", "facts", "matrices", "outputs.sanitise", "rulefiles", "versions"},
    "pipeline": {"bounded", "engine", "errors", "facts", "gate", "live", "outputs", "parsers",
                "probes", "rulefiles"},
    "fleet": {"bounded", "children", "diff", "engine", "errors", "facts", "gate", "live",
             "outputs", "outputs.sanitise", "outputs.sink", "outputs.stderr", "pipeline", "probes",
             "rulefiles",
             "runner", "secrets", "terminate", "workers"},
    "commands": {"bounded", "children", "cligroups", "diff", "engine", "errors", "explain",
                "facts", "fleet", "gate", "outputs", "outputs.sink", "outputs.stderr", "parsers",
                "pipeline", "probes", "rulebook", "rulefiles", "streams", "suggest"},
    "cligroups": set(),
    "cli": {"cligroups", "commands", "crashlog", "errors", "outputs.sink", "outputs.stderr", "streams",
           "terminate"},
    "__main__": {"cli"},
}


# Modules that are a layer of their own inside their package: the sanitisers every sink
# uses sit below errors and facts (which print through them), the renderers of outputs above
# the engine.
OWN_LAYER = ("envdoctor.outputs.sanitise", "envdoctor.outputs.stderr", "envdoctor.outputs.sink")


def _part_of(module: str) -> str:
    """``envdoctor.engine.knowledge.gpu`` -> ``engine``; ``envdoctor`` -> ``envdoctor``;
    a module of ``OWN_LAYER`` -> its name below envdoctor (``outputs.sink``)."""
    own = next((m for m in OWN_LAYER if module == m or module.startswith(m + ".")), None)
    if own is not None:
        return own.split(".", 1)[1]
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "envdoctor"


def _module_name(path: Path, root: Path = PACKAGE) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(dotted: str, root: Path = PACKAGE) -> bool:
    base = root.parent.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _imported(path: Path, root: Path = PACKAGE) -> set[str]:
    """The envdoctor modules ``path`` imports; ``from envdoctor import x`` counts as
    ``envdoctor.x`` when x is a module, else as the package root."""
    me = _module_name(path, root)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "envdoctor"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] != "envdoctor":
                continue
            for alias in node.names:
                full = f"{module}.{alias.name}"
                out.add(full if _is_module(full, root) else module)
    return out


def _edges() -> dict[tuple[str, str], list[str]]:
    """(importing part, imported part) -> the modules that make the edge."""
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "_rules" in path.parts:
            continue
        me = _module_name(path)
        for target in _imported(path):
            a, b = _part_of(me), _part_of(target)
            if a != b:
                edges.setdefault((a, b), []).append(f"{me} -> {target}")
    return edges


def test_the_allowed_table_is_a_dag():
    try:
        order = list(TopologicalSorter(ALLOWED).static_order())
    except CycleError as exc:  # pragma: no cover - the failure message
        pytest.fail(f"the layer table has a cycle: {exc.args[1]}")
    assert set(order) == set(ALLOWED) | set().union(*ALLOWED.values())


def test_every_part_of_the_package_is_in_the_table():
    parts = {_part_of(_module_name(p)) for p in PACKAGE.rglob("*.py") if "_rules" not in p.parts}
    assert parts - set(ALLOWED) == set(), "add the new part to ALLOWED, in its layer"


def test_imports_follow_the_layers():
    bad = [f"{a} may not import {b}: " + "; ".join(sorted(set(why))[:3])
           for (a, b), why in sorted(_edges().items())
           if b not in ALLOWED.get(a, set()) | _BASE]
    assert bad == []


def test_the_layers_hold_in_the_code_not_only_in_the_table():
    """The parts whose direction the refactor fixed really are one-way in the code."""
    edges = _edges()
    for low, high in (("engine", "explain"), ("engine", "gate"), ("suggest", "engine"),
                      ("matrices", "engine"), ("parsers", "engine"), ("rulefiles", "engine")):
        assert (low, high) not in edges, edges.get((low, high))
    assert ("engine", "suggest") in edges  # the engine calls the planners, not the reverse


def test_the_check_finds_an_upward_import(tmp_path):
    """The parser sees function-level and relative imports (the test can fail)."""
    probe = PACKAGE / "matrices" / "check.py"
    assert any(t.startswith("envdoctor.rulefiles") for t in _imported(probe))
    root = tmp_path / "envdoctor"
    for name in ("suggest/x.py", "engine/__init__.py", "engine/checks.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    fake = root / "suggest" / "x.py"
    fake.write_text("def f():\n    from ..engine import checks\n    import envdoctor.engine\n")
    assert _imported(fake, root) == {"envdoctor.engine.checks", "envdoctor.engine"}
    assert {_part_of(m) for m in _imported(fake, root)} == {"engine"}
    assert "engine" not in ALLOWED["suggest"]


# (importing module, private module or name it imports from another part) -> why it may
PRIVATE_ALLOWED = {
    ("envdoctor.fleet.rank_probe", "envdoctor.workers._common"):
        "a rank probe is a worker child process: it reuses the workers' guarded import and "
        "its one JSON line, the child protocol itself",
}


def _private_imports() -> set[tuple[str, str]]:
    """(module, target) where ``module`` imports a private module or name of another part."""
    out = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        me = _module_name(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or node.level or \
                    not (node.module or "").startswith("envdoctor."):
                continue
            if _part_of(node.module) == _part_of(me):
                continue
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if any(p.startswith("_") and not p.startswith("__")
                       for p in full.split(".")[1:]):
                    out.add((me, full))
    return out


def test_no_part_imports_another_parts_private_names():
    """What a part offers the others is public (``envdoctor.matrices``, not
    ``engine.knowledge._common``); an exception names its reason."""
    assert all(len(why) > 20 for why in PRIVATE_ALLOWED.values())
    assert _private_imports() - set(PRIVATE_ALLOWED) == set()
