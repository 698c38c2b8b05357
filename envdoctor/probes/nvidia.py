"""NVIDIA driver and GPUs: NVML first, then ``nvidia-smi``, then ``/proc/driver/nvidia/version``.

Also counts NVIDIA devices on the PCI bus (``/sys/bus/pci``), which is how we tell "no NVIDIA
GPU here" from "a GPU is here but no driver is loaded". ``ProbeInfo.source`` names the source
that answered. The parsers are pure functions so tests feed them recorded real outputs.
"""

from __future__ import annotations

import os
import re
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from envdoctor import runner
from envdoctor.bounded import decode_json, env, matching, read_proc
from envdoctor.facts import Gpu, GpuProcess, NvidiaFacts, ProbeInfo, Status
from envdoctor.probes._base import Trail
from envdoctor.probes._root import SYSTEM, under
from envdoctor.versions import DisplayVersion

SECTION = "nvidia"
SMI_TIMEOUT = 10.0

# NVML clock-event ("throttle") reason bits; idle and the application-clock setting are normal.
THROTTLE_BITS = {
    0x4: "sw_power_cap", 0x8: "hw_slowdown", 0x10: "sync_boost", 0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown", 0x80: "hw_power_brake_slowdown",
}

QUERY_FIELDS = ("index,name,uuid,driver_version,compute_cap,memory.total,memory.used,"
                "temperature.gpu,power.draw,power.limit,pcie.link.gen.current,pcie.link.gen.max,"
                "pcie.link.width.current,pcie.link.width.max,mig.mode.current,persistence_mode,"
                "ecc.errors.uncorrected.volatile.total,retired_pages.pending")
QUERY_FIELDS_MINIMAL = "index,name,uuid,driver_version,memory.total,memory.used"


def probe(root: Path = SYSTEM) -> NvidiaFacts:
    """NVML (in a child process), then nvidia-smi, then /proc, all within ``BUDGET`` seconds.

    The states follow what was seen: a source that confirms there is no driver (no device
    nodes, no libnvidia-ml, no nvidia-smi; "NVML Shared Library Not Found", "couldn't
    communicate with the NVIDIA driver") gives NOT_FOUND; a source that hung, crashed, printed
    garbage or said "No devices were found" gives ERROR with what ran and why, never
    "not installed".
    """
    trail = Trail()
    end = time.monotonic() + BUDGET
    pci = count_pci_devices(root / "sys/bus/pci/devices")
    kernel_module = parse_proc_version(trail.read(root / "proc/driver/nvidia/version") or "")
    traces = driver_traces(root, kernel_module)

    absent = driver_absent_reason(root)
    broke: list[str] = []  # sources that failed (not: said there is no driver)
    smi_said = ""          # what nvidia-smi said about the driver when it ran and gave up
    if absent:
        trail.ran.append(f"nvml: not tried ({absent})")
        facts, nvml_error = None, ""
    else:
        facts, nvml_error, nvml_broke = _from_nvml(trail, min(NVML_TIMEOUT, _left(end)))
        library = nvml_library(root) if "library not found" in nvml_error.lower() else ""
        if library:  # a libnvidia-ml is there, and it would not load: broken, not absent
            nvml_error, nvml_broke = f"{library} could not be loaded ({nvml_error})", True
        if nvml_broke:
            broke.append(nvml_error if nvml_error.startswith("NVML") else f"NVML: {nvml_error}")
    if facts is None:
        facts, smi_error, smi_broke = _from_smi(trail, end)
        if facts is not None and nvml_error and not facts.nvml_error:
            facts = replace(facts, nvml_error=nvml_error)
        if facts is None:  # NVML's own string, as nvmlErrorString gives it ("Unknown Error")
            nvml_error = smi_error.removeprefix("Failed to initialize NVML: ") or nvml_error
            if smi_broke:
                broke.append(smi_error if smi_error.startswith("nvidia-smi")
                             else f"nvidia-smi: {smi_error}")
            elif smi_error:
                smi_said = smi_error
    loaded = [t for t in traces if not t.startswith("/dev/")]
    if facts is None and not broke and not is_mismatch(nvml_error) and (
            (smi_said and loaded) or (not smi_said and traces and kernel_module is None)):
        # nvidia-smi says "no driver" next to a loaded one, or nobody could be asked on a
        # machine that shows a driver (device nodes, WSL's libcuda): the asking broke
        said = f"nvidia-smi: {smi_said}" if smi_said else (
            nvml_error or "neither NVML nor nvidia-smi could be asked")
        broke.append(f"{said.rstrip('. ')}, but {' and '.join(loaded if smi_said else traces)}")
    if facts is None and kernel_module is not None and not broke:
        reason = "only the kernel module answered" + (f" ({nvml_error})" if nvml_error else "")
        # The kernel module is loaded but nothing in user space could list its GPUs
        # (libnvidia-ml and nvidia-smi missing or unusable): the GPU list is a failed field.
        missing = ("the kernel module is loaded, but neither NVML nor nvidia-smi could list "
                   "the GPUs" + (f" ({nvml_error})" if nvml_error else ""))
        facts = NvidiaFacts(driver_version=kernel_module, nvml_error=nvml_error,
                            probe=replace(trail.info(Status.OK, reason, "procfs"),
                                          unobserved=("cuda_driver_version",),
                                          failed={"gpus": missing}))
    if facts is None and not broke and is_mismatch(nvml_error):
        # NVML loaded and reached a kernel module of another version: a driver is installed
        # and unusable until the versions match, never "no driver"
        broke.append(nvml_error if nvml_error.startswith("NVML") else f"NVML: {nvml_error}")
    if facts is None and broke:
        seen = f"; kernel module {kernel_module} is loaded" if kernel_module else ""
        return NvidiaFacts(pci_devices=pci, nvml_error=nvml_error,
                           kernel_module_version=kernel_module,
                           probe=trail.info(Status.ERROR, "; ".join(broke) + seen))
    if facts is None:
        why = nvml_error or absent
        reason = "no NVIDIA driver found" + (f" ({why})" if why else "")
        return NvidiaFacts(pci_devices=pci, nvml_error=nvml_error,
                           probe=trail.info(Status.NOT_FOUND, reason))
    return replace(facts, pci_devices=pci, kernel_module_version=kernel_module,
                   probe=replace(facts.probe, ran=tuple(trail.ran)))


