"""AMD ROCm: which AMD GPUs HIP will expose and run code on, device access, wheel builds
(rules/matrices/rocm.toml through envdoctor.matrices.rocm)."""

from __future__ import annotations

import re
from typing import Any

from packaging.version import Version

from envdoctor.engine.knowledge._reads import Read, Undetermined, optional, reads, some
from envdoctor.facts import AmdGpu, RocmFacts, TorchBuild
from envdoctor.matrices import rocm as rocm_matrix

VISIBLE_VARS = ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES")
HIDE_ALL = ("", "-1")


def visible(gpus: tuple[AmdGpu, ...], vars: dict[str, str]) -> list[AmdGpu]:
    """The GPUs HIP exposes: each of ROCR_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES (HIP also
    honours CUDA_VISIBLE_DEVICES when HIP's is unset) picks indices of what is left; the list
    stops at the first entry that names no device. A UUID entry is taken to keep that GPU."""
    left = list(gpus)
    hip_var = "HIP_VISIBLE_DEVICES" if "HIP_VISIBLE_DEVICES" in vars else "CUDA_VISIBLE_DEVICES"
    for var in ("ROCR_VISIBLE_DEVICES", hip_var):
        value = vars.get(var)
        if value is None:
            continue
        if value.strip() in HIDE_ALL:
            return []
        picked: list[AmdGpu] = []
        for entry in (e.strip() for e in value.split(",")):
            if re.fullmatch(r"\d+", entry) and int(entry) < len(left):
                picked.append(left[int(entry)])
            elif entry.upper().startswith("GPU-") and len(picked) < len(left):
                picked.append(left[len(picked)])
            else:
                break
        left = picked
    return left


def no_code(target: str, release: Version | None, t: TorchBuild | None) -> bool:
    """The ROCm that runs has no code for ``target`` (confirmed), and neither has the ROCm
    torch wheel installed here (its own PYTORCH_ROCM_ARCH, [[torch_gfx]]). Where the data
    says when ``target`` entered the wheels, the wheel decides alone: ROCm's own libraries
    supporting a chip (gfx1101 from ROCm 6.2) put no gfx1101 kernels into torch 2.5.1."""
    if t is not None and t.hip is not None and t.version is not None \
            and rocm_matrix.torch_gfx_listed(target):
        return not rocm_matrix.torch_wheel_has(target, t.version, t.hip)
    if rocm_matrix.support(target, release) is not False:
        return False
    return not (t is not None and t.hip is not None and
                rocm_matrix.torch_wheel_has(target, t.version, t.hip))


def release_of(rocm: RocmFacts, t: TorchBuild | None) -> Version | None:
    """The ROCm whose kernels run: a ROCm torch wheel's own (it bundles its libraries), else
    the installed one."""
    if t is not None and t.hip is not None:
        return t.hip
    return rocm.version


# the variables a paste shows (some of its environment, a live probe's all of it); {} when none
SHOWN_VARS = Read("env.vars", default={}, partial_ok=True)


def _override_value(vars: dict[str, str]) -> str:
    return vars.get("HSA_OVERRIDE_GFX_VERSION", "").strip()


# ---------------------------------------------------------------------------- rule functions
@reads(rocm=optional("rocm"))
def amd_machine(*, rocm: RocmFacts | None) -> bool:
    """``amd_machine()``: the ROCm facts show AMD GPUs, /dev/kfd or an AMD GPU on the PCI bus
    (a ROCm build is the right one here, whatever else is wrong); False when the ROCm probe
    did not answer (a replayed NVIDIA snapshot, a report without ROCm facts)."""
    return rocm is not None and bool(rocm.gpus or rocm.kfd is not None
                                     or (rocm.pci_devices or 0) > 0)


