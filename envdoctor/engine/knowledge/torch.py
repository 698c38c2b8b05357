"""PyTorch wheels: CUDA variants, arch lists, releases and companions (torch.toml)."""

from __future__ import annotations

import re
from typing import Any

from envdoctor.engine.knowledge._common import (
    confirmed,
    cuda_of_tag,
    in_range,
    series,
    tag_of_cuda,
    ver,
    with_confirmed,
)
from envdoctor.engine.knowledge._reads import optional, reads, result
from envdoctor.engine.knowledge.gpu import arch_cc, archs_run_on, gpu_cc_of, sm_of
from envdoctor.engine.loader import matrix
from envdoctor.facts import Gpu, LiveFramework, PackageFacts, TorchBuild


def torch_variant_name(version: Any, cuda: Any) -> str | None:
    """``2.6.0+cu124`` -> ``cu124``; without a local label, built from torch.version.cuda."""
    v = ver(version)
    if v is not None and v.local and cuda_of_tag(v.local) is not None \
            and len(v.local) >= 5:
        return v.local
    return tag_of_cuda(cuda)


def lookup_torch_variant(version: Any, cuda: Any) -> dict[str, Any] | None:
    """The ``[[variant]]`` row (bundled cuDNN, arch list) of a torch CUDA wheel, or None."""
    v, name = ver(version), torch_variant_name(version, cuda)
    if v is None or name is None:
        return None
    for row in matrix("torch").get("variant", []):
        if row.get("cuda") == name and in_range(v, row.get("torch", "")):
            return row
    return None


def archs_in_range(cc_range: Any) -> tuple[str, ...] | None:
    """torch's "supported capability (7.0) - (12.0)" as the sm list it stands for.

    torch prints that range (min and max of its own arch list) when a GPU falls outside it;
    every known architecture from the GPU table inside the range is taken as covered, so a
    GPU below the minimum or above the maximum is missing and one inside is not.
    """
    if not cc_range or len(cc_range) != 2:
        return None
    low, high = ver(cc_range[0]), ver(cc_range[1])
    if low is None or high is None or low > high:
        return None
    ccs = {low, high} | {v for v in (ver(r.get("cc")) for r in matrix("gpus").get("arch", []))
                         if v is not None and low <= v <= high}
    return tuple(f"sm_{v.major}{v.minor}" for v in sorted(ccs))


def live_arch_list(live: LiveFramework | None) -> tuple[str, ...] | None:
    """torch's own arch list (``torch.cuda.get_arch_list()`` from a live worker, or the list a
    pasted "sm_XX is not compatible ... supports CUDA capabilities sm_50 sm_60 ..." warning
    printed); None when absent or when it names no CUDA arch (a ROCm build lists gfx*)."""
    if live is None:
        return None
    if not live.arch_list:
        return archs_in_range(live.cc_range)
    cuda = tuple(a for a in live.arch_list if arch_cc(a) is not None)
    return cuda or None


def lookup_torch_release(version: Any) -> dict[str, Any] | None:
    """The RELEASE.md row of a torch version (matched on major.minor)."""
    want = series(version)
    return next((r for r in matrix("torch").get("release", [])
                 if want is not None and ver(r["torch"]) == want), None)


def local_variant(version: Any) -> str | None:
    """``0.19.0+cu121`` -> ``cu121``; ``+cpu`` -> ``cpu``; anything else (no label, a source
    build's git hash like ``+a9603c7``) -> None."""
    v = ver(version)
    if v is None or not v.local:
        return None
    return v.local if re.fullmatch(r"cu\d+|cpu|rocm[\d.]+|xpu", v.local) else None


# ---------------------------------------------------------------------------- rule functions
@reads(torch="frameworks.torch")
def torch_has_arch(arch: str, *, torch: TorchBuild | None) -> bool | None:
    """``torch_has_arch("sm_120")``: does the installed torch wheel carry code for that arch?

    True when its arch list (torch matrix, by CUDA variant and release) has SASS that runs on
    it (same major, lower or equal minor) or PTX it can JIT; None when torch is absent, not a
    CUDA build, or the matrix has no row for the wheel.
    """
    if torch is None or torch.cuda is None:
        return None
    row = lookup_torch_variant(torch.version, torch.cuda)
    return None if row is None else archs_run_on(row.get("archs", []), arch)


