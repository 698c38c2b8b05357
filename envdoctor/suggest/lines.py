"""One line per suggestion: what `check` fixes print where `envdoctor suggest` prints a whole
answer (the command, or why there is none and what to do instead).

``engine.knowledge.install`` (``install_line('torch')`` in a rule's fix) rebuilds a snapshot
from its declared reads with ``facts_of`` and prints ``line_of``; the engine calls down into
`suggest`, never the reverse. Always strings, so a fix never prints "unknown".
"""

from __future__ import annotations

from typing import Any

from envdoctor.facts import (
    CudaFacts,
    Distribution,
    EnvFacts,
    Facts,
    FrameworkFacts,
    HostFacts,
    JetsonFacts,
    NvidiaFacts,
    PackageFacts,
    ProbeInfo,
    RocmFacts,
    Status,
)


def facts_of(*, host_probe: ProbeInfo, os: str, arch: str, python: Any,
             nvidia_probe: ProbeInfo, driver: Any, gpus: Any, pci_devices: Any, nvml_error: str,
             cuda_probe: ProbeInfo, nvcc: Any, packages_probe: ProbeInfo,
             distributions: Any, frameworks_probe: ProbeInfo, torch: Any, tensorflow: Any,
             jax: Any, wsl: Any = None, rocm: Any = None, env_vars: Any = None,
             jetson_probe: Any = None, jetson_l4t: Any = None,
             jetson_jetpack: Any = None, jetson_soc: str = "", jetson_model: str = "",
             jetson_kernel: str = "", google_pci: Any = ()) -> Facts:
    """The part of a snapshot `suggest` reads, rebuilt from the values a knowledge function
    declared (``engine.knowledge._reads.MACHINE_READS``, all optional): a probe that was not
    read is unknown, so the planners say "undecided" rather than guess."""
    def probe(p: Any) -> ProbeInfo:
        return p if isinstance(p, ProbeInfo) else ProbeInfo(Status.UNKNOWN)
    return Facts(
        host=HostFacts(probe=probe(host_probe), os=os or "", arch=arch or "",
                       python_version=python, wsl=wsl,
                       google_pci_devices=tuple(google_pci or ())),
        nvidia=NvidiaFacts(probe=probe(nvidia_probe), driver_version=driver,
                           gpus=tuple(gpus or ()), pci_devices=pci_devices,
                           nvml_error=nvml_error or ""),
        cuda=CudaFacts(probe=probe(cuda_probe), nvcc_version=nvcc),
        packages=PackageFacts(probe=probe(packages_probe),
                              distributions=tuple(d for d in distributions or ()
                                                  if isinstance(d, Distribution))),
        frameworks=FrameworkFacts(probe=probe(frameworks_probe), torch=torch,
                                  tensorflow=tensorflow, jax=jax),
        rocm=rocm if isinstance(rocm, RocmFacts) else RocmFacts(),
        env=EnvFacts(vars=dict(env_vars) if isinstance(env_vars, dict) else {}),
        jetson=JetsonFacts(probe=probe(jetson_probe), l4t=jetson_l4t, jetpack=jetson_jetpack,
                           soc=jetson_soc or "", model=jetson_model or "",
                           kernel=jetson_kernel or ""))


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
    if s.status == "installed" and s.remove_command:
        return (f"{framework} {s.version} ({s.variant}) is the right install; remove the stray "
                f"GPU packages: {s.remove_command}")
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
