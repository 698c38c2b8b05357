"""A package index on 127.0.0.1 for the batch-7 held-out `--online` cases (profiles7.toml's
``expect_online``): releases newer than anything published on 2026-12-06, and news of a
different shape from heldout5_index's and heldout6_index's.

The server is heldout5_index's (PEP 691 JSON or PEP 503 HTML simple pages, PEP 658 core
metadata, the PyTorch wheel root ``/whl/`` and ``/whl/<variant>/<project>/``); only the pages
differ. What is new here, hypothetical beyond 2026-12-06:

* torch 2.16.0 requires Python >= 3.12 (cp312-cp315: 3.11 is dropped) and is built for cpu /
  cu126 / cu132 / cu134 and rocm7.14 on Linux x86_64, but only cpu / cu134 on Linux aarch64
  (an aarch64 12.x driver stays on 2.15.0 cu126), and NOT AT ALL for Windows: PyPI has only
  an sdist (``torch-2.16.0.tar.gz``) beside its Linux and macOS wheels, the wheel root no
  win_amd64 file, so a Windows box stays on 2.15.0. cu130 and rocm7.2 are dropped. PyPI's
  Linux 2.16.0 is the CUDA 13.4 build; its macOS wheel is ``macosx_15_0_arm64`` (macOS 14
  stays on 2.15.0, macOS 13 on 2.11.0, the last ``macosx_11_0_arm64``);
* torch 2.15.1 is YANKED everywhere (every variant, PyPI), so 2.15.0 stays the newest for
  Python 3.11, Windows, aarch64 on 12.x drivers and macOS 14; a 2.17.0rc1 (cpu / cu134);
* the real 2.14.0 / 2.14.1 (cp310-cp314) and 2.15.0 (cp311-cp315) on cpu / cu126 / cu130 /
  cu132 / cu134 (not cu134 on Windows) / rocm7.2 / rocm7.14, 2.11.0 on cu128 and 2.7.1 on
  cu118; PyPI's 2.14.1 (Linux = CUDA 13.0), 2.15.0 (Linux = CUDA 13.2), 2.11.0 / 2.8.0 for
  ``macosx_11_0_arm64``, 2.2.2 for Intel Macs;
* torchvision 0.30.0 pins torch==2.16.0 (cp312-cp315, no Windows), 0.29.2 (py3, torch>=2.14.0),
  0.29.1 / 0.29.0 pin 2.14.1 / 2.14.0, 0.26.0 pins 2.11.0;
* jax / jaxlib 0.13.0 require Python >= 3.13 (cp313-cp315: 3.12 is dropped) and ship a
  jax-cuda13-plugin only (no jax-cuda12-plugin 0.13.0): a CUDA 12 driver or an SM < 7.5 GPU
  stays on 0.12.0.1 jax[cuda12]; the real orphan jax-cuda13-plugin / pjrt 0.12.1 (PyPI,
  2026-11-18) with no jax or jaxlib 0.12.1; the real 0.12.0.1 (>= 3.12), 0.10.2 (>= 3.11),
  0.6.2 (>= 3.10), 0.4.30 (>= 3.9), 0.4.13 (>= 3.8, Linux / Mac) and jaxlib 0.4.38 for Intel
  Macs;
* tensorflow 2.22.0 drops Python 3.10 (cp311-cp314), besides the real 2.21.0 (cp310-cp313),
  2.20.0 (cp39-cp313), 2.16.2 for Intel Macs, 2.13.1 (cp38) and a 2.23.0rc0.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .heldout5_index import ARM, MAC, WIN, X86, Index, _files, _pys
from .heldout_common import serve, wheel_cells

MAC11, MAC15, MACX86 = "macosx_11_0_arm64", "macosx_15_0_arm64", "macosx_10_9_x86_64"
VARIANTS = ("cpu", "cu118", "cu126", "cu128", "cu130", "cu132", "cu134", "rocm7.2", "rocm7.14")
NEWEST = {"torch": "2.16.0", "jax": "0.13.0", "tensorflow": "2.22.0"}
# where torch 2.16.0 (and 2.17.0rc1) is built: variant -> platforms
NEW_PLATS = {"cpu": [X86, ARM], "cu126": [X86], "cu132": [X86], "cu134": [X86, ARM],
             "rocm7.14": [X86]}
# PyPI's Linux torch wheel is this CUDA build
PYPI_LINUX = {"2.14.1": "cu130", "2.15.0": "cu132", "2.16.0": "cu134"}


def _plats(variant: str) -> list[str]:
    if variant.startswith("rocm"):
        return [X86]
    if variant == "cu134":
        return [X86, ARM]          # CUDA_ARCHES_NO_WINDOWS
    return [X86, ARM, WIN]


def _torch_variant(variant: str) -> list[dict]:
    """The torch files of one folder of the wheel root."""
    local, plats = f"+{variant}", _plats(variant)
    if variant == "cu118":
        return _files("torch", "2.7.1+cu118", _pys(9, 13), [X86, WIN], rp=">=3.9.0")
    if variant == "cu128":
        return _files("torch", "2.11.0+cu128", _pys(10, 14), [X86, ARM, WIN], rp=">=3.10")
    out: list[dict] = []
    for version in ("2.14.0", "2.14.1"):
        out += _files("torch", version + local, _pys(10, 14), plats, rp=">=3.10")
    out += _files("torch", "2.15.0" + local, _pys(11, 15), plats, rp=">=3.11")
    out += _files("torch", "2.15.1" + local, _pys(11, 15), plats, rp=">=3.11", yanked=True)
    if variant in NEW_PLATS:
        out += _files("torch", "2.16.0" + local, _pys(12, 15), NEW_PLATS[variant], rp=">=3.12")
        out += _files("torch", "2.17.0rc1" + local, _pys(12, 15), NEW_PLATS[variant],
                      rp=">=3.12")
    return out


def _py3(name: str, version: str, plats: list[str], rp: str, requires: list[str]) -> list[dict]:
    return [{"filename": f"{name}-{version}-py3-none-{p}.whl", "requires_python": rp,
             "yanked": False, "requires": requires} for p in plats]


def _vision(variant: str, plats: list[str], new_plats: list[str]) -> list[dict]:
    local = f"+{variant}" if variant else ""
    out = (_files("torchvision", "0.29.0" + local, _pys(10, 14), plats, rp=">=3.10",
                  requires=["numpy", f"torch==2.14.0{local}"])
           + _files("torchvision", "0.29.1" + local, _pys(10, 14), plats, rp=">=3.10",
                    requires=["numpy", f"torch==2.14.1{local}"])
           + _py3("torchvision", "0.29.2" + local, plats, ">=3.10,!=3.14.1",
                  ["numpy", "torch>=2.14.0"]))
    if new_plats:
        out += _files("torchvision", "0.30.0" + local, _pys(12, 15), new_plats, rp=">=3.12",
                      requires=["numpy", f"torch==2.16.0{local}"])
    return out


def _jax() -> dict[str, list[dict]]:
    pages: dict[str, list[dict]] = {"jax": [], "jaxlib": [], "jax-cuda12-plugin": [],
                                    "jax-cuda13-plugin": [], "jax-cuda13-pjrt": []}
    linux = ["manylinux_2_27_x86_64", "manylinux_2_27_aarch64"]
    for version, low, high in (("0.13.0", 13, 15), ("0.12.0.1", 12, 15), ("0.10.2", 11, 14),
                               ("0.6.2", 10, 13), ("0.4.30", 9, 12), ("0.4.13", 8, 11)):
        rp = f">=3.{low}"
        pages["jax"].append({"filename": f"jax-{version}-py3-none-any.whl",
                             "requires_python": rp, "yanked": False,
                             "requires": [f"jaxlib<={version}"]})
        mac = [MAC11] + (["macosx_10_14_x86_64"] if version in ("0.4.30", "0.4.13") else [])
        win = [] if version == "0.4.13" else [WIN]
        plats = ["manylinux2014_x86_64", *mac] if version == "0.4.13" else [*linux, *mac, *win]
        pages["jaxlib"] += _files("jaxlib", version, _pys(low, high), plats, rp=rp)
        if version != "0.13.0":          # 0.13.0: no CUDA 12 plugin
            pages["jax-cuda12-plugin"] += _files("jax_cuda12_plugin", version, _pys(low, high),
                                                 linux, rp=rp)
        if version in ("0.13.0", "0.12.0.1", "0.10.2"):   # cuda13 starts at 0.7.2
            pages["jax-cuda13-plugin"] += _files("jax_cuda13_plugin", version,
                                                 _pys(low, high), linux, rp=rp)
            pages["jax-cuda13-pjrt"] += _py3("jax_cuda13_pjrt", version, linux, rp, [])
    # the real orphan: plugin and pjrt 0.12.1 with no jax / jaxlib 0.12.1 to go with them
    pages["jax-cuda13-plugin"] += _files("jax_cuda13_plugin", "0.12.1", _pys(12, 15), linux,
                                         rp=">=3.12")
    pages["jax-cuda13-pjrt"] += _py3("jax_cuda13_pjrt", "0.12.1", linux, ">=3.12", [])
    pages["jaxlib"] += _files("jaxlib", "0.4.38", _pys(10, 13), ["macosx_10_14_x86_64"],
                              rp=">=3.10")
    pages["jax"].append({"filename": "jax-0.4.38-py3-none-any.whl", "requires_python": ">=3.10",
                         "yanked": False, "requires": ["jaxlib<=0.4.38"]})
    return pages


def _sdist(name: str, version: str, rp: str) -> dict:
    return {"filename": f"{name}-{version}.tar.gz", "requires_python": rp, "yanked": False,
            "requires": None}


def projects() -> dict[str, list[dict]]:
    """path -> files, for every page the fixture serves."""
    pages: dict[str, list[dict]] = {}
    for variant in VARIANTS:
        pages[f"whl/{variant}/torch"] = _torch_variant(variant)
        pages[f"whl/{variant}/torchvision"] = _vision(variant, _plats(variant),
                                                      NEW_PLATS.get(variant, []))
    linux = [X86, ARM]
    pages["simple/torch"] = (
        _files("torch", "2.2.2", _pys(8, 12), [MACX86], rp=">=3.8.0")
        + _files("torch", "2.8.0", _pys(9, 13), [MAC11], rp=">=3.9.0")
        + _files("torch", "2.11.0", _pys(10, 14), [MAC11], rp=">=3.10")
        + _files("torch", "2.14.1", _pys(10, 14), [*linux, WIN, MAC], rp=">=3.10")
        + _files("torch", "2.15.0", _pys(11, 15), [*linux, WIN, MAC], rp=">=3.11")
        + _files("torch", "2.15.1", _pys(11, 15), [*linux, WIN, MAC], rp=">=3.11", yanked=True)
        + _files("torch", "2.16.0", _pys(12, 15), [*linux, MAC15], rp=">=3.12")
        + [_sdist("torch", "2.16.0", ">=3.12")])
    pages["simple/torchvision"] = (
        _vision("", [*linux, WIN, MAC], [*linux, MAC15])
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
    pages["simple/tensorflow"] = (
        _files("tensorflow", "2.13.1", _pys(8, 11), [*old_tf, "macosx_10_15_x86_64"],
               rp=">=3.8")
        + _files("tensorflow", "2.16.2", _pys(9, 12), ["macosx_10_15_x86_64"], rp=">=3.9")
        + _files("tensorflow", "2.20.0", _pys(9, 13), old_tf, rp=">=3.9")
        + _files("tensorflow", "2.21.0", _pys(10, 13), tf_plats, rp=">=3.10")
        + _files("tensorflow", "2.22.0", _pys(11, 14), tf_plats, rp=">=3.11")
        + _files("tensorflow", "2.23.0rc0", _pys(11, 14), tf_plats, rp=">=3.11"))
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
               MAC11: "macos_arm64", MAC15: "macos_arm64", MACX86: "macos_x86_64"}

    def pypi(version: Any, platform: str) -> str:   # PyPI's wheel is this build
        return PYPI_LINUX.get(version.base_version, "cpu") \
            if platform.startswith("linux") else "cpu"
    return wheel_cells(projects(), plat_of, pypi)
