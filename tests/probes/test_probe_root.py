"""One root for every probe (`check --static --root DIR`): no probe names a system path
literally, every file a probe reads is under the root, and a bad --root is exit 2."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from envdoctor import probes
from envdoctor.facts import Status

PROBES = Path(probes.__file__).parent
SYSTEM_PATH = re.compile(r"/(proc|sys|dev|etc|usr|opt|run|var|lib|lib64|sbin|bin|boot|srv|"
                         r"\.dockerenv)(/[^\s]+)?")
TOOLS = {"/sbin/ldconfig"}  # tools come from PATH (or their usual place), never from the root
# Literals that name a path as the machine names it and are mapped under the root where they
# are read (each with where that happens).
MAPPED = {("_elf.py", "DEFAULT_DIRS"): "ld.so's default folders; resolve() reads them under "
                                       "root through _under()"}


def name_of(tree: ast.AST) -> str:
    return getattr(tree, "envdoctor_file", "")


def _path_literals(tree: ast.AST) -> list[tuple[int, str]]:
    """String constants that are whole system paths, outside f-strings (messages) and
    docstrings."""
    inside_fstring = {id(n) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
                      for n in ast.walk(node)}
    # a value compared with what a file said (a mount point of /proc/mounts) is not a read
    compared = {id(n) for node in ast.walk(tree) if isinstance(node, ast.Compare)
                for n in (node.left, *node.comparators)}
    mapped = {id(n) for node in ast.walk(tree) if isinstance(node, ast.Assign)
              for target in node.targets if isinstance(target, ast.Name)
              and (name_of(tree), target.id) in MAPPED for n in ast.walk(node.value)}
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
                  and node.body and isinstance(node.body[0], ast.Expr)}
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in inside_fstring and id(n) not in docstrings
            and id(n) not in compared and id(n) not in mapped
            and SYSTEM_PATH.fullmatch(n.value) and n.value not in TOOLS]


def test_the_guard_sees_a_literal_system_path():
    assert _path_literals(ast.parse('read_text("/etc/os-release")')) == [(1, "/etc/os-release")]
    assert _path_literals(ast.parse('read_text(root / "etc/os-release")')) == []
    assert _path_literals(ast.parse('ok = parts[1] == "/dev/shm"')) == []
    assert _path_literals(ast.parse('DEFAULT_DIRS = ("/usr/lib",)')) == [(1, "/usr/lib")]


@pytest.mark.parametrize("path", sorted(PROBES.glob("*.py")), ids=lambda p: p.name)
def test_no_probe_names_a_system_path_outside_its_root(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    tree.envdoctor_file = path.name  # type: ignore[attr-defined]
    found = _path_literals(tree)
    assert found == [], f"{path.name}: join these to the probe's root (probes/_root.py)"


def _tree(root: Path) -> None:
    (root / "etc").mkdir()
    (root / "etc/os-release").write_text('PRETTY_NAME="Image Linux 1"\n')
    (root / "proc").mkdir()
    (root / "proc/meminfo").write_text("MemTotal:       8388608 kB\nMemAvailable:   4194304 kB\n")
    (root / "proc/version").write_text("Linux version 6.8.0-1 (image)\n")
    info = root / "opt/rocm/.info"
    info.mkdir(parents=True)
    (info / "version").write_text("6.2.4-120\n")
    inc = root / "usr/include"
    inc.mkdir(parents=True)
    (inc / "cudnn_version.h").write_text(
        "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n")


def test_every_file_a_probe_reads_is_under_the_root(tmp_path):
    root = tmp_path / "img"
    root.mkdir()
    _tree(root)
    facts = probes.collect(root=root)
    assert facts.host.distro == "Image Linux 1"
    assert facts.host.ram_total_gb == 8.0
    assert facts.rocm.version is not None and str(facts.rocm.version) == "6.2.4"
    assert facts.rocm.rocm_path == "/opt/rocm"          # as the machine names it
    cudnn = [lib for lib in facts.libraries.libraries if lib.name == "cudnn"]
    assert [(str(lib.version), lib.path) for lib in cudnn] == [("9.1.0", "/usr/include/cudnn_version.h")]
    site = {str(Path(p)) for p in sys.path if p}
    for section in ("host", "nvidia", "rocm", "cuda", "libraries"):
        info = getattr(facts, section).probe
        for entry in info.ran:
            if not entry.startswith("read "):
                continue
            read = entry[5:]
            assert read.startswith(str(root)) or any(read.startswith(s) for s in site), \
                f"{section} read {read} outside the root"


def test_an_empty_root_is_a_machine_with_nothing(tmp_path):
    facts = probes.collect(root=tmp_path, sections=("rocm", "host"))
    assert facts.rocm.probe.status is Status.NOT_FOUND
    assert facts.host.ram_total_gb is None  # not this machine's RAM


@pytest.mark.parametrize("argv,says", [
    (["--root", "/nonexistent/img"], "no such folder"),
    (["--root", __file__], "not a folder"),
    (["--root", "."], None)])
def test_bad_root_is_exit_2_in_one_line(argv, says, tmp_path):
    done = subprocess.run([sys.executable, "-m", "envdoctor", "check", "--static", *argv],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    if says is None:
        assert done.returncode in (0, 1), done.stderr
        return
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and says in done.stderr
    assert "Traceback" not in done.stderr


def test_root_needs_static():
    done = subprocess.run([sys.executable, "-m", "envdoctor", "check", "--root", "/"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--static" in done.stderr