BUDGET = 18.0          # the whole probe, under the registry's 20 s deadline
NVML_TIMEOUT = 8.0     # nvmlInit on a big box takes a second or two; a hung one never returns
# What NVML and nvidia-smi say about the driver stack itself: there is no driver, or its
# kernel and user-space parts disagree (DRV003). A state with its own check, not a failed
# probe; anything else they say (a hang, a crash, "No devices were found") is a failure.
STATED_MESSAGES = ("nvml shared library not found", "driver not loaded",
                   "couldn't communicate with the nvidia driver", "nvml library not found",
                   "couldn't find libnvidia-ml.so", "driver/library version mismatch")


def _left(end: float) -> float:
    return max(0.5, end - time.monotonic())


def says_absent(message: str) -> bool:
    low = message.lower()
    return any(m in low for m in STATED_MESSAGES)


def is_mismatch(message: str) -> bool:
    return "mismatch" in message.lower()


def driver_traces(root: Path, kernel_module: Version | None) -> list[str]:
    """What on this machine shows an NVIDIA driver is installed, whatever the tools say: the
    loaded kernel module, its device nodes, the Windows driver's libcuda inside WSL. A "no
    driver" answer next to one of these is a broken driver stack, not an absent one. (A GPU
    on the PCI bus is not a trace: it is how DRV005 tells "GPU, no driver".)"""
    out = []
    if kernel_module is not None:
        out.append(f"kernel module {kernel_module} is loaded (/proc/driver/nvidia/version)")
    nodes = [f"/dev/{n}" for n in ("nvidiactl", "nvidia0") if (root / "dev" / n).exists()]
    if nodes:
        out.append(f"{' and '.join(nodes)} exist")
    wsl = matching(root / 'usr/lib/wsl/lib', "libcuda.so*")
    if wsl:
        out.append("the Windows driver's WSL libcuda is here "
                   f"(/{os.path.relpath(wsl[0], root)})")
    return out


# --------------------------------------------------------------------------- is a driver possible?
DEVICE_NODES = ("proc/driver/nvidia", "dev/nvidiactl", "dev/nvidia0", "dev/dxg")
NVML_DIRS = ("usr/lib/x86_64-linux-gnu", "usr/lib/aarch64-linux-gnu", "usr/lib64", "usr/lib",
             "usr/local/nvidia/lib64", "usr/local/nvidia/lib", "usr/lib/wsl/lib",
             "usr/local/cuda/compat", "usr/local/cuda/lib64/stubs")


