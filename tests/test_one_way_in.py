"""One way in: every byte from outside enters through ``envdoctor.bounded``.

An AST walk over envdoctor/ fails on any other read of outside data: a bare ``open()`` for
reading, ``Path.read_text``/``read_bytes``, ``json.load(s)``, ``tomllib.load(s)``, ``os.open``
for reading, ``os.fdopen`` for reading, or a single environment variable read straight from
``os.environ``/``os.getenv``. Writes (``open(..., "w")``, ``os.open`` with ``O_WRONLY``) are the
writers' business and pass, and so does opening a folder to fsync a rename; the only read
allowed elsewhere is JSON that this process just wrote (``json.loads(json.dumps(...))``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "envdoctor"
READER = PACKAGE / "bounded.py"
WRITE_MODES = set("wax")
WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}  # and a folder's fsync


def _dotted(node: ast.AST) -> str:
    """``os.environ.get`` for the expression ``os.environ.get``; "" for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    elif isinstance(node, ast.Call):  # tomllib().loads
        inner = _dotted(node.func)
        parts.append(f"{inner}()" if inner else "")
    else:
        return ""
    return ".".join(reversed(parts))


def _mode(call: ast.Call, position: int) -> str | None:
    """The literal mode of an ``open``-like call (None when there is none: read)."""
    node = call.args[position] if len(call.args) > position else next(
        (k.value for k in call.keywords if k.arg == "mode"), None)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _names(node: ast.AST) -> set[str]:
    return {n.attr if isinstance(n, ast.Attribute) else n.id for n in ast.walk(node)
            if isinstance(n, (ast.Attribute, ast.Name))}


def _enclosing(tree: ast.Module) -> dict[ast.AST, ast.AST]:
    """Each node's innermost function (or the module)."""
    owner: dict[ast.AST, ast.AST] = {}

    def visit(node: ast.AST, scope: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            owner[child] = scope
            visit(child, child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
                  else scope)
    visit(tree, tree)
    return owner


def violations(source: str, name: str) -> list[str]:
    """Every read of outside data in ``source`` that does not go through the reader."""
    tree = ast.parse(source)
    owner = _enclosing(tree)
    out = []
    for node in ast.walk(tree):
        where = f"{name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) \
                and _dotted(node.value) == "os.environ":
            out.append(f"{where}: os.environ[...] (use bounded.env)")
        if not isinstance(node, ast.Call):
            continue
        func = _dotted(node.func)
        last = func.rsplit(".", 1)[-1]
        if func in ("open", "io.open", "codecs.open") and not WRITE_MODES & set(
                _mode(node, 1) or "r"):
            out.append(f"{where}: {func}() for reading")
        elif func == "os.fdopen" and not WRITE_MODES & set(_mode(node, 1) or "r"):
            out.append(f"{where}: os.fdopen() for reading")
        elif func == "os.open" and not (WRITE_FLAGS | {"fsync"}) & _names(owner.get(node, node)):
            out.append(f"{where}: os.open() for reading")
        elif last == "open" and func not in ("os.open", "io.open", "codecs.open") \
                and isinstance(node.func, ast.Attribute) \
                and not WRITE_MODES & set(_mode(node, 0) or "r"):  # Path.open(), any .open()
            out.append(f"{where}: {func}() for reading")
        elif last in ("read_text", "read_bytes") and isinstance(node.func, ast.Attribute):
            out.append(f"{where}: .{last}()")
        elif func in ("json.load", "json.loads"):
            arg = node.args[0] if node.args else None
            if not (isinstance(arg, ast.Call) and _dotted(arg.func) == "json.dumps"):
                out.append(f"{where}: {func}() (use bounded.decode_json)")
        elif last in ("load", "loads") and ("toml" in func.rsplit(".", 1)[0]):
            out.append(f"{where}: {func}() (use bounded.decode_toml)")
        elif func in ("os.getenv", "os.environ.get", "os.environ.__getitem__"):
            out.append(f"{where}: {func}() (use bounded.env)")
    return out


# Reads that check more than the reader does, each with why it stays where it is.
ALLOWED = {
    ("seal.py", "os.open() for reading"):
        "the sealing key: O_NOFOLLOW, this user's, mode 0600 and exactly 32 bytes, or nothing",
    ("suggest/index/http.py", "_opener().open() for reading"):
        "an HTTP request of `--online`; its body is read by bounded.read_stream (size cap, "
        "the run's deadline)",
}


def test_no_module_reads_outside_data_but_the_reader():
    found = []
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 100  # the walk saw the package
    for path in files:
        if path == READER:
            continue
        name = str(path.relative_to(PACKAGE))
        found += [v for v in violations(path.read_text(encoding="utf-8"), name)
                  if (name, v.split(": ", 1)[1]) not in ALLOWED]
    assert found == [], "\n".join(found)


@pytest.mark.parametrize("source", [
    "open(p)", "open(p, 'rb')", "open(p, mode='r')", "import io\nio.open(p)",
    "Path(p).read_text()", "p.read_bytes()", "Path(p).open()", "p.open('rb')", "json.loads(text)", "json.load(fh)",
    "tomllib.loads(text)", "tomllib().load(fh)", "tomli.loads(t)",
    "def f():\n    fd = os.open(p, os.O_RDONLY)", "os.fdopen(fd, 'rb')",
    "os.environ.get('X')", "os.getenv('X')", "os.environ['X']",
])
def test_the_walk_catches_each_way_around_the_reader(source):
    assert violations(source, "planted.py"), source


@pytest.mark.parametrize("source", [
    "open(p, 'w')", "open(p, 'a', encoding='utf-8')",
    "def f():\n    fd = os.open(p, os.O_WRONLY | os.O_CREAT, 0o600)",
    "os.fdopen(fd, 'w')", "json.loads(json.dumps(x))",
    "def f():\n    fd = os.open(folder, os.O_RDONLY)\n    os.fsync(fd)", "os.environ['X'] = '1'",
    "p.write_text(t)", "bounded.read_file(p)", "dict(os.environ)", "p.open('w')",
])
def test_writes_and_the_reader_itself_pass(source):
    assert violations(source, "planted.py") == []
