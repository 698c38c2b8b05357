"""PyTorch wheels: CUDA variants, arch lists, releases and companions (torch.toml)."""

from __future__ import annotations

import datetime

import re
from typing import Any

from packaging.version import Version

from envdoctor.engine.knowledge._common import counted
from envdoctor.engine.knowledge._reads import MACHINE_READS, optional, reads, result, some
from envdoctor.facts import (
    Distribution,
    Gpu,
    LiveFramework,
    NvidiaFacts,
    PackageFacts,
    TorchBuild,
)
from envdoctor.matrices import confirmed, matrix, with_confirmed
from envdoctor.matrices.cuda import lookup_min_driver
from envdoctor.matrices.gpus import (
    arch_cc,
    archs_in_range,
    archs_run_on,
    first_cuda_for,
    gpu_cc_of,
    lookup_arch,
    sm_of,
)
from envdoctor.matrices.torch import (
    lookup_binary_floor,
    lookup_torch_pypi_legacy,
    lookup_torch_release,
    lookup_torch_variant,
    torch_variant_name,
)
from envdoctor.versions import in_range, series, ver

# The CPU architecture picks the arch-list rows (aarch64 wheels have their own).
ARCH_READ = optional("host.arch", None)

def planned_torch_command(**facts: Any) -> str | None:
    """The torch command `envdoctor suggest` gives in keep-installed mode for the facts of
    ``MACHINE_READS``, or None when it gives none (no wheel runs here, nothing to change,
    undecided)."""
    from envdoctor.suggest.lines import command_of, facts_of
    return command_of(facts_of(**facts), "torch", keep_installed=True)


def planned_torch_line(**facts: Any) -> str:
    """The torch command `envdoctor suggest` gives in keep-installed mode for the facts of
    ``MACHINE_READS``: the one planner behind every torch install fix."""
    from envdoctor.suggest.lines import facts_of, line_of
    return line_of(facts_of(**facts), "torch", keep_installed=True)


def gpus_newer_than_build_cuda(gpus: tuple[Gpu, ...] | NvidiaFacts,
                               build_cuda: Any) -> list[str]:
    """GPUs whose architecture the build's CUDA version cannot compile for at all.

    An impossibility, so it needs no arch list: nvcc gained sm_120 in CUDA 12.8, hence a CUDA
    12.4 build holds no sm_120 code whatever its TORCH_CUDA_ARCH_LIST. Binary compatibility
    counts: a GPU is only out of reach when no architecture of its major that it can run
    (same major, minor at or below its own) existed in that CUDA (``first_cuda_for``; only
    confirmed ``first_cuda`` values of the ``gpus`` matrix count).
    """
    cuda = series(build_cuda)
    out = []
    for gpu in gpus.gpus if isinstance(gpus, NvidiaFacts) else gpus:
        cc = gpu_cc_of(gpu)
        first = first_cuda_for(cc) if cc is not None else None
        if cuda is not None and first is not None and cuda < first:
            out.append(f"{gpu.name} ({sm_of(cc)}, needs CUDA >= {first})")
    return counted(out)


def driver_supports_arch(driver: Any, arch: str, os_name: str = "linux") -> bool | None:
    """Whether a driver branch can run GPUs of ``arch`` at all: a driver branch older than the
    one bundled with the first CUDA that knew the architecture predates the GPU (470 cannot
    drive an RTX 4090, sm_89 arrived with CUDA 11.8 / 520). Compared by branch (the major
    number) only, so a driver released within that branch is never called too old. None when
    the matrix does not know (no confirmed first CUDA)."""
    d, cc = ver(driver), arch_cc(arch)
    if d is None or cc is None:
        return None
    row = lookup_arch(cc[1])
    first = ver(row.get("first_cuda")) if row and confirmed(row) else None
    floor = lookup_min_driver(first, os_name) if first is not None else None
    if floor is None:
        return None
    return d.major >= floor[0].major


