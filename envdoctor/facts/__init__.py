"""The facts snapshot: one typed, frozen, JSON-serialisable record of a machine.

Probes fill it, rules read it, ``check --facts FILE`` replays it. Every fact is in one of four
states (``envdoctor.facts.states``): *observed* (with its source), confirmed *absent*, *not
observed* (nobody looked: a section missing from a pasted report, a skipped probe) or *failed*
(the looking broke: a hung ``nvidia-smi``). Each section's ``ProbeInfo`` says it for the whole
section (``status``) and, where a section is only partly known, per field (``unobserved``,
``failed``): a pasted ``jax.print_environment_info()`` block shows jax's devices but not its
plugins, so ``frameworks.probe.unobserved`` holds ``"jax.plugins"``. The rule engine turns every
fact that is not observed or confirmed absent into *unknown*, never into a finding.

Bump ``SCHEMA_VERSION`` on any incompatible change and regenerate ``schema/facts.schema.json``
(``python -m envdoctor.facts.schema``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, ClassVar

from packaging.version import Version

from envdoctor.facts.serialize import DecodeError, from_jsonable, to_jsonable

SCHEMA_VERSION = 3
# Versions whose snapshots still decode: 1 had no per-field states (every field of a section that
# answered counted as observed), which is what 2 reads when ``unobserved``/``failed`` are empty.
# 2 said "not observed" for two fields with flags (``torch.build_known``,
# ``jax.plugins_known``); 3 says it with ``frameworks.probe.unobserved`` (see _migrate_flags).
READABLE_SCHEMA_VERSIONS = (1, 2, 3)
MAX_DEVICES = 1024  # GPUs (or partitions) of one machine in a snapshot; none has more


class Status(str, Enum):
    """What a probe found out."""

    OK = "ok"                # the probe answered
    NOT_FOUND = "not_found"  # the probe answered: the thing is absent (no driver, no torch)
    ERROR = "error"          # the probe itself failed: reason says why
    SKIPPED = "skipped"      # deliberately not run (e.g. --static for live facts)
    UNKNOWN = "unknown"      # nobody looked (section absent from a replayed or pasted snapshot)

    @property
    def known(self) -> bool:
        return self in (Status.OK, Status.NOT_FOUND)


@dataclass(frozen=True)
class LiveDiagnosis:
    """What ``envdoctor explain`` recognised in an error text a probe or a worker saw: the
    signature's code, title and fix."""

    code: str = ""
    title: str = ""
    fix: str = ""
    # the signature's own grading: a failure is named by its diagnosis only when it is sure
    confidence: str = ""              # high | medium | low ("" in snapshots from before)
    category: str = ""                # environment | usage | user | benign


@dataclass(frozen=True)
class ProbeInfo:
    """How a section was obtained: status, why, what was run or read, which source answered.

    ``status`` speaks for the whole section. Within a section that answered (``ok``), a field
    can still be unknown: ``unobserved`` lists paths relative to the section (``"gpus"``,
    ``"torch.cuda"``, ``"jax.plugins"``) that nobody observed, so their stored value is only a
    default; ``failed`` maps paths to why the probe that fills them broke (what ran, how it
    failed). A path covers everything below it. ``sources`` names, per path, where an
    observed value came from when a section mixes sources. See ``envdoctor.facts.states``.
    """

    status: Status = Status.UNKNOWN
    reason: str = ""
    ran: tuple[str, ...] = ()
    source: str = ""
    seconds: float = 0.0
    unobserved: tuple[str, ...] = ()
    failed: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    # what the error signatures recognise in the failure text (reason, failed fields): a
    # failure whose text names a known state ("GPU is lost") is that diagnosis
    diagnoses: tuple[LiveDiagnosis, ...] = ()


# --------------------------------------------------------------------------- host
@dataclass(frozen=True)
class DeviceNode:
    """A device file a GPU runtime opens (/dev/kfd, /dev/dri/renderD*, a Jetson's /dev/nvmap) and
    whether this user may open it."""

    path: str = ""                    # as on the machine: /dev/kfd (never the --root prefix)
    group: str = ""                   # owning group name (render, video), "" when unknown
    mode: str = ""                    # permission bits, octal: "0660"
    accessible: bool | None = None    # read+write for this user; None: could not be decided


