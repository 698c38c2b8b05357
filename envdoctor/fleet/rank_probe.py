"""What one rank sees: its GPU binding, its NCCL/gloo environment, and its own torch smoke.

These run in the rank process itself, because that is the process the job will run: the
launcher's CUDA_VISIBLE_DEVICES, the rank's PYTHONPATH and its environment are exactly what
the training script will get (a shell on the same node may see something else).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from envdoctor.bounded import env
from envdoctor.probes.envvars import looks_secret
from envdoctor.secrets import REDACTED

# Variables that must agree across ranks for collectives to form and perform alike.
RANK_ENV_PREFIXES = ("NCCL_", "TORCH_NCCL_", "GLOO_", "TORCH_DISTRIBUTED_", "UCX_", "FI_")
RANK_ENV_EXACT = frozenset({"OMP_NUM_THREADS", "CUDA_DEVICE_ORDER", "CUDA_DEVICE_MAX_CONNECTIONS"})
# set by envdoctor itself for --bench; never compared
OWN = frozenset({"NCCL_DEBUG_FILE"})


def rank_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables above, credentials replaced (an NCCL_ or FI_ value can hold a token)."""
    return {k: (REDACTED if looks_secret(k, v) else v[:500]) for k, v in sorted(environ.items())
            if (k.startswith(RANK_ENV_PREFIXES) or k in RANK_ENV_EXACT) and k not in OWN}


def _uuid(value: Any) -> str:
    text = str(value or "").strip()
    if text and not text.startswith(("GPU-", "MIG-")):
        text = "GPU-" + text
    return text


def binding(torch: Any, local_rank: int) -> dict[str, Any]:
    """The GPU this rank will use, chosen as training scripts do (``cuda:LOCAL_RANK``, or the
    only visible GPU when the launcher gives each rank one), with its UUID and PCI bus id."""
    out: dict[str, Any] = {
        "cuda_visible_devices": env("CUDA_VISIBLE_DEVICES"),
        "torch": str(torch.__version__), "torch_cuda": torch.version.cuda,
        "device": "cpu", "device_count": 0,
    }
    try:
        available = bool(torch.cuda.is_available())
    except Exception as exc:  # noqa: BLE001
        out["cuda_error"] = f"{type(exc).__name__}: {exc}"[:300]
        return out
    out["cuda_available"] = available
    if not available:
        return out
    try:
        count = torch.cuda.device_count()
        out["device_count"] = count
        index = local_rank if local_rank < count else 0 if count == 1 else None
        if index is None:
            out["device"] = None
            out["binding_error"] = (f"LOCAL_RANK {local_rank} but only {count} GPU(s) are "
                                    f"visible (CUDA_VISIBLE_DEVICES="
                                    f"{out['cuda_visible_devices']})")
            return out
        torch.cuda.set_device(index)
        props = torch.cuda.get_device_properties(index)
        out.update(device=f"cuda:{index}", current_device=int(torch.cuda.current_device()),
                   gpu_name=props.name, gpu_uuid=_uuid(getattr(props, "uuid", "")),
                   gpu_memory_mb=int(props.total_memory // 2**20))
        if hasattr(props, "pci_bus_id"):
            out["pci_bus_id"] = (f"{getattr(props, 'pci_domain_id', 0):08x}:"
                                 f"{props.pci_bus_id:02x}:{getattr(props, 'pci_device_id', 0):02x}"
                                 ".0")
        try:
            out["nccl"] = ".".join(str(x) for x in torch.cuda.nccl.version())
        except Exception:  # noqa: BLE001 - a build without NCCL
            pass
    except Exception as exc:  # noqa: BLE001 - the error is the binding's result
        out["binding_error"] = f"{type(exc).__name__}: {exc}"[:300]
    return out


def smoke(torch: Any, suite: str = "quick") -> dict[str, Any]:
    """The torch worker's facts and smoke steps, run here in the rank (not in a child)."""
    from envdoctor.workers import PROTOCOL
    from envdoctor.workers import _common as c
    from envdoctor.workers import torch as worker

    start = time.perf_counter()
    facts: dict[str, Any] = {**c.base_facts("torch"), "import_ok": True, "import_seconds": 0.0}
    device = "cpu"
    try:
        device = worker.collect(torch, facts) or "cpu"
    except Exception as exc:  # noqa: BLE001
        facts["gpu_error"] = facts.get("gpu_error") or f"{type(exc).__name__}: {exc}"
    steps = c.Suite(suite)
    try:
        worker.smoke(torch, steps, device, facts)
    except Exception as exc:  # noqa: BLE001 - a bug in a step list still answers
        steps.steps.append({"name": "suite", "status": "failed", "seconds": 0.0,
                            "detail": f"{type(exc).__name__}: {exc}"})
    facts["smoke"] = steps.result(facts.pop("device_label", None) or device)
    facts["loaded"] = c.loaded_libraries()
    return {"protocol": PROTOCOL, **facts, "seconds": round(time.perf_counter() - start, 3)}
