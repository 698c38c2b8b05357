"""Environment variables and GPU visibility: CUDA_VISIBLE_DEVICES, LD_LIBRARY_PATH,
PYTORCH_CUDA_ALLOC_CONF, why no GPU can be used, and which Python an environment needs."""

from __future__ import annotations

import re
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from envdoctor.engine.knowledge import jetson as tegra
from envdoctor.engine.knowledge._reads import optional, reads, some
from envdoctor.facts import NvidiaFacts, RocmFacts
from envdoctor.matrices import matrix

# Values of CUDA_VISIBLE_DEVICES that hide every GPU: empty and -1 (CUDA: "an invalid index
# stops the list"), and the NVIDIA container runtime's "none" / "NoDevFiles"
# (https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html).
HIDE_ALL = ("", "-1", "none", "NoDevFiles")
JETSON = tegra.BOARD  # the Jetson facts read field by field (a report shows only some)


def hides_every_gpu(value: str | None) -> bool:
    """Whether a CUDA_VISIBLE_DEVICES value hides every GPU (None: the variable is unset)."""
    return value is not None and value.strip() in HIDE_ALL


def alloc_conf_keys() -> dict[str, str]:
    """Allocator options and the value pattern of each (rules/matrices/torch.toml
    ``[alloc_conf.keys]``, read from PyTorch's AllocatorConfig sources)."""
    return dict(matrix("torch").get("alloc_conf", {}).get("keys", {}))


@reads()
def alloc_conf_problem(text: str | None) -> str | None:
    """What is wrong with a PYTORCH_CUDA_ALLOC_CONF value, or None when it parses (or is
    unset).

    Grammar from c10/core/AllocatorConfig.cpp (c10/cuda/CUDAAllocatorConfig.cpp before 2.8):
    comma-separated ``key:value`` pairs (roundup_power2_divisions may be a bracketed list);
    keys and True/False are case-sensitive; the keys are data (``alloc_conf_keys``).
    """
    if text is None:
        return None
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    for part in (p.strip() for p in parts):
        if not part:
            continue
        key, sep, value = part.partition(":")
        key, value = key.strip(), value.strip()
        if not sep:
            return f"{part!r} is not key:value"
        keys = alloc_conf_keys()
        if key not in keys:
            return f"unknown option {key!r}"
        if not re.fullmatch(keys[key], value):
            return f"bad value {value!r} for {key}"
    return None


# ---------------------------------------------------------------------------- rule functions
@reads(vars="env.vars")
def on_ld_path(path: str, *, vars: dict[str, str]) -> bool:
    """``on_ld_path(path)``: is the folder of ``path`` listed in LD_LIBRARY_PATH?"""
    dirs = {d.rstrip("/") for d in vars.get("LD_LIBRARY_PATH", "").split(":") if d}
    folder = path.rsplit("/", 1)[0].rstrip("/") if "/" in path else ""
    return bool(folder) and folder in dirs


@reads()
def hides_all_gpus(value: str | None) -> bool:
    """``hides_all_gpus(env.CUDA_VISIBLE_DEVICES)``: the value hides every GPU."""
    return hides_every_gpu(value)


@reads(nv=some("nvidia"), vars=some("env.vars"))
def visible_devices_missing(*, nv: NvidiaFacts, vars: dict[str, str]) -> list[str]:
    """Entries of CUDA_VISIBLE_DEVICES that name no GPU here (index past the count, unknown
    UUID or MIG id); [] when unset, empty or all valid. CUDA stops at the first bad entry."""
    value = vars.get("CUDA_VISIBLE_DEVICES")
    if value is None or hides_every_gpu(value) or not nv.gpus:
        return []
    uuids: list[str] | None = None  # read only for UUID entries (fleet compare shares the rest)
    bad = []
    for entry in (e.strip() for e in value.split(",")):
        if re.fullmatch(r"\d+", entry):
            if int(entry) >= len(nv.gpus):
                bad.append(entry)
        elif entry.lower().startswith(("gpu-", "mig-")):
            if uuids is None:
                uuids = [g.uuid.lower() for g in nv.gpus if g.uuid]
            if uuids and not any(u.startswith(entry.lower()) for u in uuids) \
                    and not entry.lower().startswith("mig-"):
                bad.append(entry)
        elif entry:
            bad.append(entry)
    return bad


@reads(nv="nvidia", vars=optional("env.vars", {}), rocm=optional("rocm"),
       jetson_nodes=optional("jetson.device_nodes"), container=optional("host.container", ""),
       **JETSON)
