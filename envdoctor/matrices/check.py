"""Validation of the compatibility matrices in ``rules/matrices`` (``rules test``).

Every row of every table needs a ``source`` URL; ``confirmed`` must be a boolean; typed fields
must parse (versions, specifiers, cuDNN series ranges); arch lists must look like sm_XY.
"""

from __future__ import annotations

from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from envdoctor.matrices.cudnn import series_range
from envdoctor.matrices.gpus import arch_cc
from envdoctor.rulefiles import is_url
from envdoctor.versions import ver

# Fields whose values must parse, per matrix and table: "version", "spec", "specs" (a list
# of specifiers) or "series".
_TYPED_FIELDS: dict[tuple[str, str], dict[str, str]] = {
    ("cuda_driver", "toolkit"): {"cuda": "version", "linux": "version", "windows": "version"},
    ("cuda_driver", "minor_compat"): {"linux": "version", "windows": "version"},
    ("gpus", "arch"): {"cc": "version", "first_cuda": "version", "last_cuda": "version",
                       "libraries_first_cuda": "version"},
    ("gpus", "gpu"): {"cc": "version"},
    ("torch", "release"): {"torch": "version", "python": "spec", "torchvision": "version",
                           "torchaudio": "version"},
    ("torch", "variant"): {"torch": "spec"},
    ("gpus", "features"): {"bf16_min_cc": "version"},
    ("tensorflow", "release"): {"tensorflow": "version", "python": "spec", "cuda": "version",
                                "cudnn": "version"},
    ("jax", "release"): {"first": "version", "last": "version", "python": "spec"},
    ("jax", "plugin"): {"min_cudnn": "version", "min_cc": "version", "extra_from": "version"},
    ("cudnn", "release"): {"cudnn": "series", "min_cc": "version"},
    ("misc", "keras"): {"tensorflow": "spec"},
    ("tensorflow", "hardware"): {"min_cc": "version", "newest_cc": "version"},
    ("tensorflow", "base_package"): {"cpu_only": "specs"},
    ("apple", "mps_floor"): {"torch": "spec", "macos": "version"},
    ("apple", "torch_wheel"): {"torch": "spec", "macos": "version"},
    ("apple", "intel"): {"last_torch": "version"},
    ("apple", "jax_metal"): {"version": "version", "jax": "spec", "jaxlib": "spec"},
    ("apple", "tensorflow_metal"): {"version": "version", "tensorflow": "spec"},
    ("arch_floors", "floor"): {"versions": "spec", "min_cc": "version"},
}


def _type_problem(kind: str, value: Any) -> str | None:
    if value == "" and kind == "version":
        return None  # an empty cell: the matrix does not know (e.g. last_cuda of a live arch)
    if kind == "version" and ver(value) is None:
        return f"{value!r} is not a version"
    if kind == "spec":
        try:
            SpecifierSet(str(value))
        except InvalidSpecifier:
            return f"{value!r} is not a version specifier"
    if kind == "specs":
        if not isinstance(value, list):
            return f"{value!r} must be a list of version specifiers"
        return next((p for p in (_type_problem("spec", v) for v in value) if p), None)
    if kind == "series" and series_range(str(value)) is None:
        return f"{value!r} is not a version or a range like 9.1-9.4"
    return None


def matrix_problems(name: str, data: dict[str, Any]) -> list[str]:
    """What is wrong with one matrix's data: ``"<table>[i].<field>: message"`` per problem.

    Every row (any table other than ``meta``) needs a ``source`` URL; ``confirmed`` must be a
    boolean; typed fields must parse; arch lists must look like sm_XY / compute_XY.
    """
    problems = []
    for table, value in data.items():
        if table == "meta":
            continue
        rows = value if isinstance(value, list) else [value]
        for i, row in enumerate(rows):
            where = f"{table}[{i}]" if isinstance(value, list) else table
            if not isinstance(row, dict):
                problems.append(f"{where}: must be a table")
                continue
            if not is_url(row.get("source")):
                problems.append(f"{where}.source: every row needs a source URL")
            if "confirmed" in row and not isinstance(row["confirmed"], bool):
                problems.append(f"{where}.confirmed: must be true or false")
            for key, kind in _TYPED_FIELDS.get((name, table), {}).items():
                if key in row and (msg := _type_problem(kind, row[key])):
                    problems.append(f"{where}.{key}: {msg}")
            for arch in row.get("archs", []) if table == "variant" else []:
                if arch_cc(arch) is None:
                    problems.append(f"{where}.archs: {arch!r} is not sm_XY or compute_XY")
    problems.extend(_unique_keys(name, data))
    return problems


# Tables whose rows are looked up by one field: a second row of the same key would never be read.
_KEYED = {("imports", "module"): "import"}


def _unique_keys(name: str, data: dict[str, Any]) -> list[str]:
    out = []
    for (matrix_name, table), key in _KEYED.items():
        rows = data.get(table) if matrix_name == name else None
        seen: dict[Any, int] = {}
        for i, row in enumerate(rows if isinstance(rows, list) else []):
            value = row.get(key) if isinstance(row, dict) else None
            if value in seen:
                out.append(f"{table}[{i}].{key}: {value!r} is also row {seen[value]}'s")
            elif value is not None:
                seen[value] = i
    return out
