"""Installed distributions: CUDA wheel families, NumPy 1 builds, Keras and MXNet rows, and
frameworks whose build cannot use an NVIDIA GPU (misc.toml, tensorflow.toml)."""

from __future__ import annotations

import re
from typing import Any

from packaging.version import Version

from envdoctor.engine.knowledge._reads import Read, optional, reads, result, some
from envdoctor.engine.knowledge.torch import MACHINE_READS, planned_torch_line
from envdoctor.facts import Distribution, LiveFramework, PackageFacts, TensorflowBuild, TorchBuild
from envdoctor.matrices import confirmed, matrix, with_confirmed
from envdoctor.matrices.cuda import unsuffixed_wheels
from envdoctor.matrices.jax import plugins_for_driver
from envdoctor.matrices.tensorflow import cpu_only_distributions, has_and_cuda
from envdoctor.versions import in_range, ver


def nvidia_wheel_major(name: str, version: Version | None) -> int | None:
    """CUDA major of a pip ``nvidia-*`` wheel: its ``-cuNN`` suffix, or for CUDA 13's
    unsuffixed component wheels (``nvidia-cublas 13.0.0.19``) its version's major."""
    m = re.match(r"^nvidia-.+-cu(\d+)$", name)
    if m:
        return int(m.group(1))
    unsuffixed, first = unsuffixed_wheels()   # cuda_driver.toml [pip_wheels]
    if name in unsuffixed and version is not None and first is not None \
            and version.major >= first:
        return version.major
    return None


def first_numpy2(package: str) -> tuple[Version, bool] | None:
    """The first release of ``package`` built against NumPy 2, and whether it is confirmed."""
    row = next((r for r in matrix("misc").get("numpy", []) if r.get("package") == package), None)
    v = ver(row.get("first_numpy2")) if row else None
    return (v, confirmed(row)) if v is not None else None


@reads(dists=some("packages.distributions"))
def nvidia_wheel_majors(*, dists: tuple[Distribution, ...]) -> list[int]:
    """Sorted CUDA majors of the pip ``nvidia-*`` CUDA wheels installed (``[12, 13]``)."""
    return sorted({m for d in dists if (m := nvidia_wheel_major(d.name, d.version)) is not None})


@reads(dists=some("packages.distributions"))
def nvidia_wheels_of(major: int, *, dists: tuple[Distribution, ...]) -> list[str]:
    """``nvidia_wheels_of(12)`` -> names of the pip nvidia-* wheels built for that CUDA major."""
    return [f"{d.name}=={d.version}" for d in dists
            if nvidia_wheel_major(d.name, d.version) == major]


# The signature of NumPy's "A module that was compiled using NumPy 1.x cannot be run in NumPy 2"
NUMPY1_ABI_SAID = "ENUMPY001"