@dataclass(frozen=True)
class IntelGpu:
    """An Intel display controller on the PCI bus (vendor 0x8086, class 0x03xxxx), read from
    /sys/bus/pci without any Intel tool or framework: where it sits and the kernel driver that
    drives it (i915 or xe). The integrated GPU of an Intel CPU sits at 0000:00:02.0."""

    MAX_COUNT: ClassVar[int] = MAX_DEVICES

    pci_address: str = ""            # 0000:03:00.0
    device: str = ""                 # PCI device id: 0x56a0 (Arc A770)
    driver: str = ""                 # i915 | xe | "" (no driver bound or not readable)
    # the card's render node (/sys/bus/pci/devices/ADDR/drm/renderD*), which compute runtimes
    # (Level Zero, OpenCL) open; None when the card has none or it was not looked at
    render_node: DeviceNode | None = None

    @property
    def integrated(self) -> bool:
        """At bus 0, device 2: the slot of an Intel CPU's own graphics."""
        return self.pci_address.lower().endswith("00:02.0")


@dataclass(frozen=True)
class GooglePciDevice:
    """A PCI device of Google's vendor id (0x1ae0), read from /sys/bus/pci: Cloud TPU chips
    (rules/matrices/tpu.toml names their device ids, as JAX's own hardware_utils does) and other
    Google devices such as the gVNIC network card, told apart by ``device``."""

    MAX_COUNT: ClassVar[int] = MAX_DEVICES

    pci_address: str = ""            # 0000:00:04.0
    device: str = ""                 # PCI device id: 0x0063 (TPU v5e)
    pci_class: str = ""              # 0xff0000 as sysfs gives it; "" when not readable
    driver: str = ""                 # bound kernel driver (vfio-pci, accel); "" when none or unreadable


@dataclass(frozen=True)
class HostFacts:
    """Operating system, Python and machine resources."""

    probe: ProbeInfo = ProbeInfo()
    os: str = ""                      # platform.system(): Linux, Windows, Darwin
    distro: str = ""                  # PRETTY_NAME of /etc/os-release
    kernel: str = ""
    arch: str = ""                    # x86_64, aarch64, arm64
    glibc: str = ""
    python_version: Version | None = None
    python_executable: str = ""
    python_implementation: str = ""
    python_env: str = ""              # venv | conda | system
    cpu_count: int | None = None      # CPUs this process may use (affinity)
    cpu_flags: tuple[str, ...] = ()   # the SIMD flags that wheels need: avx, avx2, fma, avx512f
    cpu_model: str = ""               # "AMD EPYC 7763 64-Core Processor" (/proc/cpuinfo)
    gcc_version: str = ""             # the gcc on PATH, which CUDA/C++ extension builds use
    ram_total_gb: float | None = None
    ram_available_gb: float | None = None
    shm_total_gb: float | None = None  # size of /dev/shm (PyTorch DataLoader workers use it)
    disk_free_gb: float | None = None
    container: str = ""               # docker | podman | kubernetes | lxc | "" (none seen)
    wsl: int | None = None            # 1 or 2 under WSL, None otherwise
    # WSL: the Windows driver's libraries mapped into /usr/lib/wsl/lib (libcuda.so*, libnvidia-ml)
    wsl_driver_libs: tuple[str, ...] = ()
    # GPU device nodes this process can see (/dev/nvidia*, /dev/dxg under WSL, /dev/kfd)
    gpu_device_nodes: tuple[str, ...] = ()
    cgroup_version: int | None = None           # 1 or 2; None where no cgroup is mounted
    cgroup_memory_limit_gb: float | None = None  # memory.max / memory.limit_in_bytes; None: none
    # Intel GPUs on the PCI bus (/sys/bus/pci); () where none is there or /sys was not readable
    intel_gpus: tuple[IntelGpu, ...] = ()
    # Google PCI devices (vendor 0x1ae0: TPU chips, gVNIC) on /sys/bus/pci; () where none is there
    google_pci_devices: tuple[GooglePciDevice, ...] = ()


# --------------------------------------------------------------------------- NVIDIA
@dataclass(frozen=True)
class GpuProcess:
    """A process holding memory on a GPU (NVML compute processes)."""

    pid: int = 0
    name: str = ""
    used_mb: int | None = None


