"""Cloud TPU hosts: JAX (through libtpu) or torch_xla train on TPU chips there, never CUDA.

A TPU is an accelerator a training job runs on, so ``--expect gpu`` on a TPU VM must not say
"no GPU, training falls back to the CPU" nor hand out a CUDA install. The evidence, strongest
first: a framework worker listed a TPU device (observed, ``check`` without ``--static``); TPU
chips on the PCI bus (Google's vendor id with a device id of rules/matrices/tpu.toml, as JAX's
own hardware_utils reads /sys/bus/pci); else the TPU runtime's own environment
(``TPU_ACCELERATOR_TYPE``, ``TPU_VISIBLE_CHIPS``, ``PJRT_DEVICE=TPU``, as Cloud TPU VMs and GKE
TPU pods set it) together with libtpu installed or a TPU device node (``/dev/accel*`` of v2-v4,
``/dev/vfio/N`` of v5e and later). libtpu alone is no evidence (``pip install "jax[tpu]"``
installs it on any machine), nor is a vfio node alone (any vfio-pci device has one).
"""

from __future__ import annotations

import re
from typing import Any

from envdoctor.engine.knowledge._reads import Read, optional, reads
from envdoctor.facts import GooglePciDevice, JaxBuild
from envdoctor.matrices.tpu import describe_chips, jax_default_platform, tpu_platform

TPU_PLUGINS = ("libtpu", "libtpu-nightly")
TPU_RUNTIME_VARS = ("TPU_ACCELERATOR_TYPE", "TPU_VISIBLE_CHIPS")
# jax/_src/cloud_tpu_init.py get_tpu_library_path(): a libtpu.so named here wins over the
# libtpu package
LIBRARY_VAR = "TPU_LIBRARY_PATH"
_TPU_NODE = re.compile(r"/dev/(?:accel[0-9]+|vfio/[0-9]+)")


def _tpu_seen(live: dict[str, Any] | None) -> bool:
    return any(d.kind == "tpu" for run in (live or {}).values()
               for d in getattr(run, "devices", ()))


def _tpu_evidence(live: dict[str, Any] | None, vars: dict[str, str], jax: JaxBuild | None,
                  pci: tuple[GooglePciDevice, ...], nodes: tuple[str, ...]) -> str:
    if _tpu_seen(live):
        return "a framework's worker listed a TPU device"
    chips = describe_chips(pci)
    if chips:
        return chips
    stated = next((f"{n}={vars[n].strip()}" for n in TPU_RUNTIME_VARS
                   if vars.get(n, "").strip()), "")
    if not stated and vars.get("PJRT_DEVICE", "").strip().upper() == "TPU":
        stated = "PJRT_DEVICE=TPU"
    if not stated:
        return ""
    if jax is not None and any(p.name in TPU_PLUGINS for p in jax.plugins):
        return stated
    node = next((n for n in nodes if _TPU_NODE.fullmatch(n)), None)
    return f"{stated} and {node}" if node else ""


# the variables a paste shows are some of the environment: each one read is positive evidence
# (a TPU runtime variable set, JAX_PLATFORMS naming another platform), never an absence
_SHOWN_VARS = Read("env.vars", default={}, partial_ok=True)
_MACHINE_READS = dict(live=optional("live"), vars=_SHOWN_VARS,
                      jax=optional("frameworks.jax"),
                      pci=optional("host.google_pci_devices", ()),
                      nodes=optional("host.gpu_device_nodes", ()))


@reads(**_MACHINE_READS)
def tpu_machine(*, live: dict[str, Any] | None, vars: dict[str, str], jax: JaxBuild | None,
                pci: tuple[GooglePciDevice, ...], nodes: tuple[str, ...]) -> bool:
    """``tpu_machine()``: a framework saw a TPU device here, TPU chips sit on the PCI bus
    (rules/matrices/tpu.toml), or the TPU runtime's environment names the chips beside libtpu or
    a TPU device node; False otherwise (nothing is inferred from libtpu alone)."""
    return bool(_tpu_evidence(live, vars, jax, pci, nodes))


@reads(**_MACHINE_READS)
def tpu_host_evidence(*, live: dict[str, Any] | None, vars: dict[str, str],
                      jax: JaxBuild | None, pci: tuple[GooglePciDevice, ...],
                      nodes: tuple[str, ...]) -> str | None:
    """What makes this a Cloud TPU host, for a finding's text ("4 TPU v5e chips on the PCI bus
    (1ae0:0063)", "TPU_ACCELERATOR_TYPE=v5litepod-4 and /dev/vfio/0"); None where
    ``tpu_machine()`` is False."""
    return _tpu_evidence(live, vars, jax, pci, nodes) or None


@reads(**_MACHINE_READS, plugins=optional("frameworks.jax.plugins", None))
def tpu_jax_without_libtpu(*, live: dict[str, Any] | None, vars: dict[str, str],
                           jax: JaxBuild | None, pci: tuple[GooglePciDevice, ...],
                           nodes: tuple[str, ...], plugins: Any) -> str | None:
    """``"jax 0.10.2 without libtpu"`` on a Cloud TPU host (``tpu_machine()``) whose installed
    JAX has no TPU runtime (neither libtpu nor libtpu-nightly, and no TPU_LIBRARY_PATH naming a
    libtpu.so), so JAX falls back to the CPU; None when JAX is not installed, has libtpu, a
    worker saw the TPU anyway, or the host is no TPU host. The plugin list must have been observed (a pasted report that shows none
    decides nothing)."""
    if jax is None or plugins is None or _tpu_seen(live) \
            or not _tpu_evidence(live, vars, jax, pci, nodes):
        return None
    if vars.get(LIBRARY_VAR, "").strip():  # jax loads that libtpu.so, no distribution needed
        return None
    if any(getattr(p, "name", "") in TPU_PLUGINS for p in plugins):
        return None
    return f"jax {jax.version or '?'} without libtpu"


@reads(vars=_SHOWN_VARS, jax=optional("frameworks.jax"))
def jax_platform_off_tpu(*, vars: dict[str, str], jax: JaxBuild | None) -> str | None:
    """``"JAX_PLATFORMS=cpu"``: the variable that makes a platform other than the TPU JAX's
    default (JAX_PLATFORM_NAME when set, else the first entry of JAX_PLATFORMS; tpu.toml
    ``[jax_platforms]``), as set; None when JAX is not installed, neither is set, or the TPU
    is the default. Whether this is a TPU host is ``tpu_machine()``'s question."""
    if jax is None:
        return None
    chosen = jax_default_platform(vars)
    if chosen is None or chosen[1] == tpu_platform():
        return None
    return chosen[0]
