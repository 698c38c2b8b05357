"""JAX: releases, their Python wheels and CUDA plugins (jax.toml)."""

from __future__ import annotations

import re
from typing import Any

from packaging.version import Version

from envdoctor.matrices import matrix
from envdoctor.versions import in_range, ver


def jax_plugin_major(name: str) -> int | None:
    """``jax-cuda12-plugin`` / ``jax-cuda12-pjrt`` -> 12."""
    m = re.match(r"^jax-cuda(\d+)-(plugin|pjrt)$", name)
    return int(m.group(1)) if m else None


def python_ceiling(version: Any) -> str | None:
    """``"<3.13"`` for a jax before 0.4.34: the newest Python its jaxlib has wheels for
    (jax.toml ``[[python_wheels]]``); None when the data sets no ceiling."""
    v = ver(version)
    if v is None:
        return None
    return next((r["python"] for r in matrix("jax").get("python_wheels", [])
                 if in_range(Version(v.base_version), r.get("jax", ""))), None)


def lookup_jax_release(version: Any) -> dict[str, Any] | None:
    """The JAX row whose first..last range holds ``version``, its ``python`` narrowed by the
    release's wheel ceiling (python_requires alone has no upper bound)."""
    v = ver(version)
    if v is None:
        return None
    for row in matrix("jax").get("release", []):
        first, last = ver(row.get("first")), ver(row.get("last"))
        if first and last and first <= Version(v.base_version) <= last:
            ceiling = python_ceiling(v)
            return {**row, "python": f"{row['python']},{ceiling}"} if ceiling else row
    return None


def jaxlib_floor(version: Any) -> dict[str, Any] | None:
    """The jax.toml ``[[jaxlib_floor]]`` row of a jax release (``jaxlib_min``: the oldest
    jaxlib it imports with, jax/version.py ``_minimum_jaxlib_version``), matched on the release
    number; None for a jax outside the table (newer than its last row, older than 0.2.0) and
    for a dev or pre-release build, whose floor may still be the previous release's."""
    v = ver(version)
    if v is None or v.is_prerelease or v.is_devrelease:
        return None
    base = Version(v.base_version)
    for row in matrix("jax").get("jaxlib_floor", []):
        first, last = ver(row.get("jax_from")), ver(row.get("jax_last"))
        if first is not None and last is not None and first <= base <= last:
            return row
    return None


def lookup_jax_plugin(cuda_major: Any) -> dict[str, Any] | None:
    """The CUDA plugin rule (package names, min driver/cuDNN/cc) of a CUDA major."""
    return next((r for r in matrix("jax").get("plugin", [])
                 if str(r.get("cuda_major")) == str(cuda_major)), None)


def plugins_for_driver(driver: Any) -> list[dict[str, Any]]:
    """The CUDA plugin rules whose Linux driver floor ``driver`` meets, newest CUDA major
    first; every plugin rule, newest first, when the driver is not known."""
    rows = sorted(matrix("jax").get("plugin", []), key=lambda r: r.get("cuda_major", 0),
                  reverse=True)
    d = ver(driver)
    if d is None:
        return rows
    return [r for r in rows if (need := ver(r.get("min_driver_linux"))) is not None
            and d >= need]