@reads(pk=some("packages"), live=optional("live"))
def numpy1_builds(*, pk: PackageFacts, live: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Installed packages built against NumPy 1 (misc.toml ``[[numpy]]``), each a dict with
    ``name``, ``version``, ``first_numpy2``, ``confirmed``; [] under NumPy 1. A framework
    whose own import printed NumPy's ABI warning (a live worker, or the warning pasted with
    torch's import traceback) counts whatever its version: observed, so confirmed."""
    numpy = pk.get("numpy")
    if numpy is None or numpy.version is None or numpy.version.major < 2:
        return []
    out = []
    for name, lf in sorted((live or {}).items()):
        if name in ("torch", "tensorflow", "jax") and isinstance(lf, LiveFramework) and \
                any(d.code == NUMPY1_ABI_SAID for d in lf.warnings):
            out.append({"name": name, "version": str(lf.version or "(its import printed "
                                                     "NumPy's 1.x ABI warning)"),
                        "first_numpy2": "", "confirmed": True})
    said = {b["name"] for b in out}
    for name in ("torch", "tensorflow", "tensorflow-cpu", "jaxlib"):
        dist = pk.get(name)
        first = first_numpy2("tensorflow" if name.startswith("tensorflow") else name)
        if dist is not None and dist.version is not None and first and name not in said \
                and Version(dist.version.base_version) < first[0]:
            out.append({"name": name, "version": str(dist.version),
                        "first_numpy2": str(first[0]), "confirmed": first[1]})
    return out


@reads()
def keras_row(tf_version: Any) -> dict[str, Any] | None:
    """``keras_row(tf_version)``: the Keras <-> TensorFlow row whose range holds that TF."""
    v = ver(tf_version)
    if v is None:
        return None
    return with_confirmed(next((r for r in matrix("misc").get("keras", [])
                                if in_range(v, r.get("tensorflow", ""))), None))


# Each framework is read on its own (optional): one whose build was not observed (a pasted
# "torch 2.5.1") is left out, the others are still judged.
FRAMEWORK_READS = dict(t=optional("frameworks.torch"), tf=optional("frameworks.tensorflow"),
                       jax_gpu=result("jax_gpu_build", None),
                       jax_version=optional("frameworks.jax.version"),
                       amd=result("amd_machine", False))

# AMD's TensorFlow wheels (tensorflow-rocm), whose release depends on the ROCm release: the
# page says which.
ROCM_TF_PAGE = ("https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/"
                "3rd-party/tensorflow-install.html")


@reads(os=optional("host.os", ""), **FRAMEWORK_READS)
def cpu_only_frameworks(*, os: str, t: TorchBuild | None, tf: TensorflowBuild | None,
                        jax_gpu: bool | None, jax_version: Version | None,
                        amd: bool = False) -> list[str]:
    """The installed frameworks that cannot use this machine's kind of GPU whatever it has:
    an NVIDIA GPU, or on an AMD machine (``amd_machine()``) an AMD one, where a ROCm build is
    the right one and a CUDA build is ROCM004's.

    ``["torch 2.13.0+cpu (CPU-only build)", "tensorflow-cpu 2.21.0 (CPU-only build)",
    "jax 0.10.2 (no CUDA plugin)"]``; [] when none. macOS is left out: its wheels use Metal,
    and no NVIDIA GPU runs there anyway (an unknown OS is not taken for macOS).
    """
    return [text for _, text in _cpu_only(os, t, tf, jax_gpu, jax_version, amd)]


@reads(os=optional("host.os", ""), **FRAMEWORK_READS)
def cpu_only_areas(*, os: str, t: TorchBuild | None, tf: TensorflowBuild | None,
                   jax_gpu: bool | None, jax_version: Version | None,
                   amd: bool = False) -> list[str]:
    """The summary areas (torch, tensorflow, jax) of ``cpu_only_frameworks()``: a finding
    about those builds marks their lines (INTENT002's ``about``)."""
    return [area for area, _ in _cpu_only(os, t, tf, jax_gpu, jax_version, amd)]


def _cpu_only(os: str, t: TorchBuild | None, tf: TensorflowBuild | None,
              jax_gpu: bool | None, jax_version: Version | None,
              amd: bool) -> list[tuple[str, str]]:
    if os == "Darwin":
        return []
    from envdoctor.engine.knowledge.intel import is_xpu_build
    rocm_build = (t is not None and t.hip is not None) or \
        (tf is not None and tf.distribution == "tensorflow-rocm")
    if amd and rocm_build:
        return []  # a framework here uses the AMD GPU: a CPU-only one beside it is a choice
    out = []
    if t is not None and t.version is not None and t.cuda is None and \
            not (amd and (t.hip or is_xpu_build(t))):
        kind = "a ROCm build" if t.hip else "an XPU build, for Intel GPUs" \
            if is_xpu_build(t) else "CPU-only build"
        out.append(("torch", f"torch {t.version} ({kind})"))
    if tf is not None and tf.version is not None and (
            tf.is_cuda_build is False or tf.distribution in cpu_only_distributions()) and \
            not (amd and tf.distribution == "tensorflow-rocm"):
        out.append(("tensorflow",
                    f"{tf.distribution or 'tensorflow'} {tf.version} (CPU-only build)"))
    # jax_gpu reads CUDA plugins only: on an AMD machine a JAX without one says nothing
    if jax_version is not None and jax_gpu is False and not amd:
        out.append(("jax", f"jax {jax_version} (no CUDA plugin)"))
    return out


@reads(**FRAMEWORK_READS, **MACHINE_READS)
def gpu_install_lines(*, t: TorchBuild | None, tf: TensorflowBuild | None,
                      jax_gpu: bool | None, jax_version: Version | None, amd: bool = False,
                      **facts: Any) -> str | None:
    """One install line per framework here that cannot use an NVIDIA GPU (INTENT002's fix),
    each for this machine's driver when it is known (torch: the planner of `envdoctor
    suggest`, keep-installed mode); a pointer to the selector otherwise. On an AMD machine
    the ROCm builds instead (torch: the same planner, which picks a ROCm wheel there)."""
    if amd:
        return _rocm_install_lines(t, tf, **facts)
    driver = facts.get("driver")
    lines = []
    if t is not None and t.cuda is None:
        cmd = planned_torch_line(**facts) if driver else None
        lines.append(f"PyTorch: {cmd}" if cmd else
                     "PyTorch: the CUDA wheel for your driver, from "
                     "https://pytorch.org/get-started/locally/")
    if tf is not None and tf.version is not None and (
            tf.is_cuda_build is False or tf.distribution in cpu_only_distributions()):
        release = f"{tf.version.major}.{tf.version.minor}"
        lines.append(f"TensorFlow (Linux): pip uninstall -y {tf.distribution} && "
                     f'pip install "tensorflow[and-cuda]=={release}.*"'
                     if has_and_cuda(tf.version) else
                     "TensorFlow: a GPU build, see https://www.tensorflow.org/install/pip")
    if jax_gpu is False:
        fits = plugins_for_driver(driver) if ver(driver) is not None else []
        lines.append(f'JAX: pip install -U "{fits[0]["extra"]}"' if fits else
                     "JAX: pip install -U " + " or ".join(
                         f'"{r["extra"]}" (driver >= {r["min_driver_linux"]})'
                         for r in sorted(plugins_for_driver(None),
                                         key=lambda r: r.get("cuda_major", 0))))
    return "\n".join(lines) or None


def _rocm_install_lines(t: TorchBuild | None, tf: TensorflowBuild | None,
                       **facts: Any) -> str | None:
    """INTENT002's fix on an AMD machine: the ROCm wheel `envdoctor suggest` plans for torch,
    AMD's TensorFlow page for a CPU TensorFlow."""
    lines = []
    if t is not None and t.version is not None and t.cuda is None and not t.hip:
        from envdoctor.engine.knowledge.install import kept_install_line
        cmd = kept_install_line("torch", **facts)
        lines.append(f"PyTorch: {cmd}" if cmd else
                     "PyTorch: the ROCm wheel for your ROCm release, from "
                     "https://pytorch.org/get-started/locally/")
    if tf is not None and tf.version is not None and tf.distribution != "tensorflow-rocm" and (
            tf.is_cuda_build is False or tf.distribution in cpu_only_distributions()):
        lines.append(f"TensorFlow: AMD's ROCm build (tensorflow-rocm), see {ROCM_TF_PAGE}")
    return "\n".join(lines) or None


@reads(pk="packages", gpus=optional("nvidia.gpus", ()), os=optional("host.os", ""),
       arch=optional("host.arch", ""))
def conflict_fix(*, pk: PackageFacts, gpus: tuple[Any, ...], os: str, arch: str) -> str | None:
    """PKG001's fix: remove every distribution that writes the clashing module, then install
    one of them again at the version that was there: TensorFlow as the build this machine
    can use (``tensorflow[and-cuda]==2.18.*`` on a Linux x86_64 GPU host from 2.14, else
    ``tensorflow==2.18.*``), anything else as the newest of them at its version (the -gpu
    one on a GPU host)."""
    if not pk.conflicts:
        return None
    clash = pk.conflicts[0]
    names = list(clash.distributions)
    conda = [n for n in names if n == "pytorch"]
    pip = [n for n in names if n not in conda]
    steps = ([f"conda remove -y {' '.join(conda)}"] if conda else []) + \
        ([f"pip uninstall -y {' '.join(pip)}"] if pip else [])
    dists = [pk.get(n) for n in names]
    versions = [d.version for d in dists if d is not None and d.version is not None]
    keep = max(versions) if versions else None
    if clash.module == "tensorflow" and keep is not None:
        release = f"{keep.major}.{keep.minor}"
        gpu = bool(gpus) and os == "Linux" and str(arch).lower() not in ("aarch64", "arm64") \
            and has_and_cuda(keep)
        steps.append(f'pip install "tensorflow[and-cuda]=={release}.*"' if gpu
                     else f'pip install "tensorflow=={release}.*"')
    elif keep is not None:
        newest = [n for n, d in zip(names, dists, strict=True)
                  if d is not None and d.version == keep]
        # paddlepaddle-gpu on a GPU host, paddlepaddle on a CPU one
        newest.sort(key=lambda n: ("gpu" in n) != bool(gpus))
        name = "torch" if clash.module == "torch" else newest[0]
        steps.append(f'pip install "{name}=={keep.public}"')
    return " && ".join(steps)


# conda packages that only a framework's CUDA build uses: an environment that installs one
# asked for that build (pytorch's conda CUDA builds depend on pytorch-cuda, before 2.0 on
# cudatoolkit; conda-forge's CUDA jaxlib on cuda-nvcc and cuda-cudart)
CUDA_ASKED = {"torch": ("pytorch-cuda", "cudatoolkit"),
              "jax": ("cuda-nvcc", "cuda-cudart", "cudatoolkit")}


@reads(gpus=optional("nvidia.gpus"), dists=some("packages.distributions"))
def cuda_asked_beside(framework: str, *, gpus: Any,
                      dists: tuple[Distribution, ...]) -> str | None:
    """``cuda_asked_beside('torch')``: the CUDA package the same environment installs for a
    framework whose build is CPU-only ("cudatoolkit 10.1"), where no GPU list was observed
    (a pasted conda plan or listing). A CPU build resolved beside it is the solver's fallback,
    not a choice. None when the GPU list was observed (the GPU decides then: none is no
    problem) or no such package is there."""
    if gpus is not None:
        return None
    by_name = {d.name: d for d in dists}
    for name in CUDA_ASKED.get(framework, ()):
        dist = by_name.get(name)
        if dist is not None:
            return f"{name} {dist.version}" if dist.version is not None else name
    return None


@reads(gpus=optional("nvidia.gpus"),
       # a paste that shows no package list (a banner, prose naming the GPU) still has an
       # answer: the GPUs it lists; no list reads as none installed
       dists=Read("packages.distributions", (), partial_ok=True))
def cpu_build_against(framework: str, *, gpus: Any, dists: tuple[Distribution, ...]) -> str:
    """What a CPU-only build contradicts, in words: the GPUs listed, else the CUDA package
    installed beside it (``cuda_asked_beside``), else the GPU a CUDA torch said it uses (the
    other evidence ``nvidia_gpus_seen`` accepts). Decides without a package list."""
    if gpus:
        return f"this machine has {len(gpus)} NVIDIA GPU(s)"
    asked = cuda_asked_beside(framework, gpus=gpus, dists=dists)
    if asked is not None:
        return f"the same environment installs {asked}, which only a CUDA build uses"
    return "this machine has an NVIDIA GPU (torch sees it)"
