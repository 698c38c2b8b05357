"""GPU name -> compute capability for reports, which name GPUs but rarely give their capability.

Uses ``envdoctor.compat.lookup_gpu`` (the knowledge functions' own table look-up) when it
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
    name = re.sub(r"\b(RTX|GTX|GT|MX)(\d{3,4})", r"\1 \2", name, flags=re.IGNORECASE)
    return " ".join(name.split())


def _matches(name: str, pattern: str) -> bool:
    low, pat = name.lower(), pattern.lower().strip()
    if not pat:
        return False
    start = low.find(pat)
    while start >= 0:
        end = start + len(pat)
        if (start == 0 or not low[start - 1].isalnum()) and (end == len(low)
                                                             or not low[end].isalnum()):
            return True
        start = low.find(pat, start + 1)
    return False


def _lookup(name: str) -> dict[str, Any] | None:
    try:
        from envdoctor import compat
        fn = getattr(compat, "lookup_gpu", None)
        if fn is not None:
            return fn(name)
    except Exception:  # a knowledge module mid-edit must not break report parsing
        pass
    from envdoctor.knowledge import matrix
    best, best_len = None, 0
    for row in matrix("gpus").get("gpu", []):
        if any(x.lower() in name.lower() for x in row.get("exclude", [])):
            continue
        for pattern in row.get("match", []):
            if len(pattern) > best_len and _matches(name, pattern):
                best, best_len = row, len(pattern)
    return best


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
    from envdoctor.knowledge import matrix
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
