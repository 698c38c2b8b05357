"""GPUs: names to compute capabilities, architectures and the CUDA releases that build code
for them, datasheets (gpus.toml, gpu_datasheet.toml)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from packaging.version import Version

from envdoctor.facts import Gpu
from envdoctor.matrices import confirmed, matrix, name_matches
from envdoctor.versions import series, ver


def _cut_matches(stem: str, pattern: str) -> bool:
    """Whether a name that nvidia-smi cut short (``"NVIDIA RTX PRO 6000 Blac..."``, stem
    without the dots) may continue into ``pattern``: the stem ends with the first 4 or more
    characters of the pattern, starting at a word."""
    low, pat = stem.lower(), pattern.lower().strip()
    for i in range(len(low)):
        tail = low[i:].rstrip()
        if len(tail) >= 4 and (i == 0 or not low[i - 1].isalnum()) and pat.startswith(tail):
            return True
    return False


def _best_row(table: str, name: str) -> dict[str, Any] | None:
    """The ``[[gpu]]`` row of ``table`` whose longest match pattern names ``name``.

    The nvidia-smi table cuts long names ("NVIDIA GeForce RTX 2080 ..."): such a name matches
    every row it may be the start of, and is only resolved when those rows agree on the
    compute capability (else None: unknown, never a guess); datasheets, which are per model,
    are never looked up for a cut name."""
    cut = name.endswith(("...", "\u2026"))
    if cut and table != "gpus":
        return None  # a datasheet is per model: "RTX 2080 ..." may be a 2080, Ti or SUPER
    stem = name.rstrip(".\u2026") if cut else name
    best, best_len, ccs = None, 0, set()
    for row in matrix(table).get("gpu", []):
        if any(x.lower() in stem.lower() for x in row.get("exclude", [])):
            continue
        for pattern in row.get("match", []):
            if name_matches(stem, pattern) or (cut and _cut_matches(stem, pattern)):
                ccs.add(row.get("cc"))
                if len(pattern) > best_len:
                    best, best_len = row, len(pattern)
    return best if not cut or len(ccs) <= 1 else None


def lookup_gpu(name: str) -> dict[str, Any] | None:
    """The ``[[gpu]]`` row for an nvidia-smi/NVML name; the longest matching pattern wins."""
    return _best_row("gpus", name)


def lookup_datasheet(name: str) -> dict[str, Any] | None:
    """Peak datasheet numbers for a GPU name (``gpu_datasheet.toml``), longest match wins.

    ``bf16_tflops = 0.0`` in the table means the GPU has no bf16 tensor cores.
    """
    return _best_row("gpu_datasheet", name)


def gpu_cc_of(gpu: Gpu) -> Version | None:
    """A GPU's compute capability: NVML's, else the name table's (pasted reports lack it)."""
    if gpu.cc is not None:
        return gpu.cc
    row = lookup_gpu(gpu.name) if gpu.name else None
    return ver(row["cc"]) if row else None


def bf16_min_cc() -> Version | None:
    """The compute capability native bfloat16 needs (``[features] bf16_min_cc`` of gpus.toml:
    torch.cuda.is_bf16_supported() asks for device major >= 8)."""
    return ver(matrix("gpus").get("features", {}).get("bf16_min_cc"))


def lookup_arch(cc: Any) -> dict[str, Any] | None:
    """The ``[[arch]]`` row (name, first/last CUDA) of a compute capability."""
    v = ver(cc)
    if v is None:
        return None
    return next((r for r in matrix("gpus").get("arch", []) if ver(r.get("cc")) == v), None)


def sm_of(cc: Any) -> str | None:
    """Compute capability ``8.6`` -> ``sm_86``; ``12.0`` -> ``sm_120``."""
    v = ver(cc)
    return f"sm_{v.major}{v.minor}" if v is not None else None


@lru_cache(maxsize=1024)
def arch_cc(arch: str) -> tuple[str, Version] | None:
    """``sm_86`` -> ("sm", 8.6); ``compute_120`` -> ("compute", 12.0); arch suffixes dropped."""
    m = re.match(r"^(sm|compute)_(\d+)(\d)[a-z]?$", arch.strip().lower())
    return (m.group(1), Version(f"{m.group(2)}.{m.group(3)}")) if m else None


def archs_run_on(archs: list[str], target: str) -> bool:
    """Whether code compiled for ``archs`` runs on a GPU of arch ``target`` (e.g. "sm_120").

    CUDA binary compatibility: SASS for sm_XY runs on the same major X with minor >= Y; PTX
    (compute_XY) is JIT-compiled for any GPU with capability >= X.Y.
    """
    want = arch_cc(target)
    if want is None:
        return False
    cc = want[1]
    for arch in archs:
        got = arch_cc(arch)
        if got is None:
            continue
        kind, have = got
        if kind == "sm" and have.major == cc.major and have.minor <= cc.minor:
            return True
        if kind == "compute" and have <= cc:
            return True
    return False


