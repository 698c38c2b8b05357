"""Readers of the upstream sources behind rules/matrices: each turns one source's text (a
recorded copy, or the file the refresh workflow downloaded) into the matrix cells it states.

Nothing here fetches or executes anything: the build-matrix script is parsed with ``ast`` and
only literal assignments are read; the documents are matched line by line. A source that
states nothing a reader knows yields no cells, never a guess.
"""

from __future__ import annotations

import ast
import html
import re
from typing import Any

from packaging.version import InvalidVersion, Version

from envdoctor import astparse
from envdoctor.matrices.refresh.cell import Cell
from envdoctor.matrices.refresh.pypi import READERS as PYPI_READERS

__all__ = ["READERS", "Cell"]


# ---------------------------------------------------------------- pytorch/test-infra
_MATRIX_NAMES = ("PYTHON_ARCHES_DICT", "TORCH_ONLY_PYTHON_ARCHES", "CUDA_ARCHES_DICT",
                 "ROCM_ARCHES_DICT", "STABLE_CUDA_VERSIONS", "CUDA_AARCH64_ARCHES",
                 "CUDA_ARCHES_NO_WINDOWS", "CURRENT_CANDIDATE_VERSION", "CURRENT_STABLE_VERSION",
                 "XPU")


def _literals(text: str) -> dict[str, Any]:
    """The module-level ``NAME = <literal>`` assignments of a Python source (no execution)."""
    out: dict[str, Any] = {}
    for node in astparse.parse(text).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:   # X: list[str] = []
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id in _MATRIX_NAMES:
            try:
                out[target.id] = ast.literal_eval(value)
            except ValueError:
                continue
    return out


def _cu(version: str) -> str:
    return "cu" + version.replace(".", "")


def _python_range(pythons: list[str]) -> str:
    plain = sorted(Version(p) for p in pythons if re.fullmatch(r"\d+\.\d+", p))
    if not plain:
        return ""
    top = plain[-1]
    return f">={plain[0]},<{top.major}.{top.minor + 1}"


def build_matrix(text: str, source: str) -> list[Cell]:
    """wheel_index [[torch]] cells of the release a generate_binary_build_matrix.py snapshot
    builds: CURRENT_CANDIDATE_VERSION from its "test" channel (what the release branch builds
    and validates); confirmed once it is also CURRENT_STABLE_VERSION (gone live)."""
    got = _literals(text)
    version = got.get("CURRENT_CANDIDATE_VERSION")
    if not isinstance(version, str):
        return []
    ch = "test"
    cudas = list(got.get("CUDA_ARCHES_DICT", {}).get(ch, []))
    rocms = list(got.get("ROCM_ARCHES_DICT", {}).get(ch, []))
    no_win = set(got.get("CUDA_ARCHES_NO_WINDOWS", []))
    aarch64 = [a.split("-")[0] for a in got.get("CUDA_AARCH64_ARCHES", [])]
    only = got.get("TORCH_ONLY_PYTHON_ARCHES", [])
    only_torch = set(only.get(ch, []) if isinstance(only, dict) else only)
    pythons = [p for p in got.get("PYTHON_ARCHES_DICT", {}).get(ch, []) if p not in only_torch]
    stable = got.get("STABLE_CUDA_VERSIONS", {}).get(ch)
    key = ("torch", version)
    xpu = _xpu_oses(text) if got.get("XPU") == "xpu" else set()
    cells = {
        "python": _python_range(pythons),
        "linux_x86_64": ["cpu", *map(_cu, cudas), *(f"rocm{r}" for r in rocms),
                         *(["xpu"] if "LINUX" in xpu else [])],
        "linux_aarch64": ["cpu", *map(_cu, aarch64)],
        "win_amd64": ["cpu", *(_cu(c) for c in cudas if c not in no_win),
                      *(["xpu"] if "WINDOWS" in xpu else [])],
        "macos_arm64": ["cpu"],
        "confirmed": version == got.get("CURRENT_STABLE_VERSION"),
    }
    if stable:
        cells["pypi.linux_x86_64"] = _cu(stable)
    return [Cell("wheel_index", "torch", key, f, v, source) for f, v in cells.items() if v != ""]


