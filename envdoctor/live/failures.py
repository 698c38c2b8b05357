"""Probe failures read by the error signatures: a failure whose text names a known state is
that diagnosis, not a generic "the probe failed".

nvidia-smi's "Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost" and
NVML's "Driver/library version mismatch" are what the driver says about itself; the one
signature engine (``envdoctor explain``) already knows those texts, so the probes' failure
lines go through it once, before the checks, and the checks read the result
(``ProbeInfo.diagnoses``) like any other fact.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from envdoctor.facts import SECTIONS, Facts, ProbeInfo, Status
from envdoctor.live.parse import diagnoses_for


def failure_text(info: ProbeInfo, extra: str = "") -> str:
    """What a probe said when it failed: its reason when the whole probe failed, every
    failed field's why, and ``extra`` (a section's own error field, NVML's error string)."""
    lines = [info.reason] if info.status is Status.ERROR and info.reason else []
    lines += [why for _, why in sorted(info.failed.items())]
    if extra and lines:
        lines.append(extra)
    return "\n".join(line for line in lines if line.strip())


def with_probe_diagnoses(facts: Facts) -> Facts:
    """``facts`` with each failed probe's text diagnosed (high-confidence environment causes
    only; a notice is no cause). Sections that did not fail, or whose text names nothing
    known, are left as they are, so a healthy machine costs nothing here."""
    changed: dict[str, Any] = {}
    # where the probes ran is part of what their failure means: NVML's "Unknown Error" inside
    # a container is a lost device cgroup, on a bare host something else
    container = getattr(facts.host, "container", "") or ""
    where = f"(the probe ran inside a {container} container)" if container else ""
    for name in SECTIONS:
        section: Any = getattr(facts, name)
        info = section.probe
        if not isinstance(info, ProbeInfo) or info.diagnoses:
            continue
        nvml = getattr(section, "nvml_error", "") or ""
        text = failure_text(info, f"NVML: {nvml}" if nvml else "")
        if not text:
            continue
        text = f"{text}\n{where}" if where else text
        found = diagnoses_for(text, problems_only=True)
        if found:
            changed[name] = replace(section, probe=replace(info, diagnoses=found))
    return facts.with_sections(changed) if changed else facts
