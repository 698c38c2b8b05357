"""The compatibility matrices of ``rules/matrices`` and their typed look-ups.

Knowledge is data: which driver a CUDA release needs, which GPUs a build runs on, which
distributions a framework ships as. This package is the one place that reads those tables,
one module per family (``cuda``, ``gpus``, ``cudnn``, ``torch``, ``tensorflow``, ``jax``);
``engine`` (checks), ``suggest`` (install planning), ``parsers``, ``probes`` and ``gate``
import it, and it imports none of them (tests/test_layers.py). ``check`` validates the tables
themselves (`rules test`). Version parsing (``ver``, ``series``) is ``envdoctor.versions``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from envdoctor.rulefiles import load_tree
from envdoctor.versions import ver


def confirmed(row: dict[str, Any] | None) -> bool:
    """A matrix row counts as confirmed unless it says ``confirmed = false``."""
    return row is not None and bool(row) and row.get("confirmed", True) is not False


def with_confirmed(row: dict[str, Any] | None) -> dict[str, Any] | None:
    """A row for rule expressions: always has a boolean ``confirmed``."""
    return None if row is None else {**row, "confirmed": confirmed(row)}


def name_matches(name: str, pattern: str) -> bool:
    """Case-insensitive substring match on word boundaries ("A10" does not match "A100")."""
    low, pat = name.lower(), pattern.lower().strip()
    start = low.find(pat)
    while start >= 0:
        end = start + len(pat)
        before_ok = start == 0 or not low[start - 1].isalnum()
        after_ok = end == len(low) or not low[end].isalnum()
        if before_ok and after_ok:
            return True
        start = low.find(pat, start + 1)
    return False


def platform_of(os_name: str) -> str:
    """The column of a driver table: ``windows`` or ``linux``."""
    return "windows" if (os_name or "").lower().startswith("win") else "linux"


def matrix(name: str, root: str | None = None) -> dict[str, Any]:
    """One matrix file (``rules/matrices/<name>.toml``) as data; {} when it does not exist."""
    return _matrices(root).get(name, {})


@lru_cache(maxsize=8)
def _matrices(root: str | None) -> dict[str, dict[str, Any]]:
    return {path.stem: data for path, data in load_tree("matrices", Path(root) if root else None)
            if path.parent.name == "matrices"}


def newest_first(rows: list[dict[str, Any]], field: str) -> list[dict[str, Any]]:
    """Matrix rows sorted by the version in ``field``, newest first; rows whose cell does
    not parse come last, in their order."""
    dated = [(v, i, r) for i, r in enumerate(rows) if (v := ver(r.get(field))) is not None]
    undated = [r for r in rows if ver(r.get(field)) is None]
    return [r for _, _, r in sorted(dated, key=lambda t: (t[0], -t[1]), reverse=True)] + undated
