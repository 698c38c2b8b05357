"""The few facts an install decision depends on, read once from a Facts snapshot.

Only what was observed counts: a platform or Python that the snapshot does not state stays
None, and the planners then say they cannot decide rather than assume one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from packaging.version import Version

from envdoctor.facts import Facts, Status
from envdoctor.matrices.gpus import gpu_cc_of, sm_of
from envdoctor.matrices.tpu import describe_chips
from envdoctor.versions import ver

PLATFORMS = ("linux_x86_64", "linux_aarch64", "win_amd64", "macos_arm64", "macos_x86_64")


class _Names(dict):
    """Platform key -> readable name; keys without wheels in the data read as themselves."""

    def __missing__(self, key: str) -> str:
        return str(key)

    def get(self, key, default=None):  # noqa: D102 - same as [] for any key
        return self[key]


PLATFORM_NAMES = _Names({"linux_x86_64": "Linux x86_64", "linux_aarch64": "Linux aarch64",
                         "win_amd64": "Windows x86_64", "win_arm64": "Windows arm64",
                         "macos_arm64": "macOS arm64", "macos_x86_64": "macOS x86_64"})

_ARCH = {"x86_64": "x86_64", "amd64": "x86_64", "x64": "x86_64",
         "aarch64": "aarch64", "arm64": "aarch64"}


@dataclass(frozen=True)
class GpuInfo:
    name: str
    cc: Version | None

    @property
    def sm(self) -> str | None:
        return sm_of(self.cc) if self.cc is not None else None


@dataclass(frozen=True)
class AmdInfo:
    """One AMD GPU as the ROCm probe names it: its model and LLVM gfx target ("" unknown)."""

    name: str
    gfx: str


@dataclass(frozen=True)
class IntelInfo:
    """One Intel GPU on the PCI bus with its kernel driver (i915 / xe) bound: its PCI device id
    ("0xe20b", "" unknown) and whether it sits in the slot of a CPU's own graphics."""

    device: str
    integrated: bool


@dataclass(frozen=True)
class JetsonBoard:
    """A Jetson as its own files say (envdoctor.probes.jetson): the L4T release, the
    nvidia-jetpack package's version where installed, the SoC and module."""

    l4t: Version | None = None
    jetpack: Version | None = None
    soc: str = ""
    model: str = ""


@dataclass(frozen=True)
class Machine:
    platform: str | None            # one of PLATFORMS; None when the snapshot does not say
    python: Version | None          # major.minor of the interpreter
    nvidia: str                     # "gpus" | "none" | "unknown"
    gpus: tuple[GpuInfo, ...]
    driver: Version | None
    installed: dict[str, Version]   # canonical distribution name -> version
    torch_variant: str | None       # cu126 / cpu / rocm6.4 of the installed torch, if any
    torch_hip: bool
    nvcc: Version | None = None     # CUDA toolkit compiler, for packages built from source
    toolkit_known: bool = True      # False: the snapshot does not say (a paste without nvcc -V)
    wsl: bool = False               # WSL: Linux wheels, the Windows driver (its numbering)
    amd: str = "unknown"            # "gpus" | "none" | "unknown": AMD GPUs the ROCm probe saw
    amd_gpus: tuple[AmdInfo, ...] = ()
    rocm: Version | None = None     # the installed ROCm release (/opt/rocm, amd-smi)
    gfx_override: str = ""          # HSA_OVERRIDE_GFX_VERSION as set, "" when unset
    jetson: JetsonBoard | None = None  # a Jetson whose files were read (L4T, JetPack)
    macos: Version | None = None    # the macOS release (apple.macos_version), when stated
    tpu: str = ""                   # the Cloud TPU evidence (tpu_of), "" when none was seen
    glibc: Version | None = None    # the C library (host.glibc) on Linux; None when not stated
    intel_gpus: tuple[IntelInfo, ...] = ()  # Intel GPUs with i915 / xe bound (host.intel_gpus)

    @property
    def os(self) -> str | None:
        if self.platform is None:
            return None
        return "windows" if self.platform.startswith("win") else self.platform.split("_")[0]

    @property
    def has_nvidia(self) -> bool:
        return self.nvidia == "gpus"

    @property
    def has_amd(self) -> bool:
        """AMD GPUs observed and no NVIDIA one: the ROCm wheels are the GPU install."""
        return self.amd == "gpus" and not self.has_nvidia

    @property
    def has_intel(self) -> bool:
        """Intel GPUs with their driver bound and no NVIDIA or AMD GPU: whether one of them is an
        XPU target is the XPU data's to say (envdoctor.suggest.xpu_plan)."""
        return bool(self.intel_gpus) and self.nvidia != "gpus" and self.amd != "gpus"

    def describe(self) -> dict[str, Any]:
        return {
            "platform": self.platform,
            "python": str(self.python) if self.python else None,
            "nvidia": self.nvidia,
            "gpus": [{"name": g.name, "cc": str(g.cc) if g.cc else None} for g in self.gpus],
            "driver": str(self.driver) if self.driver else None,
            "installed": {k: str(v) for k, v in sorted(self.installed.items())},
            **({"amd_gpus": [{"name": g.name, "gfx": g.gfx} for g in self.amd_gpus],
                "rocm": str(self.rocm) if self.rocm else None} if self.amd == "gpus" else {}),
        }


