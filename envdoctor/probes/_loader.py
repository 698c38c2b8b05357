"""Which CUDA libraries ld.so *will* load for the installed frameworks (part of ``libraries``).

For each framework library that loads CUDA, cuDNN, NCCL or HIP (torch/lib/libtorch_cuda.so,
tensorflow's libtensorflow_framework.so.2, jaxlib's xla_extension.so and CUDA plugins, the
nvidia-* wheels' own libraries), the ELF headers are read (``elfview.read_elf``) and every CUDA
soname it asks for that a wheel also ships is resolved in ld.so's order. A verdict is kept
when more than one copy is on the search path or the loader does not pick the wheel's copy; the
rules turn "the system cuDNN on LD_LIBRARY_PATH will be loaded" into a finding only then.
``libcuda.so.1`` is resolved the way libcudart dlopens it (no search paths of its own), which
is what decides between the WSL driver in /usr/lib/wsl/lib and a Linux driver installed inside
WSL.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from packaging.version import InvalidVersion, Version

from envdoctor.bounded import env, matching
from envdoctor.facts import ElfObject, LoadVerdict
from envdoctor.probes import _dists
from envdoctor.probes import _elf as elfview

MAX_OBJECTS = 64
MAX_VERDICTS = 64
FRAMEWORK_GLOBS = (
    "torch/lib/libtorch_cuda.so", "torch/lib/libtorch_python.so", "torch/lib/libc10_cuda.so",
    "torch/lib/libtorch_hip.so", "torch/lib/libc10_hip.so",
    "tensorflow/libtensorflow_framework.so.*", "tensorflow/libtensorflow_cc.so.*",
    "tensorflow/python/_pywrap_tensorflow_internal.so",
    "jaxlib/xla_extension*.so", "jax_plugins/xla_cuda*/xla_cuda_plugin.so",
    "jax_cuda*_plugin/*.so", "nvidia/*/lib/lib*.so*",
)
# libraries the frameworks load that a wheel or the system may both hold
CUDA_SONAME = re.compile(r"lib(cudnn\w*|nccl|cublas(Lt)?|cudart|cufft|curand|cusolver|cusparse"
                         r"|nvrtc|nvJitLink|amdhip64|MIOpen|rccl|rocblas)\.so(\.\d+)*$")
# these frameworks dlopen the CUDA libraries (no DT_NEEDED): resolved with the caller's paths
DLOPENERS = ("libtensorflow_framework.so", "xla_extension", "xla_cuda_plugin", "jax_cuda")


def site_dirs() -> list[str]:
    """The folders the installed distributions live in (site-packages, user site, conda)."""
    return sorted({str(d.location) for d in _dists.installed().values() if d.location})


def view(cache: dict[str, list[str]], root: Path = Path("/"),
         sites: list[str] | None = None) -> tuple[tuple[ElfObject, ...], tuple[LoadVerdict, ...]]:
    """The framework libraries' headers and the loader's verdicts for their CUDA libraries;
    ``cache`` is ``ldconfig -p`` parsed (soname -> paths in lookup order)."""
    paths: list[str] = []
    for site in sites if sites is not None else site_dirs():
        for pattern in FRAMEWORK_GLOBS:
            paths += matching(site, pattern)
    paths = list(dict.fromkeys(p for p in paths if not os.path.islink(p)))[:MAX_OBJECTS]
    objects, elves = [], []
    for path in paths:
        elf = elfview.read_elf(path)
        if isinstance(elf, str):
            objects.append(ElfObject(path=path, error=elf))
            continue
        elves.append(elf)
        objects.append(ElfObject(path, elf.soname, elf.needed, elf.rpath, elf.runpath))
    bundled = _bundled(paths)
    lp = env("LD_LIBRARY_PATH", "")
    verdicts: list[LoadVerdict] = []
    for elf in elves:
        asks = [n for n in elf.needed if CUDA_SONAME.match(n)]
        if any(tag in os.path.basename(elf.path) for tag in DLOPENERS):
            asks += [n for n in bundled if n.startswith(("libcudnn.so", "libcublas.so",
                                                         "libnccl.so", "libcudart.so"))]
        for name in dict.fromkeys(asks):
            own = bundled.get(name, "")
            got = elfview.resolve(name, elf, ld_library_path=lp, cache=tuple(cache.get(name, ())),
                                  root=root)
            others = tuple(p for p, _ in got.candidates if p != got.path)
            if own and (others or got.path != own):
                verdicts.append(LoadVerdict(name, elf.path, got.path, got.step, own, others,
                                            file_version(got.path), file_version(own)))
    got = elfview.resolve("libcuda.so.1", None, ld_library_path=lp,
                          cache=tuple(cache.get("libcuda.so.1", ())), root=root)
    if got.candidates:
        verdicts.append(LoadVerdict("libcuda.so.1", "", got.path, got.step, "",
                                    tuple(p for p, _ in got.candidates if p != got.path)))
    return tuple(objects), tuple(verdicts[:MAX_VERDICTS])


_SUFFIX = re.compile(r"\.so\.(\d+(?:\.\d+){1,3})$")
_WHEEL_LIB = re.compile(r"^(?P<site>.+)/nvidia/(?P<name>[a-z_]+)/lib/[^/]+$")


def file_version(path: str) -> Version | None:
    """The version a library file states: its real name's suffix (libcudnn.so.9 ->
    libcudnn.so.9.0.0: 9.0.0), else, for an nvidia-* wheel's copy (plain libcudnn.so.9), the
    wheel's own version (nvidia_cudnn_cu12-9.1.0.70.dist-info). None when neither says."""
    if not path:
        return None
    found = _SUFFIX.search(os.path.basename(os.path.realpath(path)))
    if found and found.group(1).count(".") >= 1:
        return Version(found.group(1))
    wheel = _WHEEL_LIB.match(path)
    if wheel is None:
        return None
    pattern = f"nvidia_{wheel['name']}_cu*-*.dist-info"
    infos = matching(wheel["site"], pattern)
    if not infos:
        return None
    tail = os.path.basename(infos[-1])[:-len(".dist-info")].rsplit("-", 1)[-1]
    try:
        return Version(tail)
    except InvalidVersion:
        return None


def _bundled(paths: list[str]) -> dict[str, str]:
    """soname -> the wheel's copy: files of the nvidia-* wheels and the frameworks' own lib
    folders (the copies the frameworks were built to load)."""
    out: dict[str, str] = {}
    for folder in dict.fromkeys(os.path.dirname(p) for p in paths):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if CUDA_SONAME.match(name):
                out.setdefault(name, os.path.join(folder, name))
    return out
