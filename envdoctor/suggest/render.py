"""Text and JSON output of a SuggestResult (formatting only; the decisions are made already)."""

from __future__ import annotations

import json

from envdoctor.suggest.machine import PLATFORM_NAMES
from envdoctor.suggest.model import SuggestResult

_HEAD = {"ok": "", "installed": "already installed, nothing to change",
         "keep": "keep the installed version", "none": "nothing in the data runs here",
         "undecided": "the facts cannot decide"}


def to_json(result: SuggestResult) -> str:
    return json.dumps(result.to_dict(), indent=2) + "\n"


def _machine_line(machine: dict) -> str:
    parts = [PLATFORM_NAMES.get(machine.get("platform") or "", "platform not stated"),
             f"Python {machine['python']}" if machine.get("python") else "Python not stated"]
    if machine.get("amd_gpus") and machine.get("nvidia") != "gpus":
        names = sorted({f"{g['name'] or 'AMD GPU'} ({g['gfx'] or 'gfx not stated'})"
                        for g in machine["amd_gpus"]})
        parts.append(", ".join(names) + (f", ROCm {machine['rocm']}" if machine.get("rocm")
                                         else ", ROCm not stated"))
    elif machine.get("nvidia") == "gpus":
        names = sorted({g["name"] for g in machine.get("gpus", [])})
        parts.append(", ".join(names) + (f", driver {machine['driver']}" if machine.get("driver")
                                         else ", driver not stated"))
    elif machine.get("nvidia") == "none":
        parts.append("no NVIDIA GPU")
    else:
        parts.append("NVIDIA GPU not probed")
    return " · ".join(parts)


def to_text(result: SuggestResult, verbose: bool = False) -> str:
    read = result.online and any(s.data.startswith("releases as") for s in result.suggestions)
    data = (f"Data: releases from the package indexes; driver floors and arch lists from "
            f"rules/matrices as of {result.data_as_of or 'unknown'}" if read else
            f"Data: rules/matrices as of {result.data_as_of or 'unknown'} (no index could be "
            "read)" if result.online else
            f"Data: rules/matrices as of {result.data_as_of or 'unknown'} (no network used)")
    lines = [f"Machine: {_machine_line(result.machine)}", data,
             *(f"Note: {n}" for n in result.notes), ""]
    for s in result.suggestions:
        title = s.framework
        if s.version:
            title += f" {s.version}"
        if s.variant:
            title += f" ({s.variant})"
        head = "already installed; remove the stray GPU packages below" \
            if s.status == "installed" and s.remove else _HEAD[s.status]
        if head:
            title += f" — {head}"
        lines.append(title)
        if s.command:
            lines.append(f"  $ {s.command}")
        if s.remove_command:
            lines.append(f"  $ {s.remove_command}")
        for r in s.reasons[: None if verbose else 12]:
            mark = "" if r.confirmed else " [unconfirmed]"
            src = f"  <{r.source}>" if r.source and verbose else ""
            lines.append(f"  - {r.text}{mark}{src}")
        for a in s.alternatives:
            lines.append(f"  * {a.text}" + (f"\n      $ {a.command}" if a.command else ""))
        if s.data:
            lines.append(f"  (data: {s.data})")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
