"""NVIDIA driver and GPUs: NVML first, then ``nvidia-smi``, then ``/proc/driver/nvidia/version``.

Also counts NVIDIA devices on the PCI bus (``/sys/bus/pci``), which is how we tell "no NVIDIA
GPU here" from "a GPU is here but no driver is loaded". ``ProbeInfo.source`` names the source
that answered. The parsers are pure functions so tests feed them recorded real outputs.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from envdoctor import runner
from envdoctor.facts import Gpu, GpuProcess, NvidiaFacts, Status
from envdoctor.probes._base import Trail

SECTION = "nvidia"
SMI_TIMEOUT = 10.0

# NVML clock-event ("throttle") reason bits; idle and the application-clock setting are normal.
THROTTLE_BITS = {
    0x4: "sw_power_cap", 0x8: "hw_slowdown", 0x10: "sync_boost", 0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown", 0x80: "hw_power_brake_slowdown",
}

QUERY_FIELDS = ("index,name,uuid,driver_version,compute_cap,memory.total,memory.used,"
                "temperature.gpu,power.draw,power.limit,pcie.link.gen.current,pcie.link.gen.max,"
                "pcie.link.width.current,pcie.link.width.max,mig.mode.current,persistence_mode")
QUERY_FIELDS_MINIMAL = "index,name,uuid,driver_version,memory.total,memory.used"


def probe(root: Path = Path("/")) -> NvidiaFacts:
    trail = Trail()
    pci = count_pci_devices(root / "sys/bus/pci/devices")
    kernel_module = parse_proc_version(trail.read(root / "proc/driver/nvidia/version") or "")

    facts, nvml_error = _from_nvml(trail)
    if facts is None:
        facts, smi_error = _from_smi(trail)
        if facts is not None and nvml_error and not facts.nvml_error:
            facts = replace(facts, nvml_error=nvml_error)
        if facts is None:
            nvml_error = smi_error or nvml_error
    if facts is None and kernel_module is not None:
        facts = NvidiaFacts(driver_version=kernel_module,
                            probe=trail.info(Status.OK, "only the kernel module answered",
                                             "procfs"))
    if facts is None:
        reason = "no NVIDIA driver found" + (f" ({nvml_error})" if nvml_error else "")
        return NvidiaFacts(pci_devices=pci, nvml_error=nvml_error,
                           probe=trail.info(Status.NOT_FOUND, reason))
    return replace(facts, pci_devices=pci, kernel_module_version=kernel_module,
                   probe=replace(facts.probe, ran=tuple(trail.ran)))


# --------------------------------------------------------------------------- PCI and /proc
def count_pci_devices(devices: Path) -> int | None:
    """NVIDIA (vendor 0x10de) display or 3D controllers (class 0x03xxxx) on the PCI bus."""
    try:
        entries = list(devices.iterdir())
    except OSError:
        return None
    count = 0
    for dev in entries:
        try:
            vendor = (dev / "vendor").read_text().strip().lower()
            klass = (dev / "class").read_text().strip().lower()
        except OSError:
            continue
        if vendor == "0x10de" and klass.startswith("0x03"):
            count += 1
    return count


def parse_proc_version(text: str) -> Version | None:
    """``NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 …``."""
    m = re.search(r"Kernel Module(?:\s+for\s+\w+)?\s+(\d+\.\d+(?:\.\d+)?)", text)
    return _v(m.group(1)) if m else None


def _v(text: str | None) -> Version | None:
    if not text:
        return None
    try:
        return Version(text.strip())
    except InvalidVersion:
        return None


# --------------------------------------------------------------------------- NVML
def _load_nvml() -> Any:
    import pynvml  # nvidia-ml-py; loads libnvidia-ml.so lazily at nvmlInit
    return pynvml


def _from_nvml(trail: Trail) -> tuple[NvidiaFacts | None, str]:
    trail.ran.append("nvml: nvmlInit")
    try:
        nv = _load_nvml()
    except Exception as exc:
        return None, f"pynvml unavailable: {exc}"
    try:
        nv.nvmlInit()
    except Exception as exc:
        return None, _nvml_message(exc)
    try:
        driver = _v(_s(nv.nvmlSystemGetDriverVersion()))
        cuda = _call(lambda: nv.nvmlSystemGetCudaDriverVersion_v2())
        if cuda is None:
            cuda = _call(lambda: nv.nvmlSystemGetCudaDriverVersion())
        count = nv.nvmlDeviceGetCount()
        gpus = tuple(_nvml_gpu(nv, i) for i in range(count))
    except Exception as exc:
        return None, _nvml_message(exc)
    finally:
        _call(nv.nvmlShutdown)
    return NvidiaFacts(driver_version=driver, cuda_driver_version=cuda_int_to_version(cuda),
                       gpus=gpus, probe=trail.info(Status.OK, source="nvml")), ""


def _nvml_message(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return text.strip()


def _s(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _call(fn: Any) -> Any:
    """One NVML query; unsupported fields (NVML_ERROR_NOT_SUPPORTED …) become None."""
    try:
        return fn()
    except Exception:
        return None


def cuda_int_to_version(value: int | None) -> Version | None:
    """NVML encodes CUDA 12.4 as 12040."""
    if not value:
        return None
    return Version(f"{value // 1000}.{(value % 1000) // 10}")


def _nvml_gpu(nv: Any, index: int) -> Gpu:
    h = nv.nvmlDeviceGetHandleByIndex(index)
    cc = _call(lambda: nv.nvmlDeviceGetCudaComputeCapability(h))
    mem = _call(lambda: nv.nvmlDeviceGetMemoryInfo(h))
    mig = _call(lambda: nv.nvmlDeviceGetMigMode(h))
    reasons = _call(lambda: nv.nvmlDeviceGetCurrentClocksThrottleReasons(h))
    power = _call(lambda: nv.nvmlDeviceGetPowerUsage(h))
    limit = _call(lambda: nv.nvmlDeviceGetEnforcedPowerLimit(h))
    ecc = _call(lambda: nv.nvmlDeviceGetTotalEccErrors(h, 1, 0))  # uncorrected, volatile
    pending = _call(lambda: nv.nvmlDeviceGetRetiredPagesPendingStatus(h))
    procs = _call(lambda: nv.nvmlDeviceGetComputeRunningProcesses(h)) or []
    return Gpu(
        index=index,
        name=_s(_call(lambda: nv.nvmlDeviceGetName(h)) or ""),
        uuid=_s(_call(lambda: nv.nvmlDeviceGetUUID(h)) or ""),
        cc=_v(f"{cc[0]}.{cc[1]}") if cc else None,
        memory_total_mb=mem.total // (1024 * 1024) if mem else None,
        memory_used_mb=mem.used // (1024 * 1024) if mem else None,
        mig_mode=bool(mig[0]) if mig else None,
        persistence_mode=_bool(_call(lambda: nv.nvmlDeviceGetPersistenceMode(h))),
        temperature_c=_call(lambda: nv.nvmlDeviceGetTemperature(h, 0)),
        power_draw_w=power / 1000 if power is not None else None,
        power_limit_w=limit / 1000 if limit is not None else None,
        throttle_reasons=throttle_names(reasons),
        ecc_uncorrected=ecc,
        retired_pages_pending=_bool(pending),
        pcie_gen=_call(lambda: nv.nvmlDeviceGetCurrPcieLinkGeneration(h)),
        pcie_gen_max=_call(lambda: nv.nvmlDeviceGetMaxPcieLinkGeneration(h)),
        pcie_width=_call(lambda: nv.nvmlDeviceGetCurrPcieLinkWidth(h)),
        pcie_width_max=_call(lambda: nv.nvmlDeviceGetMaxPcieLinkWidth(h)),
        processes=tuple(
            GpuProcess(pid=p.pid, used_mb=(p.usedGpuMemory // (1024 * 1024))
                       if getattr(p, "usedGpuMemory", None) else None)
            for p in procs),
    )


def _bool(value: Any) -> bool | None:
    return None if value is None else bool(value)


def throttle_names(mask: int | None) -> tuple[str, ...]:
    if not mask:
        return ()
    return tuple(name for bit, name in THROTTLE_BITS.items() if mask & bit)


# --------------------------------------------------------------------------- nvidia-smi
def _from_smi(trail: Trail) -> tuple[NvidiaFacts | None, str]:
    if runner.which("nvidia-smi") is None:
        return None, ""
    result = trail.run(["nvidia-smi", f"--query-gpu={QUERY_FIELDS}",
                        "--format=csv,noheader,nounits"], SMI_TIMEOUT)
    if not result.ok and "not a valid field" in (result.stdout + result.stderr):
        result = trail.run(["nvidia-smi", f"--query-gpu={QUERY_FIELDS_MINIMAL}",
                            "--format=csv,noheader,nounits"], SMI_TIMEOUT)
        fields = QUERY_FIELDS_MINIMAL
    else:
        fields = QUERY_FIELDS
    if not result.ok:
        return None, smi_failure(result)
    gpus, driver = parse_query_csv(result.stdout, fields.split(","))
    header = trail.run(["nvidia-smi"], SMI_TIMEOUT)
    table = parse_smi_table(header.stdout) if header.ok else {}
    return NvidiaFacts(driver_version=driver or table.get("driver"),
                       cuda_driver_version=table.get("cuda"), gpus=gpus,
                       probe=trail.info(Status.OK, source="nvidia-smi")), ""


def smi_failure(result: runner.CommandResult) -> str:
    """The one line that says why nvidia-smi failed (e.g. the NVML version mismatch)."""
    if result.error:
        return f"nvidia-smi {result.error}"
    text = (result.stdout + "\n" + result.stderr).strip()
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return f"nvidia-smi exited {result.returncode}"


def parse_query_csv(text: str, fields: list[str]) -> tuple[tuple[Gpu, ...], Version | None]:
    """Parse ``--query-gpu=… --format=csv,noheader,nounits`` output (a header line is skipped)."""
    gpus = []
    driver = None
    for line in text.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) != len(fields) or cells[0].lower().startswith("index"):
            continue
        row = dict(zip(fields, cells))
        driver = driver or _v(row.get("driver_version"))
        gpus.append(Gpu(
            index=_int(row.get("index")) or 0,
            name=row.get("name", ""),
            uuid=row.get("uuid", ""),
            cc=_v(row.get("compute_cap")),
            memory_total_mb=_int(row.get("memory.total")),
            memory_used_mb=_int(row.get("memory.used")),
            temperature_c=_int(row.get("temperature.gpu")),
            power_draw_w=_float(row.get("power.draw")),
            power_limit_w=_float(row.get("power.limit")),
            pcie_gen=_int(row.get("pcie.link.gen.current")),
            pcie_gen_max=_int(row.get("pcie.link.gen.max")),
            pcie_width=_int(row.get("pcie.link.width.current")),
            pcie_width_max=_int(row.get("pcie.link.width.max")),
            mig_mode=_onoff(row.get("mig.mode.current")),
            persistence_mode=_onoff(row.get("persistence_mode")),
        ))
    return tuple(gpus), driver


def parse_smi_table(text: str) -> dict[str, Version]:
    """Driver and CUDA versions from the header of the default ``nvidia-smi`` table."""
    out = {}
    m = re.search(r"Driver Version:\s*([\d.]+)", text)
    if m and _v(m.group(1)):
        out["driver"] = _v(m.group(1))
    m = re.search(r"CUDA Version:\s*([\d.]+)", text)
    if m and _v(m.group(1)):
        out["cuda"] = _v(m.group(1))
    return out


def _int(text: str | None) -> int | None:
    try:
        return int(float(text)) if text not in (None, "", "[N/A]", "N/A") else None
    except ValueError:
        return None


def _float(text: str | None) -> float | None:
    try:
        return float(text) if text not in (None, "", "[N/A]", "N/A") else None
    except ValueError:
        return None


def _onoff(text: str | None) -> bool | None:
    low = (text or "").strip().lower()
    return {"enabled": True, "disabled": False}.get(low)
