"""The shape the rules core promises: one knowledge registry without side effects, knowledge
functions that never guard unknowns, no import cycle, no command importing another."""

from __future__ import annotations

import ast
import inspect
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from envdoctor.engine.knowledge import REGISTRY, function
from envdoctor.engine.knowledge._reads import FirstOf

PACKAGE = Path(__file__).resolve().parents[2] / "envdoctor"
KNOWLEDGE = PACKAGE / "engine" / "knowledge"


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """envdoctor modules that ``name`` imports anywhere: at module level or inside a function
    (a lazy import is still a dependency; ``names ⇄ compat`` was a cycle through one)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1]
                                + ([node.module] if node.module else []))
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    # A module's parent packages are always imported before it: an edge to one of them
    # (``from envdoctor.probes import _dists`` inside envdoctor.probes.cuda) is no cycle.
    return {m for m in found if m in known and m != name and not name.startswith(m + ".")}


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    for v in graph:
        if v not in index:
            strong(v)
    return out


def test_the_cycle_finder_finds_a_planted_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_among_envdoctor_modules():
    graph = import_graph()
    assert "envdoctor.engine.vocabulary" in graph  # the walk saw the package
    assert "envdoctor.engine.knowledge" in graph["envdoctor.engine.vocabulary"]
    assert cycles(graph) == []


def test_no_command_imports_another_command():
    commands = {n for n in _modules() if n.startswith("envdoctor.commands.")
                and not n.rsplit(".", 1)[1].startswith("_")}
    assert "envdoctor.commands.check" in commands
    for name in commands:
        tree = ast.parse(_modules()[name].read_text(encoding="utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
            a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not (imported & commands) - {name}, f"{name} imports {imported & commands}"


def test_every_module_imports_alone_in_any_order():
    """A fresh interpreter imports every module, shuffled: no order-dependent cycle."""
    names = [n for n in _modules() if not n.startswith("envdoctor.workers.")
             and n != "envdoctor.__main__"]
    random.Random(10).shuffle(names)
    code = ("import importlib, json, sys\n"
            f"names = json.loads({json.dumps(json.dumps(names))})\n"
            "for n in names:\n    importlib.import_module(n)\n"
            "print(len(names))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=PACKAGE.parent)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == str(len(names))


# ---------------------------------------------------------------------------- knowledge
def _knowledge_sources() -> list[Path]:
    return sorted(KNOWLEDGE.glob("*.py"))


def test_no_knowledge_module_mentions_unknown():
    """Functions receive resolved facts: none may test for, import or return UNKNOWN."""
    assert len(_knowledge_sources()) >= 8
    for path in _knowledge_sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                  for a in n.names}
        names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        assert "UNKNOWN" not in names, f"{path.name} handles UNKNOWN by hand"
        assert "status" not in names or path.name in ("probe.py", "live.py"), \
            f"{path.name} reads probe statuses itself (declare the facts it reads instead)"


def test_registry_is_plain_data_and_every_entry_declares_its_reads():
    for name, entry in REGISTRY.items():
        fn = function(name)
        if isinstance(entry, FirstOf):
            assert all(part in REGISTRY for part in entry.names)
            continue
        assert callable(fn) and fn.__name__ == name
        assert isinstance(getattr(fn, "reads", None), dict), f"{name} has no @reads"
        for read in fn.reads.values():
            assert read.path or read.function
            if read.function:
                assert read.function in REGISTRY


def test_every_declared_function_is_registered():
    """No orphan: a function with @reads in a knowledge module is in REGISTRY."""
    import importlib
    for path in _knowledge_sources():
        if path.stem.startswith("_") or path.stem == "compat":
            continue
        module = importlib.import_module(f"envdoctor.engine.knowledge.{path.stem}")
        for attr, value in vars(module).items():
            if inspect.isfunction(value) and value.__module__ == module.__name__ \
                    and hasattr(value, "reads"):
                assert REGISTRY.get(attr) == path.stem, f"{path.stem}.{attr} is not registered"


def test_importing_the_registry_loads_no_family_module():
    code = ("import sys, envdoctor.engine.knowledge as k\n"
            "print(sorted(m for m in sys.modules if m.startswith('envdoctor.engine.knowledge.')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=PACKAGE.parent)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['envdoctor.engine.knowledge._reads']"


@pytest.mark.parametrize("bad", ["from envdoctor.engine.expr import UNKNOWN\n",
                                 "def f(x):\n    return x is UNKNOWN\n"])
def test_the_unknown_scan_catches_a_guard(bad, tmp_path):
    tree = ast.parse(bad)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    assert "UNKNOWN" in names