def driver_absent_reason(root: Path = SYSTEM) -> str:
    """Why NVML cannot answer on this Linux machine, or "" when it might.

    Loading pynvml and dlopen-ing libnvidia-ml costs ~0.1 s; on a machine with no NVIDIA kernel
    driver (no /proc/driver/nvidia, no /dev/nvidiactl, no WSL /dev/dxg) and no libnvidia-ml in
    the usual folders or on LD_LIBRARY_PATH it can only fail, so we record why and skip it.
    Other platforms always try.
    """
    if not sys.platform.startswith("linux"):
        return ""
    if any((root / node).exists() for node in DEVICE_NODES):
        return ""
    if nvml_library(root):
        return ""
    return ("no NVIDIA kernel driver (no /proc/driver/nvidia, /dev/nvidiactl or /dev/dxg) "
            "and no libnvidia-ml")


def nvml_library(root: Path = SYSTEM) -> str:
    """The first libnvidia-ml found in the usual folders or on LD_LIBRARY_PATH ("" if none)."""
    dirs = [str(root / d) for d in NVML_DIRS]
    dirs += [str(under(root, d)) for d in env("LD_LIBRARY_PATH", "").split(":")[:256] if d]
    for d in dirs:
        found = matching(d, "libnvidia-ml.so*")
        if found:
            return sorted(found)[0]
    return ""


# --------------------------------------------------------------------------- PCI and /proc
def count_pci_devices(devices: Path) -> int | None:
    """NVIDIA (vendor 0x10de) display or 3D controllers (class 0x03xxxx) on the PCI bus."""
    try:
        entries = list(devices.iterdir())
    except OSError:
        return None
    count = 0
    for dev in entries:
        vendor, klass = read_proc(dev / "vendor", 64), read_proc(dev / "class", 64)
        if vendor is None or klass is None:
            continue
        vendor, klass = vendor.strip().lower(), klass.strip().lower()
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
        return DisplayVersion(text.strip())  # keeps "535.104.05" as nvidia-smi prints it
    except InvalidVersion:
        return None


# --------------------------------------------------------------------------- NVML
CHILD_SOURCE = Path(__file__).with_name("_nvml_child.py")


