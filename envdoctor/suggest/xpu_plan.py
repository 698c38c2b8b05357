"""Intel GPUs: when PyTorch's XPU wheels (download.pytorch.org/whl/xpu, the ``+xpu`` builds)
are the torch install, and what the data cannot decide.

A release's ``xpu`` variant (wheel_index.toml, Linux x86_64 and Windows from torch 2.5) is the
GPU install when one of this machine's Intel GPUs is in the hardware PyTorch's XPU notes
validate (rules/matrices/xpu.toml ``[[gpu]]``: Arc A/B-series, Data Center GPU Max, Core Ultra
graphics), named by its PCI device id. The graphics of older Intel CPUs (UHD, Iris Xe) and the
families the notes do not list get the CPU install, with the reason; a discrete Intel GPU whose
device id the data does not name leaves the answer undecided (a newer Arc is likely, not known).
Never a CUDA wheel: an Intel GPU is not reached through CUDA.
"""

from __future__ import annotations

from typing import Any

from envdoctor.matrices import confirmed, matrix
from envdoctor.suggest.machine import PLATFORM_NAMES, IntelInfo, Machine
from envdoctor.suggest.model import Alternative, Reason
from envdoctor.suggest.rocm_plan import Gate

NOTES = "https://docs.pytorch.org/docs/stable/notes/get_start_xpu.html"
VARIANT = "xpu"
PLATFORMS = ("linux_x86_64", "win_amd64")


def _rows() -> list[dict[str, Any]]:
    return list(matrix("xpu").get("gpu", []))


def family(device: str) -> dict[str, Any] | None:
    """The xpu.toml ``[[gpu]]`` row whose PCI ids hold ``device`` ("0xe20b"); None if none."""
    dev = device.strip().lower()
    return next((r for r in _rows() if dev and dev in r.get("ids", [])), None)


def label(g: IntelInfo) -> str:
    row = family(g.device)
    name = row["name"] if row else ("Intel integrated GPU" if g.integrated else "Intel GPU")
    return f"{name} ({g.device or 'device id unknown'})"


def targets(m: Machine) -> list[tuple[IntelInfo, dict[str, Any]]]:
    """The Intel GPUs here that PyTorch's XPU notes list (with their row)."""
    if not m.has_intel:
        return []
    return [(g, row) for g in m.intel_gpus if (row := family(g.device)) and row.get("listed")]


def is_target(m: Machine) -> bool:
    return bool(targets(m))


def gate(m: Machine, platform: str) -> Gate | None:
    """None when an XPU wheel is the GPU install here; else why not (``cpu``: the facts decide
    against the GPU, so the CPU install is the answer)."""
    listed = targets(m)
    if listed and platform not in PLATFORMS:
        where = "WSL" if m.wsl else PLATFORM_NAMES.get(platform)
        return Gate([Reason("platform", "PyTorch's XPU wheels (download.pytorch.org/whl/xpu) are "
                            f"Linux x86_64 and Windows builds; none is for {where}",
                            listed[0][1].get("source", NOTES), confirmed(listed[0][1]))], cpu=True)
    if listed:
        return None
    unknown = [g for g in m.intel_gpus if not g.integrated and family(g.device) is None]
    if unknown:
        names = ", ".join(label(g) for g in unknown)
        return Gate([Reason("gpu", f"{names}: a discrete Intel GPU whose device id is in no "
                            "family of the data's Intel GPU list: whether PyTorch's XPU wheels "
                            "support it cannot be decided", NOTES, False)],
                    [Alternative("if it is an Intel Arc or Data Center GPU Max: torch's XPU "
                                 "wheels, pip install torch --index-url "
                                 "https://download.pytorch.org/whl/xpu", price="the GPU model",
                                 source=NOTES)])
    reasons = []
    for g in m.intel_gpus:
        row = family(g.device)
        src = str(row.get("source", NOTES)) if row else NOTES
        reasons.append(Reason("gpu", f"{label(g)} is not in the hardware PyTorch's XPU notes "
                              "validate (Intel Arc A/B-series, Data Center GPU Max, Core Ultra "
                              "processors with Intel Arc graphics): no XPU wheel is the answer "
                              "for it, torch runs on the CPU here", src,
                              confirmed(row) if row else True))
    return Gate(reasons, cpu=True)


def check(notes: list[Reason], release: dict[str, Any], m: Machine) -> None:
    """What held for the ``xpu`` build of ``release`` on this machine, into ``notes``."""
    for g, row in targets(m):
        notes.append(Reason("gpu", f"{label(g)} is in the hardware PyTorch's XPU notes validate: "
                            f"the xpu build of torch {release['torch']} runs on it",
                            str(row.get("source", NOTES)), confirmed(row)))
    drv = dict(matrix("xpu").get("driver", {}))
    if drv.get("text"):
        notes.append(Reason("driver", str(drv["text"]), str(drv.get("source", NOTES)),
                            confirmed(drv)))


def not_xpu(variant: str) -> Reason:
    return Reason("gpu", f"{variant} is not an XPU build: it cannot use this machine's Intel "
                  "GPU (PyTorch reaches Intel GPUs only through its +xpu wheels)", NOTES)
