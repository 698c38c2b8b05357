"""A package index on 127.0.0.1 for the batch-8 held-out `--online` cases (profiles8.toml's
``expect_online``): releases newer than anything published on 2026-12-06, modelled on what
PyPI and download.pytorch.org list today and on the build matrices the sources state.

The server is heldout5_index's (PEP 691 JSON or PEP 503 HTML simple pages, PEP 658 core
metadata, the PyTorch wheel root ``/whl/`` and ``/whl/<variant>/<project>/``); only the pages
differ. The real part, as stated by its sources (profiles8.toml's header):

* torch 2.14.0 / 2.14.1 (cp310-cp314) on cpu / cu126 / cu130 / cu132 / rocm7.2 / rocm7.14,
  NO cu134 (test-infra#8601 removed CUDA 13.4 from release/2.14); 2.15.0 (cp311-cp315) on cpu /
  cu130 / cu132 / rocm7.2 / rocm7.14, NO cu126 (RFC pytorch#190385, test-infra#8739: 2.15 drops
  CUDA 12.6 and with it Maxwell / Pascal / Volta); 2.11.0 on cu128, 2.7.1 on cu118; PyPI's
  Linux wheels are 2.14.1 = CUDA 13.0 and 2.15.0 = CUDA 13.2, its macOS wheels
  ``macosx_14_0_arm64`` from 2.12.0 (2.11.0 / 2.8.0 ``macosx_11_0_arm64``, 2.2.2 for Intel
  Macs);
* jax / jaxlib / jax-cuda12-plugin 0.12.0.1 (>= 3.12) whose ``tpu`` extra pins
  ``libtpu==0.0.50.*`` (jax 0.12.0.1's Requires-Dist on PyPI), 0.10.2, 0.6.2, 0.4.30, jaxlib
  0.4.38 for Intel Macs; the orphan jax-cuda13-plugin / pjrt 0.12.1 of 2026-11-18; libtpu
  0.0.50 ... 0.0.52 (cp311-cp315, manylinux_2_31_x86_64 only);
* tensorflow 2.21.0 (cp310-cp313), 2.20.0 (cp39-cp313), 2.16.2 (Intel Macs), and 2.22.0rc0
  (cp310-cp314, manylinux_2_27 x86_64 / aarch64, win_amd64, macosx_12_0_arm64).

What is new here, hypothetical beyond 2026-12-06 (another shape than heldout5/6/7_index):

* torch 2.15.1, a patch on every variant 2.15.0 has (cp311-cp315, not yanked): the newest for
  ROCm 7.2 boxes; torch 2.16.0 requires Python >= 3.11 (cp311-cp315) and is built for cpu /
  cu130 / cu132 / cu134 on Linux x86_64 and aarch64, cpu / cu130 / cu132 on Windows (13.4 is
  not on Windows, as CUDA_ARCHES_NO_WINDOWS had it) and rocm7.14 only (rocm7.2 dropped); still
  no cu126, so a 12.x driver or a pre-Turing GPU stays on 2.14.1 cu126. PyPI's Linux 2.16.0 is
  the CUDA 13.2 build; its macOS wheel ``macosx_14_0_arm64``; a 2.17.0rc1 (cpu / cu134);
* torchvision 0.30.0 pins torch==2.16.0 (same variants), 0.29.2 (py3, torch>=2.14.0) serves
  2.15.x, 0.29.1 / 0.29.0 pin 2.14.1 / 2.14.0, 0.26.0 pins 2.11.0;
* jax / jaxlib / jax-cuda12-plugin 0.12.1 complete the orphan cuda13 plugin 0.12.1; jax 0.13.0
  (>= 3.12, cp312-cp315, the platforms of 0.12.0.1) with cuda12 AND cuda13 plugins, its
  ``tpu`` extra pins ``libtpu==0.0.53.*`` (libtpu 0.0.53 cp311-cp315 x86_64);
* tensorflow 2.22.0: 2.22.0rc0's files (cp310-cp314: the first TF with cp314), its
  ``and-cuda`` extra the CUDA 12 wheels 2.21.0 pins; a 2.23.0rc0.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .heldout5_index import ARM, MAC, WIN, X86, Index, _files, _pys
from .heldout_common import serve, wheel_cells

MAC11, MACX86 = "macosx_11_0_arm64", "macosx_10_9_x86_64"
VARIANTS = ("cpu", "cu118", "cu126", "cu128", "cu130", "cu132", "cu134", "rocm7.2", "rocm7.14")
NEWEST = {"torch": "2.16.0", "jax": "0.13.0", "tensorflow": "2.22.0"}
# torch release -> variant -> platforms (download.pytorch.org)
_LINUX_WIN = [X86, ARM, WIN]
BUILDS: dict[str, dict[str, list[str]]] = {
    "2.14.0": {"cpu": _LINUX_WIN, "cu126": _LINUX_WIN, "cu130": _LINUX_WIN,
               "cu132": _LINUX_WIN, "rocm7.2": [X86], "rocm7.14": [X86]},
    "2.15.0": {"cpu": _LINUX_WIN, "cu130": _LINUX_WIN, "cu132": _LINUX_WIN,
               "rocm7.2": [X86], "rocm7.14": [X86]},
    "2.16.0": {"cpu": _LINUX_WIN, "cu130": _LINUX_WIN, "cu132": _LINUX_WIN,
               "cu134": [X86, ARM], "rocm7.14": [X86]},
}
BUILDS["2.14.1"] = BUILDS["2.14.0"]
BUILDS["2.15.1"] = BUILDS["2.15.0"]
PYTHONS = {"2.14.0": (10, 14), "2.14.1": (10, 14), "2.15.0": (11, 15), "2.15.1": (11, 15),
           "2.16.0": (11, 15)}
# PyPI's Linux torch wheel is this CUDA build
PYPI_LINUX = {"2.14.1": "cu130", "2.15.0": "cu132", "2.15.1": "cu132", "2.16.0": "cu132"}


def _rp(version: str) -> str:
    return f">=3.{PYTHONS[version][0]}"


def _torch_variant(variant: str) -> list[dict]:
    """The torch files of one folder of the wheel root."""
    local = f"+{variant}"
    if variant == "cu118":
        return _files("torch", "2.7.1+cu118", _pys(9, 13), [X86, WIN], rp=">=3.9.0")
    if variant == "cu128":
        return _files("torch", "2.11.0+cu128", _pys(10, 14), _LINUX_WIN, rp=">=3.10")
    out: list[dict] = []
    for version, builds in BUILDS.items():
        if variant in builds:
            out += _files("torch", version + local, _pys(*PYTHONS[version]), builds[variant],
                          rp=_rp(version))
    if variant in ("cpu", "cu134"):
        out += _files("torch", "2.17.0rc1" + local, _pys(11, 15), [X86, ARM], rp=">=3.11")
    return out


def _py3(name: str, version: str, plats: list[str], rp: str | None,
         requires: list[str]) -> list[dict]:
    return [{"filename": f"{name}-{version}-py3-none-{p}.whl", "requires_python": rp,
             "yanked": False, "requires": requires} for p in plats]


def _vision(variant: str) -> list[dict]:
    """torchvision of one folder (``variant``), or PyPI's (``""``)."""
    local = f"+{variant}" if variant else ""

    def plats(version: str) -> list[str]:
        if not variant:
            return [X86, ARM, WIN, MAC]
        return BUILDS[version].get(variant, [])
    out: list[dict] = []
    for vision, torch in (("0.29.0", "2.14.0"), ("0.29.1", "2.14.1")):
        if plats(torch):
            out += _files("torchvision", vision + local, _pys(10, 14), plats(torch),
                          rp=">=3.10", requires=["numpy", f"torch=={torch}{local}"])
    if plats("2.15.0") or plats("2.14.0"):
        out += _py3("torchvision", "0.29.2" + local, plats("2.15.0") or plats("2.14.0"),
                    ">=3.10,!=3.14.1", ["numpy", "torch>=2.14.0"])
    if plats("2.16.0"):
        out += _files("torchvision", "0.30.0" + local, _pys(11, 15), plats("2.16.0"),
                      rp=">=3.11", requires=["numpy", f"torch==2.16.0{local}"])
    return out


