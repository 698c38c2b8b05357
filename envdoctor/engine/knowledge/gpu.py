"""GPUs: names to compute capabilities, architectures, datasheets, health, and the
architecture floors of third-party packages (gpus.toml, gpu_datasheet.toml, arch_floors.toml)."""

from __future__ import annotations

from typing import Any

from packaging.specifiers import SpecifierSet

from envdoctor.engine.knowledge._common import counted
from envdoctor.engine.knowledge._reads import Undetermined, optional, reads, some
from envdoctor.facts import Distribution, Gpu
from envdoctor.matrices import confirmed
from envdoctor.matrices.arch_floors import arch_floor, lowest_floor, text_rows  # noqa: F401 - explain reads these through the engine
from envdoctor.matrices.gpus import gpu_cc_of
from envdoctor.versions import ver


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
       torch_cuda=optional("frameworks.torch.cuda"), os=optional("host.os"))
def nvidia_gpus_seen(*, gpus: tuple[Gpu, ...] | None, live: dict[str, Any] | None,
                     torch_cuda: Any, os: Any = None) -> str | None:
    """``nvidia_gpus_seen()``: "2 NVIDIA GPU(s)" from the driver's list; where no list was
    observed, a CUDA build of torch that said a GPU is usable ("PyTorch version (GPU?):
    2.2.1+cu121 (True)") is evidence of at least one: "an NVIDIA GPU (torch sees it)"; so is
    any torch on native Windows that said so, where its GPU builds are CUDA builds. None when
    the list is confirmed empty; unknown when nothing was observed either way."""
    if gpus:
        return f"{len(gpus)} NVIDIA GPU(s)"
    lt = (live or {}).get("torch")
    cuda_build = torch_cuda is not None or getattr(lt, "built_cuda", None) is not None or \
        (os == "Windows" and getattr(lt, "build", "") in ("", "cuda"))
    if getattr(lt, "cuda_available", None) is True and cuda_build:
        return "an NVIDIA GPU (torch sees it)"
    if gpus is None:
        raise Undetermined("no GPU list and no framework that saw a GPU")
    return None


# ------------------------------------------------------- third-party architecture floors
def _floor_gaps(gpus: tuple[Gpu, ...], dists: tuple[Distribution, ...]
                ) -> list[tuple[Distribution, dict[str, Any], list[str]]]:
    """(distribution, arch_floors row, GPUs as "NAME (cc X.Y)") for each installed package
    whose release has a floor above every NVIDIA GPU here. A machine with a GPU at or above
    the floor has a way to run it; a GPU whose capability is unknown to NVML and the name
    table might be one, so then nothing is said either."""
    ccs = [(g, gpu_cc_of(g)) for g in gpus]
    if not ccs or any(cc is None for _, cc in ccs):
        return []
    out = []
    seen = set()
    for d in dists:
        if d.version is None or d.name in seen:
            continue
        row = arch_floor(d.name, d.version)
        floor = ver(row.get("min_cc")) if row else None
        if row is None or floor is None or row.get("check") is False:
            continue
        if all(cc is not None and cc < floor for _, cc in ccs):
            seen.add(d.name)
            out.append((d, row, counted([f"{g.name} (cc {cc})" for g, cc in ccs])))
    return out


@reads(gpus="nvidia.gpus", dists=some("packages.distributions"))
def arch_floor_gaps(*, gpus: tuple[Gpu, ...], dists: tuple[Distribution, ...]) -> list[str]:
    """Installed packages whose release has no kernels for any NVIDIA GPU here
    (arch_floors.toml: flash-attn 2 needs compute capability 8.0, vLLM 7.0, FlashInfer 7.5 …),
    as ``"flash-attn 2.5.8 (FlashAttention-2 CUDA kernels need compute capability 8.0+) on
    Tesla V100-SXM2-16GB (cc 7.0)"``. [] when a GPU meets the floor, when a GPU's capability
    is unknown, or when the version installed is not shown."""
    return [f"{d.name} {d.version} ({row['what']} need compute capability {row['min_cc']}+) "
            f"on {', '.join(names)}" for d, row, names in _floor_gaps(gpus, dists)]


@reads(gpus="nvidia.gpus", dists=some("packages.distributions"))
def arch_floor_fixes(*, gpus: tuple[Gpu, ...], dists: tuple[Distribution, ...]) -> list[str]:
    """GPU010's fix: for each package of ``arch_floor_gaps()``, what runs instead on this GPU
    (the row's ``fallback``), as ``"flash-attn: use SDPA …"``."""
    return [f"{d.name}: {row['fallback']}" for d, row, _ in _floor_gaps(gpus, dists)]


@reads(gpus="nvidia.gpus", dists=some("packages.distributions"))
def arch_floor_confirmed(*, gpus: tuple[Gpu, ...], dists: tuple[Distribution, ...]) -> bool:
    """Whether every row behind ``arch_floor_gaps()`` is confirmed by its source."""
    return all(confirmed(row) for _, row, _ in _floor_gaps(gpus, dists))