_XPU_ARCH = re.compile(r"if with_xpu == ENABLE(?P<cond>[^:\n]*):(?P<body>(?:\n[ \t]+[^\n]*){1,2})")


def _xpu_oses(text: str) -> set[str]:
    """The OS constants (LINUX, WINDOWS) whose wheel matrix gets the XPU arch: the branch
    ``if with_xpu == ENABLE and os in (LINUX, WINDOWS): arches += [XPU]`` (2.6 on) or its
    nested 2.5 form, with ``--with-xpu`` enabled by default. Empty when either is not there."""
    if not re.search(r'"WITH_XPU",\s*ENABLE\)', text):
        return set()
    for m in _XPU_ARCH.finditer(text):
        where = m.group("cond") + m.group("body")
        if "arches += [XPU]" in where:
            return {o for o in ("LINUX", "WINDOWS") if re.search(rf"\b{o}\b", where)}
    return set()


# ---------------------------------------------------------------- pytorch/pytorch RELEASE.md
_ROW = re.compile(r"^\|\s*(\d+\.\d+)\s*\|(.*)\|\s*$")


def _cudas(cell: str) -> str:
    return ", ".join(re.findall(r"CUDA\s+(\d+\.\d+)", cell))


def release_md(text: str, source: str) -> list[Cell]:
    """torch.toml [[release]] python / stable_cuda / experimental_cuda from RELEASE.md's
    "Release Compatibility Matrix" (| 2.13 | >=3.10, <=3.15 | C++20 | CUDA 12.6, CUDA 13.0 |
    CUDA 13.2 | ROCm 7.2 |); "<=3.15" is written "<3.16"."""
    out: list[Cell] = []
    section = False
    for line in text.splitlines():
        if line.startswith("#"):
            section = "release compatibility matrix" in line.lower()
            continue
        m = _ROW.match(line.strip()) if section else None
        if m is None:
            continue
        cols = [c.strip() for c in m.group(2).split("|")]
        if len(cols) < 4:
            continue
        py = re.match(r">=\s*(\d+\.\d+),\s*<=\s*(\d+)\.(\d+)", cols[0])
        key = ("torch", m.group(1))
        if py:
            out.append(Cell("torch", "release", key, "python",
                            f">={py.group(1)},<{py.group(2)}.{int(py.group(3)) + 1}", source))
        out.append(Cell("torch", "release", key, "stable_cuda", _cudas(cols[2]), source))
        out.append(Cell("torch", "release", key, "experimental_cuda", _cudas(cols[3]), source))
    return out


# ---------------------------------------------------------------- HTML tables
_TR = re.compile(r"<tr\b[^>]*>(.*?)</tr>", re.S | re.I)
_TD = re.compile(r"<td\b[^>]*>(.*?)</td>", re.S | re.I)


def _table_rows(text: str) -> list[list[str]]:
    """The cells of every HTML table row, tags stripped and entities decoded (a row may
    span lines, as docs.nvidia.com writes them)."""
    return [[" ".join(html.unescape(re.sub(r"<[^>]+>", " ", c)).split()) for c in
             _TD.findall(row)] for row in _TR.findall(text)]


# ---------------------------------------------------------------- tensorflow/docs source.md


def tf_tested(text: str, source: str) -> list[Cell]:
    """tensorflow.toml [[release]] python / cudnn / cuda from the Linux GPU "Tested build
    configurations" rows of install/source.md (tensorflow-2.21.0 | 3.10-3.13 | compiler |
    bazel | cuDNN | CUDA); the first row of a series wins (the table is newest first)."""
    out: list[Cell] = []
    seen: set[str] = set()
    for cols in _table_rows(text):
        if len(cols) != 6:
            continue
        m = re.fullmatch(r"tensorflow-(\d+\.\d+)\.\d+", cols[0])
        py = re.fullmatch(r"(\d+\.\d+)-(\d+)\.(\d+)", cols[1])
        if m is None or py is None or m.group(1) in seen:
            continue
        seen.add(m.group(1))
        key = ("tensorflow", m.group(1))
        out += [Cell("tensorflow", "release", key, "python",
                     f">={py.group(1)},<{py.group(2)}.{int(py.group(3)) + 1}", source),
                Cell("tensorflow", "release", key, "cudnn", cols[4], source),
                Cell("tensorflow", "release", key, "cuda", cols[5], source)]
    return out