@dataclass(frozen=True)
class Gpu:
    """One NVIDIA GPU as the driver reports it."""

    MAX_COUNT: ClassVar[int] = MAX_DEVICES  # in one snapshot (serialize.from_jsonable)

    index: int = 0
    name: str = ""
    uuid: str = ""
    cc: Version | None = None         # compute capability, e.g. 8.6
    memory_total_mb: int | None = None
    memory_used_mb: int | None = None
    mig_mode: bool | None = None
    persistence_mode: bool | None = None
    temperature_c: int | None = None
    power_draw_w: float | None = None
    power_limit_w: float | None = None
    throttle_reasons: tuple[str, ...] = ()  # active reasons other than idle
    ecc_uncorrected: int | None = None      # volatile uncorrected ECC errors
    retired_pages_pending: bool | None = None
    pcie_gen: int | None = None
    pcie_gen_max: int | None = None
    pcie_width: int | None = None
    pcie_width_max: int | None = None
    processes: tuple[GpuProcess, ...] = ()
    # memory on this GPU that the process which ran out of memory did not hold (total - free -
    # what its framework reserved), from PyTorch's out-of-memory message: others held it
    memory_outside_mb: int | None = None

    @property
    def memory_total_gb(self) -> float | None:
        return None if self.memory_total_mb is None else self.memory_total_mb / 1024


@dataclass(frozen=True)
class NvidiaFacts:
    """The NVIDIA driver and the GPUs it sees (NVML, else nvidia-smi, else /proc)."""

    probe: ProbeInfo = ProbeInfo()
    driver_version: Version | None = None
    cuda_driver_version: Version | None = None  # highest CUDA the driver supports ("CUDA Version")
    kernel_module_version: Version | None = None  # /proc/driver/nvidia/version
    nvml_error: str = ""                          # e.g. "Driver/library version mismatch"
    pci_devices: int | None = None                # NVIDIA display/3D controllers on the PCI bus
    gpus: tuple[Gpu, ...] = ()

    @property
    def gpu_count(self) -> int:
        return len(self.gpus)

    @property
    def gpu_names(self) -> tuple[str, ...]:
        return tuple(g.name for g in self.gpus)

    @property
    def has_driver(self) -> bool:
        return self.driver_version is not None


# --------------------------------------------------------------------------- AMD ROCm
@dataclass(frozen=True)
class AmdGpu:
    """One AMD GPU (or GCD/partition) as amdsmi, amd-smi, rocm-smi, rocminfo or the KFD
    topology in /sys reports it."""

    MAX_COUNT: ClassVar[int] = MAX_DEVICES

    index: int = 0
    name: str = ""                    # "AMD Instinct MI300X", "Radeon RX 7900 XTX"
    gfx: str = ""                     # LLVM target the runtime reports: gfx942, gfx1100
    memory_total_mb: int | None = None


@dataclass(frozen=True)
class RocmFacts:
    """AMD GPUs and the ROCm stack: the amdgpu kernel driver, /opt/rocm, the GPUs and their
    gfx targets, and the device nodes the HIP runtime opens."""

    probe: ProbeInfo = ProbeInfo()
    version: Version | None = None        # installed ROCm (/opt/rocm/.info/version, amd-smi)
    rocm_path: str = ""                   # the folder that version was read from
    driver_version: str = ""              # amdgpu kernel driver (rocm-smi / /sys/module/amdgpu)
    kernel_module: bool | None = None     # /sys/module/amdgpu present (loaded or built in)
    pci_devices: int | None = None        # AMD display/3D controllers on the PCI bus
    smi_error: str = ""                   # what the AMD tools said when they found no GPU
    gpus: tuple[AmdGpu, ...] = ()
    kfd: DeviceNode | None = None         # None: /dev/kfd does not exist
    render_nodes: tuple[DeviceNode, ...] = ()
    user: str = ""                        # whose access the nodes were judged for
    user_groups: tuple[str, ...] = ()
    # CUDA programs run on these AMD GPUs through ZLUDA (Windows: a CUDA torch over AMD's HIP
    # SDK), as a report shows it: a device named "... [ZLUDA]" or ZLUDA's start-up lines
    zluda: bool | None = None

    @property
    def gfx_targets(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(g.gfx for g in self.gpus if g.gfx))


# --------------------------------------------------------------------------- Apple (macOS)
@dataclass(frozen=True)
class WheelBuild:
    """The platform a framework's installed wheel was built for (its dist-info WHEEL tags)."""

    name: str = ""                    # torch, jaxlib, jax-metal, tensorflow, tensorflow-metal
    version: Version | None = None
    tags: tuple[str, ...] = ()        # "cp311-none-macosx_11_0_arm64"
    arch: str = ""                    # arm64 | x86_64 | universal2 | any ("" when unknown)
    macos: Version | None = None      # the oldest macOS the tag names (11.0)