@reads(live="live.torch", build=optional("frameworks.torch"))
def torch_archs_live(*, live: LiveFramework | None,
                     build: TorchBuild | None) -> dict[str, Any] | None:
    """The arch list the installed torch printed about itself (a live worker, or a pasted
    warning): confirmed, needs no version. None when it printed none."""
    archs = live_arch_list(live)
    if archs is None or live is None:
        return None
    version = live.version if live.version is not None else \
        build.version if build is not None else None
    source = "torch's own arch list" if live.arch_list else \
        "torch's supported capability range " + " - ".join(live.cc_range)
    return {"archs": list(archs), "source": source, "confirmed": True,
            "torch": str(version) if version is not None else "(version not reported)"}


@reads(torch="frameworks.torch")
def torch_archs_matrix(*, torch: TorchBuild | None) -> dict[str, Any] | None:
    """The arch list of the installed wheel's CUDA variant in the torch matrix, or None."""
    if torch is None or torch.cuda is None:
        return None
    row = lookup_torch_variant(torch.version, torch.cuda)
    if row is None:
        return None
    return {"archs": list(row.get("archs", [])), "source": "torch matrix",
            "confirmed": confirmed(row), "torch": str(torch.version)}


@reads(gpus="nvidia.gpus", got=result("torch_archs"))
def torch_missing_archs(*, gpus: tuple[Gpu, ...], got: dict[str, Any] | None) -> Any:
    """GPUs the installed torch has no kernels for, as ``"NAME (sm_XY)"``.

    Uses torch's own arch list when a live worker or a pasted warning gave one (the torch
    version may then be unknown), else the matrix row of the wheel. None when the arch list is
    unknown (CPU build, no matrix row) or a GPU's capability is unknown: no verdict then.
    """
    if got is None:
        return None
    missing = []
    for gpu in gpus:
        sm = sm_of(gpu_cc_of(gpu))
        if sm is None:
            return None
        if not archs_run_on(got["archs"], sm):
            missing.append(f"{gpu.name} ({sm})")
    return missing


@reads(torch="frameworks.torch")
def torch_variant(*, torch: TorchBuild | None) -> dict[str, Any] | None:
    """The torch ``[[variant]]`` row of the installed wheel (cuda, archs, cudnn, confirmed)."""
    if torch is None:
        return None
    return with_confirmed(lookup_torch_variant(torch.version, torch.cuda))


@reads()
def torch_release(version: Any) -> dict[str, Any] | None:
    """``torch_release(version)`` -> python range, torchvision/torchaudio, variants, confirmed."""
    return with_confirmed(lookup_torch_release(version))


@reads(pk="packages")
def torch_companion_mismatch(*, pk: PackageFacts) -> list[str]:
    """torchvision/torchaudio that do not pair with torch: wrong release or CUDA variant.

    Returns ``["torchvision 0.19.0+cu121 (torch 2.6 needs 0.21)"]``; a pairing the matrix does
    not list is not judged.
    """
    torch = pk.get("torch")
    if torch is None or torch.version is None:
        return []
    row, out = lookup_torch_release(torch.version) or {}, []
    tv = local_variant(torch.version)
    for comp in ("torchvision", "torchaudio"):
        dist = pk.get(comp)
        if dist is None or dist.version is None:
            continue
        want = ver(row.get(comp))
        if want is not None and series(dist.version) != want:
            out.append(f"{comp} {dist.version} (torch {series(torch.version)} needs "
                       f"{want}.x)")
            continue
        cv = local_variant(dist.version)
        if tv and cv and tv != cv:
            out.append(f"{comp} {dist.version} is a {cv} build, torch {torch.version} "
                       f"is {tv}")
    return out