def code_for(archs: list[str], target: str) -> tuple[str, str] | None:
    """How a GPU of arch ``target`` runs a build of ``archs``: ("exact", "sm_90"), ("sass",
    "sm_86": the same major's lower-minor SASS, binary-compatible) or ("ptx", "compute_120":
    JIT-compiled at first start); None when nothing in ``archs`` runs on it. The best one:
    exact SASS, else the highest compatible SASS, else the highest PTX."""
    want = arch_cc(target)
    if want is None:
        return None
    cc = want[1]
    sass: list[tuple[Version, str]] = []
    ptx: list[tuple[Version, str]] = []
    for arch in archs:
        got = arch_cc(arch)
        if got is None:
            continue
        kind, have = got
        if kind == "sm" and have.major == cc.major and have.minor <= cc.minor:
            sass.append((have, arch))
        elif kind == "compute" and have <= cc:
            ptx.append((have, arch))
    if sass:
        have, arch = max(sass)
        return ("exact" if have == cc else "sass"), arch
    if ptx:
        return "ptx", max(ptx)[1]
    return None


def first_cuda_for(cc: Any) -> Version | None:
    """The oldest CUDA that can emit code a GPU of capability ``cc`` runs, or None if unknown.

    SASS for sm_X.y runs on every sm_X.z with z >= y (CUDA binary compatibility), so an Ada
    GPU (sm_89) runs the sm_86 code of a CUDA 11.7 build: the answer is the earliest
    ``first_cuda`` among the architectures of the same major at or below ``cc``. None when any
    of them has no confirmed ``first_cuda`` (then nothing is impossible).
    """
    want = ver(cc)
    if want is None:
        return None
    firsts = []
    for row in matrix("gpus").get("arch", []):
        have = ver(row.get("cc"))
        if have is None or have.major != want.major or have > want:
            continue
        first = ver(row.get("first_cuda")) if confirmed(row) else None
        if first is None:
            return None
        firsts.append(first)
    return min(firsts) if firsts else None


def archs_in_range(cc_range: Any) -> tuple[str, ...] | None:
    """torch's "supported capability (7.0) - (12.0)" as the sm list it stands for.

    torch prints that range (min and max of its own arch list) when a GPU falls outside it;
    every known architecture from the GPU table inside the range is taken as covered, so a
    GPU below the minimum or above the maximum is missing and one inside is not. An empty
    maximum (``("3.7", "")``, from "The minimum cuda capability supported by this library is
    3.7") leaves the range open above: only GPUs below the minimum are missing.
    """
    if not cc_range or len(cc_range) != 2:
        return None
    low, high = ver(cc_range[0]), ver(cc_range[1]) if cc_range[1] else None
    if low is None or (cc_range[1] and high is None) or (high is not None and low > high):
        return None
    known = {v for v in (ver(r.get("cc")) for r in matrix("gpus").get("arch", []))
             if v is not None}
    top = high if high is not None else max(known | {low})
    ccs = {low, top} | {v for v in known if low <= v <= top}
    return tuple(f"sm_{v.major}{v.minor}" for v in sorted(ccs))


def _family_rows(cc: Version) -> list[dict[str, Any]]:
    """The ``[[arch]]`` rows a GPU of capability ``cc`` runs code of: same major, minor at or
    below its own (CUDA binary compatibility)."""
    out = []
    for row in matrix("gpus").get("arch", []):
        have = ver(row.get("cc"))
        if have is not None and have.major == cc.major and have <= cc:
            out.append(row)
    return out


def cuda_dropped(cuda: Any, cc: Any) -> dict[str, Any] | None:
    """The ``[[arch]]`` row of a GPU's architecture when CUDA ``cuda`` no longer builds code
    for it: every architecture the GPU runs (``_family_rows``) has a ``last_cuda`` older than
    ``cuda``'s series (CUDA 13.0 removed Maxwell, Pascal and Volta; 12.0 removed Kepler).
    None when some toolkit-supported architecture remains, or the table does not say."""
    want, have = series(cuda), ver(cc)
    if want is None or have is None:
        return None
    rows = _family_rows(have)
    lasts = [ver(r.get("last_cuda")) for r in rows]
    if not rows or any(last is None for last in lasts):
        return None
    if all(last is not None and want > last for last in lasts):
        return max(rows, key=lambda r: ver(r.get("cc")) or have)
    return None


def cuda_predates(cuda: Any, cc: Any) -> Version | None:
    """The first CUDA that builds code for a GPU of capability ``cc``, when ``cuda``'s series is
    older than it (CUDA 12.6 and an sm_120 GPU: 12.8); None when it is not, or when the table
    does not know (``first_cuda_for``)."""
    want, have = series(cuda), ver(cc)
    first = first_cuda_for(have) if have is not None else None
    return first if want is not None and first is not None and want < first else None