@dataclass(frozen=True)
class AppleFacts:
    """A Mac: the macOS release, the CPU, and which architecture this Python and the
    frameworks' wheels run as (an x86_64 Python on Apple silicon runs under Rosetta 2, where
    there is no MPS and only x86_64 wheels install)."""

    probe: ProbeInfo = ProbeInfo()
    macos_version: Version | None = None  # sw_vers ProductVersion / SystemVersion.plist
    macos_build: str = ""                 # 23C71
    cpu_brand: str = ""                   # sysctl machdep.cpu.brand_string: "Apple M2 Max"
    apple_silicon: bool | None = None     # sysctl hw.optional.arm64 = 1 (also under Rosetta)
    translated: bool | None = None        # sysctl.proc_translated = 1: this Python is x86_64 code
    python_machine: str = ""              # platform.machine() of the interpreter: arm64, x86_64
    python_platform: str = ""             # sysconfig.get_platform(): macosx-11.0-arm64
    python_archs: tuple[str, ...] = ()    # Mach-O slices of the python binary (x86_64, arm64)
    wheels: tuple[WheelBuild, ...] = ()
    # libtorch_cpu.dylib links MetalPerformanceShaders (a torch built with MPS); None: unread
    torch_mps_linked: bool | None = None
    torch_lib_arch: str = ""              # the CPU slices of libtorch_cpu.dylib ("arm64")

    def wheel(self, name: str) -> WheelBuild | None:
        return next((w for w in self.wheels if w.name == name), None)


# --------------------------------------------------------------------------- NVIDIA Jetson
@dataclass(frozen=True)
class JetsonFacts:
    """An NVIDIA Jetson (Tegra) board, from its own files: the L4T release and the JetPack
    installed over it, the module and SoC the device tree names, and the iGPU's device nodes.

    The iGPU is not reached through NVML (JetPack 4 and 5 have no nvidia-smi; JetPack 6's lists
    "Orin (nvgpu)" with N/A fields): an empty ``nvidia`` section on a Jetson is no statement
    about its GPU. What L4T implies
    (JetPack, CUDA, cuDNN, the GPU architecture) is knowledge (rules/matrices/jetson.toml),
    not a fact of the board; what the board shows (its CUDA toolkit, cuDNN) the ``cuda`` and
    ``libraries`` probes read.
    """

    probe: ProbeInfo = ProbeInfo()
    l4t: Version | None = None        # 36.4.3: /etc/nv_tegra_release, else nvidia-l4t-core
    l4t_source: str = ""              # nv_tegra_release | dpkg
    board: str = ""                   # BOARD of nv_tegra_release: generic, t186ref, t210ref
    jetpack: Version | None = None    # the nvidia-jetpack package; None: not installed or
    dpkg_read: bool = False           # … dpkg's status file not read (then False here)
    model: str = ""                   # /proc/device-tree/model: NVIDIA Jetson AGX Orin …
    soc: str = ""                     # tegra234 (the last entry of /proc/device-tree/compatible)
    compatible: tuple[str, ...] = ()  # /proc/device-tree/compatible, in order
    apt_release: str = ""             # r36.4 of nvidia-l4t-apt-source.list
    kernel: str = ""                  # L4T's kernel release (5.15.148-tegra): /proc/version
    device_nodes: tuple[DeviceNode, ...] = ()  # /dev/nvmap, /dev/nvhost-ctrl-gpu, … that exist
    user: str = ""                    # whose access the nodes were judged for
    user_groups: tuple[str, ...] = ()
    tegrastats: str = ""              # the tegrastats on PATH ("" where none)


# --------------------------------------------------------------------------- CUDA toolkits
# CudaToolkit.source of the toolkit a pasted extension's own report says compiled its ops
# (detectron2's "CUDA compiler", mmcv's "MMCV CUDA Compiler")
EXTENSION_BUILD = "extension build"


@dataclass(frozen=True)
class CudaToolkit:
    """One CUDA toolkit installation and how its version was learned."""

    version: Version | None = None
    path: str = ""
    source: str = ""   # nvcc | CUDA_HOME | CUDA_PATH | folder | pip | conda | EXTENSION_BUILD
    how: str = ""      # what gave the version: version.json, cuda.h, dist-info, nvcc --version


@dataclass(frozen=True)
class CudaFacts:
    """Every CUDA toolkit on the machine, and the nvcc that PATH picks."""

    probe: ProbeInfo = ProbeInfo()
    nvcc_path: str = ""
    nvcc_version: Version | None = None
    toolkits: tuple[CudaToolkit, ...] = ()

    @property
    def versions(self) -> tuple[Version, ...]:
        return tuple(sorted({t.version for t in self.toolkits if t.version is not None}))