# The gfx verdicts read the GPU list and the release, not the whole ROCm section: a pasted
# rocminfo shows the GPUs and nothing of /dev/kfd or the groups. Without a release (neither the
# torch wheel's nor the installed one), only a target that no release lists is decided.
def rocm_needs_override(*, gpus: tuple[AmdGpu, ...], version: Version | None,
                        vars: dict[str, str], t: TorchBuild | None) -> dict[str, str] | None:
    """A helper of ``rocm_override_verdict`` and ``rocm_unsupported_gfx`` (no rule reads it
    itself): every exposed GPU that ROCm does not support is a consumer
    RDNA chip of one family, and HSA_OVERRIDE_GFX_VERSION does not name that family's listed
    chip -> {gfx, value, runs_as, set}; None otherwise (mixed families are
    ``rocm_unsupported_gfx``: one override cannot serve both)."""
    release = t.hip if t is not None and t.hip is not None else version
    shown = visible(gpus, vars)
    bad = [g for g in shown if g.gfx and no_code(g.gfx, release, t)]
    if not bad:
        return None
    rows = {id(r): r for g in bad if (r := rocm_matrix.override_for(g.gfx)) is not None}
    if len(rows) != 1 or any(rocm_matrix.override_for(g.gfx) is None for g in bad):
        return None
    row = next(iter(rows.values()))
    others = [g for g in shown if g not in bad and g.gfx and g.gfx != row["runs_as"]]
    if others:
        return None
    value = _override_value(vars)
    if value == row["value"]:
        return None
    # an override naming the chips' own target pins their own code (a build that has it):
    # another family's code is not what they need then
    if value and all(rocm_matrix.override_target(value) == g.gfx for g in bad):
        return None
    names = ", ".join(sorted({f"{g.name or 'GPU'} ({g.gfx})" for g in bad}))
    return {"gfx": names, "value": str(row["value"]), "runs_as": str(row["runs_as"]),
            "set": _override_value(vars)}


def _own_gfx(g: AmdGpu, forced: str | None) -> str | None:
    """A GPU's own target: its board's (by name), else the one the tool printed unless that is
    the override's own (the runtime prints what it loads, so that says nothing)."""
    own = rocm_matrix.native_gfx(g.name)
    if own is not None:
        return own
    return g.gfx if g.gfx and g.gfx != forced else None


def _runs_under(own: str, forced: str) -> bool:
    """Whether ``forced`` code runs on an ``own`` chip: its own target, or its family's listed
    chip that the override rows name."""
    row = rocm_matrix.override_for(own)
    return own == forced or (row is not None and row["runs_as"] == forced)


def rocm_override_wrong(*, gpus: tuple[AmdGpu, ...],
                        vars: dict[str, str]) -> dict[str, str] | None:
    """A helper of ``rocm_override_verdict`` (no rule reads it itself):
    HSA_OVERRIDE_GFX_VERSION names a target that is not an
    exposed GPU's own family (10.3.0 on an MI210, a value left over for another card), or the
    tools show a board with another target than its own (an override in effect, the variable
    itself not shown) -> {gfx, set, runs_as}; None otherwise."""
    value = _override_value(vars)
    forced = rocm_matrix.override_target(value) if value else None
    wrong: list[str] = []
    for g in visible(gpus, vars):
        if forced is not None:
            own = _own_gfx(g, forced)
            if own is not None and not _runs_under(own, forced):
                wrong.append(f"{g.name or 'GPU'} ({own})")
        elif not value and g.gfx:
            own = rocm_matrix.native_gfx(g.name)
            if own is not None and not _runs_under(own, g.gfx):
                forced = forced or g.gfx
                if g.gfx == forced:
                    wrong.append(f"{g.name} ({own}, shown as {g.gfx})")
    if not wrong or forced is None:
        return None
    return {"gfx": ", ".join(sorted(set(wrong))), "set": value or f"(not shown; the tools "
            f"print {forced})", "runs_as": forced}


@reads(gpus="rocm.gpus", version=optional("rocm.version"), vars=SHOWN_VARS,
       t=optional("frameworks.torch"))
