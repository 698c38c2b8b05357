"""A package index on 127.0.0.1 for the batch-9 held-out `--online` cases (profiles9.toml's
``expect_online``): releases newer than anything published on 2026-12-06, modelled on what
PyPI and download.pytorch.org list today and on how they have changed before.

The server is heldout5_index's (PEP 691 JSON or PEP 503 HTML simple pages, PEP 658 core
metadata, the PyTorch wheel root ``/whl/`` and ``/whl/<variant>/<project>/``); only the pages
differ. The real part, as its sources state it (profiles9.toml's header): torch 2.14.0 / 2.14.1
(cp310-cp314) on cpu / cu126 / cu130 / cu132 / rocm7.2 / rocm7.14, no cu134; 2.15.0
(cp311-cp315) on cpu / cu130 / cu132 / rocm7.2 / rocm7.14, no cu126; 2.11.0 on cu128, 2.7.1 on
cu118 and rocm6.3; PyPI's Linux 2.14.1 = CUDA 13.0, 2.15.0 = CUDA 13.2, macOS
``macosx_14_0_arm64`` from 2.12 (2.11.0 / 2.8.0 ``macosx_11_0_arm64``, 2.2.2 for Intel Macs);
jax / jaxlib / plugins 0.12.0.1 (manylinux_2_27; tpu extra -> libtpu 0.0.50.*), 0.10.2, 0.7.0
(the last manylinux2014 x86_64), 0.6.2, 0.4.30, 0.4.38 (Intel Macs); the orphan
jax-cuda13-plugin / pjrt 0.12.1; libtpu 0.0.50-0.0.52; tensorflow 2.21.0 (cp310-cp313,
manylinux_2_27), 2.20.0 (cp39-cp313, manylinux_2_17), 2.16.2 (Intel Macs).

What is new here, hypothetical beyond 2026-12-06 (another shape than heldout5-8_index), each
change of a kind the indexes have really made:

* torch 2.15.1, a patch that ADDS a CUDA variant: 2.15.0's variants plus cu134 (Linux x86_64
  and aarch64; as 2.6.0 added cu126 builds beside its first ones), still no cu126;
* torch 2.16.0 requires Python >= 3.12 (cp312-cp315, drops cp311): cpu / cu132 / cu134 on
  Linux, cpu / cu132 on Windows (cu130 dropped); its ROCm build only under a RENAMED variant,
  ``rocm7.14.1`` (as 2.6.0's ``rocm6.2.4`` after 2.5's ``rocm6.2``), no rocm7.2 / rocm7.14;
  PyPI's Linux 2.16.0 is the CUDA 13.4 build, its macOS wheel ``macosx_14_0_arm64``; a
  2.17.0rc1; torchvision 0.30.0 pins torch==2.16.0 (cp312-cp315), 0.29.2 serves 2.15.x;
* jax / jaxlib / plugins 0.13.0 published and YANKED (every file), 0.13.1 (>= 3.12,
  cp312-cp315) whose Linux wheels are ``manylinux_2_28`` ONLY (jaxlib, cuda12 and cuda13
  plugins and pjrt; a glibc 2.27 box stays on 0.12.0.1), tpu extra -> ``libtpu==0.0.54.*``
  (libtpu 0.0.53 / 0.0.54, manylinux_2_31_x86_64); no jax 0.12.1, the cuda13 plugin 0.12.1
  stays an orphan;
* tensorflow 2.22.0 DROPS Python 3.10: cp311-cp314 (manylinux_2_27, win_amd64,
  macosx_12_0_arm64), and-cuda the CUDA 12 wheels; a 2.23.0rc0.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .heldout5_index import ARM, MAC, WIN, X86, Index, _files, _pys
from .heldout_common import serve, wheel_cells

MAC11, MACX86 = "macosx_11_0_arm64", "macosx_10_9_x86_64"
VARIANTS = ("cpu", "cu118", "cu126", "cu128", "cu130", "cu132", "cu134", "rocm6.3", "rocm7.2",
            "rocm7.14", "rocm7.14.1")
NEWEST = {"torch": "2.16.0", "jax": "0.13.1", "tensorflow": "2.22.0"}
_LINUX_WIN = [X86, ARM, WIN]
# torch release -> variant -> platforms (download.pytorch.org)
BUILDS: dict[str, dict[str, list[str]]] = {
    "2.14.0": {"cpu": _LINUX_WIN, "cu126": _LINUX_WIN, "cu130": _LINUX_WIN,
               "cu132": _LINUX_WIN, "rocm7.2": [X86], "rocm7.14": [X86]},
    "2.15.0": {"cpu": _LINUX_WIN, "cu130": _LINUX_WIN, "cu132": _LINUX_WIN,
               "rocm7.2": [X86], "rocm7.14": [X86]},
    "2.15.1": {"cpu": _LINUX_WIN, "cu130": _LINUX_WIN, "cu132": _LINUX_WIN,
               "cu134": [X86, ARM], "rocm7.2": [X86], "rocm7.14": [X86]},
    "2.16.0": {"cpu": _LINUX_WIN, "cu132": _LINUX_WIN, "cu134": [X86, ARM],
               "rocm7.14.1": [X86]},
}
BUILDS["2.14.1"] = BUILDS["2.14.0"]
PYTHONS = {"2.14.0": (10, 14), "2.14.1": (10, 14), "2.15.0": (11, 15), "2.15.1": (11, 15),
           "2.16.0": (12, 15)}
# PyPI's Linux torch wheel is this CUDA build
PYPI_LINUX = {"2.14.1": "cu130", "2.15.0": "cu132", "2.15.1": "cu132", "2.16.0": "cu134"}


def _rp(version: str) -> str:
    return f">=3.{PYTHONS[version][0]}"


def _torch_variant(variant: str) -> list[dict]:
    """The torch files of one folder of the wheel root."""
    local = f"+{variant}"
    if variant == "cu118":
        return _files("torch", "2.7.1+cu118", _pys(9, 13), [X86, WIN], rp=">=3.9.0")
    if variant == "rocm6.3":
        return _files("torch", "2.7.1+rocm6.3", _pys(9, 13), [X86], rp=">=3.9.0")
    if variant == "cu128":
        return _files("torch", "2.11.0+cu128", _pys(10, 14), _LINUX_WIN, rp=">=3.10")
    out: list[dict] = []
    for version, builds in BUILDS.items():
        if variant in builds:
            out += _files("torch", version + local, _pys(*PYTHONS[version]), builds[variant],
                          rp=_rp(version))
    if variant in ("cpu", "cu134"):
        out += _files("torch", "2.17.0rc1" + local, _pys(12, 15), [X86, ARM], rp=">=3.12")
    return out


def _py3(name: str, version: str, plats: list[str], rp: str | None, requires: list[str],
         yanked: bool = False) -> list[dict]:
    return [{"filename": f"{name}-{version}-py3-none-{p}.whl", "requires_python": rp,
             "yanked": yanked, "requires": requires} for p in plats]


def _vision(variant: str) -> list[dict]:
    """torchvision of one folder (``variant``), or PyPI's (``""``)."""
    local = f"+{variant}" if variant else ""

    def plats(*versions: str) -> list[str]:
        if not variant:
            return [X86, ARM, WIN, MAC]
        return sorted({p for v in versions for p in BUILDS[v].get(variant, [])})
    out: list[dict] = []
    if variant == "rocm6.3":
        return _files("torchvision", "0.22.1+rocm6.3", _pys(9, 13), [X86], rp=">=3.9",
                      requires=["numpy", "torch==2.7.1+rocm6.3"])
    for vision, torch in (("0.29.0", "2.14.0"), ("0.29.1", "2.14.1")):
        if plats(torch):
            out += _files("torchvision", vision + local, _pys(10, 14), plats(torch),
                          rp=">=3.10", requires=["numpy", f"torch=={torch}{local}"])
    if plats("2.14.0", "2.15.0", "2.15.1"):
        out += _py3("torchvision", "0.29.2" + local, plats("2.14.0", "2.15.0", "2.15.1"),
                    ">=3.10,!=3.14.1", ["numpy", "torch>=2.14.0"])
    if plats("2.16.0"):
        out += _files("torchvision", "0.30.0" + local, _pys(12, 15), plats("2.16.0"),
                      rp=">=3.12", requires=["numpy", f"torch==2.16.0{local}"])
    return out


