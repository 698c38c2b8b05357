"""JAX: releases, CUDA plugins and their version rules (jax.toml)."""

from __future__ import annotations

import re
from typing import Any

from packaging.version import Version

from envdoctor.engine.knowledge._common import counted
from envdoctor.engine.knowledge._reads import optional, reads, some
from envdoctor.facts import Distribution, Gpu, JaxBuild, LiveFramework, PackageFacts
from envdoctor.matrices import matrix, with_confirmed
from envdoctor.matrices.gpus import gpu_cc_of
from envdoctor.matrices.jax import (jax_plugin_major, jaxlib_floor, lookup_jax_plugin,
                                    lookup_jax_release)
from envdoctor.versions import in_range, ver


@reads()
def jax_release(version: Any) -> dict[str, Any] | None:
    """``jax_release(version)`` -> python range, numpy floor; None past the table."""
    return with_confirmed(lookup_jax_release(version))


@reads(pk=some("packages"))
def jax_mismatch(*, pk: PackageFacts) -> list[str]:
    """Version rule of jax/jaxlib/plugin/pjrt broken, as readable strings.

    jax setup.py: jaxlib and the plugin must lie in [jaxlib floor, jax]; the plugin pins its
    pjrt to its own version (jax_plugins/cuda/plugin_setup.py). The floor is jax.toml
    ``[[jaxlib_floor]]`` (jax/version.py at each tag); a jax past that table is not judged
    against a floor.
    """
    jax, jaxlib = pk.get("jax"), pk.get("jaxlib")
    if jax is None or jax.version is None:
        return _plugin_not_jaxlib(pk)
    out = []
    jv = Version(jax.version.base_version)
    if jaxlib is not None and jaxlib.version is not None \
            and Version(jaxlib.version.base_version) > jv:
        out.append(f"jaxlib {jaxlib.version} is newer than jax {jax.version}")
    floor = _floor_broken(jax.version, jaxlib.version if jaxlib is not None else None)
    if floor is not None:
        out.append(floor)
    by_major: dict[int, dict[str, Version]] = {}
    for d in pk.distributions:
        m = re.match(r"^jax-cuda(\d+)-(plugin|pjrt)$", d.name)
        if m and d.version is not None:
            by_major.setdefault(int(m.group(1)), {})[m.group(2)] = d.version
    for major, parts in sorted(by_major.items()):
        plugin, pjrt = parts.get("plugin"), parts.get("pjrt")
        if plugin is not None and pjrt is not None and plugin != pjrt:
            out.append(f"jax-cuda{major}-plugin {plugin} needs jax-cuda{major}-pjrt "
                       f"=={plugin}, found {pjrt}")
        if plugin is not None and Version(plugin.base_version) > jv:
            out.append(f"jax-cuda{major}-plugin {plugin} is newer than jax {jax.version}")
        if plugin is not None and jaxlib is not None and jaxlib.version is not None \
                and Version(plugin.base_version) < Version(jaxlib.version.base_version):
            out.append(f"jax-cuda{major}-plugin {plugin} is older than jaxlib "
                       f"{jaxlib.version}")
    named = {line.split(" ")[0] for line in out}
    return out + [line for line in _plugin_not_jaxlib(pk) if line.split(" ")[0] not in named]


def _floor_broken(jax: Version, jaxlib: Version | None) -> str | None:
    """"jax X needs jaxlib >= Y, found Z" when jaxlib is older than the oldest one that jax
    release imports with (jax.toml ``[[jaxlib_floor]]``); None when it is not, or the floor
    of that jax is not known."""
    row = jaxlib_floor(jax)
    need = ver(row.get("jaxlib_min")) if row is not None else None
    if need is None or jaxlib is None or Version(jaxlib.base_version) >= need:
        return None
    return f"jax {jax} needs jaxlib >= {need}, found {jaxlib}"


def jaxlib_in_window(jax: str, jaxlib: str) -> bool:
    """Whether jax imports with this jaxlib: jaxlib between that jax release's floor (jax.toml
    ``[[jaxlib_floor]]``) and jax itself (jax 0.3.17 with jaxlib 0.3.14). False when either
    version cannot be read or the floor of that jax is not known. explain asks it about the
    versions a text states."""
    row = jaxlib_floor(jax)
    need, top, lib = ver(row.get("jaxlib_min")) if row else None, ver(jax), ver(jaxlib)
    if need is None or top is None or lib is None:
        return False
    return need <= Version(lib.base_version) <= Version(top.base_version)


def _plugin_equals_jaxlib_from() -> Version | None:
    """The jaxlib from which a plugin of another release is refused (jax.toml
    ``[[plugin_release_rule]]``, with its source); None when the data has no such row."""
    rows = matrix("jax").get("plugin_release_rule", [])
    return ver(rows[0].get("jaxlib_from")) if rows else None


