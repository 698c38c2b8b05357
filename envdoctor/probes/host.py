"""Host probe: OS, Python, CPU, RAM, /dev/shm, disk, container, WSL and the C compiler.

Reads files and asks psutil; runs no program, so it cannot hang. The gcc version (what
torch.utils.cpp_extension, flash-attn or apex builds compile with) is read from the name of
the gcc on PATH (``gcc -> gcc-12``) or from the one versioned folder under /usr/lib/gcc.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import sys
from dataclasses import replace
from pathlib import Path

from packaging.version import InvalidVersion, Version

from envdoctor.bounded import env, matching
from envdoctor.facts import DeviceNode, GooglePciDevice, HostFacts, IntelGpu, Status
from envdoctor.probes._base import Trail
from envdoctor.probes._root import SYSTEM, is_system

SECTION = "host"
SIMD_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f")
GIB = 1024 ** 3


def probe(root: Path = SYSTEM) -> HostFacts:
    """Collect host facts; ``root`` lets tests point at a recorded filesystem tree."""
    trail = Trail()
    os_release = _key_values(trail.read(root / "etc/os-release") or "")
    proc_version = trail.read(root / "proc/version") or ""
    cpuinfo = trail.read(root / "proc/cpuinfo", limit=1 << 16) or ""
    memory = _memory(root)
    cgroup = _cgroup_memory(root, trail)
    facts = HostFacts(
        os=platform.system(),
        distro=os_release.get("PRETTY_NAME", ""),
        kernel=platform.release(),
        arch=platform.machine(),
        glibc="-".join(x for x in platform.libc_ver() if x),
        python_version=_version(platform.python_version()),
        python_executable=sys.executable,
        python_implementation=platform.python_implementation(),
        python_env=_python_env(),
        cpu_count=_cpu_count(),
        cpu_flags=_cpu_flags(cpuinfo),
        cpu_model=_cpu_model(cpuinfo),
        gcc_version=gcc_version(root),
        container=_container(root, trail),
        wsl=_wsl(proc_version, root),
        ram_total_gb=memory["ram_total_gb"],
        ram_available_gb=memory["ram_available_gb"],
        shm_total_gb=_shm_from_mounts(trail.read(root / "proc/mounts", limit=1 << 18) or "",
                                      memory["shm_total_gb"]),
        disk_free_gb=memory["disk_free_gb"],
        wsl_driver_libs=_wsl_driver_libs(root),
        gpu_device_nodes=gpu_device_nodes(root),
        cgroup_version=cgroup[0],
        cgroup_memory_limit_gb=cgroup[1],
        intel_gpus=intel_gpus(root),
        google_pci_devices=google_pci_devices(root),
    )
    return replace(facts, probe=trail.info(Status.OK, source="psutil+procfs"))


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def _key_values(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            out[key.strip()] = value.strip().strip('"')
    return out


def _python_env() -> str:
    if os.path.isdir(os.path.join(sys.prefix, "conda-meta")):
        return "conda"
    if sys.prefix != getattr(sys, "base_prefix", sys.prefix):
        return "venv"
    return "system"


def _cpu_count() -> int | None:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count()


def _cpu_flags(cpuinfo: str) -> tuple[str, ...]:
    for line in cpuinfo.splitlines():
        if line.startswith(("flags", "Features")):
            present = set(line.partition(":")[2].split())
            return tuple(f for f in SIMD_FLAGS if f in present)
    return ()


def _cpu_model(cpuinfo: str) -> str:
    """``model name`` of the first CPU (x86); ``platform.processor()`` where there is none."""
    for line in cpuinfo.splitlines():
        if line.lower().startswith(("model name", "hardware")):
            return " ".join(line.partition(":")[2].split())[:120]
    return (platform.processor() or "")[:120]


_GCC_NAME = re.compile(r"gcc-(\d+(?:\.\d+)*)$")


def gcc_version(root: Path = SYSTEM) -> str:
    """The version of the gcc on PATH, without running it; "" when it cannot be read."""
    found = shutil.which("gcc")
    if not found:
        return ""
    m = _GCC_NAME.search(os.path.basename(os.path.realpath(found)))
    if m:
        return m.group(1)
    folders = {os.path.basename(d) for d in matching(root / "usr/lib/gcc", "*/*")
               if re.fullmatch(r"\d+(?:\.\d+)*", os.path.basename(d))}
    return folders.pop() if len(folders) == 1 else ""


def _memory(root: Path) -> dict[str, float | None]:
    out: dict[str, float | None] = {"ram_total_gb": None, "ram_available_gb": None,
                                    "shm_total_gb": None, "disk_free_gb": None}
    total, available = _meminfo(root)
    if total is None and is_system(root):
        try:  # not Linux (or no /proc): ask psutil, which costs ~50 ms to import
            import psutil
            vm = psutil.virtual_memory()
            total, available = vm.total, vm.available
        except Exception:  # psutil missing or unsupported platform: leave unknown
            pass
    if total is not None:
        out["ram_total_gb"] = round(total / GIB, 2)
        out["ram_available_gb"] = round(available / GIB, 2) if available is not None else None
    for key, path in (("shm_total_gb", root / "dev/shm"), ("disk_free_gb", Path(os.curdir))):
        try:
            st = os.statvfs(path)
        except (OSError, AttributeError):
            continue
        size = st.f_blocks if key == "shm_total_gb" else st.f_bavail
        out[key] = round(size * st.f_frsize / GIB, 3)
    return out


def _meminfo(root: Path) -> tuple[int | None, int | None]:
    """MemTotal and MemAvailable in bytes from /proc/meminfo (what psutil reads on Linux)."""
    from envdoctor.bounded import read_text
    text = read_text(root / "proc/meminfo", limit=1 << 16)
    if text is None:
        return None, None
    values = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if key in ("MemTotal", "MemAvailable") and parts and parts[0].isdigit():
            values[key] = int(parts[0]) * 1024
    return values.get("MemTotal"), values.get("MemAvailable")


def _container(root: Path, trail: Trail) -> str:
    if env("KUBERNETES_SERVICE_HOST"):
        return "kubernetes"
    if (root / "run/.containerenv").exists():
        return "podman"
    if (root / ".dockerenv").exists():
        return "docker"
    cgroup = trail.read(root / "proc/1/cgroup", limit=1 << 14) or ""
    for marker, name in (("kubepods", "kubernetes"), ("docker", "docker"),
                         ("libpod", "podman"), ("lxc", "lxc")):
        if marker in cgroup:
            return name
    if env("container"):
        return env("container", "")
    return ""


def _wsl(proc_version: str, root: Path = Path("/")) -> int | None:
    """1 or 2 under WSL: the kernel says "microsoft" (WSL2 kernels "microsoft-standard-WSL2");
    where a custom kernel does not, WSL's interop handler or its /usr/lib/wsl mount does."""
    low = proc_version.lower()
    if "microsoft" in low:
        return 2 if "wsl2" in low or "microsoft-standard" in low else 1
    if (root / "proc/sys/fs/binfmt_misc/WSLInterop").exists() \
            or (root / "usr/lib/wsl/lib").is_dir():
        return 2 if (root / "dev/dxg").exists() or (root / "usr/lib/wsl/lib").is_dir() else 1
    return None


