"""AMD GPUs: what decides a torch ROCm wheel, and what the data cannot decide.

A ``download.pytorch.org/whl/rocmX.Y`` wheel (Linux x86_64 only) runs on this machine when
every GPU's gfx target is in AMD's supported list for ROCm X.Y (rules/matrices/rocm.toml
``[[gfx]]``, from AMD's system-requirements pages) and the wheel's bundled ROCm user space is
within AMD's +/- 2-release window of the kernel driver's release (the user and kernel-space
support matrix, ``[driver]``). The installed ROCm release stands for the kernel driver's: the
facts name no separate amdgpu release in ROCm numbering, and the reasons say so.

A consumer chip that no ROCm release lists (an RX 6600's gfx1032, an RX 5700 XT's gfx1010)
gets the CPU install: no ROCm wheel is known to run on it, which the facts do decide.
HSA_OVERRIDE_GFX_VERSION makes ROCm run another chip's code on some of them, which AMD says is
not a supported fix, so it is an alternative, never the answer. JAX and TensorFlow publish no
ROCm wheels of their own; their answers name AMD's way (a container, AMD's tensorflow-rocm
builds) and stay ``undecided``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from packaging.version import Version

from envdoctor.matrices import confirmed
from envdoctor.matrices import rocm as rocm_matrix
from envdoctor.suggest.machine import PLATFORM_NAMES, AmdInfo, Machine
from envdoctor.suggest.model import Alternative, Reason

SYSTEM_REQUIREMENTS = ("https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/"
                       "system-requirements.html")
GET_STARTED = "https://pytorch.org/get-started/locally/"
WSL_DOCS = "https://rocm.docs.amd.com/projects/radeon/en/latest/docs/install/wsl/install-pytorch.html"


@dataclass
class Gate:
    """Why the facts or the data cannot choose a ROCm wheel here (``reasons``), and the other
    ways (``alternatives``, without commands)."""

    reasons: list[Reason] = field(default_factory=list)
    alternatives: list[Alternative] = field(default_factory=list)
    # True when the facts do decide, against the GPU: no ROCm release supports it, so the CPU
    # install is the answer (not undecided), with any unsupported way as an alternative
    cpu: bool = False


def _label(g: AmdInfo) -> str:
    return f"{g.name or 'AMD GPU'} ({g.gfx or 'gfx unknown'})"


def gpus(m: Machine) -> tuple[list[AmdInfo], list[Reason]]:
    """The GPUs a wheel must run on: integrated Radeon graphics beside a discrete GPU are left
    out (with a note: HIP enumerates them too, and they must be hidden)."""
    discrete = [g for g in m.amd_gpus if not rocm_matrix.is_igpu(g.gfx)]
    if not discrete:
        return list(m.amd_gpus), []
    row = _igpu_row()
    notes = [Reason("gpu", f"{_label(g)} is integrated graphics beside the discrete GPU(s): not "
                    "counted for the wheel; hide it from HIP (HIP_VISIBLE_DEVICES, or in the "
                    "BIOS) or HIP aborts with 'Unable to find code object for all current "
                    "devices'", row.get("source", ""))
             for g in m.amd_gpus if g not in discrete]
    return discrete, notes


def _igpu_row() -> dict[str, Any]:
    from envdoctor.matrices import matrix
    return dict(matrix("rocm").get("igpu", {}))


def gate(m: Machine, platform: str) -> Gate | None:
    """None when a ROCm wheel can be chosen from the facts and the data; else why not."""
    if platform != "linux_x86_64" or m.wsl:
        where = "WSL" if m.wsl else PLATFORM_NAMES.get(platform)
        text = (f"the download.pytorch.org ROCm wheels are Linux x86_64 builds for a native "
                f"amdgpu driver; on {where} AMD's own PyTorch builds are the GPU install, and "
                "which one fits is not in the data")
        return Gate([Reason("platform", text, WSL_DOCS if m.wsl else GET_STARTED, False)])
    shown, _ = gpus(m)
    unknown = [g for g in shown if not g.gfx]
    if unknown:
        names = ", ".join(g.name or "AMD GPU" for g in unknown)
        return Gate([Reason("gpu", f"the gfx target of {names} is not in the facts (rocminfo or "
                            "amd-smi output): the ROCm wheel cannot be chosen", "", False)])
    unlisted = [g for g in shown if rocm_matrix.gfx_row(g.gfx) is None]
    if unlisted:
        return _unlisted(m, unlisted)
    if m.rocm is None:
        return Gate([Reason("gpu", "the installed ROCm release is not in the facts "
                            "(/opt/rocm/.info/version, amd-smi version): which rocmX.Y wheel "
                            "the kernel driver runs cannot be chosen", rocm_matrix.driver_row()
                            .get("source", ""), False)])
    return _past_the_order(m, platform)


def _past_the_order(m: Machine, platform: str) -> Gate | None:
    """A Gate when the installed ROCm is newer than every release in the data's order and no
    torch wheel in the data (or on the index read) bundles that release: the distance of any
    rocmX.Y wheel from its kernel driver cannot be counted, which leaves the answer undecided,
    never ``none`` (a newer ROCm is no evidence against the GPU)."""
    from envdoctor.suggest.data import torch_rows, variant_rocm
    assert m.rocm is not None
    order = rocm_matrix.series()
    here = Version(f"{m.rocm.major}.{m.rocm.minor}")
    if not order or str(here) in order or here <= Version(order[-1]):
        return None
    for row in torch_rows():
        for variant in row.get(platform, []):
            got = variant_rocm(variant)
            if got is not None and (got.major, got.minor) == (here.major, here.minor):
                return None   # its own release's wheel: placed at distance 0 (_window)
    drv = rocm_matrix.driver_row()
    return Gate([Reason("gpu", f"ROCm {here} is newer than the releases the data places in "
                        f"order (through ROCm {order[-1]}) and no torch wheel in the data "
                        f"bundles it: how many releases a rocmX.Y wheel is from this kernel "
                        f"driver (AMD's +/- {drv.get('window', 2)}-release window) cannot be "
                        "counted", str(drv.get("source", "")), False)],
                [Alternative("suggest --online: the ROCm variants the PyTorch index lists "
                             f"(a rocm{here} build, if there is one)", price="a network read",
                             source=GET_STARTED)])


def _unlisted(m: Machine, unlisted: list[AmdInfo]) -> Gate:
    reasons, alternatives = [], []
    for g in unlisted:
        text = (f"{_label(g)} is in no ROCm release's list of supported GPUs in the data (AMD's "
                "system requirements: 'If a GPU is not listed on this table, it is not "
                "officially supported by AMD'): no ROCm wheel is known to run on it")
        row = rocm_matrix.override_for(g.gfx)
        if row is not None:
            text += (f"; HSA_OVERRIDE_GFX_VERSION={row['value']} makes ROCm run its "
                     f"{row.get('family', '')} sibling {row['runs_as']}'s code on it, which AMD "
                     "says is not a supported fix, so it is not the answer")
            if m.gfx_override:
                text += f" (set here: HSA_OVERRIDE_GFX_VERSION={m.gfx_override})"
            alternatives.append(Alternative(
                f"unsupported by AMD: HSA_OVERRIDE_GFX_VERSION={row['value']} with the torch "
                f"ROCm wheel of this machine's ROCm ({row['runs_as']} code on {g.gfx})",
                price="a configuration AMD does not support", source=row.get("source", "")))
        reasons.append(Reason("arch", text, SYSTEM_REQUIREMENTS))
    return Gate(reasons, alternatives, cpu=len(unlisted) == len(gpus(m)[0]))


def check(failures: list[Reason], notes: list[Reason], variant: str, wheel: Version,
          m: Machine) -> None:
    """The verdict on one ROCm wheel for this AMD machine, into ``failures`` / ``notes``."""
    shown, _ = gpus(m)
    short = Version(f"{wheel.major}.{wheel.minor}")
    for g in shown:
        row = rocm_matrix.gfx_row(g.gfx) or {}
        said = rocm_matrix.support(g.gfx, wheel)
        since, dropped = row.get("since"), row.get("dropped")
        source, ok_row = row.get("source", SYSTEM_REQUIREMENTS), confirmed(row)
        if said:
            notes.append(Reason("arch", f"{_label(g)} is in AMD's supported list for ROCm "
                                f"{short} (listed from ROCm {since})", source, ok_row))
        elif dropped and short >= Version(str(dropped)):
            failures.append(Reason("arch", f"ROCm {short} no longer supports {_label(g)}: AMD's "
                                   f"list drops it from ROCm {dropped}", source, ok_row))
        else:
            failures.append(Reason("arch", f"ROCm {short} predates {_label(g)} in AMD's "
                                   f"supported list (listed from ROCm {since})", source, ok_row))
    _window(failures, notes, variant, wheel, m)
    if not failures:
        notes.append(Reason("arch", f"which gfx targets the {variant} wheel itself was built for "
                            "is not in the data (AMD's list is what decides here)", GET_STARTED,
                            False))


def known_distance(variant: str, m: Machine) -> bool:
    """Whether the data places ``variant``'s ROCm in its release order next to this machine's:
    only then can "upgrade ROCm to within the window" be priced."""
    from envdoctor.suggest.data import variant_rocm
    wheel = variant_rocm(variant)
    return wheel is not None and m.rocm is not None and \
        rocm_matrix.release_distance(wheel, m.rocm) is not None


def _window(failures: list[Reason], notes: list[Reason], variant: str, wheel: Version,
            m: Machine) -> None:
    assert m.rocm is not None  # gate() answered otherwise
    row = rocm_matrix.driver_row()
    window, source = int(row.get("window", 2)), str(row.get("source", ""))
    here = f"ROCm {m.rocm.major}.{m.rocm.minor}"
    got = rocm_matrix.release_distance(wheel, m.rocm)
    taken = f"{here} (the installed ROCm, taken as the amdgpu kernel driver's release)"
    if got is None and (wheel.major, wheel.minor) == (m.rocm.major, m.rocm.minor):
        # one release on both sides: no order is needed to place it (a release newer than
        # the data's order, ROCm 7.14 with rocm7.14, is no reason to refuse its own wheel)
        got = (0, False)
    if got is None:
        order = rocm_matrix.series()
        out = [r for r in (f"{wheel.major}.{wheel.minor}", f"{m.rocm.major}.{m.rocm.minor}")
               if r not in order]
        failures.append(Reason("gpu", f"ROCm {' and '.join(dict.fromkeys(out))} "
                               f"{'is' if len(set(out)) == 1 else 'are'} not in the data's "
                               "order of ROCm releases: whether the kernel driver of "
                               f"{here} runs the user space of {variant} is unknown", source,
                               False))
        return
    distance, ok = got
    side = "newer" if distance > 0 else "older"
    if abs(distance) > window:
        failures.append(Reason("gpu", f"{variant} bundles a ROCm user space {abs(distance)} "
                               f"releases {side} than {taken}; AMD supports the kernel driver "
                               f"with user space +/- {window} releases", source, ok))
        return
    plural = "s" if abs(distance) > 1 else ""
    text = (f"{variant}'s ROCm user space is the release of {taken}" if distance == 0 else
            f"{variant}'s ROCm user space is {abs(distance)} release{plural} {side} than "
            f"{taken}, inside AMD's +/- {window}-release window")
    notes.append(Reason("gpu", text, source, False))


def rocm_needed(failures: list[Reason]) -> bool:
    return any(f.constraint == "gpu" for f in failures)


def jax_gate(m: Machine) -> list[Reason]:
    """Why no JAX ROCm wheel is named on an AMD machine (JAX's install page states none)."""
    row = rocm_matrix.jax_row()
    return [Reason("gpu", f"JAX's install guide lists AMD GPUs as experimental (Linux x86_64) and "
                   f"installs them through AMD's container ({row.get('container', '')}) or a "
                   "source build; no pip command for a ROCm jaxlib plugin is in the data",
                   row.get("source", ""), confirmed(row))]


def tensorflow_gate(m: Machine) -> list[Reason]:
    """Why no TensorFlow ROCm wheel is named on an AMD machine, with AMD's table when known."""
    first = Reason("gpu", "TensorFlow's own wheels (tensorflow, tensorflow[and-cuda]) have no "
                   "ROCm build; AMD builds tensorflow-rocm per ROCm release", SYSTEM_REQUIREMENTS)
    row = rocm_matrix.tensorflow_row(m.rocm)
    if row is None:
        here = f"ROCm {m.rocm}" if m.rocm else "this machine's ROCm (not in the facts)"
        return [first, Reason("gpu", f"which tensorflow-rocm builds AMD lists for {here} is not "
                              "in the data", "", False)]
    versions = ", ".join(row.get("tensorflow", []))
    return [first, Reason("gpu", f"AMD lists TensorFlow {versions} for ROCm {row['rocm']}.x "
                          f"(tensorflow-rocm, from {row.get('index', '')}); the wheel file for "
                          "this Python is not in the data", row.get("source", ""),
                          confirmed(row))]
