"""CUDA toolkits: the nvcc on PATH, CUDA_HOME/CUDA_PATH, /usr/local/cuda*, pip and conda.

A toolkit folder's version comes from the first of: ``version.json``, ``version.txt``,
``CUDA_VERSION`` in ``cuda.h``, ``nvidia_cuda_runtime-*.dist-info`` folders (toolkits laid out
from NVIDIA's wheels), or the ``libcudart.so.X.Y.Z`` file name. Only the nvcc that PATH picks
is run, once.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

from packaging.version import InvalidVersion, Version

from envdoctor import runner
from envdoctor.bounded import decode_json, env, matching, read_regular
from envdoctor.facts import CudaFacts, CudaToolkit, Status
from envdoctor.probes import _dists
from envdoctor.probes._base import Trail
from envdoctor.probes._root import SYSTEM, is_system, shown, under

SECTION = "cuda"
NVCC_TIMEOUT = 10.0
# relative to the root the probe reads (``--root``)
FOLDER_GLOBS = ("usr/local/cuda", "usr/local/cuda-*", "opt/cuda", "opt/nvidia/cuda*")
ENV_VARS = ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT", "CUDA_TOOLKIT_ROOT_DIR")
RUNTIME_WHEELS = ("nvidia-cuda-runtime-cu11", "nvidia-cuda-runtime-cu12",
                  "nvidia-cuda-runtime-cu13", "nvidia-cuda-runtime")


def probe(root: Path = SYSTEM) -> CudaFacts:
    """Toolkit folders and CUDA_HOME & co. are read under ``root``; nvcc is the one on PATH."""
    trail = Trail()
    toolkits: list[CudaToolkit] = []
    seen: set[str] = set()

    nvcc_path = runner.which("nvcc") or ""
    nvcc_version = None
    nvcc_problem = ""
    if nvcc_path:
        result = trail.run([nvcc_path, "--version"], NVCC_TIMEOUT)
        nvcc_version = parse_nvcc_version(result.stdout) if result.ok else None
        if nvcc_version is None:
            nvcc_problem = (result.error or (f"exited {result.returncode}" if not result.ok
                                             else "printed no version"))
        home = _toolkit_home_of(nvcc_path)
        if home:
            _add(toolkits, seen, folder_toolkit(home, "nvcc", trail, preferred=nvcc_version))

    for var in ENV_VARS:
        if env(var):
            _add(toolkits, seen, folder_toolkit(under(root, env(var, "")), var, trail))
    for pattern in FOLDER_GLOBS:
        for folder in matching(root if not Path(pattern).is_absolute() else "/", pattern):
            _add(toolkits, seen, folder_toolkit(Path(folder), "folder", trail))

    for name in RUNTIME_WHEELS:
        dist = _dists.installed().get(name)
        if dist is not None and dist.version is not None:
            toolkits.append(CudaToolkit(version=dist.version, source="pip",
                                        path=str(dist.location / "nvidia"), how=f"pip {name}"))
    toolkits.extend(conda_toolkits(trail))

    if not is_system(root):  # toolkit folders as the machine names them
        toolkits = [replace(tk, path=shown(root, tk.path)) if tk.path.startswith(str(root))
                    else tk for tk in toolkits]
    facts = CudaFacts(nvcc_path=nvcc_path, nvcc_version=nvcc_version, toolkits=tuple(toolkits))
    if not toolkits and not nvcc_path:
        return _with(facts, trail.info(Status.NOT_FOUND, "no CUDA toolkit and no nvcc on PATH"))
    if nvcc_path and nvcc_version is None:  # that nvcc broke: its version is a failed field
        why = f"{nvcc_path} --version: {nvcc_problem}"
        return _with(facts, replace(trail.info(Status.OK, why, "folders"),
                                    failed={"nvcc_version": why}))
    return _with(facts, trail.info(Status.OK, source="nvcc+folders" if nvcc_path else "folders"))


def _with(facts: CudaFacts, info) -> CudaFacts:
    return replace(facts, probe=info)


def _add(toolkits: list[CudaToolkit], seen: set[str], tk: CudaToolkit | None) -> None:
    if tk is None:
        return
    key = os.path.realpath(tk.path)
    if key in seen:
        return
    seen.add(key)
    toolkits.append(tk)


def parse_nvcc_version(text: str) -> Version | None:
    """``Cuda compilation tools, release 12.4, V12.4.131`` -> 12.4.131 (else 12.4)."""
    m = re.search(r"release\s+(\d+\.\d+),\s*V(\d+\.\d+\.\d+)", text)
    if m:
        return Version(m.group(2))
    m = re.search(r"release\s+(\d+\.\d+)", text)
    return Version(m.group(1)) if m else None


def _toolkit_home_of(nvcc_path: str) -> Path | None:
    """The toolkit folder of an nvcc; wrapper scripts (``exec …/bin/nvcc``) are followed once."""
    real = Path(os.path.realpath(nvcc_path))
    home = real.parent.parent
    if real.parent.name == "bin" and ((home / "nvvm").is_dir() or (home / "version.json").is_file()
                                      or (home / "include" / "cuda.h").is_file()):
        return home
    head = read_regular(real, 4096)
    if head is None:
        return None
    if head.startswith(b"#!"):
        m = re.search(rb"(/[\w./+-]+)/bin/nvcc", head)
        if m:
            return Path(m.group(1).decode())
    return None


def folder_toolkit(folder: Path, source: str, trail: Trail,
                   preferred: Version | None = None) -> CudaToolkit | None:
    """A toolkit folder; ``preferred`` (its own nvcc's answer) beats what the files say."""
    if not folder.is_dir():
        return None
    version: Version | None
    if preferred is not None:
        version, how = preferred, "nvcc --version"
    else:
        version, how = _folder_version(folder, trail)
    return CudaToolkit(version=version, path=str(folder), source=source, how=how)


def parse_version_json(text: str) -> Version | None:
    """``{"cuda": {"name": "CUDA SDK", "version": "12.4.1"}, …}`` -> 12.4.1.

    A damaged or cut-short file still names the version, so a regular expression backs up the
    JSON parser.
    """
    v = None
    try:
        data = decode_json(text, "version.json")
        v = data.get("cuda", {}).get("version") if isinstance(data, dict) else None
    except (ValueError, AttributeError):
        m = re.search(r'"cuda"\s*:\s*\{[^{}]*?"version"\s*:\s*"([^"]+)"', text)
        v = m.group(1) if m else None
    try:
        return Version(v) if isinstance(v, str) else None
    except InvalidVersion:
        return None


def parse_version_txt(text: str) -> Version | None:
    """``CUDA Version 11.0.207`` (toolkits before 11.1 shipped version.txt)."""
    m = re.search(r"CUDA Version\s+(\d+\.\d+(?:\.\d+)?)", text)
    return Version(m.group(1)) if m else None


def _folder_version(folder: Path, trail: Trail) -> tuple[Version | None, str]:
    text = trail.read(folder / "version.json")
    v = parse_version_json(text) if text else None
    if v is not None:
        return v, "version.json"
    text = trail.read(folder / "version.txt")
    v = parse_version_txt(text) if text else None
    if v is not None:
        return v, "version.txt"
    for header in ("include/cuda.h", "targets/x86_64-linux/include/cuda.h",
                   "targets/sbsa-linux/include/cuda.h"):
        if (folder / header).is_file():
            text = trail.read(folder / header, limit=1 << 16)
            m = re.search(r"#define\s+CUDA_VERSION\s+(\d+)", text or "")
            if m:
                n = int(m.group(1))
                return Version(f"{n // 1000}.{(n % 1000) // 10}"), "cuda.h"
    for info in map(Path, matching(folder / "dist-info", "nvidia_cuda_runtime-*.dist-info")):
        shown = info.name.split("-")[1].removesuffix(".dist-info")
        try:
            return Version(shown), "dist-info"
        except InvalidVersion:
            continue
    for lib in map(Path, matching(folder, "lib*/libcudart.so.*.*")):
        m = re.search(r"libcudart\.so\.(\d+\.\d+(?:\.\d+)?)$", lib.name)
        if m:
            return Version(m.group(1)), "libcudart"
    return None, ""


def conda_toolkits(trail: Trail) -> list[CudaToolkit]:
    prefix = env("CONDA_PREFIX")
    if not prefix:
        return []
    found = []
    for pattern in ("cudatoolkit-*.json", "cuda-toolkit-*.json", "cuda-cudart-[0-9]*.json"):
        for meta in matching(os.path.join(prefix, "conda-meta"), pattern):
            trail.ran.append(f"read {meta}")
            m = re.match(r".*?-(\d+\.\d+(?:\.\d+)*)-[^-]+\.json$", os.path.basename(meta))
            if m:
                found.append(CudaToolkit(version=Version(m.group(1)), path=prefix,
                                         source="conda", how=os.path.basename(meta)))
    return found