def no_gpu_reason(*, nv: NvidiaFacts, vars: dict[str, str],
                  rocm: RocmFacts | None = None, jetson_nodes: Any = None,
                  container: str = "", **jetson_reads: Any) -> str | None:
    """Why no GPU can be used here, in one sentence, or None when one can.

    Needs the NVIDIA facts: when that probe failed, PROBE001 says so and this is unknown.
    Without the environment, CUDA_VISIBLE_DEVICES is taken as unset. AMD GPUs count where the
    ROCm facts were observed: an exposed one the user can open is a usable GPU. A Jetson's
    iGPU counts where the Jetson facts were observed: it is reached through its own nodes
    (/dev/nvmap, /dev/nvhost-*), not NVML, so an empty NVIDIA section says nothing of it.
    """
    if tegra.is_jetson(tegra.seen(**jetson_reads)) and not nv.gpus:
        if hides_every_gpu(vars.get("CUDA_VISIBLE_DEVICES")):
            return f"CUDA_VISIBLE_DEVICES={vars['CUDA_VISIBLE_DEVICES']!r} hides the Jetson's iGPU"
        if jetson_nodes is None:  # nobody looked at /dev (a pasted report): not a reason
            return None
        bad = tegra.access_problem(tuple(jetson_nodes))
        if bad:
            return f"this user cannot open {bad}"
        if not jetson_nodes:
            return ("this Jetson's iGPU device nodes (/dev/nvmap, /dev/nvhost-*) are not "
                    "visible here")
        return None
    amd = _amd_reason(rocm, vars) if rocm is not None and not nv.gpus else None
    if amd is not None:
        return amd or None
    if nv.gpus:
        visible = vars.get("CUDA_VISIBLE_DEVICES")
        if hides_every_gpu(visible):
            return f"CUDA_VISIBLE_DEVICES={visible!r} hides every GPU"
        return None
    asked = vars.get("NVIDIA_VISIBLE_DEVICES", "")
    if container and asked in ("void", "none"):  # the NVIDIA runtime's "no GPU" values
        return (f"this {container} container's NVIDIA_VISIBLE_DEVICES={asked!r} asks the NVIDIA "
                "container runtime for no GPU (set it to 'all' or the GPU indices, or start the "
                "container with --gpus all)")
    if nv.nvml_error and "mismatch" in nv.nvml_error.lower():
        return f"the NVIDIA driver cannot be used: {nv.nvml_error}"
    if nv.pci_devices:
        return (f"{nv.pci_devices} NVIDIA GPU(s) are on the PCI bus but no NVIDIA driver "
                "is loaded")
    if nv.driver_version is not None:
        return f"driver {nv.driver_version} is loaded but reports no GPU"
    if rocm is not None:  # the ROCm probe answered too (optional: None when unknown)
        return "no NVIDIA or AMD GPU and no GPU driver were found on this machine"
    return "no NVIDIA GPU and no NVIDIA driver were found on this machine"


def _amd_reason(rocm: RocmFacts, vars: dict[str, str]) -> str | None:
    """"" when an AMD GPU is usable, a reason when one is there but unusable, None when the
    ROCm facts show no AMD GPU at all (the NVIDIA reasons then speak)."""
    from envdoctor.engine.knowledge import rocm as amd
    if rocm.gpus:
        if not amd.visible(rocm.gpus, vars):
            hidden = amd.rocm_hidden_all(rocm=rocm, vars=vars)
            return f"{hidden} hides every AMD GPU"
        access = amd.access_of(rocm)
        return f"this user cannot open {access}" if access else ""
    access = amd.access_of(rocm)
    if access:
        return f"this user cannot open {access}, so no AMD GPU is listed"
    no_driver = amd.rocm_no_driver(rocm=rocm)
    if no_driver:
        return f"{no_driver}: the amdgpu driver is not loaded"
    if rocm.kfd is not None:
        return "/dev/kfd exists but no tool listed an AMD GPU" + (
            f" ({rocm.smi_error})" if rocm.smi_error else "")
    return None


@reads(nv=optional("nvidia"), rocm=optional("rocm"), intel_mac=optional("apple.apple_silicon"),
       **JETSON)
def no_gpu_fix(*, nv: NvidiaFacts | None, rocm: RocmFacts | None,
               intel_mac: bool | None = None, **jetson_reads: Any) -> str:
    """``no_gpu_fix()``: what to do when no GPU can be used, for the GPU this machine has:
    AMD advice where the ROCm facts show an AMD GPU, driver or ROCm and no NVIDIA GPU; Mac
    advice on an Intel Mac (Apple silicon Macs are the APPLE checks', not INTENT001's); Jetson
    advice on a Jetson (its driver is part of L4T: nothing to install)."""
    if intel_mac is False:
        return ("An Intel Mac has no CUDA: torch 2.2.2 (the last release with macOS x86_64 "
                "wheels) can use its AMD or Intel GPU through MPS on macOS 12.3+ "
                "(device='mps'); for CUDA train on a Linux or Windows machine with an NVIDIA "
                "GPU, for Apple's GPU stack on an Apple silicon Mac.")
    if tegra.is_jetson(tegra.seen(**jetson_reads)) and not (nv is not None and nv.gpus):
        return ("Jetson: the iGPU driver is part of L4T (nothing to install); add the user to "
                "the video group (sudo usermod -aG video $USER, then log in again); in a "
                "container, start it with --runtime nvidia; check CUDA_VISIBLE_DEVICES.")
    amd = rocm is not None and (rocm.gpus or rocm.kfd is not None or (rocm.pci_devices or 0) > 0
                                or rocm.version is not None)
    if amd and not (nv is not None and (nv.gpus or nv.pci_devices)):
        return ("AMD GPU: load the amdgpu driver (amdgpu-install, then reboot; `rocminfo` must "
                "list a gfx agent), add the user to the render and video groups, check "
                "HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES; in a container pass "
                "--device=/dev/kfd --device=/dev/dri --group-add video.")
    return ("Run on a machine with an NVIDIA GPU and a loaded driver (nvidia-smi must list "
            "the GPU); in a container, start it with --gpus all (NVIDIA Container Toolkit); "
            "check CUDA_VISIBLE_DEVICES.")


# CPython minors a release range is searched for, newest first (3.14: the newest final
# release when the matrices were cut).
_PYTHONS = tuple(f"3.{minor}" for minor in range(14, 6, -1))


@reads()
def newest_python(spec: str | None) -> str | None:
    """``newest_python(">=3.8,<3.13")`` -> "3.12": the newest CPython minor a release's
    Python range admits (what a fix tells the user to create an environment with)."""
    if not spec:
        return None
    try:
        wanted = SpecifierSet(str(spec))
    except InvalidSpecifier:
        return None
    return next((p for p in _PYTHONS if wanted.contains(Version(p), prereleases=True)), None)