OLD_GPU_VERDICT = "PyTorch no longer supports this GPU because it is too old"


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


def local_variant(version: Any) -> str | None:
    """``0.19.0+cu121`` -> ``cu121``; ``+cpu`` -> ``cpu``; anything else (no label, a source
    build's git hash like ``+a9603c7``) -> None."""
    v = ver(version)
    if v is None or not v.local:
        return None
    return v.local if re.fullmatch(r"cu\d+|cpu|rocm[\d.]+|xpu", v.local) else None


# ---------------------------------------------------------------------------- rule functions
@reads(torch="frameworks.torch", host_arch=ARCH_READ)
def torch_has_arch(arch: str, *, torch: TorchBuild | None, host_arch: str | None) -> bool | None:
    """``torch_has_arch("sm_120")``: does the installed torch wheel carry code for that arch?

    True when its arch list (torch matrix, by CUDA variant and release) has SASS that runs on
    it (same major, lower or equal minor) or PTX it can JIT; None when torch is absent, not a
    CUDA build, or the matrix has no row for the wheel.
    """
    if torch is None or torch.cuda is None:
        return None
    row = lookup_torch_variant(torch.version, torch.cuda, host_arch)
    return None if row is None else archs_run_on(row.get("archs", []), arch)


@reads(live="live.torch", build=optional("frameworks.torch"))
def torch_archs_live(*, live: LiveFramework | None,
                     build: TorchBuild | None) -> dict[str, Any] | None:
    """The arch list the installed torch printed about itself (a live worker, or a pasted
    warning): confirmed, needs no version. None when it printed none."""
    archs = live_arch_list(live)
    if archs is None and live is not None and OLD_GPU_VERDICT in live.gpu_error:
        # torch's own "PyTorch no longer supports this GPU because it is too old" (0.3-1.x),
        # naming the GPU but no minimum: observed, and it says no kernel of this build runs there
        version = live.version if live.version is not None else \
            build.version if build is not None else None
        return {"archs": [], "source": "torch's own verdict: " + live.gpu_error,
                "confirmed": True, "only": [live.gpu_error.split(" which is", 1)[0]],
                "torch": str(version) if version is not None else "(version not reported)"}
    if archs is None or live is None:
        return None
    version = live.version if live.version is not None else \
        build.version if build is not None else None
    source = "torch's own arch list" if live.arch_list else \
        "torch's supported capability range " + " - ".join(live.cc_range) \
        if all(live.cc_range) else f"torch's minimum capability {live.cc_range[0]}"
    return {"archs": list(archs), "source": source, "confirmed": True,
            "torch": str(version) if version is not None else "(version not reported)"}


@reads(torch="frameworks.torch", host_arch=ARCH_READ)
def torch_archs_matrix(*, torch: TorchBuild | None,
                       host_arch: str | None) -> dict[str, Any] | None:
    """The arch list of the installed wheel's CUDA variant in the torch matrix, or None."""
    if torch is None or torch.cuda is None:
        return None
    row = lookup_torch_variant(torch.version, torch.cuda, host_arch)
    if row is None:
        return None
    return {"archs": list(row.get("archs", [])), "source": "torch matrix",
            "confirmed": confirmed(row), "torch": str(torch.version)}


@reads(torch="frameworks.torch", gpus=optional("nvidia.gpus", ()))
def torch_archs_floor(*, torch: TorchBuild | None,
                      gpus: tuple[Gpu, ...]) -> dict[str, Any] | None:
    """When neither torch's own list nor its variant's row is known: the release's
    ``[[binary_floor]]``, a verdict about the GPUs below it (no official build of that release
    has code for them, whatever its CUDA variant). None when no GPU here is below it, the
    release has no row (a source build, a pre-release), or torch is a ROCm or CPU build."""
    if torch is None or torch.version is None or torch.hip is not None \
            or local_variant(torch.version) == "cpu":
        return None
    row = lookup_binary_floor(torch.version)
    floor = ver(row.get("min_cc")) if row else None
    if row is None or floor is None:
        return None
    below = []
    for gpu in gpus:
        cc = gpu_cc_of(gpu)
        if cc is not None and cc < floor:
            below.append(gpu.name)
    if not below:
        return None
    return {"archs": [], "source": f"torch matrix: no official build of torch "
                                   f"{series(torch.version)} has code below compute "
                                   f"capability {floor} ({row['source']})",
            "confirmed": confirmed(row), "torch": str(torch.version), "only": below,
            "below": str(floor)}


