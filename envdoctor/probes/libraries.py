"""cuDNN, NCCL, cuBLAS, the CUDA runtime and libcuda: headers, the loader cache, folders, wheels.

This says what is *installed*, and (``envdoctor.probes._loader``) which copy ld.so will load for
the framework libraries, from their ELF headers and the loader's search order. What a running
framework did load is read from a live worker's memory maps (the live probes).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from packaging.version import InvalidVersion, Version

from envdoctor.bounded import env
from envdoctor.facts import Library, LibraryFacts, Status
from envdoctor.probes import _dists
from envdoctor.probes import _loader as loader
from envdoctor.probes._base import Trail
from envdoctor.probes._root import SYSTEM, is_system, shown, under

SECTION = "libraries"
LDCONFIG_TIMEOUT = 5.0
SBIN_LDCONFIG = "/sbin/ldconfig"  # a tool (not read under --root): /sbin is often off PATH


@dataclass(frozen=True)
class LibSpec:
    name: str
    soname: str                 # file-name stem: libcudnn
    header: str                 # header that carries the version
    macros: tuple[str, str, str]
    wheels: tuple[str, ...]     # pip distributions that ship it


SPECS = (
    LibSpec("cudnn", "libcudnn", "cudnn_version.h",
            ("CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL"),
            ("nvidia-cudnn-cu11", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13")),
    LibSpec("nccl", "libnccl", "nccl.h", ("NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH"),
            ("nvidia-nccl-cu11", "nvidia-nccl-cu12", "nvidia-nccl-cu13")),
    LibSpec("cublas", "libcublas", "cublas_api.h",
            ("CUBLAS_VER_MAJOR", "CUBLAS_VER_MINOR", "CUBLAS_VER_PATCH"),
            ("nvidia-cublas-cu11", "nvidia-cublas-cu12", "nvidia-cublas-cu13", "nvidia-cublas")),
    LibSpec("cudart", "libcudart", "", ("", "", ""),
            ("nvidia-cuda-runtime-cu11", "nvidia-cuda-runtime-cu12", "nvidia-cuda-runtime-cu13",
             "nvidia-cuda-runtime")),
    LibSpec("libcuda", "libcuda", "", ("", "", ""), ()),
)
# relative to the root the probe reads (``--root``)
HEADER_DIRS = ("usr/include", "usr/local/include", "usr/local/cuda/include",
               "usr/include/x86_64-linux-gnu", "usr/include/aarch64-linux-gnu")
LIB_DIRS = ("usr/lib/x86_64-linux-gnu", "usr/lib/aarch64-linux-gnu", "usr/lib64", "usr/lib",
            "usr/local/cuda/lib64", "usr/local/cuda/lib", "usr/lib/wsl/lib")
LD_CACHE = "etc/ld.so.cache"


def probe(root: Path = SYSTEM) -> LibraryFacts:
    """Headers, folders and the loader cache are read under ``root``; ldconfig (the tool that
    prints a cache) comes from PATH and is pointed at ``root``'s /etc/ld.so.cache."""
    trail = Trail()
    libs: list[Library] = []
    _listing.cache_clear()  # one listing per folder per run, never a stale one
    argv = ["-p"] if is_system(root) else ["-p", "-C", str(under(root, LD_CACHE))]
    ld = trail.run(["ldconfig", *argv], LDCONFIG_TIMEOUT)
    if not ld.ok and "timed out" not in ld.error and os.path.exists(SBIN_LDCONFIG):
        ld = trail.run([SBIN_LDCONFIG, *argv], LDCONFIG_TIMEOUT)
    cache = parse_ldconfig(ld.stdout) if ld.ok else {}
    if not is_system(root):  # the cache names paths as the image does: read them under root
        cache = {name: [str(under(root, p)) for p in paths] for name, paths in cache.items()}

    for spec in SPECS:
        libs.extend(_from_headers(spec, trail, root))
        libs.extend(_from_ldconfig(spec, cache))
        libs.extend(_from_folders(spec, {lib.path for lib in libs}, root))
        libs.extend(_from_wheels(spec))
    if not is_system(root):  # facts name files as the machine does, not where it is mounted
        libs = [replace(lib, path=shown(root, lib.path)) if lib.path.startswith(str(root))
                else lib for lib in libs]
    facts = LibraryFacts(libraries=tuple(_dedupe(libs)))
    reason = "" if ld.ok else f"ldconfig -p: {ld.error or f'exited {ld.returncode}'}"
    objects, verdicts = loader.view(cache)
    if not facts.libraries:
        return LibraryFacts(objects=objects, verdicts=verdicts, probe=trail.info(
            Status.NOT_FOUND, "no CUDA libraries found" + (f" ({reason})" if reason else "")))
    return LibraryFacts(libraries=facts.libraries, objects=objects, verdicts=verdicts,
                        probe=trail.info(Status.OK, reason, "headers+ldconfig+folders+pip+elf"))


