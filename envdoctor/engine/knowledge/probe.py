"""Probes that broke: what ran, how it failed, for the PROBE checks (rules/checks/probe).

A failed probe is one finding of its own, never "not installed": the checks that needed its
facts are unknown (the engine sees to that), and these functions say why.
"""

from __future__ import annotations

from envdoctor.engine.knowledge._reads import reads
from envdoctor.facts import ProbeInfo, Status

LABELS = {"host": "host", "nvidia": "NVIDIA", "cuda": "CUDA toolkit", "libraries": "CUDA library",
          "packages": "Python packages", "frameworks": "framework build", "env": "environment"}


def describe(info: ProbeInfo) -> list[str]:
    """One line per failure a section records: the whole probe, or single fields."""
    out = []
    ran = f" (ran: {'; '.join(info.ran)})" if info.ran else ""
    if info.status is Status.ERROR:
        out.append((info.reason or "it failed without a reason") + ran)
    for path, why in sorted(info.failed.items()):
        out.append(f"{path}: {why}")
    return out


_ALL = {name: f"{name}.probe" for name in LABELS}


@reads(**_ALL)
def probe_failure(section: str, **probes: ProbeInfo) -> str | None:
    """``probe_failure('nvidia')``: how that probe failed, in one line, or None when it did not."""
    info = probes.get(section)
    lines = describe(info) if info is not None else []
    return "; ".join(lines) if lines else None


@reads(**_ALL)
def probe_failures(**probes: ProbeInfo) -> list[str]:
    """Every failed probe except NVIDIA's (PROBE001 has that one), as ``"CUDA toolkit probe:
    why"``."""
    return [f"{LABELS[name]} probe: {line}" for name, info in probes.items() if name != "nvidia"
            for line in describe(info)]