def _platform(facts: Facts) -> str | None:
    host = facts.host
    if not host.probe.status.known or not host.os:
        return None
    raw = (host.arch or "").lower()
    arch = _ARCH.get(raw, raw or None)   # ppc64le, s390x … stay as they are: no wheels in the data
    system = host.os.lower()
    if system.startswith("win"):
        return {"x86_64": "win_amd64", None: "win_amd64", "aarch64": "win_arm64"}.get(arch,
                                                                                     f"win_{arch}")
    if system == "darwin" or system.startswith("mac"):
        return {"aarch64": "macos_arm64", "x86_64": "macos_x86_64"}.get(arch or "")
    if system == "linux" and arch:
        return f"linux_{arch}"
    return None


def _nvidia_state(facts: Facts) -> tuple[str, tuple[GpuInfo, ...], Version | None]:
    nv = facts.nvidia
    gpus = tuple(GpuInfo(g.name, gpu_cc_of(g)) for g in nv.gpus)
    if nv.probe.status is Status.OK and gpus:
        return "gpus", gpus, nv.driver_version
    pasted = facts.origin == "report" or nv.probe.source.startswith("report")
    pasted_header = pasted and (nv.driver_version is not None
                                or nv.kernel_module_version is not None)
    if nv.probe.status is Status.OK and not gpus and (nv.pci_devices or nv.nvml_error
                                                       or pasted_header):
        # GPUs on the bus, NVML failing, or a pasted nvidia-smi header whose GPU rows were cut
        # off: an NVIDIA GPU is there, its model is unknown. The kernel module's version
        # (/proc/driver/nvidia/version) is the driver's.
        return "gpus", (GpuInfo("NVIDIA GPU (model not readable)", None),), \
            nv.driver_version or nv.kernel_module_version
    from envdoctor.facts.states import State, path_state
    listed = path_state(nv.probe, "gpus")[0] is State.OBSERVED  # a list nobody showed: unknown
    if nv.probe.status is Status.NOT_FOUND or (nv.probe.status is Status.OK and not gpus
                                               and listed):
        return "none", (), None
    if gpus:  # a pasted nvidia-smi table without a probe status still names the GPUs
        return "gpus", gpus, nv.driver_version
    return "unknown", (), None


def _installed(facts: Facts) -> dict[str, Version]:
    out: dict[str, Version] = {}
    for dist in facts.packages.distributions:
        if dist.version is not None:
            out[dist.name.lower().replace("_", "-")] = dist.version
    fw = facts.frameworks
    for name, build in (("torch", fw.torch), ("tensorflow", fw.tensorflow), ("jax", fw.jax)):
        if build is not None and build.version is not None:
            out.setdefault(name, build.version)
    return out


def _torch_variant(facts: Facts) -> tuple[str | None, bool]:
    torch = facts.frameworks.torch
    if torch is None or torch.version is None:
        return None, False
    local = torch.version.local or ""
    if torch.hip is not None or local.startswith("rocm"):
        return (local or "rocm"), True
    if torch.cuda is not None:
        return f"cu{torch.cuda.major}{torch.cuda.minor}", False
    return (local or "cpu"), False


def _amd_state(facts: Facts) -> tuple[str, tuple[AmdInfo, ...]]:
    """AMD GPUs the ROCm facts list (a pasted or replayed list counts as observed, as the
    NVIDIA table does); "none" only when the probe says so; else unknown (an NVIDIA snapshot
    without ROCm facts: nothing is assumed)."""
    rocm = facts.rocm
    gpus = tuple(AmdInfo(g.name, g.gfx) for g in rocm.gpus)
    if gpus:
        return "gpus", gpus
    if rocm.probe.status is Status.NOT_FOUND:
        return "none", ()
    return "unknown", ()