def rocm_override_verdict(*, gpus: tuple[AmdGpu, ...], version: Version | None,
                          vars: dict[str, str], t: TorchBuild | None) -> dict[str, str] | None:
    """``rocm_override_verdict()``: what is wrong with HSA_OVERRIDE_GFX_VERSION here, as
    {gpu, verdict, set, fix}: a consumer chip that needs it (``rocm_needs_override``), or a
    value that makes another family's code run (``rocm_override_wrong``); None when neither.
    A chip whose code PyTorch's own ROCm wheels carry from some release (``[[torch_gfx]]``:
    gfx1102 from torch 2.7) needs the override only under a torch without it: where the paste
    shows no ROCm torch build (its version and HIP), the need is not known."""
    need = rocm_needs_override(gpus=gpus, version=version, vars=vars, t=t)
    torch_unseen = t is None or t.hip is None or t.version is None
    if need is not None and torch_unseen and all(
            rocm_matrix.torch_gfx_listed(g.gfx) for g in visible(gpus, vars)
            if g.gfx and no_code(g.gfx, version, t)):
        wrong = rocm_override_wrong(gpus=gpus, vars=vars)
        if wrong is None:
            raise Undetermined("the chip's code is in PyTorch's ROCm wheels from one release "
                               "on, and the paste shows no ROCm torch build")
        need = None
    if need is not None:
        return {"gpu": need["gfx"], "set": need["set"],
                "verdict": f"needs HSA_OVERRIDE_GFX_VERSION={need['value']} to run ROCm "
                           f"({need['runs_as']} code)",
                "fix": f"export HSA_OVERRIDE_GFX_VERSION={need['value']}   # before starting "
                       "Python; add it to ~/.bashrc or the job script"}
    wrong = rocm_override_wrong(gpus=gpus, vars=vars)
    if wrong is None:
        return None
    return {"gpu": wrong["gfx"], "set": wrong["set"],
            "verdict": f"HSA_OVERRIDE_GFX_VERSION makes ROCm run {wrong['runs_as']} code on it, "
                       "not its own family's",
            "fix": "unset HSA_OVERRIDE_GFX_VERSION   # and remove it from ~/.bashrc, the job "
                   "script or the container's env; a run on a card that needs it sets it for "
                   "that run alone, with HIP_VISIBLE_DEVICES naming that card"}


# "No code at all" reads the whole ROCm section: a distribution's or a source build of ROCm
# (Gentoo, Arch, Debian) carries targets AMD's binaries lack, and only the probed stack says
# which one runs. The override verdict above needs less: the family's listed chip runs its code.
@reads(rocm="rocm", vars=optional("env.vars", {}), t=optional("frameworks.torch"))
def rocm_unsupported_gfx(*, rocm: RocmFacts, vars: dict[str, str],
                         t: TorchBuild | None) -> list[str]:
    """``rocm_unsupported_gfx()``: exposed GPUs whose gfx target the ROCm that runs (the torch
    wheel's, else the installed one) does not support and no override can fix: "Raphael
    (gfx1036)". [] when all are supported or ``rocm_needs_override`` covers them."""
    release = release_of(rocm, t)
    shown = visible(rocm.gpus, vars)
    bad = [g for g in shown if g.gfx and no_code(g.gfx, release, t)]
    if not bad or rocm_needs_override(gpus=rocm.gpus, version=rocm.version, vars=vars,
                                      t=t) is not None:
        return []
    row = next((rocm_matrix.override_for(g.gfx) for g in bad), None)
    if row is not None and _override_value(vars) == row["value"] and all(
            rocm_matrix.override_for(g.gfx) is row for g in bad) and not [
            g for g in shown if g not in bad and g.gfx != row["runs_as"]]:
        return []
    return [f"{g.name or 'GPU ' + str(g.index)} ({g.gfx}"
            + (", an integrated GPU" if rocm_matrix.is_igpu(g.gfx) and len(shown) > 1 else "")
            + ")" for g in bad]


@reads(rocm="rocm", vars=optional("env.vars", {}))
def rocm_hidden_all(*, rocm: RocmFacts, vars: dict[str, str]) -> str | None:
    """``rocm_hidden_all()``: the variable and value that hide every AMD GPU listed here
    ("HIP_VISIBLE_DEVICES='2'"), or None."""
    if not rocm.gpus or visible(rocm.gpus, vars):
        return None
    for var in VISIBLE_VARS:
        if var in vars:
            return f"{var}={vars[var]!r}"
    return None


