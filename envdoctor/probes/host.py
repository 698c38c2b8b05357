"""Host probe: OS, Python, CPU, RAM, /dev/shm, disk, container, WSL and the C compiler.

Reads files and asks psutil; runs no program, so it cannot hang. The gcc version (what
torch.utils.cpp_extension, flash-attn or apex builds compile with) is read from the name of
the gcc on PATH (``gcc -> gcc-12``) or from the one versioned folder under /usr/lib/gcc.
"""

from __future__ import annotations

import glob
import os
import platform
import re
import shutil
import sys
from dataclasses import replace
from pathlib import Path

from packaging.version import InvalidVersion, Version

from envdoctor.bounded import env
from envdoctor.facts import HostFacts, Status
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
        wsl=_wsl(proc_version),
        ram_total_gb=memory["ram_total_gb"],
        ram_available_gb=memory["ram_available_gb"],
        shm_total_gb=memory["shm_total_gb"],
        disk_free_gb=memory["disk_free_gb"],
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
    folders = {os.path.basename(d) for d in glob.glob(str(root / "usr/lib/gcc/*/*"))
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


def _wsl(proc_version: str) -> int | None:
    low = proc_version.lower()
    if "microsoft" not in low:
        return None
    return 2 if "wsl2" in low or "microsoft-standard" in low else 1
