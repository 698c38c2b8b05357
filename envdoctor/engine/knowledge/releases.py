"""Release tables (``matrices/torch.toml``, ``tensorflow.toml``, ``jax.toml``) as rows, for the
readings of pasted text in ``envdoctor.explain`` (pip's resolver: which release first has wheels
for a Python). Explain reads matrices only through the engine's knowledge layer; this module
registers nothing a rule calls.
"""

from __future__ import annotations

from typing import Any

from envdoctor.matrices import matrix


def release_rows(table: str) -> list[dict[str, Any]]:
    """The ``[[release]]`` rows of one release table (``"torch"``, ``"tensorflow"``, ``"jax"``)."""
    return list(matrix(table).get("release", []))