# --------------------------------------------------------------------------- libraries
@dataclass(frozen=True)
class Library:
    """One copy of a CUDA library (cuDNN, NCCL, cuBLAS, cudart, libcuda) and where it was seen."""

    name: str = ""          # cudnn | nccl | cublas | cudart | libcuda
    version: Version | None = None
    path: str = ""
    source: str = ""        # header | ldconfig | folder | pip:<dist> | conda


@dataclass(frozen=True)
class ElfObject:
    """A framework library's dynamic section as ld.so reads it (envdoctor.probes._elf)."""

    path: str = ""
    soname: str = ""
    needed: tuple[str, ...] = ()
    rpath: tuple[str, ...] = ()     # DT_RPATH, $ORIGIN expanded
    runpath: tuple[str, ...] = ()   # DT_RUNPATH, $ORIGIN expanded
    error: str = ""                 # why its headers could not be read ("" when they were)


@dataclass(frozen=True)
class LoadVerdict:
    """Which file ld.so *will* load for one soname a framework library asks for."""

    soname: str = ""        # libcudnn.so.9
    loader: str = ""        # the library whose DT_NEEDED it is; "" for a dlopen without paths
    path: str = ""          # the file ld.so loads ("" when none is found)
    step: str = ""          # rpath | ld_library_path | runpath | ld.so.cache | default | not_found
    bundled: str = ""       # the copy the framework's wheels ship ("" when none)
    others: tuple[str, ...] = ()  # the other copies on the search path, in search order
    # the versions of the copy that loads and of the wheel's (file name libcudnn.so.9.0.0, else
    # the nvidia-* wheel's own version); None where neither says
    path_version: Version | None = None
    bundled_version: Version | None = None


@dataclass(frozen=True)
class LibraryFacts:
    """cuDNN, NCCL, cuBLAS and CUDA runtime libraries installed on the machine, and which of
    them the loader will pick for the framework libraries that ask for them."""

    probe: ProbeInfo = ProbeInfo()
    libraries: tuple[Library, ...] = ()
    objects: tuple[ElfObject, ...] = ()    # framework libraries whose ELF headers were read
    verdicts: tuple[LoadVerdict, ...] = ()

    def named(self, name: str) -> tuple[Library, ...]:
        return tuple(lib for lib in self.libraries if lib.name == name)


# --------------------------------------------------------------------------- Python packages
@dataclass(frozen=True)
class Distribution:
    """An installed Python distribution (pip/conda) and the import names it provides."""

    name: str = ""          # canonical (PEP 503) name
    version: Version | None = None
    location: str = ""
    modules: tuple[str, ...] = ()  # top-level import names it provides


@dataclass(frozen=True)
class ModuleConflict:
    """An import name that two installed distributions both provide."""

    module: str = ""
    distributions: tuple[str, ...] = ()


@dataclass(frozen=True)
class PackageFacts:
    """The installed distributions that matter for deep learning."""

    probe: ProbeInfo = ProbeInfo()
    distributions: tuple[Distribution, ...] = ()
    conflicts: tuple[ModuleConflict, ...] = ()

    def get(self, name: str) -> Distribution | None:
        from envdoctor.versions import canonical_name as canonicalize_name
        wanted = canonicalize_name(name)
        return next((d for d in self.distributions if d.name == wanted), None)


# --------------------------------------------------------------------------- framework builds
@dataclass(frozen=True)
class TorchBuild:
    """What torch was built with, read from torch/version.py without importing torch."""

    version: Version | None = None
    cuda: Version | None = None     # torch.version.cuda; None for CPU/ROCm builds
    hip: Version | None = None
    git_version: str = ""
    bundled: tuple[str, ...] = ()   # shared libraries shipped in torch/lib (libcudnn.so.9 …)
    # When nothing said which build this is (torch/version.py missing or unparseable, a report
    # naming only "torch 2.5.1"), ``frameworks.probe.unobserved`` holds "torch.cuda" and
    # "torch.hip": None then reads as not observed, not as "CPU-only".


@dataclass(frozen=True)
class TensorflowBuild:
    """tensorflow/python/platform/build_info.py, read without importing TensorFlow."""

    version: Version | None = None
    distribution: str = ""          # tensorflow, tensorflow-cpu, tf-nightly …
    is_cuda_build: bool | None = None
    is_rocm_build: bool | None = None
    cuda: Version | None = None
    cudnn: Version | None = None
    compute_capabilities: tuple[str, ...] = ()  # e.g. sm_60, compute_80