# jax release -> (lowest, highest Python minor), and the libtpu its ``tpu`` extra pins
_JAX = {"0.13.0": (12, 15), "0.12.1": (12, 15), "0.12.0.1": (12, 15), "0.10.2": (11, 14),
        "0.6.2": (10, 13), "0.4.30": (9, 12)}
_TPU_PIN = {"0.13.0": "0.0.53.*", "0.12.0.1": "0.0.50.*"}


def _jax() -> dict[str, list[dict]]:
    pages: dict[str, list[dict]] = {"jax": [], "jaxlib": [], "jax-cuda12-plugin": [],
                                    "jax-cuda12-pjrt": [], "jax-cuda13-plugin": [],
                                    "jax-cuda13-pjrt": [], "libtpu": []}
    linux = ["manylinux_2_27_x86_64", "manylinux_2_27_aarch64"]
    for version, (low, high) in _JAX.items():
        rp = f">=3.{low}"
        requires = [f"jaxlib<={version},>={version}"]
        if version in _TPU_PIN:
            requires += [f'jaxlib<={version},>={version}; extra == "tpu"',
                         f'libtpu=={_TPU_PIN[version]}; extra == "tpu"',
                         'requests; extra == "tpu"']
        pages["jax"] += _py3("jax", version, ["any"], rp, requires)
        mac = [MAC11] + (["macosx_10_14_x86_64"] if version == "0.4.30" else [])
        pages["jaxlib"] += _files("jaxlib", version, _pys(low, high), [*linux, *mac, WIN],
                                  rp=rp)
        pages["jax-cuda12-plugin"] += _files("jax_cuda12_plugin", version, _pys(low, high),
                                             linux, rp=rp)
        pages["jax-cuda12-pjrt"] += _py3("jax_cuda12_pjrt", version, linux, None, [])
        if version in ("0.13.0", "0.12.1", "0.12.0.1", "0.10.2"):   # cuda13 starts at 0.7.2
            pages["jax-cuda13-plugin"] += _files("jax_cuda13_plugin", version,
                                                 _pys(low, high), linux, rp=rp)
            pages["jax-cuda13-pjrt"] += _py3("jax_cuda13_pjrt", version, linux, None, [])
    pages["jaxlib"] += _files("jaxlib", "0.4.38", _pys(10, 13), ["macosx_10_14_x86_64"],
                              rp=">=3.10")
    pages["jax"] += _py3("jax", "0.4.38", ["any"], ">=3.10", ["jaxlib<=0.4.38"])
    for version in ("0.0.50", "0.0.50.1", "0.0.51", "0.0.52", "0.0.53"):
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
        + _files("torch", "2.16.0", _pys(11, 15), [*linux, WIN, MAC], rp=">=3.11"))
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
        + _files("tensorflow", "2.22.0", _pys(10, 14), tf_plats, rp=">=3.10",
                 requires=and_cuda)
        + _files("tensorflow", "2.23.0rc0", _pys(10, 14), tf_plats, rp=">=3.10",
                 requires=and_cuda))
    return pages


@contextmanager
def serving(flavour: str = "json") -> Iterator[Index]:
    """heldout5_index's server with this module's pages."""
    yield from serve(Index, projects, flavour)


def torch_cells() -> set[tuple[str, str, str, str]]:
    """(version, variant, platform, cpXY) of every non-yanked final torch wheel the fixture
    lists: what the judge counts as installable when it judges `--online` answers. The macOS
    release a wheel needs is not in the key: macOS labels are exact."""
    plat_of = {X86: "linux_x86_64", ARM: "linux_aarch64", WIN: "win_amd64", MAC: "macos_arm64",
               MAC11: "macos_arm64", MACX86: "macos_x86_64"}

    def pypi(version: Any, platform: str) -> str:   # PyPI's wheel is this build
        return PYPI_LINUX.get(version.base_version, "cpu") \
            if platform.startswith("linux") else "cpu"
    return wheel_cells(projects(), plat_of, pypi)