def _nvml_raw(trail: Trail, timeout: float) -> dict[str, Any]:
    """What NVML answered, from a child process (``_nvml_child``): a crash or hang of
    libnvidia-ml ends that child, not envdoctor. Tests replace this with
    ``_nvml_child.collect`` on a fake pynvml."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("pynvml")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.origin:
        trail.ran.append("nvml: pynvml not importable")
        return {"ok": False, "stage": "import", "error": "pynvml unavailable"}
    source = (read_proc(CHILD_SOURCE, 1 << 20) or "").strip()
    if not source:
        return {"ok": False, "stage": "import", "error": f"{CHILD_SOURCE.name} unreadable"}
    where = os.path.dirname(os.path.dirname(spec.origin)) if spec.origin.endswith(
        "__init__.py") else os.path.dirname(spec.origin)
    result = runner.run([sys.executable, "-I", "-S", "-c", source, where], timeout)
    trail.ran.append(f"nvml: nvmlInit in a child process ({result.seconds:.2f}s)")
    step = _last_step(result.stderr)
    if result.error:
        what = (f"did not answer within {timeout:g}s" if "timed out" in result.error
                else "crashed: its process was " + result.error if "killed by" in result.error
                else result.error)
        return {"ok": False, "stage": "child",
                "error": f"NVML {what}" + (f" (in {step})" if step else "")}
    try:
        answer = decode_json(result.stdout, "an NVML answer")
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        return {"ok": False, "stage": "child",
                "error": f"NVML child printed no answer (exit {result.returncode})"
                         + (f" after {step}" if step else "")}
    return answer


def _last_step(stderr: str) -> str:
    for line in reversed(stderr.splitlines()):
        if line.startswith("step "):
            return line[5:].strip()[:80]
    return ""


def _from_nvml(trail: Trail, timeout: float) -> tuple[NvidiaFacts | None, str, bool]:
    """(facts, error, broke): ``broke`` when NVML failed rather than said "no driver"."""
    raw = _nvml_raw(trail, timeout)
    if not raw.get("ok"):
        error = str(raw.get("error") or "NVML failed")[:500]
        broke = raw.get("stage") != "import" and not says_absent(error)
        return None, error, broke
    try:
        facts = _facts_from_nvml(raw)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        return None, f"NVML answered something unreadable: {exc}", True
    if facts.driver_version is None:
        return None, f"NVML gave an unreadable driver version {raw.get('driver')!r:.80}", True
    failed = {}
    lost = [g for g in raw.get("lost") or () if isinstance(g, dict)]
    if lost:  # NVML counts GPUs it cannot open: the GPU list is incomplete, a failed field
        why = "; ".join(f"GPU {g.get('index')}: {str(g.get('error'))[:120]}" for g in lost[:8])
        failed["gpus"] = f"NVML counts {raw.get('count')} GPU(s) but cannot open {len(lost)}: {why}"
    unwell = [f"GPU {g.get('index')}: {', '.join(str(u)[:80] for u in g['unwell'][:4])}"
              for g in raw.get("gpus") or () if isinstance(g, dict) and g.get("unwell")]
    if unwell:  # the GPU answered some queries and said it is lost / needs a reset for others
        failed["gpus.health"] = "NVML reports " + "; ".join(unwell)[:400]
    if failed:
        facts = replace(facts, probe=replace(facts.probe, failed=failed))
    return facts, "", False


def _facts_from_nvml(raw: dict[str, Any]) -> NvidiaFacts:
    gpus = tuple(_nvml_gpu(g) for g in raw.get("gpus") or ())
    return NvidiaFacts(driver_version=_v(str(raw.get("driver") or "")),
                       cuda_driver_version=cuda_int_to_version(raw.get("cuda")),
                       gpus=gpus, probe=ProbeInfo(Status.OK, source="nvml"))


def cuda_int_to_version(value: int | None) -> Version | None:
    """NVML encodes CUDA 12.4 as 12040."""
    if not isinstance(value, int) or not 1000 <= value < 1_000_000:
        return None
    return Version(f"{value // 1000}.{(value % 1000) // 10}")


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _nvml_gpu(g: dict[str, Any]) -> Gpu:
    cc, mem, mig = g.get("cc"), g.get("memory") or {}, g.get("mig")
    power, limit = _int_or_none(g.get("power")), _int_or_none(g.get("limit"))
    mib = 1024 * 1024
    return Gpu(
        index=int(g["index"]),
        name=str(g.get("name") or ""),
        uuid=str(g.get("uuid") or ""),
        cc=_v(f"{cc[0]}.{cc[1]}") if isinstance(cc, list) and len(cc) == 2 else None,
        memory_total_mb=mem["total"] // mib if isinstance(mem.get("total"), int) else None,
        memory_used_mb=mem["used"] // mib if isinstance(mem.get("used"), int) else None,
        mig_mode=bool(mig[0]) if isinstance(mig, list) and mig else None,
        persistence_mode=_bool(g.get("persistence")),
        temperature_c=_int_or_none(g.get("temperature")),
        power_draw_w=power / 1000 if power is not None else None,
        power_limit_w=limit / 1000 if limit is not None else None,
        throttle_reasons=throttle_names(_int_or_none(g.get("reasons"))),
        ecc_uncorrected=_int_or_none(g.get("ecc")),
        retired_pages_pending=_bool(g.get("pending")),
        pcie_gen=_int_or_none(g.get("pcie_gen")),
        pcie_gen_max=_int_or_none(g.get("pcie_gen_max")),
        pcie_width=_int_or_none(g.get("pcie_width")),
        pcie_width_max=_int_or_none(g.get("pcie_width_max")),
        processes=tuple(
            GpuProcess(pid=int(p["pid"]), name=str(p.get("name") or ""),
                       used_mb=p["usedGpuMemory"] // mib
                       if isinstance(p.get("usedGpuMemory"), int) and p["usedGpuMemory"] else None)
            for p in g.get("processes") or () if isinstance(p, dict) and "pid" in p),
    )


def _bool(value: Any) -> bool | None:
    return None if value is None else bool(value)


def throttle_names(mask: int | None) -> tuple[str, ...]:
    if not mask:
        return ()
    return tuple(name for bit, name in THROTTLE_BITS.items() if mask & bit)


# --------------------------------------------------------------------------- nvidia-smi
def _from_smi(trail: Trail, end: float) -> tuple[NvidiaFacts | None, str, bool]:
    """(facts, error, broke) from nvidia-smi; every attempt shares the probe's time budget."""
    if runner.which("nvidia-smi") is None:
        return None, "", False
    fields = QUERY_FIELDS.split(",")
    for _attempt in range(4):  # an older driver refuses newer fields one at a time: drop them
        result = trail.run(["nvidia-smi", f"--query-gpu={','.join(fields)}",
                            "--format=csv,noheader,nounits"], min(SMI_TIMEOUT, _left(end)))
        bad = invalid_field(result)
        if not bad:
            break
        fields = ([f for f in fields if f != bad] if bad in fields
                  else QUERY_FIELDS_MINIMAL.split(","))
    gpus, driver = parse_query_csv(result.stdout, fields) if not result.error else ((), None)
    failed: dict[str, str] = {}
    if result.error or (_smi_broken(result) and not gpus):
        message = smi_failure(result)
        return None, message, not says_absent(message)
    if not result.ok and gpus:  # some rows, and an error for the rest (a GPU lost, a warning)
        failed["gpus"] = f"nvidia-smi --query-gpu exited {result.returncode}: {smi_failure(result)}"
    elif not result.ok:
        gpus, driver = (), None
    elif not gpus and result.stdout.strip():
        failed["gpus"] = ("nvidia-smi --query-gpu printed no complete row of the fields asked "
                          "(truncated or garbled output)")
    header = trail.run(["nvidia-smi"], min(SMI_TIMEOUT, _left(end)))
    if header.error and gpus:  # the query answered; the table (the process list) did not
        failed["gpus.processes"] = f"nvidia-smi (the table) {header.error}"
    table = parse_smi_table(header.stdout) if header.ok else {}
    table_gpus = parse_smi_table_gpus(header.stdout) if header.ok else ()
    if not gpus:
        gpus = table_gpus  # --query-gpu failed or said nothing: the table still names the GPUs
    else:  # the table is where nvidia-smi lists processes
        procs = {g.index: g.processes for g in table_gpus}
        gpus = tuple(replace(g, processes=procs.get(g.index, ())) for g in gpus)
    driver = driver or table.get("driver")
    if driver is None and not gpus:
        if result.ok and header.ok:
            return None, "nvidia-smi printed no GPU and no driver version", True
        message = smi_failure(result if not result.ok else header)
        return None, message, not says_absent(message)
    unwell = error_cells(result.stdout, fields) + (table_error_rows(header.stdout)
                                                     if header.ok else [])
    if unwell:  # nvidia-smi itself says a GPU is in an error state
        failed["gpus.health"] = "nvidia-smi reports " + "; ".join(dict.fromkeys(unwell))[:400]
    info = trail.info(Status.OK, source="nvidia-smi")
    return NvidiaFacts(driver_version=driver, cuda_driver_version=table.get("cuda"), gpus=gpus,
                       probe=replace(info, failed=failed) if failed else info), "", False


