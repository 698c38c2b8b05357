"""Probes that broke: what ran, how it failed, for the PROBE checks (rules/checks/probe).

A failed probe is one finding of its own, never "not installed": the checks that needed its
facts are unknown (the engine sees to that), and these functions say why.
"""

from __future__ import annotations

from envdoctor.engine.knowledge._reads import reads
from envdoctor.facts import LiveDiagnosis, ProbeInfo, Status

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


@reads(**_ALL)
def probe_diagnoses(excluded: object = (), **probes: ProbeInfo) -> list[str]:
    """What the error signatures recognised in the probes' failure texts, as ``"NVIDIA probe:
    <code>: <title>"``, leaving out the codes listed (those have a check of their own, as the
    NVML version mismatch has DRV003)."""
    skip = set(excluded or ())  # type: ignore[call-overload]
    return [f"{LABELS[name]} probe: {d.code}: {d.title}" for name, info in probes.items()
            for d in info.diagnoses if d.code not in skip]



def _first(excluded: object, probes: dict[str, ProbeInfo]) -> LiveDiagnosis | None:
    skip = set(excluded or ())  # type: ignore[call-overload]
    return next((d for info in probes.values() for d in info.diagnoses if d.code not in skip),
                None)


@reads(**_ALL)
def probe_diagnosis_title(excluded: object = (), **probes: ProbeInfo) -> str:
    """The title of the first recognised probe failure (see ``probe_diagnoses``)."""
    first = _first(excluded, probes)
    return first.title if first else ""


@reads(**_ALL)
def probe_diagnosis_fix(excluded: object = (), **probes: ProbeInfo) -> str:
    """The fix of the first recognised probe failure (see ``probe_diagnoses``)."""
    first = _first(excluded, probes)
    return " ".join(first.fix.split()) if first else ""


@reads(**_ALL)
def probe_diagnosed(code: str, **probes: ProbeInfo) -> bool:
    """Did the error signature ``code`` recognise some probe's failure text?"""
    return any(d.code == code for info in probes.values() for d in info.diagnoses)


@reads(**_ALL)
def probe_said(section: str, **probes: ProbeInfo) -> str:
    """What that probe's failure said, without what it ran (``probe_failure`` has both)."""
    info = probes.get(section)
    if info is None:
        return ""
    lines = [info.reason] if info.status is Status.ERROR and info.reason else []
    return "; ".join(lines + [why for _, why in sorted(info.failed.items())])
