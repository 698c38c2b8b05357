"""Knowledge functions that let `check` fixes print the install `suggest` would give.

    fix = "{install}"   with   evidence = { install = "install_line('torch')" }

``install_line(framework)``: the command for this machine (GPU, driver, Python, platform), or,
when nothing in the data runs here or the facts cannot decide, a pointer to
``envdoctor suggest FRAMEWORK`` with the deciding reason. ``install_why(framework)``: one line
on what decided it. ``install_lines()``: one line per installed torch/tensorflow/jax.
Always strings, so a fix never prints "unknown".

The functions declare their reads (``@reads``); ``envdoctor.engine.knowledge.REGISTRY`` maps
their names to ``envdoctor.engine.knowledge.install``, which re-exports them. Every read is
optional: `suggest` itself says "undecided" on missing facts.
"""

from __future__ import annotations

from typing import Any

from envdoctor.engine.knowledge._reads import MACHINE_READS, reads
from envdoctor.facts import (
    CudaFacts,
    Distribution,
    Facts,
    FrameworkFacts,
    HostFacts,
    NvidiaFacts,
    PackageFacts,
    ProbeInfo,
    Status,
)

# Everything the install planner reads (``MACHINE_READS``, all optional), rebuilt into a
# Facts by ``facts_of``; `check`'s torch fixes (engine.knowledge.torch) declare the same reads.
_READS = MACHINE_READS


def facts_of(*, host_probe: ProbeInfo, os: str, arch: str, python: Any,
             nvidia_probe: ProbeInfo, driver: Any, gpus: Any, pci_devices: Any, nvml_error: str,
             cuda_probe: ProbeInfo, nvcc: Any, packages_probe: ProbeInfo,
             distributions: Any, frameworks_probe: ProbeInfo, torch: Any, tensorflow: Any,
             jax: Any) -> Facts:
    """The part of a snapshot `suggest` reads, rebuilt from declared reads."""
    def probe(p: Any) -> ProbeInfo:
        return p if isinstance(p, ProbeInfo) else ProbeInfo(Status.UNKNOWN)
    return Facts(
        host=HostFacts(probe=probe(host_probe), os=os or "", arch=arch or "",
                       python_version=python),
        nvidia=NvidiaFacts(probe=probe(nvidia_probe), driver_version=driver,
                           gpus=tuple(gpus or ()), pci_devices=pci_devices,
                           nvml_error=nvml_error or ""),
        cuda=CudaFacts(probe=probe(cuda_probe), nvcc_version=nvcc),
        packages=PackageFacts(probe=probe(packages_probe),
                              distributions=tuple(d for d in distributions or ()
                                                  if isinstance(d, Distribution))),
        frameworks=FrameworkFacts(probe=probe(frameworks_probe), torch=torch,
                                  tensorflow=tensorflow, jax=jax))


def _suggestion(facts: Facts, framework: str, keep_installed: bool = False) -> Any:
    from envdoctor.suggest import suggest
    return suggest(facts, [framework], keep_installed=keep_installed).suggestions[0]


def command_of(facts: Facts, framework: str, keep_installed: bool = False) -> str | None:
    """The command of a plain "ok" suggestion; None when there is none to print as is."""
    s = _suggestion(facts, framework, keep_installed)
    return s.command if s.status == "ok" else None


def line_of(facts: Facts, framework: str, keep_installed: bool = False) -> str:
    """The command line `envdoctor suggest FRAMEWORK` gives (``keep_installed``: the one
    `check` fixes print), or one line on why there is none."""
    s = _suggestion(facts, framework, keep_installed)
    if s.command:
        return s.command
    if s.status == "installed":
        return (f"{framework} {s.version} ({s.variant}) is already the right install: "
                "nothing to change")
    if s.status == "none":
        why = next((r.text for r in s.reasons if "predates" in r.text), None)
        way = next((a for a in s.alternatives if a.price and a.price.startswith("driver")), None)
        if why and way:
            return f"upgrade the NVIDIA driver to {way.price[len('driver '):]} first: {why}"
    first = next((r.text for r in s.reasons if r.constraint not in ("platform", "python")),
                 s.reasons[0].text if s.reasons else "")
    return f"envdoctor suggest {framework}   ({first})"


def why_of(facts: Facts, framework: str) -> str:
    s = _suggestion(facts, framework)
    if not s.command:
        return f"no {framework} install in the data fits this machine as it was observed"
    blocked = sorted({r.constraint for r in s.reasons if "needs" in r.text or "no code" in r.text})
    what = f"{framework} {s.version} {s.variant}".strip()
    tail = f"; newer builds are ruled out by: {', '.join(blocked)}" if blocked else ""
    return f"{what} is the newest build for this GPU, driver and Python{tail}"


def lines_of(facts: Facts) -> str:
    fw = facts.frameworks
    names = [n for n, b in (("torch", fw.torch), ("tensorflow", fw.tensorflow),
                            ("jax", fw.jax)) if b is not None]
    return "\n".join(f"{n}: {line_of(facts, n)}" for n in names or ["torch"])


@reads(**_READS)
def install_line(framework: str, **facts: Any) -> str:
    """``install_line('torch')``: the install command `envdoctor suggest torch` gives here."""
    return line_of(facts_of(**facts), str(framework))


@reads(**_READS)
def kept_install_line(framework: str, **facts: Any) -> str:
    """``kept_install_line('jax')``: the install `envdoctor suggest` gives in keep-installed
    mode (the installed release realigned, when it runs here), for fixes of the installed
    packages."""
    return line_of(facts_of(**facts), str(framework), keep_installed=True)


@reads(**_READS)
def install_why(framework: str, **facts: Any) -> str:
    """``install_why('torch')``: one line on which constraints decided that command."""
    return why_of(facts_of(**facts), str(framework))


@reads(**_READS)
def install_lines(**facts: Any) -> str:
    """``install_lines()``: "torch: <command>" for each installed torch / tensorflow / jax."""
    return lines_of(facts_of(**facts))

