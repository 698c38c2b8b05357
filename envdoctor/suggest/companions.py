"""Packages pinned next to torch: xformers, bitsandbytes, flash-attn (wheel_index rows).

Each is matched to the torch that will be there: the installed CUDA torch if there is one,
else the torch suggestion for this machine. Where the data has no pairing, the answer says so.
"""

from __future__ import annotations

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from envdoctor.matrices import confirmed
from envdoctor.suggest import data
from envdoctor.suggest.install import command
from envdoctor.suggest.machine import PLATFORM_NAMES, Machine
from envdoctor.suggest.model import Alternative, Reason, Suggestion, unique
from envdoctor.suggest.plan import Request, assumed_platform
from envdoctor.versions import in_range, ver


def _base_torch(m: Machine, torch_pick: Suggestion | None
                ) -> tuple[Version | None, str | None, str]:
    """(torch version, variant, where it comes from) the companion must match."""
    installed = m.installed.get("torch")
    if installed is not None and m.torch_variant:
        return Version(installed.public), m.torch_variant, f"the installed torch {installed}"
    if torch_pick is not None and torch_pick.version and torch_pick.variant:
        return Version(torch_pick.version), torch_pick.variant, \
            f"the suggested torch {torch_pick.version} {torch_pick.variant}"
    return None, None, ""


def _cc_failures(name: str, min_cc: str, m: Machine, source: str, ok: bool) -> list[Reason]:
    need = ver(min_cc)
    return [Reason("arch", f"{name} needs compute capability >= {min_cc}; {g.name} is {g.sm}",
                   source, ok)
            for g in dict.fromkeys(m.gpus) if need and g.cc is not None and g.cc < need]


def plan_xformers(m: Machine, request: Request) -> Suggestion:
    """The xformers wheel built against the torch that will be there (a ``Planner``)."""
    torch_pick, installer = request.torch_pick, request.installer
    torch, variant, where = _base_torch(m, torch_pick)
    reasons: list[Reason] = []
    if torch is None or variant is None:
        reasons.append(Reason("data", "no torch to pair xformers with (none installed, none "
                              "suggested)", ""))
        return Suggestion("xformers", "none", reasons=tuple(reasons))
    for row in data.rows("xformers"):
        if not in_range(torch, row.get("torch", "")):
            continue
        src, ok = row.get("source", ""), confirmed(row)
        if variant not in row.get("indexes", []):
            reasons.append(Reason("index", f"xformers {row['xformers']} (for torch "
                                  f"{row['torch']}) is published for {', '.join(row['indexes'])}, "
                                  f"not {variant} ({where})", src, ok))
            return Suggestion("xformers", "none", reasons=tuple(reasons), references=(src,))
        fails = _cc_failures("xformers", row.get("min_cc", ""), m, src, ok)
        if fails:
            return Suggestion("xformers", "none", reasons=tuple(fails), references=(src,))
        url = data.index_url(variant)
        req = f"xformers=={row['xformers']}"
        reasons.append(Reason("index", f"xformers {row['xformers']} wheels for torch "
                              f"{row['torch']} on {url}, matching {where}", src, ok))
        return Suggestion("xformers", "ok", version=row["xformers"], variant=variant,
                          command=command([req], url, installer), packages=(req,), index_url=url,
                          reasons=tuple(reasons),
                          references=unique([src, row.get("readme_source", "")]))
    reasons.append(Reason("data", f"no xformers release paired with torch {torch} in the data",
                          data.rows("xformers")[0].get("source", "") if data.rows("xformers")
                          else ""))
    return Suggestion("xformers", "none", reasons=tuple(reasons))


