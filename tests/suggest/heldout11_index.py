"""A package index on 127.0.0.1 for the batch-11 held-out `--online` cases (profiles11.toml's
``expect_online``): batch 9's local index (heldout9_index: the real releases of 2026-12-06 plus
torch 2.15.1 / 2.16.0, jax 0.13.0 yanked / 0.13.1, TF 2.22.0) with one more round of
hypothetical releases on top, each a change of a kind the real indexes have made:

* torch 2.16.1 (cp312-cp315), a patch that ADDS a Windows CUDA 13.4 build: Linux cpu / cu132 /
  cu134 (x86_64 and aarch64), Windows cpu / cu132 / cu134, ROCm under 2.16.0's renamed
  ``rocm7.14.1``; PyPI's Linux wheel is the CUDA 13.4 build; PyPI's macOS wheel is
  ``macosx_15_0_arm64`` ONLY (the macOS floor rises, as 2.12's did from 11.0 to 14.0): a
  macOS 14 box stays on 2.16.0; torchvision 0.30.1 pins torch==2.16.1;
* jax / jaxlib 0.13.2 (cp312-cp315, Linux ``manylinux_2_28`` only) with a CUDA 13 plugin and
  NO CUDA 12 plugin (CUDA 12 dropped, as jax 0.4.x dropped CUDA 11): a box whose driver runs
  only CUDA 12 (or a GPU below SM 7.5) stays on 0.13.1's cuda12 plugin; its tpu extra pins
  ``libtpu==0.0.55.*``;
* tensorflow / tensorflow-cpu 2.22.1, a patch of 2.22.0 with the same files (cp311-cp314).

The server is heldout5_index's; only the pages differ.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from . import heldout9_index as h9
from .heldout5_index import ARM, MAC, WIN, X86, Index, _files, _pys
from .heldout_common import serve

MAC15 = "macosx_15_0_arm64"
NEWEST = {"torch": "2.16.1", "jax": "0.13.2", "tensorflow": "2.22.1"}
# torch 2.16.1: variant -> platforms (download.pytorch.org)
BUILDS_2161: dict[str, list[str]] = {"cpu": [X86, ARM, WIN], "cu132": [X86, ARM, WIN],
                                     "cu134": [X86, ARM, WIN], "rocm7.14.1": [X86]}
PYPI_LINUX = {**h9.PYPI_LINUX, "2.16.1": "cu134"}


def projects() -> dict[str, list[dict]]:
    """path -> files, for every page the fixture serves (batch 9's pages plus this round)."""
    pages = h9.projects()
    for variant, plats in BUILDS_2161.items():
        local = f"+{variant}"
        pages[f"whl/{variant}/torch"] = pages.get(f"whl/{variant}/torch", []) + _files(
            "torch", "2.16.1" + local, _pys(12, 15), plats, rp=">=3.12")
        pages[f"whl/{variant}/torchvision"] = pages.get(f"whl/{variant}/torchvision", []) + \
            _files("torchvision", "0.30.1" + local, _pys(12, 15), plats, rp=">=3.12",
                   requires=["numpy", f"torch==2.16.1{local}"])
    pages["simple/torch"] = pages["simple/torch"] + _files(
        "torch", "2.16.1", _pys(12, 15), [X86, ARM, WIN, MAC15], rp=">=3.12")
    pages["simple/torchvision"] = pages["simple/torchvision"] + _files(
        "torchvision", "0.30.1", _pys(12, 15), [X86, ARM, WIN, MAC15], rp=">=3.12",
        requires=["numpy", "torch==2.16.1"])
    linux = ["manylinux_2_28_x86_64", "manylinux_2_28_aarch64"]
    pages["simple/jax"] = pages["simple/jax"] + h9._py3(
        "jax", "0.13.2", ["any"], ">=3.12",
        ["jaxlib<=0.13.2,>=0.13.2", 'jaxlib<=0.13.2,>=0.13.2; extra == "tpu"',
         'libtpu==0.0.55.*; extra == "tpu"', 'requests; extra == "tpu"'])
    pages["simple/jaxlib"] = pages["simple/jaxlib"] + _files(
        "jaxlib", "0.13.2", _pys(12, 15), [*linux, h9.MAC11, WIN], rp=">=3.12")
    pages["simple/jax-cuda13-plugin"] = pages["simple/jax-cuda13-plugin"] + _files(
        "jax_cuda13_plugin", "0.13.2", _pys(12, 15), linux, rp=">=3.12")
    pages["simple/jax-cuda13-pjrt"] = pages["simple/jax-cuda13-pjrt"] + h9._py3(
        "jax_cuda13_pjrt", "0.13.2", linux, None, [])
    pages["simple/libtpu"] = pages["simple/libtpu"] + _files(
        "libtpu", "0.0.55", _pys(11, 15), ["manylinux_2_31_x86_64"], rp=">=3.11")
    tf_plats = ["manylinux_2_27_x86_64", "manylinux_2_27_aarch64", WIN, "macosx_12_0_arm64"]
    and_cuda = ['nvidia-cublas-cu12<13.0,>=12.5.3.2; extra == "and-cuda"',
                'nvidia-cuda-runtime-cu12<13.0,>=12.5.82; extra == "and-cuda"',
                'nvidia-cudnn-cu12<10.0,>=9.3.0.75; extra == "and-cuda"']
    pages["simple/tensorflow"] = pages["simple/tensorflow"] + _files(
        "tensorflow", "2.22.1", _pys(11, 14), tf_plats, rp=">=3.11", requires=and_cuda)
    pages["simple/tensorflow-cpu"] = pages["simple/tensorflow-cpu"] + _files(
        "tensorflow_cpu", "2.22.1", _pys(11, 14), ["manylinux_2_27_x86_64", WIN], rp=">=3.11")
    return pages


@contextmanager
def serving(flavour: str = "json") -> Iterator[Index]:
    """heldout5_index's server with this module's pages."""
    yield from serve(Index, projects, flavour)


def torch_cells() -> set[tuple[str, str, str, str, str]]:
    """(version, variant, platform, cpXY, macOS floor) of every non-yanked final torch wheel
    the fixture lists (the macOS floor "" off macOS): what the judge counts as installable
    when it judges `--online` answers."""
    from packaging.utils import parse_wheel_filename
    cells: set[tuple[str, str, str, str, str]] = set()
    plat_of = {X86: "linux_x86_64", ARM: "linux_aarch64", WIN: "win_amd64", MAC: "macos_arm64",
               h9.MAC11: "macos_arm64", MAC15: "macos_arm64", h9.MACX86: "macos_x86_64"}
    for path, files in projects().items():
        if not path.endswith("/torch"):
            continue
        folder = path.split("/")[1] if path.startswith("whl/") else "pypi"
        for f in files:
            _, version, _, tags = parse_wheel_filename(f["filename"])
            if f["yanked"] or version.is_prerelease:
                continue
            tag = next(iter(tags))
            platform = plat_of[tag.platform]
            variant = folder
            if folder == "pypi":
                variant = PYPI_LINUX.get(version.base_version, "cpu") \
                    if platform.startswith("linux") else "cpu"
            floor = ".".join(tag.platform.split("_")[1:3]) if platform.startswith("macos") \
                else ""
            cells.add((version.base_version, variant, platform, tag.interpreter, floor))
    return cells
