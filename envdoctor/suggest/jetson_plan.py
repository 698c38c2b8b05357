"""torch on a Jetson whose L4T files were read: NVIDIA's wheel for that JetPack.

The board's JetPack is the nvidia-jetpack package's version, else the JetPack its L4T release
is part of (rules/matrices/jetson.toml). NVIDIA builds torch for one Python per JetPack; in
another Python there is no wheel, and the answer says which Python to make an environment
with. Where the matrix has no row for the JetPack, this answers nothing and the Jetson branch
of the torch planner stays "undecided" with its reason.
"""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from envdoctor.matrices import confirmed
from envdoctor.matrices import jetson as table
from envdoctor.suggest.data import board_gpu as board_gpu
from envdoctor.suggest.data import driver_floor
from envdoctor.suggest.machine import GpuInfo, JetsonBoard, Machine
from envdoctor.suggest.model import Alternative, Reason, Suggestion, unique

DOCS = "https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform/index.html"


def gpu_reason(m: Machine, docs: str, framework: str = "PyTorch") -> Reason:
    """Why the Jetson wheel cannot be chosen: the facts do not name the JetPack, or they do
    and no source in the data states the wheel for it."""
    if m.jetson is None:
        return Reason("gpu", "which JetPack (L4T) release this is is not in the facts "
                      "(cat /etc/nv_tegra_release): the wheel cannot be chosen", docs, False)
    major, how, row = jetpack_of(m.jetson)
    said = how or f"L4T {m.jetson.l4t or '?'}"
    return Reason("gpu", f"{said}: envdoctor's data states no NVIDIA {framework} wheel for "
                  f"it (rules/matrices/jetson.toml): see {docs}", docs, False)


def jetpack_of(board: JetsonBoard) -> tuple[int | None, str, dict[str, Any]]:
    """(JetPack major, how it was learned, the L4T row)."""
    row = table.l4t_row(board.l4t) or {}
    if board.jetpack is not None:
        return board.jetpack.major, f"nvidia-jetpack {board.jetpack}", row
    majors = {str(r).split(".")[0] for r in row.get("jetpack", [])}
    if len(majors) == 1 and next(iter(majors)).isdigit():
        return int(majors.pop()), f"L4T {board.l4t} is JetPack {'/'.join(row['jetpack'])}", row
    return None, "", row


def sbsa_wheel(m: Machine) -> dict[str, Any] | None:
    """The JetPack wheel row when the board's JetPack is SBSA-aligned (JetPack 7 on Thor:
    the Arm-server CUDA 13 builds run there, so the server planner answers); else None."""
    if m.jetson is None:
        return None
    major, _how, l4t_row = jetpack_of(m.jetson)
    wheel = table.wheel_row(major, l4t_row.get("cuda"))
    return wheel if wheel is not None and wheel.get("sbsa") else None


def sbsa_machine(m: Machine, gpu: GpuInfo, wheel: dict[str, Any]) -> Machine:
    """The board as an Arm server for the server planners: its iGPU, and where the facts
    do not show the driver (NVML does not list the iGPU), the driver the JetPack bundles
    for its CUDA, at least that CUDA's driver floor (JetPack ships driver and CUDA as one)."""
    from dataclasses import replace

    driver = m.driver
    if driver is None and (cuda := wheel.get("cuda")):
        floor = driver_floor(Version(str(cuda)), "linux")
        driver = floor[0] if floor else None
    return replace(m, jetson=None, nvidia="gpus", gpus=m.gpus or (gpu,), driver=driver)


def sbsa_reason(m: Machine, gpu: GpuInfo, wheel: dict[str, Any]) -> Reason:
    """Why an SBSA-aligned Jetson is answered as an Arm server."""
    assert m.jetson is not None
    _major, how, l4t_row = jetpack_of(m.jetson)
    sure = confirmed(wheel) and (not l4t_row or confirmed(l4t_row))
    return Reason("platform", f"{gpu.name}{f' ({gpu.sm})' if gpu.sm else ''} is a Jetson: "
                  f"{how}, which is SBSA-aligned (CUDA {wheel.get('cuda')}): the Arm-server "
                  "(SBSA) aarch64 CUDA wheels run on it, so it is answered as an aarch64 server"
                  + ("" if m.driver is not None else f"; the driver is JetPack's own, taken as "
                     f"CUDA {wheel.get('cuda')}'s"),
                  str(wheel.get("source", DOCS)), sure)