def _plugin_not_jaxlib(pk: PackageFacts) -> list[str]:
    """Plugins of another release than jaxlib, where jaxlib refuses them (see above)."""
    jaxlib, since = pk.get("jaxlib"), _plugin_equals_jaxlib_from()
    if jaxlib is None or jaxlib.version is None or since is None or jaxlib.version < since:
        return []
    lib = Version(jaxlib.version.base_version)
    out = []
    for d in pk.distributions:
        m = re.match(r"^jax-(?:cuda|rocm)\d+-plugin$", d.name)
        if m and d.version is not None and Version(d.version.base_version) != lib:
            out.append(f"{d.name} {d.version} is not the release of jaxlib {jaxlib.version}")
    return out


@reads(gpus="nvidia.gpus", jax="frameworks.jax")
def gpus_below_jax(*, gpus: tuple[Gpu, ...], jax: JaxBuild | None) -> list[str]:
    """GPUs older than the installed JAX CUDA plugin's minimum compute capability."""
    if jax is None:
        return []
    out = []
    for major in sorted({m for m in (jax_plugin_major(p.name) for p in jax.plugins) if m}):
        floor = ver((lookup_jax_plugin(major) or {}).get("min_cc"))
        for gpu in gpus:
            cc = gpu_cc_of(gpu)
            if floor is not None and cc is not None and cc < floor:
                out.append(f"{gpu.name} (cc {cc} < {floor} for jax-cuda{major}-plugin)")
    return counted(out)


def gpu_build(jaxlib: Version | None, plugins: tuple[Distribution, ...] | None,
              live: LiveFramework | None) -> bool | None:
    """Can the installed JAX use an NVIDIA GPU: True, False, or None when not observed.

    ``plugins`` is None when nobody listed the installed distributions (a pasted
    ``jax.print_environment_info()``), () when they were listed and hold none. Observed
    evidence first: devices JAX itself listed (a live worker, a pasted ``jax.devices``) beat
    package metadata. Then a jax-cuda plugin or a CUDA jaxlib (old ``+cuda`` wheels). False
    only when the distributions were listed and have none, or JAX itself ran on the CPU.
    """
    kinds = {d.kind for d in (live.devices if live is not None else ())}
    if kinds & {"cuda", "gpu"}:
        return True
    if any(p.name.startswith(("jax-cuda", "jax_cuda")) for p in plugins or ()) or \
            (jaxlib is not None and jaxlib.local and "cuda" in jaxlib.local):
        return True
    if kinds == {"cpu"}:
        return False  # JAX itself says it runs on the CPU
    return False if plugins is not None else None


@reads(jax=optional("frameworks.jax.version"), jaxlib=optional("frameworks.jax.jaxlib"),
       plugins=optional("frameworks.jax.plugins"), live=optional("live.jax"))
def jax_gpu_build(*, jax: Version | None, jaxlib: Version | None,
                  plugins: tuple[Distribution, ...] | None,
                  live: LiveFramework | None) -> bool | None:
    """``jax_gpu_build()``: True/False, None when the report did not show it (see
    ``gpu_build``); reads the plugin list only where it was observed, so JAX's own device
    list still decides when a report lists no plugins."""
    if jax is None and jaxlib is None:
        return None  # jax not installed, or not observed
    return gpu_build(jaxlib, plugins, live)


@reads(jax="frameworks.jax", pk="packages")
def jax_cudnn_gap(*, jax: JaxBuild | None, pk: PackageFacts) -> dict[str, Any] | None:
    """The pip cuDNN a JAX CUDA plugin would load, when it is older than that JAX release
    accepts (jax.toml ``[[cudnn_floor]]``: 9.1 from 0.4.31, 9.8 from 0.6.0), typically pinned
    down by torch's wheel. ``{"jax", "need", "wheel", "dist"}``; None when it fits or is not
    known."""
    if jax is None:
        return None
    release = ver(jax.jaxlib) or ver(jax.version)
    if release is None:
        return None
    floor = next((ver(r.get("cudnn")) for r in matrix("jax").get("cudnn_floor", [])
                  if in_range(Version(release.base_version), r.get("jax", ""))), None)
    if floor is None:
        return None
    for major in sorted({m for m in (jax_plugin_major(p.name) for p in jax.plugins) if m}):
        dist = pk.get(f"nvidia-cudnn-cu{major}")
        if dist is None or dist.version is None:
            continue
        if dist.version.major != floor.major or dist.version.release[:2] < floor.release[:2]:
            return {"jax": str(release), "need": str(floor), "wheel": str(dist.version),
                    "dist": dist.name}
    return None