WSL_DRIVER = ("libcuda.so", "libnvidia-ml.so", "libdxcore.so", "nvidia-smi")
GPU_NODES = ("nvidia", "dxg", "kfd", "dri/renderD")
_TPU_NODE = re.compile(r"accel[0-9]+|vfio/[0-9]+")


def _wsl_driver_libs(root: Path) -> tuple[str, ...]:
    """The Windows driver's files WSL maps into /usr/lib/wsl/lib (libcuda.so*, libnvidia-ml)."""
    folder = root / "usr/lib/wsl/lib"
    try:
        names = sorted(os.listdir(folder))[:512]
    except OSError:
        return ()
    return tuple(f"/usr/lib/wsl/lib/{n}" for n in names if n.startswith(WSL_DRIVER))


def gpu_device_nodes(root: Path = Path("/")) -> tuple[str, ...]:
    """Accelerator device nodes visible here: /dev/nvidia0.., nvidiactl, nvidia-uvm, /dev/dxg
    (WSL), /dev/kfd and /dev/dri/renderD* (AMD), and the nodes a Cloud TPU VM's chips appear as:
    /dev/accel0.. (TPU v2-v4) and /dev/vfio/0.. (v5e and later, bound to vfio-pci). A container
    started without its accelerators has none of them. (The kernel's compute-accelerator class,
    /dev/accel/accelN, NPUs and Gaudi, is a folder and is not listed.)"""
    out = []
    for folder in ("dev", "dev/dri", "dev/vfio"):
        try:
            names = sorted(os.listdir(root / folder))[:4096]
        except OSError:
            continue
        prefix = {"dev": "", "dev/dri": "dri/", "dev/vfio": "vfio/"}[folder]
        out += [f"/dev/{prefix}{n}" for n in names
                if (prefix + n).startswith(GPU_NODES) or _TPU_NODE.fullmatch(prefix + n)]
    return tuple(out[:64])


INTEL_VENDOR = "0x8086"


def intel_gpus(root: Path = Path("/")) -> tuple[IntelGpu, ...]:
    """Intel display controllers (vendor 0x8086, class 0x03xxxx) in /sys/bus/pci/devices under
    ``root``, with the kernel driver bound to each: the name of the device's ``driver`` link,
    "" when it has none (a driver module loaded for another device does not say this one is
    bound: a discrete Arc whose driver failed to bind sits beside an iGPU's i915)."""
    from envdoctor.bounded import read_proc
    devices = root / "sys/bus/pci/devices"
    try:
        entries = sorted(devices.iterdir())[:1024]
    except OSError:
        return ()
    out = []
    displays = 0
    for dev in entries:
        vendor = (read_proc(dev / "vendor", 64) or "").strip().lower()
        klass = (read_proc(dev / "class", 64) or "").strip().lower()
        displays += klass.startswith("0x03")
        if vendor != INTEL_VENDOR or not klass.startswith("0x03"):
            continue
        try:
            bound = os.path.basename(os.readlink(dev / "driver"))
        except OSError:
            bound = ""
        out.append(IntelGpu(pci_address=dev.name,
                            device=(read_proc(dev / "device", 64) or "").strip().lower(),
                            driver=bound, render_node=_render_node(root, dev) if bound else None))
    if displays == 1 and len(out) == 1 and out[0].driver and out[0].render_node is None:
        out[0] = replace(out[0], render_node=_sole_render_node(root))
    return tuple(out[:64])


