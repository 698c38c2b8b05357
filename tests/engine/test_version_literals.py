"""Knowledge is data: no version literal in the knowledge functions or the install planners.

A release, a floor or an architecture cut-off written in Python (``Version("2.14")``,
``(2, 14)``, ``cuda.major >= 13``, ``"12.8" > x``) is a second home for a fact the matrices
in rules/matrices hold with its source, and the two drift apart. This scans, with ``ast``,
every module of envdoctor/engine/knowledge/ and envdoctor/suggest/ for:

- a version-parsing call on a literal: ``Version("…")``, ``ver("…")``, ``series("…")``,
  ``DisplayVersion("…")``, ``SpecifierSet("…")``;
- a specifier literal (``">=2.4,<2.7"``) anywhere;
- a tuple of two or more integers in a comparison (``release[:2] >= (2, 14)``);
- a dotted-number string in a comparison (``x >= "2.14"``, ``row["cuda"] == "12.4"``);
- a ``.major`` / ``.minor`` / ``.micro`` compared with an integer literal (``cuda.major >= 13``).

``ALLOWED`` names each exception with the reason it is not a fact (one: NumPy 2 is the
subject of the check, not a boundary the data could move).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "envdoctor"
SCANNED = (PACKAGE / "engine" / "knowledge", PACKAGE / "suggest")
PARSERS = {"Version", "ver", "series", "driver_ver", "DisplayVersion", "SpecifierSet",
           "parse", "parse_version"}
DOTTED = re.compile(r"^\d+(\.\d+)+$")
SPEC = re.compile(r"^\s*(?:(?:[<>]=?|[=!~]=|===)\s*\d+(?:\.\d+)*(?:\.\*)?\s*,?\s*)+$")
# (file name relative to envdoctor/, line text stripped) -> why it is not a version fact
ALLOWED: dict[tuple[str, str], str] = {
    ("engine/knowledge/packages.py",
     "if numpy is None or numpy.version is None or numpy.version.major < 2:"):
        "NumPy 2 is the name of the ABI break the check is about (builds against NumPy 1 "
        "under NumPy 2), not a release boundary the data could move",
    ("suggest/index/view.py",
     "return m.python.release[1] if m.python is not None and m.python.major == 3 else None"):
        "Python 3 is the language major every CPython wheel tag encodes (cp3X), not a "
        "release boundary the data could move",
    ("suggest/index/wheels.py", 'return "<0"'):
        "an empty set of Pythons, written as a specifier no version satisfies; it names no "
        "release",
}


def _is_int(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int


def _literal_problems(tree: ast.AST) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else \
                node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if name in PARSERS and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, (str, int, float)) \
                    and not isinstance(node.args[0].value, bool):
                out.append((node.lineno, f"{name}({node.args[0].value!r})"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and SPEC.match(node.value):
            out.append((node.lineno, f"specifier literal {node.value!r}"))
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for side in operands:
                if isinstance(side, ast.Tuple) and len(side.elts) >= 2 \
                        and all(_is_int(e) for e in side.elts):
                    out.append((node.lineno, f"version tuple {ast.unparse(side)}"))
                if isinstance(side, ast.Constant) and isinstance(side.value, str) \
                        and DOTTED.match(side.value):
                    out.append((node.lineno, f"dotted version {side.value!r} compared"))
            parts = [o.attr for o in operands if isinstance(o, ast.Attribute)]
            if any(p in ("major", "minor", "micro") for p in parts) and \
                    any(_is_int(o) for o in operands):
                out.append((node.lineno, f"version part compared with a number: "
                                         f"{ast.unparse(node)}"))
    return out


def _problems() -> list[str]:
    found = []
    for folder in SCANNED:
        for path in sorted(folder.rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            lines = text.splitlines()
            rel = str(path.relative_to(PACKAGE))
            for lineno, what in _literal_problems(ast.parse(text)):
                if (rel, lines[lineno - 1].strip()) in ALLOWED:
                    continue
                found.append(f"{rel}:{lineno}: {what}")
    return found


def test_no_version_literal_in_knowledge_or_planners():
    assert all(len(why) > 20 for why in ALLOWED.values())
    assert _problems() == [], "move the fact into rules/matrices (with its source)"


@pytest.mark.parametrize("code", [
    'x = Version("2.14")', 'y = v >= ver("12.8")', 'ok = in_range(v, ">=2.4,<2.7")',
    "z = v.release[:2] >= (2, 14)", 'w = str(v) == "12.4"', "q = cuda.major >= 13",
    'r = "0.4.30" < jax',
])
def test_the_scan_catches_each_form(code):
    assert len(_literal_problems(ast.parse(code))) == 1


@pytest.mark.parametrize("code", [
    "x = Version(row['tensorflow'])", 'print(f"driver >= {need}")', "n = len(rows) > 2",
    "if got.major == want.major: pass", 's = "CUDA 12.8+ needed"', "t = v.release[:2]",
])
def test_the_scan_leaves_non_literals_alone(code):
    assert _literal_problems(ast.parse(code)) == []