@reads(gpus="nvidia.gpus", got=result("torch_archs", None), torch=optional("frameworks.torch"))
def torch_missing_archs(*, gpus: tuple[Gpu, ...], got: dict[str, Any] | None,
                        torch: TorchBuild | None) -> list[str] | None:
    """GPUs the installed torch has no kernels for, as ``"NAME (sm_XY)"``.

    Uses torch's own arch list when a live worker or a pasted warning gave one (the torch
    version may then be unknown), else the matrix row of the wheel; GPUs the build's CUDA
    predates are missing even without a row. None when nothing is known (CPU build, no row and
    no impossibility, a GPU's capability unknown): no verdict then.
    """
    impossible = [] if torch is None or torch.cuda is None or \
        (got is not None and got["source"] != "torch matrix") else \
        gpus_newer_than_build_cuda(gpus, torch.cuda)
    if got is None:
        return impossible or None
    missing = []
    only = got.get("only")  # a verdict about named GPUs: the others are not judged
    for gpu in gpus:
        if only and not any(gpu.name in name for name in only):
            continue
        sm = sm_of(gpu_cc_of(gpu))
        if sm is None:
            return impossible or None
        below, cc = ver(got.get("below")), gpu_cc_of(gpu)
        if below is not None:
            if cc is not None and cc < below:
                missing.append(f"{gpu.name} ({sm})")
        elif not archs_run_on(got["archs"], sm):
            missing.append(f"{gpu.name} ({sm})")
    return counted(missing)


@reads(got=result("torch_archs", None), gpus=optional("nvidia.gpus"),
       torch=optional("frameworks.torch"))
def torch_archs_confirmed(*, got: dict[str, Any] | None, gpus: tuple[Gpu, ...] | None,
                          torch: TorchBuild | None) -> bool:
    """Whether GPU001's verdict is confirmed: a live arch list, a confirmed matrix row, or a
    GPU the build's CUDA version cannot target at all (an impossibility needs no list)."""
    if got is not None and got["confirmed"]:
        return True
    if gpus is None or torch is None or torch.cuda is None:
        return False
    return bool(gpus_newer_than_build_cuda(gpus, torch.cuda))


@reads(**MACHINE_READS)
def torch_arch_fix(**facts: Any) -> str:
    """GPU001's fix: the torch wheel with kernels for every GPU here, for this driver, OS, CPU
    architecture and Python, keeping the installed release when a variant of it runs (the
    planner of `envdoctor suggest`, keep-installed mode); a driver upgrade when the driver
    cannot drive these GPUs."""
    return planned_torch_line(**facts)


@reads(**MACHINE_READS)
def torch_gpu_install(**facts: Any) -> str:
    """``torch_gpu_install()``: the torch CUDA wheel for this machine's GPUs, driver, OS, CPU
    architecture and Python, of the installed release when a variant of it runs here (see
    ``torch_arch_fix``)."""
    return planned_torch_line(**facts)


@reads(pk=some("packages"), build=optional("frameworks.torch"))
def torch_reinstall_same_build(*, pk: PackageFacts, build: TorchBuild | None) -> str | None:
    """``torch_reinstall_same_build()``: reinstall torch, torchvision and torchaudio of the
    installed torch release from the index of its own build (cu124, cpu, rocm6.2 …)."""
    torch = pk.get("torch")
    if torch is None or torch.version is None:
        return None
    v = torch.version
    tag = v.local or (torch_variant_name(v, build.cuda) if build is not None and build.cuda
                      else None)
    base = f'pip install --force-reinstall "torch=={v.base_version}" torchvision torchaudio'
    if tag is None:
        return base
    return f"{base} --index-url https://download.pytorch.org/whl/{tag}"