@dataclass(frozen=True)
class JaxBuild:
    """jax, jaxlib and the installed GPU/TPU plugins (versions must agree)."""

    version: Version | None = None
    jaxlib: Version | None = None
    plugins: tuple[Distribution, ...] = ()  # jax-cuda12-plugin, jax-cuda12-pjrt, …
    # When nothing listed the installed distributions (a jax.print_environment_info() block
    # names jax and jaxlib only), ``frameworks.probe.unobserved`` holds "jax.plugins".


@dataclass(frozen=True)
class KerasInfo:
    """Keras version and the backend it will use, and where that choice came from."""

    version: Version | None = None
    backend: str = ""               # tensorflow | jax | torch | numpy | openvino
    backend_source: str = ""        # KERAS_BACKEND | keras.json | default


@dataclass(frozen=True)
class PaddleBuild:
    """paddle/version/__init__.py (plain assignments, read without importing Paddle).

    A CPU build writes ``cuda_version = 'False'``: that becomes ``cuda = None``."""

    version: Version | None = None
    distribution: str = ""          # paddlepaddle | paddlepaddle-gpu
    cuda: Version | None = None
    cudnn: Version | None = None
    nccl: Version | None = None
    with_mkl: bool | None = None
    pip_cuda_libraries: bool | None = None  # CUDA libraries come from nvidia-* wheels
    cuda_archs: tuple[str, ...] = ()        # compiled_cuda_archs, e.g. 80, 90
    commit: str = ""


@dataclass(frozen=True)
class MindsporeBuild:
    """The device plugins a MindSpore wheel ships (mindspore/lib/plugin/), read from its files.

    ``gpu11.6`` is the GPU plugin built for CUDA 11.6; ``ascend`` the Ascend (CANN) one."""

    version: Version | None = None
    distribution: str = ""          # mindspore | mindspore-gpu | mindspore-ascend
    targets: tuple[str, ...] = ()   # CPU, GPU, Ascend: device targets this build can run on
    cuda: tuple[Version, ...] = ()  # CUDA versions of its GPU plugins


@dataclass(frozen=True)
class MxnetBuild:
    """MXNet's build from its distribution name (mxnet-cu112 -> CUDA 11.2) and shipped files."""

    version: Version | None = None
    distribution: str = ""          # mxnet | mxnet-mkl | mxnet-cu112 | mxnet-cu102mkl …
    cuda: Version | None = None
    mkl: bool | None = None
    bundled: tuple[str, ...] = ()   # CUDA libraries shipped next to libmxnet.so


@dataclass(frozen=True)
class FrameworkFacts:
    """Build information of installed frameworks; None means not installed."""

    probe: ProbeInfo = ProbeInfo()
    torch: TorchBuild | None = None
    tensorflow: TensorflowBuild | None = None
    jax: JaxBuild | None = None
    keras: KerasInfo | None = None
    paddle: PaddleBuild | None = None
    mindspore: MindsporeBuild | None = None
    mxnet: MxnetBuild | None = None


# --------------------------------------------------------------------------- environment
@dataclass(frozen=True)
class EnvFacts:
    """Environment variables that change how frameworks behave (allowlisted, secrets dropped)."""

    probe: ProbeInfo = ProbeInfo()
    vars: dict[str, str] = field(default_factory=dict)


# --------------------------------------------------------------------------- live workers
@dataclass(frozen=True)
class LiveDevice:
    """One device as a framework sees it at run time (not as the driver does)."""

    MAX_COUNT: ClassVar[int] = MAX_DEVICES  # in one snapshot (serialize.from_jsonable)

    kind: str = ""                    # cuda | rocm | mps | xpu | tpu | cpu
    index: int = 0
    name: str = ""
    cc: Version | None = None         # compute capability (CUDA only)
    memory_total_mb: int | None = None


@dataclass(frozen=True)
class LoadedLibrary:
    """A CUDA library mapped into a worker process (/proc/self/maps), or a copy a wheel ships."""

    name: str = ""                    # cudart | cudnn | cublas | nccl
    path: str = ""
    version: Version | None = None
    origin: str = ""                  # wheel | conda | system



@dataclass(frozen=True)
class SmokeStep:
    """One smoke kernel: status passed|failed|skipped|error, how long, and what it saw."""

    name: str = ""
    status: str = ""
    seconds: float = 0.0
    detail: str = ""
    metrics: dict[str, float] = field(default_factory=dict)  # e.g. tflops_bf16, copy_gbs


@dataclass(frozen=True)
class SmokeResult:
    """A framework's smoke suite: status passed|failed|skipped|error on one device."""

    status: str = ""
    suite: str = ""                   # quick | full
    device: str = ""                  # cuda:0 (NVIDIA H200) | cpu
    steps: tuple[SmokeStep, ...] = ()

    @property
    def failed(self) -> tuple[SmokeStep, ...]:
        return tuple(s for s in self.steps if s.status in ("failed", "error"))