def plan_bitsandbytes(m: Machine, request: Request) -> Suggestion:
    """The bitsandbytes release for this platform and torch (a ``Planner``)."""
    torch_pick, installer = request.torch_pick, request.installer
    platform, reasons = assumed_platform(m)
    row = data.rows("bitsandbytes")[0]
    src, ok = row.get("source", ""), confirmed(row)
    fails = []
    if platform not in row.get("platforms", []):
        fails.append(Reason("platform", f"no bitsandbytes wheels for "
                            f"{PLATFORM_NAMES.get(platform)} in the data", src, ok))
    if m.python is not None and not SpecifierSet(row.get("python", "")).contains(m.python):
        fails.append(Reason("python", f"bitsandbytes {row['bitsandbytes']} needs Python "
                            f"{row['python']}; this is {m.python}", src, ok))
    torch, _, where = _base_torch(m, torch_pick)
    if torch is not None and not in_range(torch, row.get("torch", "")):
        fails.append(Reason("index", f"bitsandbytes {row['bitsandbytes']} needs PyTorch "
                            f"{row['torch']}; {where}", src, ok))
    fails += _cc_failures("bitsandbytes", row.get("min_cc", ""), m, src, ok)
    if fails:
        return Suggestion("bitsandbytes", "none", reasons=(*reasons, *fails), references=(src,))
    req = f"bitsandbytes=={row['bitsandbytes']}"
    reasons.append(Reason("index", f"bitsandbytes {row['bitsandbytes']} from PyPI (Python "
                          f"{row['python']}, PyTorch {row['torch']}, NVIDIA CC >= {row['min_cc']})",
                          src, ok))
    return Suggestion("bitsandbytes", "ok", version=row["bitsandbytes"], variant="pypi",
                      command=command([req], None, installer), packages=(req,),
                      reasons=tuple(reasons), references=(src,))


def plan_flash_attn(m: Machine, request: Request) -> Suggestion:
    """The flash-attn build for this platform, GPU and torch (a ``Planner``)."""
    torch_pick, installer = request.torch_pick, request.installer
    platform, reasons = assumed_platform(m)
    row = data.rows("flash_attn")[0]
    src, ok = row.get("source", ""), confirmed(row)
    fails = []
    if platform not in row.get("platforms", []):
        fails.append(Reason("platform", f"flash-attn builds only on "
                            f"{', '.join(PLATFORM_NAMES[p] for p in row['platforms'])} in the data",
                            src, ok))
    if m.nvidia == "unknown" and not fails:
        # whether there is a GPU is not in the snapshot: unknown is no finding
        return Suggestion("flash-attn", "undecided", reasons=(*reasons, Reason(
            "gpu", "flash-attn needs an NVIDIA GPU; the snapshot does not say whether there is "
            "one (nvidia-smi)", src, ok)), references=(src,))
    if not m.has_nvidia:
        fails.append(Reason("gpu", "flash-attn needs an NVIDIA GPU (none observed)"
                            if m.nvidia == "none" else "flash-attn needs an NVIDIA GPU; the "
                            "snapshot does not say whether there is one", src, ok))
    fails += _cc_failures("FlashAttention-2", row.get("min_cc", ""), m, src, ok)
    alternatives = []
    if row.get("needs_toolkit") and m.nvcc is None and not m.toolkit_known:
        _, _, where = _base_torch(m, torch_pick)
        if not fails:   # everything else fits: only the toolkit, which the facts do not show
            return Suggestion("flash-attn", "undecided", reasons=(*reasons, Reason(
                "toolkit", "pip builds flash-attn from source and needs a CUDA toolkit (nvcc); "
                "the snapshot does not say whether one is installed (nvcc --version)", src,
                False)), alternatives=(Alternative(
                    f"with a CUDA toolkit of the same major as torch's CUDA ({where or 'torch'})"
                    f": {row['command']}", command=row["command"], price="a CUDA toolkit",
                    source=src),), references=(src,))
    elif row.get("needs_toolkit") and m.nvcc is None:
        fails.append(Reason("toolkit", "pip builds flash-attn from source and needs a CUDA "
                            "toolkit (nvcc); none was found", src, ok))
        alternatives.append(Alternative("install a CUDA toolkit of the same major as torch's CUDA,"
                                        " then: " + row["command"], command=row["command"],
                                        price="a CUDA toolkit", source=src))
    torch, _, where = _base_torch(m, torch_pick)
    if fails:
        return Suggestion("flash-attn", "none", reasons=(*reasons, *fails),
                          alternatives=tuple(alternatives), references=(src,))
    reasons.append(Reason("toolkit", f"builds from source with nvcc {m.nvcc} against "
                          f"{where or 'torch'}; no version is pinned (no wheel index in the data)",
                          src, ok))
    cmd = row["command"] if installer != "uv" else "uv pip install flash-attn --no-build-isolation"
    return Suggestion("flash-attn", "ok", variant="source", command=cmd, packages=("flash-attn",),
                      reasons=tuple(reasons), references=(src,))
