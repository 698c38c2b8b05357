"""GPU name -> compute capability for reports, which name GPUs but rarely give their capability.

Uses ``envdoctor.matrices.gpus.lookup_gpu`` (the one table look-up the checks use too) when it
exists, so a report and a rule agree; otherwise reads ``rules/matrices/gpus.toml`` here with
the same rules: case-insensitive, word-bounded ``match`` substrings, ``exclude`` substrings,
the longest matching pattern wins. nvidia-smi truncates long names ("NVIDIA GeForce RTX 4090
..."), which is why matching is by substring.
"""

from __future__ import annotations

import re
from typing import Any

from packaging.version import InvalidVersion, Version


def clean_name(name: str) -> str:
    """Drop nvidia-smi's truncation marks and padding: "NVIDIA GeForce RTX 3080 Ti ..."."""
    name = re.sub(r"\s*(?:\.\.\.|…)\s*$", "", name or "")
    # "NVIDIA GeForce RTX 3070, driver 546.33": no GPU name holds a comma; what follows is
    # another fact of the same line
    name = name.split(",", 1)[0]
    name = re.sub(r"\b(RTX|GTX|GT|MX)(\d{3,4})", r"\1 \2", name, flags=re.IGNORECASE)
    # "3060ti", "GTX 1080Ti", "4070super": the suffix typed onto the model number
    name = re.sub(r"(?<=\d)(ti|super)\b", r" \1", name, flags=re.IGNORECASE)
    return " ".join(name.split())


def _lookup(name: str) -> dict[str, Any] | None:
    """The GPU table row for a name; the one matching rule lives in ``envdoctor.matrices.gpus``."""
    from envdoctor.matrices.gpus import lookup_gpu
    return lookup_gpu(name)


def cc_of(name: str) -> Version | None:
    """Compute capability of a GPU by its (possibly truncated) name; None when unknown."""
    name = clean_name(name)
    if not name:
        return None
    try:
        row = _lookup(name)
        if row and row.get("cc"):
            return Version(str(row["cc"]))
        return _truncated_cc(name)
    except (InvalidVersion, KeyError, TypeError, ValueError):
        return None


def _truncated_cc(name: str) -> Version | None:
    """nvidia-smi's old 18-column table cuts names mid-word ("GeForce RTX 208..."): the
    capability on which every table pattern whose beginning the name ends with agrees
    ("Quadro RTX 60" could be Turing or Ada: None)."""
    from envdoctor.matrices import matrix
    low = name.lower()
    if not re.search(r"\d$", low):
        return None
    ccs = set()
    for row in matrix("gpus").get("gpu", []):
        for pattern in row.get("match", []):
            pat = pattern.lower()
            for k in range(len(pat) - 1, 4, -1):
                head = pat[:k]
                if low.endswith(head) and re.search(r"\d", head) and \
                        (len(low) == k or not low[-k - 1].isalnum()):
                    ccs.add(str(row.get("cc")))
                    break
    return Version(ccs.pop()) if len(ccs) == 1 else None
