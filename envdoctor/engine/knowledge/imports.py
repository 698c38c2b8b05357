"""Table answers for the import failures a text states (envdoctor.explain.lookups): the
distribution that provides an import name (imports.toml). Explain reads the matrices only
through the engine (tests/test_layers.py)."""

from __future__ import annotations

from envdoctor.matrices.imports import import_lookup

__all__ = ["import_lookup"]
