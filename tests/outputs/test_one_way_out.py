"""Structure: text leaves envdoctor only through the sink (envdoctor/outputs/sink.py).

Every ``print``, ``click.echo``, ``sys.stdout.write``/``sys.stderr.write``, ``write_stdout``,
``Path.write_text``/``write_bytes``, ``os.write``, ``json.dump`` and ``open``/``os.fdopen``
for writing in envdoctor/ is found by walking the AST; outside the few modules allowed below
(each with the reason) it fails this test, so a new renderer or command cannot print around
the sanitiser or write a file that is not atomic.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "envdoctor"

ALLOWED = {
    "outputs/sink.py": "the sink itself",
    "outputs/stderr.py": "the sink for lines on stderr",
    "streams.py": "write_stdout, which only the sink calls; /dev/null stand-ins",
    "crashlog.py": "its own O_EXCL 0600 file in a private folder, sanitised (terminal)",
    "rulefiles.py": "the sealed rule cache (temp file + os.replace), not an output",
    "seal.py": "the cache seal's 0600 secret key (O_EXCL temp file + link), not an output",
    "explain/parallel.py": "the pipes to its own child processes",
    "probes/_nvml_child.py": "a child process answering its parent on a pipe",
    "probes/_amdsmi_child.py": "a child process answering its parent on a pipe",
    "workers/_common.py": "framework workers answering the parent on a pipe",
    "terminate.py": "one fixed ASCII line on fd 2 from a signal handler, which must not take "
                    "the stream lock the interrupted code may hold",
}
WRITE_METHODS = {"write_text", "write_bytes"}


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _write_mode(call: ast.Call, position: int) -> bool:
    mode = call.args[position] if len(call.args) > position else next(
        (k.value for k in call.keywords if k.arg == "mode"), None)
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and \
        any(c in mode.value for c in "wax+")


def writes(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) for every call in ``tree`` that writes to a stream or a file."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func)
        last = name.rsplit(".", 1)[-1]
        if name in ("print", "click.echo", "click.secho", "sys.stdout.write",
                    "sys.stderr.write", "os.write", "json.dump") or last == "write_stdout":
            found.append((node.lineno, name))
        elif isinstance(node.func, ast.Attribute) and node.func.attr in WRITE_METHODS:
            found.append((node.lineno, name or node.func.attr))
        elif name in ("open", "io.open") and _write_mode(node, 1):
            found.append((node.lineno, f"{name} for writing"))
        elif name == "os.fdopen" and _write_mode(node, 1):
            found.append((node.lineno, "os.fdopen for writing"))
        elif name.endswith(".open") and isinstance(node.func, ast.Attribute) and \
                _write_mode(node, 0):
            found.append((node.lineno, f"{name} for writing"))
    return found


def test_nothing_writes_around_the_sink():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in ALLOWED or rel.startswith("workers/"):
            continue  # workers/* run in child processes, their stdout is the parent's pipe
        for line, what in writes(ast.parse(path.read_text(encoding="utf-8"))):
            offenders.append(f"envdoctor/{rel}:{line}: {what}")
    assert offenders == [], "write through envdoctor.outputs.sink:\n" + "\n".join(offenders)


def test_the_walker_finds_each_kind_of_write():
    code = ("import sys, os, json, click\nfrom pathlib import Path\n"
            "print('x')\nclick.echo('x')\nsys.stdout.write('x')\nsys.stderr.write('x')\n"
            "Path('a').write_text('x')\nopen('a', 'w')\nopen('a', mode='ab')\n"
            "os.fdopen(3, 'w')\nPath('a').open('w')\njson.dump({}, f)\nos.write(1, b'x')\n"
            "write_stdout('x')\nopen('a')\nopen('a', 'rb')\n")
    assert [line for line, _ in writes(ast.parse(code))] == list(range(3, 15))


def test_allowed_modules_still_exist():
    for rel in ALLOWED:
        assert (PACKAGE / rel).is_file(), rel