# jax release -> (lowest, highest Python minor), Linux tag, the libtpu its tpu extra pins
_JAX = {"0.13.1": (12, 15, "manylinux_2_28"), "0.13.0": (12, 15, "manylinux_2_27"),
        "0.12.0.1": (12, 15, "manylinux_2_27"), "0.10.2": (11, 14, "manylinux_2_27"),
        "0.7.0": (11, 13, "manylinux2014"), "0.6.2": (10, 13, "manylinux2014"),
        "0.4.30": (9, 12, "manylinux2014")}
_TPU_PIN = {"0.13.1": "0.0.54.*", "0.13.0": "0.0.53.*", "0.12.0.1": "0.0.50.*"}
_YANKED = {"0.13.0"}
_CUDA13 = {"0.13.1", "0.13.0", "0.12.0.1", "0.10.2"}     # jax-cuda13-plugin starts at 0.7.2


def _jax() -> dict[str, list[dict]]:
    pages: dict[str, list[dict]] = {"jax": [], "jaxlib": [], "jax-cuda12-plugin": [],
                                    "jax-cuda12-pjrt": [], "jax-cuda13-plugin": [],
                                    "jax-cuda13-pjrt": [], "libtpu": []}
    for version, (low, high, tag) in _JAX.items():
        rp, yanked = f">=3.{low}", version in _YANKED
        linux = [f"{tag}_x86_64", f"{tag}_aarch64"]
        requires = [f"jaxlib<={version},>={version}"]
        if version in _TPU_PIN:
            requires += [f'jaxlib<={version},>={version}; extra == "tpu"',
                         f'libtpu=={_TPU_PIN[version]}; extra == "tpu"',
                         'requests; extra == "tpu"']
        pages["jax"] += _py3("jax", version, ["any"], rp, requires, yanked)
        mac = [MAC11] + (["macosx_10_14_x86_64"] if version == "0.4.30" else [])
        pages["jaxlib"] += _files("jaxlib", version, _pys(low, high), [*linux, *mac, WIN],
                                  rp=rp, yanked=yanked)
        pages["jax-cuda12-plugin"] += _files("jax_cuda12_plugin", version, _pys(low, high),
                                             linux, rp=rp, yanked=yanked)
        pages["jax-cuda12-pjrt"] += _py3("jax_cuda12_pjrt", version, linux, None, [], yanked)
        if version in _CUDA13:
            pages["jax-cuda13-plugin"] += _files("jax_cuda13_plugin", version,
                                                 _pys(low, high), linux, rp=rp, yanked=yanked)
            pages["jax-cuda13-pjrt"] += _py3("jax_cuda13_pjrt", version, linux, None, [],
                                             yanked)
    orphan = ["manylinux_2_27_x86_64", "manylinux_2_27_aarch64"]
    pages["jax-cuda13-plugin"] += _files("jax_cuda13_plugin", "0.12.1", _pys(12, 15), orphan,
                                         rp=">=3.12")
    pages["jax-cuda13-pjrt"] += _py3("jax_cuda13_pjrt", "0.12.1", orphan, None, [])
    pages["jaxlib"] += _files("jaxlib", "0.4.38", _pys(10, 13), ["macosx_10_14_x86_64"],
                              rp=">=3.10")
    pages["jax"] += _py3("jax", "0.4.38", ["any"], ">=3.10", ["jaxlib<=0.4.38"])
    for version in ("0.0.50", "0.0.50.1", "0.0.51", "0.0.52", "0.0.53", "0.0.54"):
        pages["libtpu"] += _files("libtpu", version, _pys(11, 15), ["manylinux_2_31_x86_64"],
                                  rp=">=3.11")
    return pages