@reads()
def torch_release(version: Any) -> dict[str, Any] | None:
    """``torch_release(version)`` -> python range, torchvision/torchaudio, variants, confirmed."""
    return with_confirmed(lookup_torch_release(version))


_INDEX_LOCAL = re.compile(r"(?:cu\d{2,3}|cpu|rocm\d+(?:\.\d+)*|xpu)(?:\.|$)")


@reads()
def pytorch_build(version: Any) -> bool:
    """``pytorch_build(torch.version)``: True for a build PyTorch publishes (PyPI's, with no
    local version, or an index variant: ``+cu126``, ``+cpu``, ``+rocm6.4``, ``+xpu``); False for
    one built elsewhere (NVIDIA's Jetson ``+nv24.08`` / ``+l4t35.6`` wheels, a source build
    ``+git…``), whose Python range is its builder's, not the release table's."""
    local = str(getattr(version, "local", None) or "")
    return not local or bool(_INDEX_LOCAL.match(local))


def _build_family(variant: str) -> str:
    """``cu124`` -> ``cu12``; ``cpu`` / ``rocm6.4`` / ``xpu`` -> ``cpu`` / ``rocm6`` / ``xpu``:
    torchvision refuses a torch of another CUDA major (or no CUDA), not another minor."""
    m = re.fullmatch(r"cu(\d+?)(\d)", variant)
    if m:
        return f"cu{m.group(1)}"
    m = re.fullmatch(r"rocm(\d+)(?:\.\d+)*", variant)
    return f"rocm{m.group(1)}" if m else variant


def _pypi_linux_variants(torch_version: Any, arch: str | None) -> set[str]:
    """The builds PyPI serves for this torch release on Linux (wheel_index ``pypi``), for the
    machine's CPU or, when the facts do not name it, for both: what a companion without a
    local version came as when pip took it from PyPI; empty when the data has no row."""
    base = ver(torch_version)
    if base is None:
        return set()
    rows = [r for r in matrix("wheel_index").get("torch", [])
            if (v := ver(r.get("torch"))) is not None and v.release[:2] == base.release[:2]]
    # the release's own row, else its line's (a patch keeps the line's PyPI build)
    row = next((r for r in rows if ver(r.get("torch")) == Version(base.base_version)),
               rows[0] if rows else None)
    pypi = (row or {}).get("pypi", {})
    keys = {"x86_64": ("linux_x86_64",), "amd64": ("linux_x86_64",),
            "aarch64": ("linux_aarch64",), "arm64": ("linux_aarch64",)}.get(
                (arch or "").lower(), ("linux_x86_64", "linux_aarch64"))
    got = {str(pypi.get(k) or "") for k in keys}
    return set() if "" in got else got


NIGHTLY_DAYS = 31


def nightly_pair(torch: Version, companion: Version) -> bool:
    """Both are nightly builds (``2.1.0.dev20230304``, ``0.15.0.dev20230227``) of dates less
    than a month apart: a pair from the nightly index, whose companion keeps its old release
    number until its own branch is cut, so the release table does not judge it."""
    dates = []
    for v in (torch, companion):
        dev = v.dev
        text = str(dev) if dev is not None else ""
        if len(text) != 8 or not text.startswith("20"):
            return False
        try:
            dates.append(datetime.date(int(text[:4]), int(text[4:6]), int(text[6:])))
        except ValueError:
            return False
    return abs((dates[0] - dates[1]).days) <= NIGHTLY_DAYS


@reads(pk=some("packages"), os_name=optional("host.os"), arch=optional("host.arch"),
       framework=optional("frameworks.torch.version"))