GOOGLE_VENDOR = "0x1ae0"


def google_pci_devices(root: Path = Path("/")) -> tuple[GooglePciDevice, ...]:
    """Google's PCI devices (vendor 0x1ae0) in /sys/bus/pci/devices under ``root``: the chips
    of a Cloud TPU host (as JAX's hardware_utils finds them) and Google's other devices (gVNIC),
    each with its device id, class and bound driver ("" when it has none: a sandbox such as
    gVisor shows the chip without a driver link). Which ids are TPU chips is knowledge
    (rules/matrices/tpu.toml), not decided here."""
    from envdoctor.bounded import read_proc
    devices = root / "sys/bus/pci/devices"
    try:
        entries = sorted(devices.iterdir())[:1024]
    except OSError:
        return ()
    out = []
    for dev in entries:
        if (read_proc(dev / "vendor", 64) or "").strip().lower() != GOOGLE_VENDOR:
            continue
        try:
            bound = os.path.basename(os.readlink(dev / "driver"))
        except OSError:
            bound = ""
        out.append(GooglePciDevice(
            pci_address=dev.name, device=(read_proc(dev / "device", 64) or "").strip().lower(),
            pci_class=(read_proc(dev / "class", 64) or "").strip().lower(), driver=bound))
    return tuple(out[:64])


_RENDER = re.compile(r"renderD[0-9]{1,4}")


def _render_node(root: Path, dev: Path) -> DeviceNode | None:
    """The card's render node as its driver names it in sysfs (``drm/renderD128``), else as
    udev's /dev/dri/by-path/pci-ADDR-render link names it, judged for this user as the ROCm
    probe judges /dev/kfd (os.access here; the tree's passwd, group and mode bits under another
    root); None when neither names one."""
    try:
        names = sorted(os.listdir(dev / "drm"))[:64]
    except OSError:
        names = []
    name = next((n for n in names if _RENDER.fullmatch(n)), None)
    if name is None:
        try:
            name = os.path.basename(os.readlink(root / f"dev/dri/by-path/pci-{dev.name}-render"))
        except OSError:
            return None
        if not _RENDER.fullmatch(name):
            return None
    from envdoctor.probes.rocm import judge_node
    return judge_node(root, f"dev/dri/{name}")


def _sole_render_node(root: Path) -> DeviceNode | None:
    """The one render node in /dev/dri, where the machine has one display device: it is that
    device's whatever sysfs shows of the link. None when there are several or none."""
    try:
        names = [n for n in sorted(os.listdir(root / "dev/dri"))[:256] if _RENDER.fullmatch(n)]
    except OSError:
        return None
    if len(names) != 1:
        return None
    from envdoctor.probes.rocm import judge_node
    return judge_node(root, f"dev/dri/{names[0]}")


_SHM_SIZE = re.compile(r"(?:^|,)size=(\d+)([kmg%]?)(?:,|$)")


def _shm_from_mounts(mounts: str, fallback: float | None) -> float | None:
    """The size of /dev/shm from its tmpfs mount options (``size=65536k`` is Docker's 64 MiB
    default), which is what the container got; statvfs' answer where the mount says nothing."""
    for line in mounts.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[1] == "/dev/shm" and parts[2] == "tmpfs":
            m = _SHM_SIZE.search(parts[3])
            if m and m.group(2) != "%":
                scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}[m.group(2)]
                return round(int(m.group(1)) * scale / GIB, 4)
    return fallback


def _cgroup_memory(root: Path, trail: Trail) -> tuple[int | None, float | None]:
    """(cgroup version, memory limit in GiB) of this process's cgroup: v2 ``memory.max``
    (``max`` = no limit: None) or v1 ``memory.limit_in_bytes`` (a huge number = no limit)."""
    cg = root / "sys/fs/cgroup"
    if (cg / "cgroup.controllers").exists():
        own = _own_cgroup(trail.read(root / "proc/self/cgroup", limit=1 << 14) or "")
        for folder in ([cg / own.lstrip("/")] if own and own != "/" else []) + [cg]:
            text = trail.read(folder / "memory.max", limit=64)
            if text is not None:
                return 2, _limit_gb(text)
        return 2, None
    text = trail.read(cg / "memory/memory.limit_in_bytes", limit=64)
    if text is not None:
        return 1, _limit_gb(text)
    return None, None


def _own_cgroup(text: str) -> str:
    for line in text.splitlines():
        if line.startswith("0::"):
            return line[3:].strip()
    return ""


def _limit_gb(text: str) -> float | None:
    value = text.strip()
    if not value.isdigit():
        return None  # "max"
    limit = int(value)
    return None if limit >= 1 << 60 else round(limit / GIB, 3)