# a field of the rocm section the facts do not show (a pasted `ls -l /dev/kfd` shows the nodes
# and the groups, not the GPUs): told apart from an observed None/() by identity
_UNSEEN: Any = object()
_ACCESS_READS = dict(kfd=optional("rocm.kfd", _UNSEEN),
                     render_nodes=optional("rocm.render_nodes", _UNSEEN),
                     smi_error=optional("rocm.smi_error", ""),
                     gpus=optional("rocm.gpus", _UNSEEN),
                     kernel_module=optional("rocm.kernel_module", _UNSEEN),
                     container=optional("host.container", ""))


@reads(**_ACCESS_READS)
def rocm_access_problem(*, kfd: Any, render_nodes: Any, smi_error: str, gpus: Any,
                        kernel_module: Any, container: str = "") -> str | None:
    """``rocm_access_problem()``: the device nodes this user cannot open ("/dev/kfd (group
    render, mode 0660)"), or what rocminfo said when it could not open /dev/kfd, or the nodes
    missing where the loaded amdgpu driver lists GPUs (a container started without
    ``--device=/dev/kfd --device=/dev/dri``); None when the nodes open, or none exist and
    no GPU is listed. Each field is read on its own: a pasted ``ls -l /dev/kfd`` with ``id``
    judges the nodes without the GPUs, a pasted rocminfo the GPUs without /dev."""
    def node(n: object) -> str:
        path, group, mode = (getattr(n, a) for a in ("path", "group", "mode"))
        return f"{path} (group {group or '?'}, mode {mode or '?'})"
    nodes = () if render_nodes is _UNSEEN else render_nodes
    seen_kfd = kfd is not _UNSEEN and kfd is not None
    shut = [node(kfd)] if seen_kfd and kfd.accessible is False else []
    if nodes and all(n.accessible is False for n in nodes):
        shut.append(node(nodes[0]))
    if shut:
        return " and ".join(shut)
    low = smi_error.lower()
    if "unable to open /dev/kfd" in low and ("permission denied" in low
                                              or "operation not permitted" in low):
        return "/dev/kfd (rocminfo: permission denied)"
    return _nodes_missing(kfd, render_nodes, gpus, kernel_module, container)


def access_of(rocm: RocmFacts) -> str | None:
    """``rocm_access_problem`` of a whole (probed) rocm section."""
    return rocm_access_problem(kfd=rocm.kfd, render_nodes=rocm.render_nodes,
                               smi_error=rocm.smi_error, gpus=rocm.gpus,
                               kernel_module=rocm.kernel_module)


def _nodes_missing(kfd: Any, render_nodes: Any, gpus: Any, kernel_module: Any,
                   container: str) -> str | None:
    """The amdgpu driver is loaded and lists GPUs (its KFD topology, or a tool), yet neither
    /dev/kfd nor a render node exists: HIP has nothing to open. Only where all four were
    observed: a paste that says nothing of /dev (its fields unobserved) never gets here."""
    if any(v is _UNSEEN for v in (kfd, render_nodes, gpus, kernel_module)):
        return None
    if not (gpus and kernel_module and kfd is None and not render_nodes):
        return None
    where = f" in this {container} container" if container else ""
    return f"/dev/kfd and /dev/dri/renderD* (they do not exist{where})"