@dataclass(frozen=True)
class LiveFramework:
    """One framework imported in its own worker process: what it loads, sees and computes.

    ``probe.status`` is ``error`` when the worker crashed, hung, printed garbage or exited
    non-zero (``stderr_tail`` and ``diagnoses`` say why); ``import_ok`` is False when the
    worker ran but ``import <framework>`` raised.
    """

    probe: ProbeInfo = ProbeInfo()
    name: str = ""                    # torch, tensorflow, jax, keras, paddle, mindspore, mxnet
    import_ok: bool | None = None
    import_error: str = ""
    import_seconds: float | None = None
    # the file or folder `import <name>` loaded (a same-named folder or script that shadows
    # the installed package shows up here)
    module_path: str = ""
    version: Version | None = None
    backend: str = ""                 # keras: its backend
    build: str = ""                   # cuda | rocm | cpu | metal | xpu | tpu | unknown
    built_cuda: Version | None = None   # CUDA the build targets
    built_cudnn: Version | None = None  # cuDNN it was compiled against
    cudnn: Version | None = None        # cuDNN in use at run time
    nccl: Version | None = None
    cuda_available: bool | None = None  # the framework's own "is a CUDA/ROCm GPU usable"
    # torch on a Mac: torch.backends.mps.is_built() / is_available() (None: not asked)
    mps_built: bool | None = None
    mps_available: bool | None = None
    devices: tuple[LiveDevice, ...] = ()
    arch_list: tuple[str, ...] = ()     # e.g. torch.cuda.get_arch_list(): sm_80, sm_90
    # torch's warning "Minimum and Maximum cuda capability supported by this version of
    # PyTorch is (7.0) - (12.0)": ("7.0", "12.0"); used when no arch list is known
    cc_range: tuple[str, ...] = ()
    bf16: bool | None = None
    fp16: bool | None = None
    tf32: bool | None = None
    loaded: tuple[LoadedLibrary, ...] = ()   # from the worker's /proc/self/maps
    shipped: tuple[LoadedLibrary, ...] = ()  # copies inside site-packages (wheels)
    gpu_error: str = ""                 # why the framework found no GPU, in its own words
    visible_devices: str | None = None  # CUDA_VISIBLE_DEVICES as the worker saw it
    stderr_tail: str = ""
    diagnoses: tuple[LiveDiagnosis, ...] = ()
    smoke: SmokeResult | None = None
    features: tuple[str, ...] = ()      # MXNet: mx.runtime.Features() enabled (CUDA, MKLDNN …)
    # what the signature engine recognised in the stderr of a worker that otherwise answered
    # (an import warning such as MindSpore's "compiled using NumPy 1.x")
    warnings: tuple[LiveDiagnosis, ...] = ()

    @property
    def ran_cleanly(self) -> bool:
        """The worker ran and answered (its import may still have failed): what it says of
        the import was observed."""
        return self.probe.status is Status.OK

    @property
    def gpus(self) -> tuple[LiveDevice, ...]:
        return tuple(d for d in self.devices if d.kind in ("cuda", "rocm"))

    @property
    def gpu_count(self) -> int:
        return len(self.gpus)

    @property
    def cudnn_major(self) -> int | None:
        """The cuDNN major this framework loads (or, before loading it, was built for)."""
        version = self.cudnn or self.built_cudnn
        return None if version is None else version.major

    @property
    def shadowed(self) -> tuple[str, ...]:
        """Loaded system copies of libraries that a wheel in site-packages also ships."""
        wheel = {lib.name for lib in self.shipped}
        return tuple(f"{lib.name} {lib.version or '?'} from {lib.path}" for lib in self.loaded
                     if lib.origin == "system" and lib.name in wheel)

    @property
    def diagnosis_text(self) -> str:
        return "; ".join(f"{d.code}: {d.title} (fix: {d.fix})" if d.fix else
                         f"{d.code}: {d.title}" for d in self.diagnoses)


@dataclass(frozen=True)
class TextDiagnosis:
    """A cause that the error lines of a pasted text state, as ``envdoctor explain`` reads
    them (``check --from`` on an issue): the signature's code and id, and the lines it saw."""

    code: str = ""
    id: str = ""
    title: str = ""
    confidence: str = ""
    why: str = ""
    fix: str = ""
    references: tuple[str, ...] = ()
    evidence: tuple[str, ...] = ()    # "line 12: OSError: ... libcublas.so.11: ..."
    notes: tuple[str, ...] = ()       # what the text's own facts say (a stated reading's note)


