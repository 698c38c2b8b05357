"""Types that hold: the mypy configuration checks all of envdoctor, and the plug points conform.

The configuration test is cheap and always runs: a module excluded, an error code disabled
for the whole package or ``ignore_errors`` on an envdoctor module would let types rot where
nobody looks. The mypy run itself (the same command as ``.ci/run``) is skipped where mypy is
not installed.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
# settings that switch checking off, wherever they appear
LOOSENING = ("exclude", "disable_error_code", "ignore_errors", "follow_imports_for_stubs",
             "allow_untyped_globals", "disable_bytearray_promotion")


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]


def test_mypy_checks_every_envdoctor_module_with_every_code():
    cfg = _config()
    assert cfg["files"] == ["envdoctor"]
    assert cfg["python_version"] == "3.10"
    for flag in ("check_untyped_defs", "no_implicit_optional", "strict_equality",
                 "warn_unused_ignores", "warn_redundant_casts"):
        assert cfg.get(flag) is True, flag
    assert not [k for k in cfg if k in LOOSENING or k == "ignore_missing_imports"]


def test_overrides_only_loosen_third_party_imports():
    """Per-module overrides may only say a third-party module has no types to read."""
    for override in _config().get("overrides", []):
        modules = override["module"] if isinstance(override["module"], list) else \
            [override["module"]]
        assert not [m for m in modules if m.split(".")[0] == "envdoctor"], override
        assert set(override) - {"module"} <= {"ignore_missing_imports", "follow_imports"}
        assert override.get("follow_imports", "skip") == "skip"


def test_type_ignores_name_their_code():
    """A bare ``# type: ignore`` hides every error on its line; each names the one it means."""
    bare = []
    for path in sorted((ROOT / "envdoctor").rglob("*.py")):
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"#\s*type:\s*ignore(?!\[[a-z-]+(?:, *[a-z-]+)*\])", line):
                bare.append(f"{path.relative_to(ROOT)}:{no}")
    assert bare == []


def test_every_registered_renderer_takes_obj_and_color():
    """``renderers.Renderer``: the registry names functions by string, so mypy cannot see
    them; their signatures are checked here instead."""
    from envdoctor.outputs.renderers import RENDERERS, renderer
    for document, fmt in RENDERERS:
        fn = renderer(document, fmt)
        sig = inspect.signature(fn)
        sig.bind(object(), False)  # raises TypeError when it does not conform
        rest = list(sig.parameters.values())[2:]
        assert all(p.default is not inspect.Parameter.empty for p in rest), (document, fmt)


def test_every_worker_module_has_the_worker_shape():
    """Each worker's collect/smoke are passed to ``common_main`` (mypy checks them against
    ``Collect``/``Smoke`` there); here: every registered module defines them and a main."""
    from envdoctor.workers import WORKERS
    for name, module_name in WORKERS.items():
        module = importlib.import_module(module_name)
        assert {"collect", "smoke", "main"} <= set(vars(module)), name
        inspect.signature(module.collect).bind(None, {})
        inspect.signature(module.smoke).bind(None, None, "cpu", {})


def test_mypy_finds_no_errors(monkeypatch):
    api = pytest.importorskip("mypy.api")
    monkeypatch.chdir(ROOT)  # files = ["envdoctor"] is relative to the working directory
    stdout, stderr, status = api.run(["--config-file", str(ROOT / "pyproject.toml")])
    assert status == 0, stdout + stderr
    assert "Success: no issues found" in stdout