def torch_companion_mismatch(*, pk: PackageFacts, os_name: str | None = None,
                             arch: str | None = None,
                             framework: Version | None = None) -> list[str]:
    """torchvision/torchaudio that do not pair with torch: wrong release or CUDA variant.

    Returns ``["torchvision 0.19.0+cu121 (torch 2.6 needs 0.21)"]``; a pairing the matrix does
    not list is not judged. On Linux a companion without a local version beside a torch
    from an index (``+cpu``, ``+cu126``) is PyPI's build of it (pip list shows an index build's
    ``+cpu``): judged against the variant PyPI serves for that release.
    """
    torch = pk.get("torch")
    stated_only = (torch is None or torch.version is None) and framework is not None
    if stated_only:
        # a report stating torch's version (collect_env, a template, prose) but no torch in a
        # package list: the release pairing is judged, not the build variants (a stated
        # companion's missing +cu tag says nothing of its build)
        torch = Distribution(name="torch", version=framework)
    if torch is None or torch.version is None:
        return []
    # releases older than RELEASE.md's matrix (1.2-1.11) carry their companions in pypi_legacy
    row = lookup_torch_release(torch.version) or lookup_torch_pypi_legacy(torch.version) or {}
    out: list[str] = []
    tv = local_variant(torch.version)
    for comp in ("torchvision", "torchaudio"):
        dist = pk.get(comp)
        if dist is None or dist.version is None:
            continue
        want = ver(row.get(comp))
        if want is not None and series(dist.version) != want \
                and not nightly_pair(torch.version, dist.version):
            out.append(f"{comp} {dist.version} (torch {series(torch.version)} needs "
                       f"{want}.x)")
            continue
        if stated_only:
            continue
        cv = local_variant(dist.version)
        if tv and cv and tv != cv:
            out.append(f"{comp} {dist.version} is a {cv} build, torch {torch.version} "
                       f"is {tv}")
        elif tv and dist.version.local is None and os_name == "Linux":
            pypi = _pypi_linux_variants(torch.version, arch)
            if pypi and all(_build_family(v) != _build_family(tv) for v in pypi):
                out.append(f"{comp} {dist.version} is PyPI's build ({'/'.join(sorted(pypi))} "
                           f"on Linux), torch {torch.version} is {tv}")
    return out


# the local version of a wheel from a PyTorch index ("0.0.27.post2+cu118"), not a source build's
_INDEX_TAG = re.compile(r"cu\d{2,4}|rocm\d[\d.]*|cpu")


@reads(pk=some("packages"))
def xformers_torch_mismatch(*, pk: PackageFacts) -> dict[str, Any] | None:
    """An installed xformers built for another torch release: its wheel_index ``[[xformers]]``
    row (from the xformers CHANGELOG) pins the torch it was compiled against, and its C++/CUDA
    extensions do not load under another one. ``{"xformers", "torch", "wants", "source"}``;
    None when they pair or the data has no row for that xformers. A package list seen in part
    (a pasted `pip list`) is read for the two it shows, as torch_companion_mismatch reads it."""
    xf, torch = pk.get("xformers"), pk.get("torch")
    if xf is None or xf.version is None or torch is None or torch.version is None:
        return None
    if xf.version.local and not _INDEX_TAG.fullmatch(str(xf.version.local)):
        return None  # a source build ("0.0.28+7a04357.d20240912"): built for the torch it saw
    row = next((r for r in matrix("wheel_index").get("xformers", [])
                if ver(r.get("xformers")) == ver(xf.version.public)), None)
    if row is None or in_range(Version(torch.version.base_version), row.get("torch", "")):
        return None
    wants = str(row.get("torch", ""))
    return {"xformers": str(xf.version), "torch": str(torch.version),
            "wants": wants[2:] if wants.startswith("==") else wants,
            "source": str(row.get("source", ""))}


_MACOS = re.compile(r"^(?:macOS|Mac ?OS ?X?)\s+(\d+\.\d+(?:\.\d+)?)", re.IGNORECASE)