@reads(user=optional("rocm.user", ""), **_ACCESS_READS)
def rocm_access_fix(*, user: str, kfd: Any, render_nodes: Any, smi_error: str, gpus: Any,
                    kernel_module: Any, container: str = "") -> str:
    """``rocm_access_fix()``: ROCM003's fix for the problem ``rocm_access_problem()`` names:
    the device flags where the nodes are missing, the groups where they are shut."""
    devices = "--device=/dev/kfd --device=/dev/dri --group-add video --group-add render"
    missing = _nodes_missing(kfd, render_nodes, gpus, kernel_module, container)
    if missing is not None and rocm_access_problem(
            kfd=kfd, render_nodes=render_nodes, smi_error=smi_error, gpus=gpus,
            kernel_module=kernel_module, container=container) == missing:
        return (f"Start the container with the GPU device nodes: docker run {devices} … "
                "(compose: devices: [/dev/kfd, /dev/dri]; Kubernetes: the AMD GPU device "
                "plugin's amd.com/gpu resource)" if container else
                "The amdgpu driver lists GPUs but its device nodes are missing: check that "
                "udev runs and that /dev is not a private mount (in a container start it "
                f"with {devices})")
    user = user or "$USER"
    return (f"sudo usermod -a -G render,video {user}   # then log out and in again (or: "
            f"newgrp render)\nIn a container: {devices}")


@reads(user=optional("rocm.user", ""))
def rocm_user(*, user: str) -> str:
    """``rocm_user()``: the user whose access was judged, for the fix line ($USER if none)."""
    return user or "$USER"


@reads(amd_gpus=some("rocm.gpus"), kfd=optional("rocm.kfd"),
       nv_gpus=optional("nvidia.gpus", ()), t="frameworks.torch",
       zluda=optional("rocm.zluda"))
def torch_wrong_gpu_build(*, amd_gpus: tuple[Any, ...], kfd: Any, nv_gpus: tuple[Any, ...],
                          t: TorchBuild | None, zluda: bool | None = None) -> str | None:
    """``torch_wrong_gpu_build()``: a CUDA torch on a machine with AMD GPUs and no NVIDIA
    one ("a CUDA 12.4 build on AMD GPUs"); None otherwise (a ROCm torch on NVIDIA GPUs is
    TORCH005's). The AMD GPUs are those seen (a pasted report names a GPU, not the rest of
    the ROCm stack). Under ZLUDA a CUDA torch is how the AMD GPU is used, not a mistake."""
    if t is None or t.version is None or zluda:
        return None
    # the GPU list on its own: a pasted report states the GPUs, not every NVIDIA field
    nvidia_gpus = len(nv_gpus)
    amd = bool(amd_gpus) or kfd is not None
    if t.cuda is not None and amd and nvidia_gpus == 0:
        return f"torch {t.version} is a CUDA {t.cuda} build, and this machine's GPUs are AMD"
    return None


@reads(rocm="rocm", t="frameworks.torch")
def rocm_torch_gap(*, rocm: RocmFacts, t: TorchBuild | None) -> str | None:
    """``rocm_torch_gap()``: a ROCm torch whose bundled ROCm user space is newer than the
    installed ROCm by more than AMD's +/- 2-release window between the kernel driver and its
    user space, counted in the release order of rules/matrices/rocm.toml ("torch ROCm 6.4 over
    ROCm 5.7.1"), or None (inside the window, older, or a release the order does not place)."""
    if t is None or t.hip is None or rocm.version is None:
        return None
    built, here = t.hip, rocm.version
    got = rocm_matrix.release_distance(built, here)
    if got is None or got[0] <= rocm_matrix.driver_window():
        return None
    return (f"torch {t.version} is built for ROCm {built.major}.{built.minor}, ROCm {here} is "
            "installed")


@reads(rocm="rocm")
def rocm_no_driver(*, rocm: RocmFacts) -> str | None:
    """``rocm_no_driver()``: AMD GPU(s) on the PCI bus but no amdgpu driver answering (no
    /dev/kfd, and the module missing or the tools saying so), or None."""
    if rocm.gpus or rocm.kfd is not None or not rocm.pci_devices:
        return None
    low = rocm.smi_error.lower()
    told = any(m in low for m in ("driver not initialized", "amdgpu not found", "driver not loaded",
                                  "unable to detect any gpu"))
    if rocm.kernel_module is False or told:
        said = f" ({rocm.smi_error})" if rocm.smi_error else ""
        return f"{rocm.pci_devices} AMD GPU(s) on the PCI bus, no /dev/kfd{said}"
    return None