def projects() -> dict[str, list[dict]]:
    """path -> files, for every page the fixture serves."""
    pages: dict[str, list[dict]] = {}
    for variant in VARIANTS:
        pages[f"whl/{variant}/torch"] = _torch_variant(variant)
        pages[f"whl/{variant}/torchvision"] = _vision(variant) if variant not in (
            "cu118", "cu128") else []
    linux = [X86, ARM]
    pages["simple/torch"] = (
        _files("torch", "2.2.2", _pys(8, 12), [MACX86], rp=">=3.8.0")
        + _files("torch", "2.8.0", _pys(9, 13), [MAC11], rp=">=3.9.0")
        + _files("torch", "2.11.0", _pys(10, 14), [MAC11], rp=">=3.10")
        + _files("torch", "2.14.1", _pys(10, 14), [*linux, WIN, MAC], rp=">=3.10")
        + _files("torch", "2.15.0", _pys(11, 15), [*linux, WIN, MAC], rp=">=3.11")
        + _files("torch", "2.15.1", _pys(11, 15), [*linux, WIN, MAC], rp=">=3.11")
        + _files("torch", "2.16.0", _pys(12, 15), [*linux, WIN, MAC], rp=">=3.12"))
    pages["simple/torchvision"] = (
        _vision("")
        + _files("torchvision", "0.26.0", _pys(10, 14), [MAC11], rp=">=3.10",
                 requires=["numpy", "torch==2.11.0"])
        + _files("torchvision", "0.23.0", _pys(9, 13), [MAC11], rp=">=3.9",
                 requires=["numpy", "torch==2.8.0"])
        + _files("torchvision", "0.17.2", _pys(8, 12), ["macosx_10_13_x86_64"], rp=">=3.8",
                 requires=["numpy", "torch==2.2.2"]))
    for name, files in _jax().items():
        pages[f"simple/{name}"] = files
    tf_plats = ["manylinux_2_27_x86_64", "manylinux_2_27_aarch64", WIN, "macosx_12_0_arm64"]
    old_tf = ["manylinux_2_17_x86_64.manylinux2014_x86_64",
              "manylinux_2_17_aarch64.manylinux2014_aarch64", WIN, "macosx_12_0_arm64"]
    and_cuda = ['nvidia-cublas-cu12<13.0,>=12.5.3.2; extra == "and-cuda"',
                'nvidia-cuda-runtime-cu12<13.0,>=12.5.82; extra == "and-cuda"',
                'nvidia-cudnn-cu12<10.0,>=9.3.0.75; extra == "and-cuda"']
    pages["simple/tensorflow"] = (
        _files("tensorflow", "2.16.2", _pys(9, 12), ["macosx_10_15_x86_64"], rp=">=3.9")
        + _files("tensorflow", "2.20.0", _pys(9, 13), old_tf, rp=">=3.9", requires=and_cuda)
        + _files("tensorflow", "2.21.0", _pys(10, 13), tf_plats, rp=">=3.10",
                 requires=and_cuda)
        + _files("tensorflow", "2.22.0", _pys(11, 14), tf_plats, rp=">=3.11",
                 requires=and_cuda)
        + _files("tensorflow", "2.23.0rc0", _pys(11, 14), tf_plats, rp=">=3.11",
                 requires=and_cuda))
    pages["simple/tensorflow-cpu"] = (
        _files("tensorflow_cpu", "2.20.0", _pys(9, 13),
               ["manylinux_2_17_x86_64.manylinux2014_x86_64", WIN], rp=">=3.9")
        + _files("tensorflow_cpu", "2.21.0", _pys(10, 13), ["manylinux_2_27_x86_64", WIN],
                 rp=">=3.10")
        + _files("tensorflow_cpu", "2.22.0", _pys(11, 14), ["manylinux_2_27_x86_64", WIN],
                 rp=">=3.11"))
    return pages


@contextmanager
def serving(flavour: str = "json") -> Iterator[Index]:
    """heldout5_index's server with this module's pages."""
    yield from serve(Index, projects, flavour)


def torch_cells() -> set[tuple[str, str, str, str]]:
    """(version, variant, platform, cpXY) of every non-yanked final torch wheel the fixture
    lists: what the judge counts as installable when it judges `--online` answers (macOS
    labels are exact, so the macOS release a wheel needs is not in the key)."""
    plat_of = {X86: "linux_x86_64", ARM: "linux_aarch64", WIN: "win_amd64", MAC: "macos_arm64",
               MAC11: "macos_arm64", MACX86: "macos_x86_64"}

    def pypi(version: Any, platform: str) -> str:   # PyPI's wheel is this build
        return PYPI_LINUX.get(version.base_version, "cpu") \
            if platform.startswith("linux") else "cpu"
    return wheel_cells(projects(), plat_of, pypi)