def _runs(m: Machine, installed: Version, l4t_row: dict[str, Any], sbsa: bool) -> bool:
    """The installed torch is a CUDA build of the board's CUDA major, and a Tegra build (no
    +cuXYZ tag, no nvidia-*-cu1x wheels) unless the JetPack is SBSA-aligned."""
    cuda = str(l4t_row.get("cuda", ""))
    variant = m.torch_variant or ""
    if not cuda or not variant.startswith("cu") or variant[2:4] != cuda.split(".")[0]:
        return False
    if sbsa:
        return True
    server = (installed.local or "").startswith("cu") or any(
        name.startswith(("nvidia-cuda-runtime-cu", "nvidia-cudnn-cu")) for name in m.installed)
    return not server


def torch(m: Machine, board: JetsonBoard, gpu: GpuInfo,
          notes: list[Reason]) -> Suggestion | None:
    """NVIDIA's torch for the board's JetPack, or None where no row states one."""
    major, how, l4t_row = jetpack_of(board)
    wheel = table.wheel_row(major, l4t_row.get("cuda"))
    if major is None or wheel is None:
        return None
    source = str(wheel.get("source", DOCS))
    sure = confirmed(wheel) and (not l4t_row or confirmed(l4t_row))
    reasons = [*notes, Reason(
        "platform", f"{gpu.name}{f' ({gpu.sm})' if gpu.sm else ''} is a Jetson: {how}; "
        + ("PyTorch's cu130 aarch64 wheels run on JetPack 7 (SBSA-aligned)" if wheel.get("sbsa")
           else "PyPI's aarch64 wheels are CPU or Arm-server (SBSA) builds that do not run on "
           "its iGPU; NVIDIA builds torch for each JetPack"),
        source, sure)]
    want = wheel.get("python")
    version = wheel.get("torch")
    variant = f"jp{major}"
    command = str(wheel["pip"])
    others = (Alternative(f"newer builds for this JetPack: {wheel['index']}",
                          source=str(wheel["index"]), price=""),) if wheel.get("index") else ()
    if want and m.python is not None and f"{m.python.major}.{m.python.minor}" != want:
        reasons.append(Reason("python", f"NVIDIA's wheels for JetPack {major} are built for "
                              f"Python {want}; this environment runs {m.python}", source, sure))
        return Suggestion("torch", "none", reasons=tuple(reasons), alternatives=(
            Alternative(f"in a Python {want} environment (python{want} -m venv "
                        f"--system-site-packages ~/venv): {command}", version=version,
                        variant=variant, command=command, price=f"Python {want}",
                        source=source),), references=unique([DOCS, source]))
    if want and m.python is None:
        reasons.append(Reason("python", f"the snapshot does not state Python; NVIDIA's wheels "
                              f"for JetPack {major} need Python {want}", source, False))
    installed = m.installed.get("torch")
    if installed is not None and _runs(m, installed, l4t_row, bool(wheel.get("sbsa"))):
        # NVIDIA's build is named by its JetPack (jp5), not by a download.pytorch.org index
        reasons.append(Reason("installed", f"torch {installed} (CUDA {l4t_row.get('cuda')}) is "
                              f"NVIDIA's build for JetPack {major}, this board's CUDA", source,
                              sure))
        return Suggestion("torch", "installed", version=str(installed), variant=variant,
                          reasons=tuple(reasons), references=unique([DOCS, source]))
    return Suggestion("torch", "ok", version=version, variant=variant, command=command,
                      reasons=tuple(reasons), alternatives=others,
                      references=unique([DOCS, source]))