@reads(t="frameworks.torch", live=optional("live", {}), nv_gpus=optional("nvidia.gpus", ()))
def rocm_torch_blind(*, t: TorchBuild | None, live: dict[str, Any],
                     nv_gpus: tuple[Any, ...]) -> str | None:
    """``rocm_torch_blind()``: a ROCm torch that, asked in its own process, found no GPU
    ("torch 2.8.0+rocm6.4 (ROCm 6.4): torch.cuda.is_available() is False"), or None. A live
    worker or a pasted collect_env ("Is CUDA available: False") says it."""
    if t is None or t.hip is None or nv_gpus:
        return None  # a ROCm torch on NVIDIA GPUs is TORCH005's
    run = live.get("torch")
    if run is None or getattr(run, "cuda_available", None) is not False:
        return None
    why = getattr(run, "gpu_error", "") or ""
    return (f"torch {t.version} (ROCm {t.hip.major}.{t.hip.minor}): torch.cuda.is_available() "
            f"is False" + (f" ({why[:160]})" if why else ""))


# ---------------------------------------------------------------- for explain's text readings
# explain reads the GPUs and ROCm release a pasted text states (envdoctor.explain.amdtext) with
# the same data, through these (explain does not import the matrices itself). Not rule
# functions: they read no facts.
def gfx_listed_in(target: str, release: Version | None) -> bool | None:
    """Whether AMD's official list for that ROCm release names the gfx target (see
    ``envdoctor.matrices.rocm.listed_in``); None when no list speaks for the release."""
    return rocm_matrix.listed_in(target, release)


def rocm_wheel_for_torch(version: str) -> tuple[str, str] | None:
    """(the torch release to pin, the newest ROCm index of download.pytorch.org that carries it)
    for the torch release ``version`` names (rules/matrices/wheel_index.toml, same major.minor:
    2.0.0 is served by 2.0.1's rocm5.4.2); None when the table has no ROCm wheel for it."""
    from envdoctor.matrices import matrix
    parts = version.split(".")
    if len(parts) < 2:
        return None
    release = ".".join(parts[:2])
    rows = [r for r in matrix("wheel_index").get("torch", [])
            if ".".join(str(r.get("torch", "")).split(".")[:2]) == release]
    exact = [r for r in rows if str(r.get("torch")) == version]
    for row in exact + rows:
        rocm = [str(v) for v in row.get("linux_x86_64", []) if str(v).startswith("rocm")]
        if rocm:
            return str(row["torch"]), rocm[-1]
    return None


def gfx_listed_by_any(target: str) -> bool:
    """Whether any ROCm release AMD documents lists the gfx target."""
    return rocm_matrix.listed_by_any(target)


def gfx_listed_now(target: str) -> bool:
    """Whether AMD's current Linux list names the gfx target (a gfx row without ``dropped``)."""
    row = rocm_matrix.gfx_row(target)
    return row is not None and not row.get("dropped")


def gfx_of_name(name: str) -> str | None:
    """The gfx target of an AMD product name ("Radeon RX 5600 XT" -> gfx1010), or None."""
    return rocm_matrix.target_of_name(name)


def gfx_override_row(target: str) -> dict[str, Any] | None:
    """The HSA_OVERRIDE_GFX_VERSION row of the target's family (value, runs_as), or None."""
    return rocm_matrix.override_for(target)


def gfx_of_override(value: str) -> str | None:
    """The gfx target an HSA_OVERRIDE_GFX_VERSION value makes the runtime load ("10.3.0" ->
    gfx1030, "9.0.10" -> gfx90a), or None when it is not three numbers."""
    return rocm_matrix.override_target(value)


def gfx_of_ryzen(series: str, suffix: str) -> str | None:
    """The gfx target of a Ryzen APU's integrated GPU from its model number's first digit and
    suffix ("5", "HX" -> gfx90c), or None."""
    return rocm_matrix.target_of_ryzen(series, suffix)


def gfx_listed_span(target: str) -> tuple[Version | None, Version | None]:
    """The first and last ROCm release AMD's lists name the target in ((first, None) while
    the current table lists it; (None, None) when no list does)."""
    return rocm_matrix.listed_span(target)
