"""The node exporter textfile-collector format (``--format prometheus``).

Write it with ``-o DIR/envdoctor.prom`` into the folder given to node exporter's
``--collector.textfile.directory``: the sink writes a temp file in that folder and renames it
(the collector reads only ``*.prom``, and never half a file). Every family has HELP and TYPE
lines and a fixed label set; every label value goes through ``sanitise.prom_label`` (unsafe
characters spelled out, then ``\\`` and ``"`` escaped as the text format requires), after the
report's redaction. A series appears once: two findings with one code and severity are one
series whose value is their number.
https://prometheus.io/docs/instrumenting/exposition_formats/
https://github.com/prometheus/node_exporter#textfile-collector
"""

from __future__ import annotations

import time
from collections import Counter

from envdoctor.facts import Status
from envdoctor.outputs.report import Report
from envdoctor.outputs.sanitise import prom_label

FRAMEWORKS = ("torch", "tensorflow", "jax", "jaxlib", "keras", "paddlepaddle", "mindspore",
              "mxnet")
SECTIONS = ("host", "nvidia", "cuda", "libraries", "packages", "frameworks", "env")


def _labels(pairs: dict[str, object]) -> str:
    if not pairs:
        return ""
    return "{" + ",".join(f'{k}="{prom_label(v)}"' for k, v in pairs.items()) + "}"


class _Families:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def family(self, name: str, help_text: str,
               samples: list[tuple[dict[str, object], float | int]]) -> None:
        if not samples:
            return
        self.lines += [f"# HELP envdoctor_{name} {help_text}",
                       f"# TYPE envdoctor_{name} gauge"]
        self.lines += [f"envdoctor_{name}{_labels(labels)} {_number(value)}"
                       for labels, value in samples]


def _number(value: float | int) -> str:
    return str(value) if isinstance(value, int) else repr(float(value))


def render(report: Report, color: bool = False) -> str:
    from envdoctor import __version__
    facts = report.facts
    out = _Families()
    out.family("check_ok", "1 when the check passed at its fail-on severity, else 0.",
               [({"fail_on": report.fail_on, "intent": report.intent},
                 int(report.exit_code == 0))])
    counts = report.counts()
    out.family("findings", "Findings by severity.",
               [({"severity": sev}, counts[sev]) for sev in ("error", "warning", "info")])
    per_code = Counter((f.code, f.id, f.severity.value, f.area) for f in report.findings)
    out.family("finding", "One series per finding code present (the value counts them).",
               [({"code": c, "id": i, "severity": s, "area": a}, n)
                for (c, i, s, a), n in sorted(per_code.items())])
    states = Counter(r.state for r in report.results)
    out.family("checks", "Checks evaluated, by outcome.",
               [({"state": st}, n) for st, n in sorted(states.items())])
    out.family("probe_ok", "1 when the probe of a facts section answered (ok or not found), "
               "0 when it failed, was skipped or never ran.",
               [({"section": s, "status": getattr(facts, s).probe.status.value},
                 int(getattr(facts, s).probe.status.known)) for s in SECTIONS])
    nvidia = facts.nvidia
    if nvidia.probe.status in (Status.OK, Status.NOT_FOUND):
        out.family("gpu_count", "NVIDIA GPUs the driver reports.", [({}, nvidia.gpu_count)])
    if nvidia.driver_version is not None:
        out.family("nvidia_driver_info", "The NVIDIA driver and the highest CUDA it supports.",
                   [({"driver_version": nvidia.driver_version,
                      "cuda_version": nvidia.cuda_driver_version or ""}, 1)])
    out.family("cuda_toolkit_info", "A CUDA toolkit installed on the machine.",
               [({"version": v}, 1) for v in facts.cuda.versions])
    installed = [(name, facts.packages.get(name)) for name in FRAMEWORKS]
    out.family("framework_info", "An installed deep-learning framework distribution.",
               [({"name": name, "version": d.version or ""}, 1)
                for name, d in installed if d is not None])
    out.family("info", "The envdoctor that wrote this file.",
               [({"version": __version__}, 1)])
    out.family("check_timestamp_seconds", "When this check was rendered (Unix time); alert "
               "when it grows stale.", [({}, round(time.time(), 3))])
    return "\n".join(out.lines) + "\n"
