"""The per-area summary (driver, CUDA, libraries, each framework, host), flutter-doctor style.

Each line has a status from the worst finding of its area and a one-line description of the
facts, so a reader sees in five lines what the machine is before reading what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from envdoctor.engine.findings import Finding, worst
from envdoctor.facts import Facts, Status
from envdoctor.facts.states import State, state_of


def line_of(area: str) -> str:
    """The summary line a finding's area counts on (rules/areas.toml ``[line]``)."""
    from envdoctor.rulefiles import load_file_cached
    return load_file_cached("areas").get("line", {}).get(area, area)


def lines_of(finding: Finding) -> set[str]:
    """Every summary line a finding marks: its area's, and those of the areas it is about."""
    return {line_of(finding.area), *(line_of(a) for a in finding.about)}


@dataclass(frozen=True)
class AreaLine:
    area: str
    label: str
    status: str    # ok | warning | error | info | unknown
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"area": self.area, "label": self.label, "status": self.status,
                "detail": self.detail}


def summarize(facts: Facts, findings: list[Finding]) -> list[AreaLine]:
    lines = [
        ("driver", "NVIDIA driver", facts.nvidia.probe.status, _driver(facts)),
        ("cuda", "CUDA toolkit", facts.cuda.probe.status, _cuda(facts)),
        ("libraries", "cuDNN / NCCL / cuBLAS", facts.libraries.probe.status, _libs(facts)),
    ]
    if _amd_seen(facts):  # an AMD machine gets its own line; NVIDIA machines are unchanged
        lines.insert(1, ("rocm", "AMD GPU / ROCm", facts.rocm.probe.status, _rocm(facts)))
    if _mac_seen(facts):  # a Mac: its own line, and no NVIDIA lines that say nothing there
        quiet = {"driver", "cuda", "libraries"} if facts.nvidia.probe.status is Status.NOT_FOUND \
            else set()
        lines = [("apple", "Mac", facts.apple.probe.status, _apple(facts))] + [
            line for line in lines if line[0] not in quiet
            or any(line[0] in lines_of(f) for f in findings)]
    if _jetson_seen(facts):  # a Jetson's iGPU: its own line, and the NVIDIA line says why
        lines.insert(1, ("jetson", "Jetson / L4T", facts.jetson.probe.status, _jetson(facts)))
    fw = facts.frameworks
    if fw.probe.status.known:
        if fw.torch:
            lines.append(("torch", "PyTorch", Status.OK, _torch(facts)))
        if fw.tensorflow:
            lines.append(("tensorflow", "TensorFlow", Status.OK, _tf(facts)))
        if fw.jax:
            lines.append(("jax", "JAX", Status.OK, _jax(facts)))
        if fw.keras:
            lines.append(("keras", "Keras", Status.OK,
                          f"{fw.keras.version}, backend {fw.keras.backend or 'unknown'}"))
        if fw.paddle:
            lines.append(("paddle", "PaddlePaddle", Status.OK, _paddle(facts)))
        if fw.mindspore:
            lines.append(("mindspore", "MindSpore", Status.OK, _mindspore(facts)))
        if fw.mxnet:
            lines.append(("mxnet", "MXNet", Status.OK, _mxnet(facts)))
        if not any((fw.torch, fw.tensorflow, fw.jax, fw.keras, fw.paddle, fw.mindspore,
                    fw.mxnet)):
            lines.append(("frameworks", "Frameworks", Status.OK,
                          "none of PyTorch, TensorFlow, JAX, Keras, PaddlePaddle, MindSpore or "
                          "MXNet is installed"))
    else:
        lines.append(("frameworks", "Frameworks", fw.probe.status,
                      f"unknown ({fw.probe.reason or fw.probe.status.value})"))
    lines.append(("python", "Python", facts.host.probe.status, _python(facts)))
    lines.append(("host", "Host", facts.host.probe.status, _host(facts)))

    out = []
    for area, label, probe_status, detail in lines:
        mine = [f for f in findings if area in lines_of(f)]
        sev = worst(mine)
        if sev is not None:
            status = sev.value
        elif probe_status in (Status.ERROR, Status.UNKNOWN, Status.SKIPPED):
            status = "unknown"
        else:
            status = "ok"
        out.append(AreaLine(area, label, status, detail))
    return out


def _driver(facts: Facts) -> str:
    nv = facts.nvidia
    if nv.probe.status is Status.NOT_FOUND and _jetson_seen(facts):
        return "no NVML on this Jetson: the iGPU driver is part of L4T (see the Jetson line)"
    if nv.probe.status is Status.NOT_FOUND:
        if nv.pci_devices:
            return f"not loaded, but {nv.pci_devices} NVIDIA GPU(s) are on the PCI bus"
        return "not installed; no NVIDIA GPU found"
    if not nv.probe.status.known:
        return f"unknown ({nv.probe.reason or nv.probe.status.value})"
    parts = [f"{nv.driver_version}" if nv.driver_version is not None else
             "version not reported" if state_of(facts, "nvidia.driver_version")[0]
             is not State.OBSERVED else "none"]
    if nv.cuda_driver_version:
        parts.append(f"supports CUDA ≤ {nv.cuda_driver_version}")
    names: dict[str, int] = {}
    for g in nv.gpus:
        names[g.name] = names.get(g.name, 0) + 1
    gpus = ", ".join(f"{n} ×{c}" if c > 1 else n for n, c in names.items()) or (
        "GPUs not listed in the report" if facts.origin == "report" else "no GPU")
    return f"{', '.join(parts)}; {gpus} (via {nv.probe.source})"