# ---------------------------------------------------------------- CUDA release notes
def cuda_drivers(text: str, source: str) -> list[Cell]:
    """cuda_driver.toml [[toolkit]] linux / windows minimum drivers from the release notes'
    "CUDA Toolkit and Corresponding Driver Versions" rows (CUDA 12.8 GA | >=570.26 |
    >=570.65), keyed by the row's label; "N/A" (no bundled Windows driver) gives no cell."""
    out: list[Cell] = []
    for cols in _table_rows(text):
        cuda = _toolkit_version(cols[0]) if len(cols) == 3 else None
        if cuda is None:   # not a toolkit row (Table 2's "CUDA 12.x" ranges, headers)
            continue
        key = ("label", cols[0])
        out.append(Cell("cuda_driver", "toolkit", key, "cuda", cuda, source))
        for field, cell in (("linux", cols[1]), ("windows", cols[2])):
            m = re.fullmatch(r">=\s*(\d+(?:\.\d+)+)", cell)
            if m:
                out.append(Cell("cuda_driver", "toolkit", key, field, m.group(1), source))
    return out


_LABEL = re.compile(r"^CUDA (\d+\.\d+(?:\.\d+)?)(?: (GA|Update (\d+)|RC)\b.*)?$")


def _toolkit_version(label: str) -> str | None:
    """The toolkit version a Table 3 label names: "CUDA 12.8 GA" -> 12.8.0, "CUDA 13.2 Update
    2" -> 13.2.2, "CUDA 11.0.3 Update 1" -> 11.0.3 (a full version wins), "CUDA 10.2.89"."""
    m = _LABEL.match(label)
    if m is None:
        return None
    version = m.group(1)
    if version.count(".") == 2:
        return version
    return f"{version}.{m.group(3) or 0}" if m.group(2) else None


# ---------------------------------------------------------------- JAX
_JAX_HEAD = re.compile(r"^##\s+(?:jax|JAX)\s+(\d+\.\d+\.\d+)\s*\(([^)]*)\)")


def jax_releases(text: str, source: str) -> list[Cell]:
    """The released jax versions of CHANGELOG.md (``## jax 0.11.0 (July 1, 2026)``; an
    "Unreleased" heading is not a release): one jax.toml "release" cell per version, which
    the comparison matches to the [[release]] row whose first..last range holds it."""
    out: list[Cell] = []
    for line in text.splitlines():
        m = _JAX_HEAD.match(line)
        if m is None or "unreleased" in m.group(2).lower():
            continue
        try:
            Version(m.group(1))
        except InvalidVersion:
            continue
        out.append(Cell("jax", "release", ("jax", m.group(1)), "released", m.group(2), source))
    return out


_JAX_DRIVER = re.compile(r">=\s*(\d+)\s+for CUDA (\d+) on Linux")
_JAX_SM = re.compile(r"On CUDA (\d+), JAX supports NVIDIA GPUs that have SM version "
                     r"(\d+\.\d+)")


def jax_install(text: str, source: str) -> list[Cell]:
    """jax.toml [[plugin]] min_driver_linux / min_cc from docs/installation.md's sentences
    ("the driver version must be >= 525 for CUDA 12 on Linux, and >= 580 for CUDA 13 on
    Linux", "On CUDA 13, JAX supports NVIDIA GPUs that have SM version 7.5 or newer")."""
    flat = " ".join(text.split())
    out = [Cell("jax", "plugin", ("cuda_major", major), "min_driver_linux", driver, source)
           for driver, major in _JAX_DRIVER.findall(flat)]
    out += [Cell("jax", "plugin", ("cuda_major", major), "min_cc", sm, source)
            for major, sm in _JAX_SM.findall(flat)]
    return out


READERS = {"build_matrix": build_matrix, "release_md": release_md, "tf_tested": tf_tested,
           "cuda_drivers": cuda_drivers, "jax_changelog": jax_releases,
           "jax_install": jax_install, **PYPI_READERS}