def machine_of(facts: Facts) -> Machine:
    """The decision-relevant view of one machine."""
    py = facts.host.python_version  # a pasted report may state Python without a probe status
    python = Version(f"{py.major}.{py.minor}") if py is not None else None
    state, gpus, driver = _nvidia_state(facts)
    variant, hip = _torch_variant(facts)
    amd, amd_gpus = _amd_state(facts)
    nvcc = facts.cuda.nvcc_version if facts.cuda.probe.status.known else None
    return Machine(platform=_platform(facts), python=python, nvidia=state, gpus=gpus,
                   driver=ver(driver), installed=_installed(facts), torch_variant=variant,
                   torch_hip=hip, nvcc=nvcc, toolkit_known=facts.cuda.probe.status.known,
                   wsl=bool(facts.host.wsl), amd=amd, amd_gpus=amd_gpus,
                   rocm=facts.rocm.version if amd == "gpus" else None,
                   gfx_override=facts.env.vars.get("HSA_OVERRIDE_GFX_VERSION", "").strip(),
                   jetson=_jetson(facts), macos=_macos(facts), tpu=tpu_of(facts),
                   glibc=glibc_of(facts), intel_gpus=_intel(facts))


def _intel(facts: Facts) -> tuple[IntelInfo, ...]:
    """The Intel GPUs the host probe read from /sys with i915 or xe bound."""
    return tuple(IntelInfo(g.device.strip().lower(), g.integrated)
                 for g in facts.host.intel_gpus if g.driver in ("i915", "xe"))


_GLIBC = re.compile(r"(?:^|glibc[- ]?)(\d+\.\d+)")


def glibc_of(facts: Facts) -> Version | None:
    """The glibc release a Linux host states (``host.glibc``: "glibc-2.17" from the probe, "2.17"
    or "glibc2.17" from a paste); None when it is not stated or not glibc (musl): then no wheel's
    manylinux tag is held against the machine."""
    text = (facts.host.glibc or "").strip().lower()
    m = _GLIBC.search(text)
    return Version(m.group(1)) if m else None


_TPU_VARS = ("TPU_ACCELERATOR_TYPE", "TPU_VISIBLE_CHIPS")


def tpu_of(facts: Facts) -> str:
    """What says this is a Cloud TPU host, as the answer will quote it; "" when nothing does.

    Evidence, strongest first: a framework worker listed a TPU device; TPU chips on the PCI bus
    (rules/matrices/tpu.toml, JAX's own table of device ids); the TPU runtime's own
    environment (``TPU_ACCELERATOR_TYPE``, ``TPU_VISIBLE_CHIPS``, ``PJRT_DEVICE=TPU``, which Cloud
    TPU VMs and GKE TPU pods set); ``/dev/accel0``.. (TPU v2-v4's chips). ``/dev/vfio/N`` alone
    is no evidence (any vfio-pci device has one), nor is libtpu (``pip install "jax[tpu]"``
    puts it on any machine)."""
    for run in facts.live.values():
        for device in run.devices:
            if device.kind == "tpu":
                return f"a TPU device ({device.name or 'TPU'}) seen by a worker"
    chips = describe_chips(facts.host.google_pci_devices)
    if chips:
        return chips
    env = facts.env.vars
    for name in _TPU_VARS:
        value = env.get(name, "").strip()
        if value:
            return f"{name}={value}"
    if env.get("PJRT_DEVICE", "").strip().upper() == "TPU":
        return "PJRT_DEVICE=TPU"
    nodes = [n for n in facts.host.gpu_device_nodes if n.startswith("/dev/accel")]
    if nodes:
        return f"TPU device nodes {', '.join(nodes[:4])}"
    return ""


def _macos(facts: Facts) -> Version | None:
    """The macOS release a Mac's facts state (sw_vers), else None."""
    return facts.apple.macos_version


def _jetson(facts: Facts) -> JetsonBoard | None:
    j = facts.jetson
    if j.probe.status is not Status.OK or (j.l4t is None and not j.soc.startswith("tegra")):
        return None
    return JetsonBoard(l4t=j.l4t, jetpack=j.jetpack, soc=j.soc, model=j.model)