def _amd_seen(facts: Facts) -> bool:
    r = facts.rocm
    return r.probe.status is Status.ERROR or (r.probe.status is Status.OK and bool(
        r.gpus or r.kfd is not None or (r.pci_devices or 0) > 0 or r.version is not None))


def _mac_seen(facts: Facts) -> bool:
    a = facts.apple
    return a.probe.status is Status.OK


def _apple(facts: Facts) -> str:
    a = facts.apple
    parts = [f"macOS {a.macos_version}" + (f" ({a.macos_build})" if a.macos_build else "")
             if a.macos_version is not None else "macOS version unknown",
             a.cpu_brand or ("Apple silicon" if a.apple_silicon else
                             "Intel" if a.apple_silicon is False else "CPU unknown")]
    if a.translated:
        parts.append("this Python runs under Rosetta 2 (x86_64)")
    elif a.python_machine:
        parts.append(f"Python {a.python_machine}")
    return ", ".join(parts)


def _jetson_seen(facts: Facts) -> bool:
    j = facts.jetson
    return j.probe.status is Status.OK and (j.l4t is not None or j.soc.startswith("tegra")
                                            or j.kernel.endswith("-tegra"))


def _jetson(facts: Facts) -> str:
    """What the board's files say (what L4T implies is the checks' business, not a fact)."""
    j = facts.jetson
    name = j.model or "Jetson"
    soc = f" ({j.soc} iGPU)" if j.soc else ""
    if j.l4t is None and j.kernel and facts.origin == "report":
        return f"{name}{soc}: L4T kernel {j.kernel} (the report shows no L4T release)"
    parts = [f"L4T {j.l4t}" if j.l4t is not None else "L4T release not read",
             f"JetPack {j.jetpack}" if j.jetpack is not None else
             "nvidia-jetpack not installed" if j.dpkg_read else "JetPack package not read"]
    return f"{name}{soc}; {', '.join(parts)}"


def _rocm(facts: Facts) -> str:
    r = facts.rocm
    if r.probe.status is Status.ERROR:
        return f"probe failed ({r.probe.reason})"
    names: dict[str, int] = {}
    for g in r.gpus:
        label = f"{g.name or 'AMD GPU'} ({g.gfx})" if g.gfx else (g.name or "AMD GPU")
        names[label] = names.get(label, 0) + 1
    gpus = ", ".join(f"{n} ×{c}" if c > 1 else n for n, c in names.items()) or "no GPU listed"
    if r.zluda:  # a CUDA torch on the AMD GPU through ZLUDA, over the HIP SDK: no ROCm needed
        parts = [f"ROCm {r.version}" if r.version is not None else "CUDA through ZLUDA"]
    else:
        parts = [f"ROCm {r.version}" if r.version is not None else "no ROCm install found"]
    if r.driver_version:
        parts.append(f"amdgpu {r.driver_version}")
    return f"{gpus}; {', '.join(parts)}" + (f" (via {r.probe.source})" if r.probe.source else "")


def _cuda(facts: Facts) -> str:
    cu = facts.cuda
    if cu.probe.status is Status.NOT_FOUND:
        return "none installed (pip wheels of the frameworks bring their own CUDA runtime)"
    if not cu.probe.status.known:
        return f"unknown ({cu.probe.reason or cu.probe.status.value})"
    parts = []
    pasted = facts.origin == "report"
    for tk in cu.toolkits:
        if pasted:  # the report shows what ran, rarely where from: say only what it shows
            via = "nvcc, as the report shows" if tk.source == "nvcc" else "stated in the report"
        else:
            via = "nvcc on PATH" if tk.source == "nvcc" else tk.source
        where = f" at {tk.path}" if tk.path else ""
        parts.append(f"{tk.version or '?'}{where} ({via})")
    if cu.nvcc_path and not any(t.source == "nvcc" for t in cu.toolkits):
        parts.insert(0, f"nvcc {cu.nvcc_version or '?'} at {cu.nvcc_path}")
    return "; ".join(parts) or "none"


def _libs(facts: Facts) -> str:
    libs = facts.libraries
    if not libs.probe.status.known:
        return f"unknown ({libs.probe.reason or libs.probe.status.value})"
    parts = []
    for name in ("cudnn", "nccl", "cublas"):
        versions = sorted({str(lib.version) for lib in libs.named(name) if lib.version})
        if versions:
            parts.append(f"{name} {', '.join(versions)}")
    if not parts and facts.origin == "report":
        return "none shown in the pasted report"  # a paste lists some libraries, never all
    return "; ".join(parts) or "none installed system-wide"


