"""Import names and the distributions that provide them (imports.toml): which ``pip install``
a missing module needs, and which installed distribution a missing submodule belongs to."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from envdoctor.matrices import matrix


@lru_cache(maxsize=4)
def _rows(root: str | None = None) -> dict[str, dict[str, Any]]:
    """Each ``[[module]]`` row by its import name (the first row of a name wins)."""
    out: dict[str, dict[str, Any]] = {}
    for row in matrix("imports", root).get("module", []):
        name = row.get("import")
        if isinstance(name, str) and isinstance(row.get("dist"), str):
            out.setdefault(name, row)
    return out


def _values(row: dict[str, Any]) -> dict[str, str]:
    """The fields a fix names: the import name, the distribution, the commands to install it
    and to move it to its newest release (pip's, unless the row says otherwise), the note."""
    dist = str(row["dist"])
    return {"import": str(row["import"]), "dist": dist,
            "install": str(row.get("install") or f"python -m pip install {dist}"),
            "upgrade": str(row.get("upgrade") or f"python -m pip install -U {dist}"),
            "also": ", ".join(str(a) for a in row.get("also") or ()),
            "row_note": str(row.get("note") or "")}


def import_lookup(module: str, part: str = "whole",
                  root: str | None = None) -> dict[str, str] | None:
    """The row of the distribution that provides ``module``, as the values a fix names
    (``import``, ``dist``, ``install``, ``upgrade``, ``also``, ``row_note``, and ``below``: the part of
    the name under the row's import name), or None.

    ``part``: ``whole`` when ``module`` must be a row's import name itself ("No module named
    'flash_attn'"); ``below`` when it must lie strictly under one ("No module named
    'timm.layers'"); ``within`` for either ("cannot import name 'X' from 'timm.models'").
    Below a row's name, no part may be private (``torch._C``, ``numpy._core``): a private
    module is the package's own business (a compiled part, an internal move), not a release
    its caller can ask for. The longest row name that fits wins (google.protobuf, not google).
    """
    rows = _rows(root)
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        row = rows.get(".".join(parts[:n]))
        if row is None:
            continue
        rest = parts[n:]
        if (part == "whole" and rest) or (part == "below" and not rest):
            return None
        if any(p.startswith("_") for p in rest):
            return None
        return {**_values(row), "below": ".".join(rest)}
    return None