def parse_ldconfig(text: str) -> dict[str, list[str]]:
    """soname -> paths, from ``ldconfig -p`` or ``ldconfig -v`` output.

    ``-p``: ``\tlibcudnn.so.8 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.8``.
    ``-v``: a folder line ``/usr/local/cuda/lib64: (from …)`` then
    ``\tlibcudart.so.11.0 -> libcudart.so.11.7.99`` (the target names the full version).
    """
    out: dict[str, list[str]] = {}
    folder = ""
    for line in text.splitlines():
        m = re.match(r"\s*(\S+)\s+\(([^)]*)\)\s+=>\s+(\S+)", line)
        if m:
            out.setdefault(m.group(1), []).append(m.group(3))
            continue
        m = re.match(r"(/\S*?):(?:\s|$)", line)
        if m:
            folder = m.group(1)
            continue
        m = re.match(r"\s+(\S+)\s+->\s+(\S+)\s*$", line)
        if m:
            target = os.path.join(folder, m.group(2)) if folder else m.group(2)
            paths = out.setdefault(m.group(1), [])
            if target not in paths:
                paths.append(target)
    return out


def from_ldconfig(text: str) -> list[Library]:
    """The CUDA libraries an ``ldconfig -p``/``-v`` listing names, one per file."""
    cache = parse_ldconfig(text)
    return _dedupe([lib for spec in SPECS for lib in _from_ldconfig(spec, cache)])


def version_from_filename(name: str, soname: str) -> Version | None:
    """``libcudnn.so.9.1.0`` -> 9.1.0; ``libcudnn.so.8`` -> 8; ``libcudnn.so`` -> None."""
    m = re.match(re.escape(soname) + r"\.so\.(\d+(?:\.\d+)*)$", name)
    if not m:
        return None
    try:
        return Version(m.group(1))
    except InvalidVersion:
        return None


def parse_header_version(text: str, macros: tuple[str, str, str]) -> Version | None:
    parts = []
    for macro in macros:
        m = re.search(r"#define\s+" + macro + r"\s+(\d+)", text)
        if not m:
            return None
        parts.append(m.group(1))
    return Version(".".join(parts))


def _from_headers(spec: LibSpec, trail: Trail, root: Path = SYSTEM) -> list[Library]:
    if not spec.header:
        return []
    out = []
    dirs = [str(root / d) for d in HEADER_DIRS]
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDNN_PATH"):
        if env(var):
            dirs.append(str(under(root, os.path.join(env(var, ""), "include"))))
    for folder in dict.fromkeys(dirs):
        path = os.path.join(folder, spec.header)
        if os.path.isfile(path):
            version = parse_header_version(trail.read(path, limit=1 << 17) or "", spec.macros)
            out.append(Library(spec.name, version, path, "header"))
    return out


def _from_ldconfig(spec: LibSpec, cache: dict[str, list[str]]) -> list[Library]:
    out = []
    for soname, paths in cache.items():
        if not soname.startswith(spec.soname + ".so"):
            continue
        for path in paths:
            real = os.path.basename(os.path.realpath(path))
            version = (version_from_filename(real, spec.soname)
                       or version_from_filename(soname, spec.soname))
            out.append(Library(spec.name, version, path, "ldconfig"))
    if not out and spec.name == "cudnn":
        out = _cudnn_sublibraries(cache)
    return out


def _cudnn_sublibraries(cache: dict[str, list[str]]) -> list[Library]:
    """cuDNN 8/9 split into ``libcudnn_ops.so.9``, ``libcudnn_cnn.so.9`` …; when the loader
    lists only those, one versioned sub-library per folder stands for cuDNN there."""
    out: dict[str, Library] = {}
    for soname, paths in sorted(cache.items()):
        m = re.match(r"libcudnn_\w+\.so\.(\d+(?:\.\d+)*)$", soname)
        if not m:
            continue
        for path in paths:
            out.setdefault(os.path.dirname(path),
                           Library("cudnn", Version(m.group(1)), path, "ldconfig"))
    return list(out.values())


@lru_cache(maxsize=64)
def _listing(folder: str) -> tuple[str, ...]:
    """A folder's entries, read once per run for all five libraries (system lib folders are big)."""
    try:
        return tuple(sorted(os.listdir(folder)))
    except OSError:
        return ()


def _from_folders(spec: LibSpec, known: set[str], root: Path = SYSTEM) -> list[Library]:
    dirs = [str(root / d) for d in LIB_DIRS]
    dirs += [str(under(root, d)) for d in env("LD_LIBRARY_PATH", "").split(os.pathsep) if d]
    out = []
    prefix = spec.soname + ".so."
    for folder in dict.fromkeys(dirs):
        for name in _listing(folder):
            if not name.startswith(prefix):
                continue
            path = os.path.join(folder, name)
            if path in known:
                continue
            version = version_from_filename(os.path.basename(os.path.realpath(path)), spec.soname)
            out.append(Library(spec.name, version, path, "folder"))
    return out


def _from_wheels(spec: LibSpec) -> list[Library]:
    out = []
    installed = _dists.installed()
    for name in spec.wheels:
        dist = installed.get(name)
        if dist is None:
            continue
        sub = {"cudnn": "cudnn", "nccl": "nccl", "cublas": "cublas", "cudart": "cuda_runtime"}
        path = Path(dist.location) / "nvidia" / sub.get(spec.name, spec.name) / "lib"
        out.append(Library(spec.name, dist.version, str(path), f"pip:{name}"))
    return out


def _dedupe(libs: list[Library]) -> list[Library]:
    """One entry per real file and source; symlink chains collapse to the most precise version."""
    best: dict[tuple[str, str], Library] = {}
    for lib in libs:
        key = (lib.name, lib.path if lib.source == "header" else os.path.realpath(lib.path))
        old = best.get(key)
        if old is None or (lib.version is not None and
                           (old.version is None or len(lib.version.release) >
                            len(old.version.release))):
            best[key] = lib
    return list(best.values())
