"""Cloud TPU hosts: JAX (through libtpu) or torch_xla train on TPU chips there, never CUDA.

A TPU is an accelerator a training job runs on, so ``--expect gpu`` on a TPU VM must not say
"no GPU, training falls back to the CPU" nor hand out a CUDA install. The evidence, strongest
first: a framework worker listed a TPU device (observed, ``check`` without ``--static``); else
libtpu installed and the TPU runtime's own environment (``TPU_ACCELERATOR_TYPE``,
``TPU_VISIBLE_CHIPS``, ``PJRT_DEVICE=TPU``), as Cloud TPU VMs and GKE TPU pods set it. libtpu
alone is no evidence: ``pip install "jax[tpu]"`` installs it on any machine.
"""

from __future__ import annotations

from typing import Any

from envdoctor.engine.knowledge._reads import optional, reads
from envdoctor.facts import JaxBuild

TPU_PLUGINS = ("libtpu", "libtpu-nightly")
TPU_RUNTIME_VARS = ("TPU_ACCELERATOR_TYPE", "TPU_VISIBLE_CHIPS")


def _tpu_seen(live: dict[str, Any] | None) -> bool:
    return any(d.kind == "tpu" for run in (live or {}).values()
               for d in getattr(run, "devices", ()))


@reads(live=optional("live"), vars=optional("env.vars", {}), jax=optional("frameworks.jax"))
def tpu_machine(*, live: dict[str, Any] | None, vars: dict[str, str],
                jax: JaxBuild | None) -> bool:
    """``tpu_machine()``: a framework saw a TPU device here, or libtpu is installed and the TPU
    runtime's environment names the chips; False otherwise (nothing is inferred from libtpu
    alone)."""
    if _tpu_seen(live):
        return True
    libtpu = jax is not None and any(p.name in TPU_PLUGINS for p in jax.plugins)
    stated = any(vars.get(name, "").strip() for name in TPU_RUNTIME_VARS) or \
        vars.get("PJRT_DEVICE", "").strip().upper() == "TPU"
    return libtpu and stated