# Cells nvidia-smi writes for a GPU in an error state (never for "not available", which is
# [N/A], [Not Supported], [Insufficient Permissions], [Requested functionality ...]).
ERROR_CELLS = ("[unknown error]", "[gpu requires reset]", "[gpu is lost]", "err!")


def error_cells(text: str, fields: list[str]) -> list[str]:
    """``GPU 0: temperature.gpu, power.draw [Unknown Error]`` for each --query-gpu row whose
    cells carry an error marker."""
    out = []
    names = [_field(f) for f in fields]
    for line in text.splitlines():
        cells = [c.strip() for c in line.split(",")]
        bad = [(names[i] if i < len(names) else f"field {i}", c) for i, c in enumerate(cells)
               if c.lower() in ERROR_CELLS]
        if bad and len(cells) == len(names):
            row = dict(zip(names, cells, strict=False))
            which = ", ".join(n for n, _ in bad)
            out.append(f"GPU {row.get('index', '?')}: {which} {bad[0][1]}")
    return out


def table_error_rows(text: str) -> list[str]:
    """``GPU 0: ERR! in the nvidia-smi table`` for each GPU whose table rows carry ERR!."""
    out = []
    index = None
    for line in text.splitlines():
        if len(line) > MAX_ROW or "Processes:" in line or "MIG devices:" in line:
            if "Processes:" in line or "MIG devices:" in line:
                break
            continue
        m = _TABLE_GPU.match(line)
        if m:
            index = m.group(1)
        low = line.lower()
        marker = next((c for c in ERROR_CELLS if c in low), "")
        if marker and index is not None:
            out.append(f"GPU {index}: {marker.upper() if marker == 'err!' else marker} "
                       "in the nvidia-smi table")
    return out