def _torch(facts: Facts) -> str:
    t = facts.frameworks.torch
    if t is None:  # summarize lists installed frameworks only
        return "not installed"
    if t.cuda:
        build = f"CUDA {t.cuda} build"
    elif t.hip:
        build = f"ROCm/HIP {t.hip} build"
    elif t.version is not None and (t.version.local or "").startswith("xpu"):
        build = "Intel XPU build"
    elif state_of(facts, "frameworks.torch.cuda")[0] not in (State.OBSERVED, State.STATED):
        build = "build unknown"
    elif _mac_seen(facts):
        build = _torch_mac(facts)
    else:
        build = "CPU-only build"
    return f"{_shown(t.version)} ({build})"


def _shown(version: object) -> str:
    """A version a report did not show is said so, never printed as "None"."""
    return "version not shown" if version is None else str(version)


def _torch_mac(facts: Facts) -> str:
    """A macOS torch: its wheel's CPU and whether MPS is built into it."""
    a = facts.apple
    wheel = a.wheel("torch")
    arch = (wheel.arch if wheel is not None and wheel.arch not in ("", "any") else
            a.torch_lib_arch) or "macOS"
    mps = {True: "MPS built in", False: "no MPS"}.get(a.torch_mps_linked) \
        if a.torch_mps_linked is not None else "MPS not read"
    return f"{arch} build, {mps}"


def _tf(facts: Facts) -> str:
    tf = facts.frameworks.tensorflow
    if tf is None:  # summarize lists installed frameworks only
        return "not installed"
    if tf.is_cuda_build:
        build = f"CUDA {tf.cuda or '?'} / cuDNN {tf.cudnn or '?'} build"
    elif tf.is_cuda_build is False:
        build = "CPU-only build"
    else:
        build = "build unknown"
    dist = f" from {tf.distribution}" if tf.distribution else ""
    return f"{_shown(tf.version)}{dist} ({build})"


def _jax(facts: Facts) -> str:
    j = facts.frameworks.jax
    if j is None:  # summarize lists installed frameworks only
        return "not installed"
    plugins = ", ".join(f"{p.name} {p.version}" for p in j.plugins)
    if not plugins:
        live = facts.live.get("jax") if facts.live else None
        gpus = [d for d in getattr(live, "devices", ()) or () if d.kind in ("cuda", "gpu")]
        if gpus:
            plugins = f"{len(gpus)} CUDA device(s) seen by JAX"
        elif j.jaxlib is not None and "cuda" in (j.jaxlib.local or ""):
            plugins = "a CUDA jaxlib"
        elif state_of(facts, "frameworks.jax.plugins")[0] in (State.OBSERVED, State.STATED):
            plugins = "no GPU plugin: CPU only"
        else:
            plugins = "plugins not listed"
    return f"jax {_shown(j.version)}, jaxlib {_shown(j.jaxlib)} ({plugins})"


def _paddle(facts: Facts) -> str:
    p = facts.frameworks.paddle
    if p is None:  # summarize lists installed frameworks only
        return "not installed"
    if p.cuda:
        build = f"CUDA {p.cuda}" + (f" / cuDNN {p.cudnn}" if p.cudnn else "") + " build"
    else:
        build = "CPU-only build"
    return f"{p.version} from {p.distribution} ({build})"


def _mindspore(facts: Facts) -> str:
    m = facts.frameworks.mindspore
    if m is None:  # summarize lists installed frameworks only
        return "not installed"
    targets = ", ".join(f"GPU (CUDA {'/'.join(str(c) for c in m.cuda)})" if t == "GPU" and m.cuda
                        else t for t in m.targets) or "unknown"
    return f"{m.version} from {m.distribution} (device targets: {targets})"


def _mxnet(facts: Facts) -> str:
    x = facts.frameworks.mxnet
    if x is None:  # summarize lists installed frameworks only
        return "not installed"
    build = f"CUDA {x.cuda} build" if x.cuda else "CPU build"
    return f"{x.version} from {x.distribution} ({build}; retired project)"


def _python(facts: Facts) -> str:
    h = facts.host
    if not h.python_version:
        return "unknown"
    text = f"{h.python_version}"
    if h.python_env:
        text += f" ({h.python_env})"
    text += f" at {h.python_executable}" if h.python_executable else ""
    numpy = facts.packages.get("numpy") if facts.packages.probe.status.known else None
    return text + (f"; NumPy {numpy.version}" if numpy is not None and numpy.version else "")


def _host(facts: Facts) -> str:
    h = facts.host
    if not h.probe.status.known:
        return "unknown"
    parts = [h.distro or h.os, h.arch]
    if h.cpu_model:
        parts.append(h.cpu_model)
    if h.cpu_count:
        parts.append(f"{h.cpu_count} CPUs")
    if h.ram_total_gb is not None:
        parts.append(f"{h.ram_total_gb:.1f} GiB RAM")
    if h.shm_total_gb is not None:
        parts.append(f"/dev/shm {h.shm_total_gb:.1f} GiB")
    if h.container:
        parts.append(f"in {h.container}")
    if h.wsl:
        parts.append(f"WSL{h.wsl}")
    if h.gcc_version:
        parts.append(f"gcc {h.gcc_version}")
    return ", ".join(p for p in parts if p)