# --------------------------------------------------------------------------- snapshot
@dataclass(frozen=True)
class Facts:
    """One machine, as the probes saw it."""

    schema_version: int = SCHEMA_VERSION
    envdoctor_version: str = ""
    created: str = ""
    origin: str = "live"            # live | replay | report | example
    host: HostFacts = HostFacts()
    nvidia: NvidiaFacts = NvidiaFacts()
    rocm: RocmFacts = RocmFacts()
    apple: AppleFacts = AppleFacts()
    jetson: JetsonFacts = JetsonFacts()
    cuda: CudaFacts = CudaFacts()
    libraries: LibraryFacts = LibraryFacts()
    packages: PackageFacts = PackageFacts()
    frameworks: FrameworkFacts = FrameworkFacts()
    env: EnvFacts = EnvFacts()
    # Filled by the live framework workers (envdoctor.live), one entry per framework; empty
    # when none ran (`check --static`, a replayed static snapshot).
    live: dict[str, LiveFramework] = field(default_factory=dict)
    # What the error lines of a pasted report state (``check --from``): empty for a probed
    # machine. The checks judge the sections; these are the text's own diagnoses beside them.
    diagnoses: tuple[TextDiagnosis, ...] = ()

    def with_section(self, name: str, value: Any) -> Facts:
        return replace(self, **{name: value})

    def with_sections(self, sections: dict[str, Any]) -> Facts:
        return replace(self, **sections)

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(self)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, sort_keys=False)

    def with_sections_from_dict(self, sections: dict[str, Any]) -> Facts:
        """These facts with some top-level fields replaced by ones decoded from ``sections``
        (this schema's JSON form, as ``to_dict`` writes it). A redacted copy changes a few
        sections; decoding only those costs a fraction of a whole ``from_dict``."""
        if not sections:
            return self
        from envdoctor.facts.serialize import field_hints
        hints = dict(field_hints(Facts))
        try:
            return replace(self, **{name: from_jsonable(hints[name], value, f"$.{name}")
                                    for name, value in sections.items()})
        except (DecodeError, KeyError) as exc:
            raise FactsError(f"facts do not fit the schema: {exc}") from None

    @classmethod
    def from_dict(cls, data: Any) -> Facts:
        """Decode a snapshot; raises ``FactsError`` with a one-line reason when it does not fit."""
        if not isinstance(data, dict):
            raise FactsError("a facts snapshot must be a JSON object")
        if isinstance(data.get("facts"), dict) and "host" not in data:
            data = data["facts"]  # a whole `check --format json` output
        version = data.get("schema_version")
        if version not in READABLE_SCHEMA_VERSIONS:
            raise FactsError(f"schema_version {version!r} is not supported (this envdoctor "
                             f"reads {', '.join(map(str, READABLE_SCHEMA_VERSIONS))})")
        if version < 3:
            data = _migrate_flags(data)
        try:
            return replace(from_jsonable(cls, data), schema_version=SCHEMA_VERSION)
        except DecodeError as exc:
            raise FactsError(f"facts do not fit the schema: {exc}") from None


# schema 2 flag -> the field paths (in ``frameworks``) it said were not observed when False
_V2_FLAGS = {("torch", "build_known"): ("torch.cuda", "torch.hip"),
             ("jax", "plugins_known"): ("jax.plugins",)}


def _migrate_flags(data: dict[str, Any]) -> dict[str, Any]:
    """A schema 1/2 snapshot with its ``build_known``/``plugins_known`` flags turned into
    ``frameworks.probe.unobserved`` marks (a False flag meant: that field was not observed)."""
    fw = data.get("frameworks")
    if not isinstance(fw, dict):
        return data
    marks: list[str] = []
    fw = dict(fw)
    for (record, flag), paths in _V2_FLAGS.items():
        build = fw.get(record)
        if isinstance(build, dict) and flag in build:
            if build.get(flag) is False:
                marks.extend(paths)
            fw[record] = {k: v for k, v in build.items() if k != flag}
    if marks:
        probe = dict(fw.get("probe") or {})
        old = probe.get("unobserved") or []
        probe["unobserved"] = [*old, *(m for m in marks if m not in old)]
        fw["probe"] = probe
    return {**data, "frameworks": fw}


class FactsError(ValueError):
    """A snapshot that cannot be read: wrong schema version, wrong shape."""


SECTIONS = ("host", "nvidia", "rocm", "apple", "jetson", "cuda", "libraries", "packages",
            "frameworks", "env")