def invalid_field(result: runner.CommandResult) -> str:
    """``Field "compute_cap" is not a valid field to query.`` -> ``compute_cap`` ('' if none)."""
    text = result.stdout + result.stderr
    if result.ok or "not a valid field" not in text.lower():
        return ""
    m = re.search(r'Field "([^"]+)" is not a valid field', text)
    return m.group(1) if m else "?"


def _smi_broken(result: runner.CommandResult) -> bool:
    """nvidia-smi ran but says the driver is unusable (it exits non-zero, often 9 or 18)."""
    text = (result.stdout + result.stderr).lower()
    return not result.ok and any(s in text for s in SMI_FATAL)


SMI_FATAL = ("failed to initialize nvml", "couldn't communicate with the nvidia driver",
             "no devices were found", "unable to determine the device handle",
             "nvml library not found", "driver/library version mismatch")


def smi_failure(result: runner.CommandResult) -> str:
    """The one line that says why nvidia-smi failed (e.g. the NVML version mismatch), as the
    tool printed it: the error signatures read it whole ("Failed to initialize NVML: Unknown
    Error" is a container that lost its device cgroup, "Unknown Error" alone says nothing)."""
    if result.error:
        return f"nvidia-smi {result.error}"
    text = (result.stdout + "\n" + result.stderr).strip()
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    telling = [x for x in lines if any(w in x.lower() for w in SMI_FATAL + SMI_WORDS)]
    for line in telling[:1] or lines[:1]:
        return line
    return f"nvidia-smi exited {result.returncode}"


# Words of a line that says what went wrong, preferred over the first line (a CSV row).
SMI_WORDS = ("error", "warning", "failed", "unable", "couldn't", "lost", "reset")


def _field(name: str) -> str:
    """``memory.total [MiB]`` -> ``memory.total``: headers carry units unless ``nounits``."""
    return name.split(" [", 1)[0].strip().lower()


def parse_query_csv(text: str, fields: list[str]) -> tuple[tuple[Gpu, ...], Version | None]:
    """Parse ``nvidia-smi --query-gpu=… --format=csv[,noheader][,nounits]`` output.

    A header line (``index, name, memory.total [MiB], …``), when present, names the columns and
    wins over ``fields``; values may carry units (``81559 MiB``, ``69.85 W``) and ``[N/A]``.
    """
    gpus: list[Gpu] = []
    driver = None
    names = [_field(f) for f in fields]
    for line in text.splitlines():
        if not line.strip():
            continue
        cells = [c.strip() for c in line.split(",")]
        if _looks_like_header(cells):
            names = [_field(c) for c in cells]
            continue
        if len(cells) != len(names) or not ({"name", "index", "uuid"} & set(names)):
            continue
        row = dict(zip(names, cells, strict=False))
        driver = driver or _v(_na(row.get("driver_version")))
        reasons = _hex(row.get("clocks_event_reasons.active")
                       or row.get("clocks_throttle_reasons.active"))
        index = _int(row.get("index"))
        gpus.append(Gpu(
            index=index if index is not None else len(gpus),
            name=_na(row.get("name")) or "",
            uuid=_na(row.get("uuid")) or "",
            cc=_v(_na(row.get("compute_cap"))),
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
            ecc_uncorrected=_int(row.get("ecc.errors.uncorrected.volatile.total")),
            retired_pages_pending=_onoff(row.get("retired_pages.pending")),
            throttle_reasons=throttle_names(reasons),
        ))
    return tuple(gpus), driver


