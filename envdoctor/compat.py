"""Knowledge functions over the compatibility matrices in ``rules/matrices``.

Each is registered by name in ``envdoctor.names.FUNCTIONS`` and called from rule expressions,
e.g. ``when = "nvidia.driver_version < min_driver(torch.cuda)"``. They return ``None`` when the
matrices do not know the answer: a rule then does not fire (a wrong verdict is worse than none).
"""

from __future__ import annotations

from typing import Any

from envdoctor.facts import Facts
from envdoctor.names import register


def _constant(value: Any):
    return lambda facts, intent: value


@register("no_gpu_reason")
def _no_gpu_reason(facts: Facts, intent: str) -> Any:
    """Why no GPU can be used here, in one sentence, or None when one can."""
    def reason() -> str | None:
        nv = facts.nvidia
        if not nv.probe.status.known:
            return "the NVIDIA probe did not answer: " + (nv.probe.reason or "unknown")
        if nv.gpus:
            visible = facts.env.vars.get("CUDA_VISIBLE_DEVICES")
            if visible is not None and visible.strip() in ("", "-1", "none", "NoDevFiles"):
                return f"CUDA_VISIBLE_DEVICES={visible!r} hides every GPU"
            return None
        if nv.nvml_error and "mismatch" in nv.nvml_error.lower():
            return f"the NVIDIA driver cannot be used: {nv.nvml_error}"
        if nv.pci_devices:
            return (f"{nv.pci_devices} NVIDIA GPU(s) are on the PCI bus but no NVIDIA driver "
                    "is loaded")
        if nv.driver_version is not None:
            return f"driver {nv.driver_version} is loaded but reports no GPU"
        return "no NVIDIA GPU and no NVIDIA driver were found on this machine"
    return reason
