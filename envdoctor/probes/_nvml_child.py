"""NVML queries, run in a child process so a crashing or hanging libnvidia-ml cannot take
envdoctor down: a segfault in ``nvmlInit`` becomes a failed probe, not exit 139.

Standalone on purpose (no envdoctor imports): the parent starts it as
``python -I -S -c <this source> <folder of pynvml>`` and reads one JSON object from stdout.
Before each NVML call the child writes ``step <name>`` to stderr, so when it dies or hangs the
parent can say where. ``collect(nv)`` is also what tests call with a fake ``pynvml``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

GPU_QUERIES = (
    ("name", "nvmlDeviceGetName", ()), ("uuid", "nvmlDeviceGetUUID", ()),
    ("cc", "nvmlDeviceGetCudaComputeCapability", ()), ("mig", "nvmlDeviceGetMigMode", ()),
    ("persistence", "nvmlDeviceGetPersistenceMode", ()),
    ("temperature", "nvmlDeviceGetTemperature", (0,)),
    ("power", "nvmlDeviceGetPowerUsage", ()), ("limit", "nvmlDeviceGetEnforcedPowerLimit", ()),
    ("reasons", "nvmlDeviceGetCurrentClocksThrottleReasons", ()),
    ("ecc", "nvmlDeviceGetTotalEccErrors", (1, 0)),  # uncorrected, volatile
    ("pending", "nvmlDeviceGetRetiredPagesPendingStatus", ()),
    ("pcie_gen", "nvmlDeviceGetCurrPcieLinkGeneration", ()),
    ("pcie_gen_max", "nvmlDeviceGetMaxPcieLinkGeneration", ()),
    ("pcie_width", "nvmlDeviceGetCurrPcieLinkWidth", ()),
    ("pcie_width_max", "nvmlDeviceGetMaxPcieLinkWidth", ()),
)
MAX_GPUS = 64


def _step(name: str) -> None:
    try:
        sys.stderr.write(f"step {name}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


def _s(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


# NVML errors that say the GPU itself is unwell (NVML_ERROR_GPU_IS_LOST, _RESET_REQUIRED,
# _UNKNOWN), as pynvml words them; any other error of an optional query means "not supported".
UNWELL = ("gpu is lost", "gpu requires reset", "gpu requires restart", "unknown error")
UNWELL_TYPES = ("NVMLError_GpuIsLost", "NVMLError_ResetRequired", "NVMLError_Unknown")
_unwell: list[str] = []


def _call(nv: Any, name: str, *args: Any) -> Any:
    """One optional query; unsupported fields (NVML_ERROR_NOT_SUPPORTED …) become None, and
    an error saying the GPU is lost or needs a reset is kept for the answer."""
    _step(name)
    try:
        return getattr(nv, name)(*args)
    except Exception as exc:  # noqa: BLE001
        text = str(exc).strip()
        if text.lower() in UNWELL or type(exc).__name__ in UNWELL_TYPES:
            _unwell.append(f"{name.removeprefix('nvmlDevice')}: {text}")
        return None


def _plain(value: Any) -> Any:
    """NVML answers as JSON: bytes as text, structs as the fields we read."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, bytes):
        return _s(value)
    out = {}
    for key in ("total", "used", "pid", "usedGpuMemory"):
        v = getattr(value, key, None)
        if isinstance(v, int):
            out[key] = v
    if out:
        return out
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return None


def collect(nv: Any) -> dict[str, Any]:
    """Everything the probe reads from NVML, as JSON-ready data; raises what nvmlInit raises."""
    _step("nvmlInit")
    nv.nvmlInit()
    try:
        _step("nvmlSystemGetDriverVersion")
        driver = _s(nv.nvmlSystemGetDriverVersion())
        cuda = _call(nv, "nvmlSystemGetCudaDriverVersion_v2")
        if cuda is None:
            cuda = _call(nv, "nvmlSystemGetCudaDriverVersion")
        _step("nvmlDeviceGetCount")
        count = int(nv.nvmlDeviceGetCount())
        gpus = []
        lost = []  # GPUs NVML counts but cannot open (fallen off the bus, needs a reset)
        for i in range(min(max(count, 0), MAX_GPUS)):
            _step(f"nvmlDeviceGetHandleByIndex({i})")
            try:
                h = nv.nvmlDeviceGetHandleByIndex(i)
            except Exception as exc:  # noqa: BLE001
                lost.append({"index": i, "error": (str(exc) or type(exc).__name__).strip()[:200]})
                continue
            gpu: dict[str, Any] = {"index": i}
            del _unwell[:]
            for key, fn, args in GPU_QUERIES:
                gpu[key] = _plain(_call(nv, fn, h, *args))
            gpu["memory"] = _plain(_call(nv, "nvmlDeviceGetMemoryInfo", h))
            procs = _call(nv, "nvmlDeviceGetComputeRunningProcesses", h) or []
            gpu["processes"] = [
                {**_plain(p), "name": _s(_call(nv, "nvmlSystemGetProcessName", p.pid) or "")}
                for p in list(procs)[:256]]
            gpu["unwell"] = sorted(set(_unwell))[:8]
            gpus.append(gpu)
    finally:
        _call(nv, "nvmlShutdown")
    return {"ok": True, "driver": driver, "cuda": cuda if isinstance(cuda, int) else None,
            "count": count, "gpus": gpus, "lost": lost}


def main(argv: list[str]) -> int:
    if len(argv) > 1 and argv[1]:
        sys.path.insert(0, argv[1])
    try:
        import pynvml as nv
    except Exception as exc:  # noqa: BLE001
        answer: dict[str, Any] = {"ok": False, "stage": "import",
                                  "error": f"pynvml unavailable: {exc}"}
    else:
        try:
            answer = collect(nv)
        except Exception as exc:  # noqa: BLE001
            answer = {"ok": False, "stage": "query",
                      "error": (str(exc) or type(exc).__name__).strip()}
    sys.stdout.write(json.dumps(answer))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