def parse_compute_apps_csv(text: str) -> tuple[tuple[str, GpuProcess], ...]:
    """``nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_gpu_memory
    --format=csv`` -> ((gpu uuid, process), …). Process names may contain commas (Windows paths),
    so the cells after ``pid`` are re-joined."""
    names: list[str] = ["gpu_uuid", "pid", "process_name", "used_gpu_memory"]
    out = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.split(",")]
        if not line.strip():
            continue
        if _looks_like_header(cells) or "pid" in (_field(c) for c in cells):
            names = [_field(c) for c in cells]
            continue
        if len(cells) < len(names) or "pid" not in names:
            continue
        i = names.index("process_name") if "process_name" in names else None
        if i is not None and len(cells) > len(names):  # commas inside the process name
            extra = len(cells) - len(names)
            cells[i:i + extra + 1] = [", ".join(cells[i:i + extra + 1])]
        row = dict(zip(names, cells, strict=False))
        pid = _int(row.get("pid"))
        if pid is None:
            continue
        out.append((row.get("gpu_uuid", ""), GpuProcess(
            pid=pid, name=row.get("process_name", ""), used_mb=_int(row.get("used_gpu_memory")))))
    return tuple(out)


def _looks_like_header(cells: list[str]) -> bool:
    known = {"index", "name", "uuid", "driver_version", "timestamp", "gpu_name", "pci.bus_id"}
    return any(_field(c) in known for c in cells) and not any(c[:1].isdigit() for c in cells[:1])


def parse_smi_table(text: str) -> dict[str, Version]:
    """Driver and CUDA versions from the header of the default ``nvidia-smi`` table.

    R610+ drivers write "KMD Version:" (kernel-mode driver) and "CUDA UMD Version:" where
    earlier ones wrote "Driver Version:" and "CUDA Version:" (sgl-project/sglang#27487).
    """
    out: dict[str, Version] = {}
    m = re.search(r"(?:Driver|KMD) Version:\s*([\d.]+)", text)
    if m and (v := _v(m.group(1))):
        out["driver"] = v
    m = re.search(r"CUDA (?:UMD )?Version:\s*([\d.]+)", text)
    if m and (v := _v(m.group(1))):
        out["cuda"] = v
    return out


MAX_ROW = 512  # characters; nvidia-smi's rows are ~120 wide
_TABLE_GPU = re.compile(
    r"^\|\s+(\d+)\s+(.+?)\s+(On|Off|WDDM|TCC|MCDM)\s*\|\s*[0-9A-Fa-f]{4,8}:[0-9A-Fa-f:.]+")
_TABLE_USE = re.compile(
    r"^\|\s*(?:\d+%|N/A|ERR!)\s+(\d+|N/A)C?\s+P\d+\s+(?:(\d+)W|N/A)\s*/\s*(?:(\d+)W|N/A)\s*\|"
    r"\s*(\d+)MiB\s*/\s*(\d+)MiB\s*\|")
_TABLE_MIG = re.compile(r"^\|\s+\|\s+\|\s+(Enabled|Disabled|N/A)\s*\|")
_TABLE_PROC = re.compile(
    r"^\|\s+(\d+)\s+(?:(?:N/A|\d+)\s+(?:N/A|\d+)\s+)?(\d+)\s+(C\+G|C|G|M|M\+C)\s+(.*?)\s+"
    r"(?:(\d+)MiB|N/A)\s*\|")


def parse_smi_table_gpus(text: str) -> tuple[Gpu, ...]:
    """GPUs and their processes from the default ``nvidia-smi`` table (names may be cut short).

    The fallback when ``--query-gpu`` is refused, and the only place nvidia-smi lists
    processes together with their GPU.
    """
    gpus: list[Gpu] = []
    procs: dict[int, list[GpuProcess]] = {}
    section = "gpus"
    for line in text.splitlines():
        if len(line) > MAX_ROW:  # not a table row: the row patterns are only bounded on rows
            continue
        if "Processes:" in line:
            section = "processes"
        elif "MIG devices:" in line:
            section = "mig"
        if section == "gpus":
            m = _TABLE_GPU.match(line)
            if m:
                name = m.group(2).strip()
                gpus.append(Gpu(index=int(m.group(1)), name=name,
                                persistence_mode={"On": True, "Off": False}.get(m.group(3))))
                continue
            m = _TABLE_USE.match(line)
            if m and gpus:
                gpus[-1] = replace(gpus[-1], temperature_c=_int(m.group(1)),
                                   power_draw_w=_float(m.group(2)),
                                   power_limit_w=_float(m.group(3)),
                                   memory_used_mb=int(m.group(4)),
                                   memory_total_mb=int(m.group(5)))
                continue
            m = _TABLE_MIG.match(line)
            if m and gpus and gpus[-1].mig_mode is None and gpus[-1].memory_total_mb is not None:
                gpus[-1] = replace(gpus[-1], mig_mode=_onoff(m.group(1)))
        elif section == "processes":
            m = _TABLE_PROC.match(line)
            if m:
                procs.setdefault(int(m.group(1)), []).append(GpuProcess(
                    pid=int(m.group(2)), name=m.group(4),
                    used_mb=int(m.group(5)) if m.group(5) else None))
    return tuple(replace(g, processes=tuple(procs.get(g.index, ()))) for g in gpus)


