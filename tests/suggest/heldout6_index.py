"""A package index on 127.0.0.1 for the batch-6 held-out `--online` cases (profiles6.toml's
``expect_online``): releases newer than anything published on 2026-12-02, so newer than any
shipped data can be, and a different shape of news from heldout5_index's.

The server is heldout5_index's (PEP 691 JSON or PEP 503 HTML simple pages, PEP 658 core
metadata, the PyTorch wheel root ``/whl/`` and ``/whl/<variant>/<project>/``); only the pages
differ. The releases, hypothetical beyond 2026-12-02:

* torch 2.15.1 (requires Python >= 3.11, cp311-cp315): cpu / cu126 / cu130 / cu132 / cu134 on
  Linux x86_64 and aarch64, the same less cu134 on Windows, rocm7.2 / rocm7.14 on Linux x86_64;
* torch 2.16.0 (>= 3.11, cp311-cp315) drops CUDA 12.6 and ROCm 7.2: cpu / cu130 / cu132 /
  cu134 and rocm7.14 only, so a Maxwell / Pascal / Volta GPU or a 12.x driver stays on
  2.15.1 cu126; a yanked 2.16.1 and a 2.17.0rc1 on the same variants;
* the real 2.14.0 / 2.14.1 (cp310-cp314) and 2.15.0 (cp311-cp315) on the variants they were
  built for, 2.11.0 on cu128 and 2.7.1 on cu118 (the last of those folders);
* PyPI's torch: 2.14.1 (cp310-cp314; Linux = the CUDA 13.0 build), 2.15.0 / 2.15.1 / 2.16.0
  (cp311-cp315; Linux = the CUDA 13.2 build), Windows and macOS arm64 CPU wheels, 2.2.2 for
  Intel Macs, a yanked 2.16.1;
* torchvision 0.29.3 pins torch==2.15.1, 0.30.0 pins torch==2.16.0 (core metadata); 0.29.2
  (torch>=2.14.0, requires-python ">=3.10,!=3.14.1" as on PyPI), 0.29.1 / 0.29.0 pin 2.14.1 /
  2.14.0;
* jax / jaxlib / jax-cuda12-plugin / jax-cuda13-plugin 0.12.1 (>= 3.12, cp312-cp315) besides the
  real 0.12.0.1, 0.10.2 (>= 3.11), 0.6.2 (>= 3.10, no cuda13 plugin), 0.4.30 (>= 3.9) and, for
  Intel Macs, jaxlib 0.4.38 (the real last macOS x86_64 jaxlib);
* tensorflow 2.22.0 (cp310-cp314, Linux x86_64 / aarch64, Windows, macOS arm64) besides the real
  2.21.0 (cp310-cp313), 2.20.0 (cp39-cp313), 2.16.2 for Intel Macs and a 2.23.0rc0.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .heldout5_index import ARM, MAC, WIN, X86, Index, _files, _pys
from .heldout_common import serve, wheel_cells

CUDA13 = ("cu130", "cu132", "cu134")
VARIANTS = ("cpu", "cu118", "cu126", "cu128", "cu130", "cu132", "cu134", "rocm7.2", "rocm7.14")
NEWEST = {"torch": "2.16.0", "jax": "0.12.1", "tensorflow": "2.22.0"}
# the folders torch 2.16.0 (and the yanked 2.16.1, 2.17.0rc1) is built for
NEW_VARIANTS = ("cpu", "cu130", "cu132", "cu134", "rocm7.14")
# PyPI's Linux torch wheel is this CUDA build
PYPI_LINUX = {"2.14.1": "cu130", "2.15.0": "cu132", "2.15.1": "cu132", "2.16.0": "cu132"}


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
        return _files("torch", "2.7.1+cu118", _pys(9, 13), [X86, WIN])
    if variant == "cu128":
        return _files("torch", "2.11.0+cu128", _pys(10, 14), [X86, ARM, WIN])
    out: list[dict] = []
    for version in ("2.14.0", "2.14.1"):
        out += _files("torch", version + local, _pys(10, 14), plats, rp=">=3.10")
    for version in ("2.15.0", "2.15.1"):
        out += _files("torch", version + local, _pys(11, 15), plats, rp=">=3.11")
    if variant in NEW_VARIANTS:
        out += _files("torch", "2.16.0" + local, _pys(11, 15), plats, rp=">=3.11")
        out += _files("torch", "2.16.1" + local, _pys(11, 15), plats, rp=">=3.11", yanked=True)
        out += _files("torch", "2.17.0rc1" + local, _pys(11, 15), plats, rp=">=3.11")
    return out


def _py3(name: str, version: str, plats: list[str], rp: str, requires: list[str]) -> list[dict]:
    return [{"filename": f"{name}-{version}-py3-none-{p}.whl", "requires_python": rp,
             "yanked": False, "requires": requires} for p in plats]


def _vision(variant: str, plats: list[str]) -> list[dict]:
    local = f"+{variant}" if variant else ""
    out = (_files("torchvision", "0.29.0" + local, _pys(10, 14), plats, rp=">=3.10",
                  requires=["numpy", f"torch==2.14.0{local}"])
           + _files("torchvision", "0.29.1" + local, _pys(10, 14), plats, rp=">=3.10",
                    requires=["numpy", f"torch==2.14.1{local}"])
           + _py3("torchvision", "0.29.2" + local, plats, ">=3.10,!=3.14.1",
                  ["numpy", "torch>=2.14.0"])
           + _py3("torchvision", "0.29.3" + local, plats, ">=3.11",
                  ["numpy", f"torch==2.15.1{local}"]))
    if not variant or variant in NEW_VARIANTS:
        out += _files("torchvision", "0.30.0" + local, _pys(11, 15), plats, rp=">=3.11",
                      requires=["numpy", f"torch==2.16.0{local}"])
    return out


def _jax() -> dict[str, list[dict]]:
    pages: dict[str, list[dict]] = {"jax": [], "jaxlib": [], "jax-cuda12-plugin": [],
                                    "jax-cuda13-plugin": []}
    linux = ["manylinux_2_27_x86_64", "manylinux_2_27_aarch64"]
    for version, low, high in (("0.12.1", 12, 15), ("0.12.0.1", 12, 15), ("0.10.2", 11, 14),
                               ("0.6.2", 10, 13), ("0.4.30", 9, 12)):
        rp = f">=3.{low}"
        pages["jax"].append({"filename": f"jax-{version}-py3-none-any.whl",
                             "requires_python": rp, "yanked": False,
                             "requires": [f"jaxlib<={version}"]})
        mac = ["macosx_11_0_arm64"] + (["macosx_10_14_x86_64"] if version == "0.4.30" else [])
        pages["jaxlib"] += _files("jaxlib", version, _pys(low, high), [*linux, *mac, WIN],
                                  rp=rp)
        for plugin in ("jax_cuda12_plugin", "jax_cuda13_plugin"):
            if plugin.startswith("jax_cuda13") and version in ("0.6.2", "0.4.30"):
                continue       # the cuda13 plugin starts at 0.7.2
            pages[plugin.replace("_", "-")] += _files(plugin, version, _pys(low, high), linux,
                                                      rp=rp)
    pages["jaxlib"] += _files("jaxlib", "0.4.38", _pys(10, 13), ["macosx_10_14_x86_64"],
                              rp=">=3.10")
    pages["jax"].append({"filename": "jax-0.4.38-py3-none-any.whl", "requires_python": ">=3.10",
                         "yanked": False, "requires": ["jaxlib<=0.4.38"]})
    return pages


def projects() -> dict[str, list[dict]]:
    """path -> files, for every page the fixture serves."""
    pages: dict[str, list[dict]] = {}
    for variant in VARIANTS:
        pages[f"whl/{variant}/torch"] = _torch_variant(variant)
        pages[f"whl/{variant}/torchvision"] = _vision(variant, _plats(variant))
    plats = [X86, ARM, WIN, MAC]
    pages["simple/torch"] = (
        _files("torch", "2.2.2", _pys(8, 12), ["macosx_10_9_x86_64"], rp=">=3.8.0")
        + _files("torch", "2.14.1", _pys(10, 14), plats, rp=">=3.10")
        + _files("torch", "2.15.0", _pys(11, 15), plats, rp=">=3.11")
        + _files("torch", "2.15.1", _pys(11, 15), plats, rp=">=3.11")
        + _files("torch", "2.16.0", _pys(11, 15), plats, rp=">=3.11")
        + _files("torch", "2.16.1", _pys(11, 15), plats, rp=">=3.11", yanked=True))
    pages["simple/torchvision"] = (
        _vision("", plats)
        + _files("torchvision", "0.17.2", _pys(8, 12), ["macosx_10_13_x86_64"],
                 requires=["numpy", "torch==2.2.2"]))
    for name, files in _jax().items():
        pages[f"simple/{name}"] = files
    tf_plats = ["manylinux_2_27_x86_64", "manylinux_2_27_aarch64", WIN, "macosx_12_0_arm64"]
    pages["simple/tensorflow"] = (
        _files("tensorflow", "2.16.2", _pys(9, 12), ["macosx_10_15_x86_64"], rp=">=3.9")
        + _files("tensorflow", "2.20.0", _pys(9, 13), tf_plats, rp=">=3.9")
        + _files("tensorflow", "2.21.0", _pys(10, 13), tf_plats, rp=">=3.10")
        + _files("tensorflow", "2.22.0", _pys(10, 14), tf_plats, rp=">=3.10")
        + _files("tensorflow", "2.23.0rc0", _pys(10, 14), tf_plats, rp=">=3.10"))
    return pages


@contextmanager
def serving(flavour: str = "json") -> Iterator[Index]:
    """heldout5_index's server with this module's pages."""
    yield from serve(Index, projects, flavour)


def torch_cells() -> set[tuple[str, str, str, str]]:
    """(version, variant, platform, cpXY) of every non-yanked final torch wheel the fixture
    lists: what the judge counts as installable when it judges `--online` answers."""
    plat_of = {X86: "linux_x86_64", ARM: "linux_aarch64", WIN: "win_amd64", MAC: "macos_arm64",
               "macosx_10_9_x86_64": "macos_x86_64"}

    def pypi(version: Any, platform: str) -> str:   # PyPI's wheel is this build
        return PYPI_LINUX.get(version.base_version, "cpu") \
            if platform.startswith("linux") else "cpu"
    return wheel_cells(projects(), plat_of, pypi)
