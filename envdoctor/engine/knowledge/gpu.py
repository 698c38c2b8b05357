"""GPUs: names to compute capabilities, architectures, datasheets, health (gpus.toml,
gpu_datasheet.toml)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from envdoctor.engine.knowledge._common import name_matches, ver, with_confirmed
from envdoctor.engine.knowledge._reads import Undetermined, optional, reads
from envdoctor.rulefiles import matrix
from envdoctor.facts import Gpu


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


# ---------------------------------------------------------------------------- rule functions
@reads(gpus="nvidia.gpus")
def any_gpu_cc(spec: str, *, gpus: tuple[Gpu, ...]) -> Any:
    """``any_gpu_cc(">=12.0")``: does any GPU's compute capability satisfy the specifier?

    False when there are no GPUs; undetermined when no GPU matches and some GPU's
    capability is unknown to both NVML and the name table.
    """
    ccs = [gpu_cc_of(g) for g in gpus]
    wanted = SpecifierSet(spec)
    if any(cc is not None and wanted.contains(cc, prereleases=True) for cc in ccs):
        return True
    if None in ccs:
        raise Undetermined("a GPU's compute capability is unknown")
    return False


@reads()
def gpu_cc(gpu: Gpu | None) -> Version | None:
    """``gpu_cc(gpu)``: a GPU's compute capability (NVML's, else by name); None if unknown."""
    return None if gpu is None else gpu_cc_of(gpu)


@reads()
def arch_name(cc: Any) -> str | None:
    """``arch_name("8.6")`` -> "Ampere"; None when the table does not list it."""
    return (lookup_arch(cc) or {}).get("name")


@reads()
def gpu_row(name: str) -> dict[str, Any] | None:
    """``gpu_row("NVIDIA GeForce RTX 5090")`` -> its ``[[gpu]]`` row (cc, confirmed) or None."""
    return with_confirmed(lookup_gpu(name)) if name else None


@reads()
def datasheet(name: str) -> dict[str, Any] | None:
    """``datasheet(gpu.name)`` -> peak TFLOPS/bandwidth row (all rows unconfirmed) or None."""
    return with_confirmed(lookup_datasheet(name)) if name else None


THROTTLE_BAD = ("hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown",
                "hw_power_brake_slowdown")


@reads(gpus="nvidia.gpus")
def gpu_throttling(*, gpus: tuple[Gpu, ...]) -> list[str]:
    """GPUs slowed for a reason other than idling: thermal, hardware or power-brake slowdown,
    or a software power cap while drawing < 80% of the limit (a lowered limit)."""
    out = []
    for g in gpus:
        bad = [r for r in g.throttle_reasons if r in THROTTLE_BAD]
        if "sw_power_cap" in g.throttle_reasons and g.power_draw_w is not None \
                and g.power_limit_w and g.power_draw_w < 0.8 * g.power_limit_w:
            bad.append(f"sw_power_cap at {g.power_draw_w:.0f} of {g.power_limit_w:.0f} W")
        if bad:
            temp = f", {g.temperature_c} C" if g.temperature_c is not None else ""
            out.append(f"{g.name} #{g.index}: {', '.join(bad)}{temp}")
    return out


@reads(gpus="nvidia.gpus")
def gpu_processes(*, gpus: tuple[Gpu, ...]) -> list[str]:
    """Every process on every GPU as ``"python (pid 48213, 71674 MiB) on #0"``."""
    return [f"{p.name} (pid {p.pid}" + (f", {p.used_mb} MiB" if p.used_mb is not None else "")
            + f") on #{g.index}" for g in gpus for p in g.processes]


@reads(gpus=optional("nvidia.gpus"), live=optional("live"),
       torch_cuda=optional("frameworks.torch.cuda"))
def nvidia_gpus_seen(*, gpus: tuple[Gpu, ...] | None, live: dict[str, Any] | None,
                     torch_cuda: Any) -> str | None:
    """``nvidia_gpus_seen()``: "2 NVIDIA GPU(s)" from the driver's list; where no list was
    observed, a CUDA build of torch that said a GPU is usable ("PyTorch version (GPU?):
    2.2.1+cu121 (True)") is evidence of at least one: "an NVIDIA GPU (torch sees it)". None
    when the list is confirmed empty; unknown when nothing was observed either way."""
    if gpus:
        return f"{len(gpus)} NVIDIA GPU(s)"
    lt = (live or {}).get("torch")
    if getattr(lt, "cuda_available", None) is True and \
            (torch_cuda is not None or getattr(lt, "built_cuda", None) is not None):
        return "an NVIDIA GPU (torch sees it)"
    if gpus is None:
        raise Undetermined("no GPU list and no framework that saw a GPU")
    return None