def parse_smi_q(text: str) -> tuple[Version | None, Version | None, tuple[Gpu, ...]]:
    """``nvidia-smi -q``: (driver version, CUDA version, GPUs). For pasted reports and replay."""
    driver = cuda = None
    gpus: list[dict[str, str]] = []
    stack: list[tuple[int, str]] = []
    for raw in text.splitlines():
        if not raw.strip() or raw.lstrip().startswith("="):
            continue
        indent = len(raw) - len(raw.lstrip())
        key, sep, value = raw.strip().partition(":")
        key, value = key.strip(), value.strip()
        if indent == 0:
            stack = []
            if key == "Driver Version":
                driver = _v(value)
            elif key == "CUDA Version":
                cuda = _v(value)
            elif re.match(r"GPU [0-9A-Fa-f]+:", raw):
                gpus.append({})
            continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        path = "/".join([s for _, s in stack] + [key])
        if sep and value:
            if gpus:
                gpus[-1].setdefault(path, value)
        else:
            stack.append((indent, key))
    out = []
    for i, g in enumerate(gpus):
        power = g.get("GPU Power Readings/Power Draw") or g.get(
            "GPU Power Readings/Average Power Draw") or g.get("Power Readings/Power Draw")
        limit = (g.get("GPU Power Readings/Current Power Limit")
                 or g.get("Power Readings/Power Limit"))
        out.append(Gpu(
            index=i,
            name=g.get("Product Name", ""),
            uuid=g.get("GPU UUID", ""),
            memory_total_mb=_int(g.get("FB Memory Usage/Total")),
            memory_used_mb=_int(g.get("FB Memory Usage/Used")),
            mig_mode=_onoff(g.get("MIG Mode/Current")),
            persistence_mode=_onoff(g.get("Persistence Mode")),
            temperature_c=_int(g.get("Temperature/GPU Current Temp")),
            power_draw_w=_float(power),
            power_limit_w=_float(limit),
            pcie_gen=_int(g.get("PCI/GPU Link Info/PCIe Generation/Current")),
            pcie_gen_max=_int(g.get("PCI/GPU Link Info/PCIe Generation/Max")),
            pcie_width=_int(g.get("PCI/GPU Link Info/Link Width/Current")),
            pcie_width_max=_int(g.get("PCI/GPU Link Info/Link Width/Max")),
        ))
    return driver, cuda, tuple(out)


_NUMBER = re.compile(r"^[-+]?\d+(?:\.\d+)?")


def _na(text: str | None) -> str | None:
    """None for nvidia-smi's "not available" spellings: ``[N/A]``, ``N/A``, ``[Not Supported]``."""
    if text is None:
        return None
    text = text.strip()
    if not text or text.startswith("[") or text.upper() in ("N/A", "NONE"):
        return None
    return text


def _number(text: str | None) -> float | None:
    """``81559 MiB`` -> 81559.0, ``69.85 W`` -> 69.85, ``16x`` -> 16.0; ``[N/A]`` -> None."""
    text = _na(text)
    m = _NUMBER.match(text) if text else None
    return float(m.group(0)) if m else None


def _int(text: str | None) -> int | None:
    n = _number(text)
    return None if n is None else int(n)


def _float(text: str | None) -> float | None:
    return _number(text)


def _hex(text: str | None) -> int | None:
    try:
        return int(text, 16) if text and text.lower().startswith("0x") else None
    except ValueError:
        return None


def _onoff(text: str | None) -> bool | None:
    low = (text or "").strip().lower()
    return {"enabled": True, "disabled": False, "yes": True, "no": False,
            "on": True, "off": False}.get(low)
