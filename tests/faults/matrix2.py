"""Second fault matrix: broken NVIDIA stacks as real machines show them, each reported truthfully.

Usage (from the repository root):
  python tests/faults/matrix2.py [--root SRC] [--out results.json] [--only ID,...]
  python tests/faults/matrix2.py --table BEFORE.json AFTER.json
Same harness as ``matrix.py`` (``run_fault``: a fresh temp dir and HOME, a hard cap, exit code,
traceback, bounded time, processes left behind); tests/faults/test_faults2.py runs it under
pytest. Every fault imitates a failure mode seen on real machines, with the exact text the real
tool printed and the public thread it comes from (``src``). Its expected verdict was written
from the principles before the fault was first run:

- a hung, crashed, garbled or erroring ``nvidia-smi``/NVML is a FAILED probe (status ``error``,
  PROBE001), never "no driver"/"not installed" and never healthy;
- a source that states there is no driver (and nothing contradicts it) is confirmed absent;
- a GPU that nvidia-smi lists with ``ERR!``/``[GPU requires reset]`` cells is not healthy;
- ``[N/A]``/``[Insufficient Permissions]``/``[Not Supported]`` cells are "not available",
  never a finding: a healthy machine gets no warning.

Machine state this host cannot have (device nodes, ``/proc/driver/nvidia``, PCI devices, WSL's
``/usr/lib/wsl/lib``) lives in a fake root handed to the NVIDIA probe by a two-line launcher
(``ROOTED``); everything else (the probe, rules, renderers, exit code) is the real CLI.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.faults import matrix as m
else:
    from . import matrix as m

DATA = Path(__file__).resolve().parents[1] / "data" / "tools"
FAULTS: dict[str, tuple[str, str, object]] = {}


def fault(fid: str, category: str, title: str, src: str):
    def deco(fn):
        fn.src = src
        FAULTS[fid] = (category, title, fn)
        return fn
    return deco


def recorded(rel: str) -> str:
    """A recorded real output without its ``# source`` line."""
    lines = (DATA / rel).read_text().splitlines(keepends=True)
    return "".join(x for x in lines if not x.startswith("# source:"))


H100_TABLE = recorded("nvidia-smi/12-8x-h100-565-no-processes.txt")
MIG_TABLE = recorded("nvidia-smi/02-h100-mig-590-idle.txt")
UUID = "GPU-5f6b1c4e-8d2a-4c1e-9b7a-1a2b3c4d5e60"
BUSES = ("18", "2A", "3A", "5D", "9A", "AB", "BA", "DB")


def csv_row(i: int, name: str = "NVIDIA H100 80GB HBM3", driver: str = "565.57.01",
            mig: str = "Disabled", **cells: str) -> str:
    """One ``--query-gpu`` row of the probe's fields (noheader, nounits), as nvidia-smi writes it."""
    row = {"index": str(i), "name": name, "uuid": UUID[:-1] + str(i), "driver_version": driver,
           "compute_cap": "9.0", "memory.total": "81559", "memory.used": "1",
           "temperature.gpu": "30", "power.draw": "100.00", "power.limit": "700.00",
           "pcie.link.gen.current": "5", "pcie.link.gen.max": "5",
           "pcie.link.width.current": "16", "pcie.link.width.max": "16",
           "mig.mode.current": mig, "persistence_mode": "Enabled",
           "ecc.errors.uncorrected.volatile.total": "0", "retired_pages.pending": "No"}
    row.update(cells)
    return ", ".join(row.values())


H100_CSV = "".join(csv_row(i) + "\n" for i in range(8))


def smi(d: Path, query: str = "", query_rc: int = 0, table: str = "", table_rc: int = 0,
        sleep: float = 0, raw: str = "") -> dict:
    """A fake nvidia-smi on PATH: ``query`` answers ``--query-gpu``, ``table`` the bare call;
    ``raw`` replaces the whole script body."""
    (d / "smi").mkdir(exist_ok=True)
    (d / "smi/q.txt").write_text(query)
    (d / "smi/t.txt").write_text(table)
    body = raw or (f"sleep {sleep}\n" if sleep else "") + (
        f'case "$*" in *--query-gpu*) cat "{d}/smi/q.txt"; exit {query_rc};; esac\n'
        f'cat "{d}/smi/t.txt"; exit {table_rc}')
    m.sh(d / "bin/nvidia-smi", body)
    return {"PATH": f"{d}/bin:" + os.environ["PATH"]}


def fake_root(d: Path, *, dev: bool = False, proc: str | None = None, pci: int = 0,
              dxg: bool = False, wsl_libs: tuple[str, ...] = (), nvml_lib: bytes | None = None
              ) -> Path:
    """A machine's driver traces: /dev nodes, /proc/driver/nvidia/version, PCI devices."""
    root = d / "root"
    (root / "sys/bus/pci/devices").mkdir(parents=True)
    for i in range(pci):
        dev_dir = root / f"sys/bus/pci/devices/0000:{BUSES[i]}:00.0"
        dev_dir.mkdir()
        (dev_dir / "vendor").write_text("0x10de\n")
        (dev_dir / "class").write_text("0x030200\n")
    if dev:
        (root / "dev").mkdir(exist_ok=True)
        for node in ("nvidiactl", "nvidia0", "nvidia-uvm"):
            (root / "dev" / node).write_text("")
    if dxg:
        (root / "dev").mkdir(exist_ok=True)
        (root / "dev/dxg").write_text("")
    if proc is not None:
        (root / "proc/driver/nvidia").mkdir(parents=True)
        (root / "proc/driver/nvidia/version").write_text(proc)
    if wsl_libs:
        (root / "usr/lib/wsl/lib").mkdir(parents=True)
        for lib in wsl_libs:
            (root / "usr/lib/wsl/lib" / lib).write_bytes(b"\x7fELF" + b"\0" * 60)
    if nvml_lib is not None:
        (root / "usr/lib/x86_64-linux-gnu").mkdir(parents=True)
        (root / "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1").write_bytes(nvml_lib)
    return root


PROC_550 = recorded("proc-driver-version/01-open-kernel-module-565.txt")
# The NVIDIA probe reads this root instead of "/"; nothing else changes.
ROOTED = ("import functools, os, sys\nfrom pathlib import Path\n"
          "sys.argv = ['envdoctor'] + sys.argv[1:]\nimport envdoctor.probes.nvidia as nv\n"
          "nv.probe = functools.partial(nv.probe, root=Path(os.environ['EDFAULT_ROOT']))\n"
          "from envdoctor.cli import run\nrun()\n")
STATIC = ["check", "--static", "--format", "json"]


def rooted(root: Path, *argv: str) -> dict:
    return {"cmd": ["-c", ROOTED, *(argv or STATIC)], "env_root": str(root)}


# --------------------------------------------------------------------------- verdict checks
def report(out: str) -> tuple[dict, dict, list[dict]]:
    d = m.json_facts(out)
    facts = d.get("facts") or {}
    return facts.get("nvidia") or {}, facts, d.get("findings") or []


NO_DRIVER_CLAIMS = ("no nvidia driver", "driver: not installed", "no nvidia gpu and no nvidia driver",
                    "not installed; no nvidia gpu")


def verdict(status: set[str] | None = None, reason: tuple[str, ...] = (), codes: tuple[str, ...] = (),
            not_codes: tuple[str, ...] = (), quiet: bool = False, no_driver_claim: bool = True,
            gpus: int | None = None, unobserved: str = "", error_code: str = "",
            failed_field: str = ""):
    """A check of the report: nvidia probe status and reason words, findings that must and
    must not be there, ``quiet`` = no error or warning at all (a healthy machine)."""
    def check(out, err, d):
        nv, _, findings = report(out)
        if not nv:
            return "no JSON report"
        probe = nv.get("probe") or {}
        st = probe.get("status")
        why = (probe.get("reason", "") + " " + " ".join((probe.get("failed") or {}).values())).lower()
        found = {f.get("code") for f in findings}
        loud = [f"{f['code']}:{f['severity']}" for f in findings
                if f.get("severity") in ("error", "warning")
                and str(f.get("code", "")).startswith(MACHINE_AREAS)]
        probs = []
        if status and st not in status:
            probs.append(f"nvidia status {st!r} (want {'/'.join(sorted(status))})")
        for word in reason:
            if word.lower() not in why:
                probs.append(f"reason lacks {word!r}")
        for c in codes:
            if c not in found:
                probs.append(f"no {c} (got {sorted(x for x in found if x)})")
        for c in not_codes:
            if c in found:
                probs.append(f"false {c}")
        if error_code and not any(f.get("code") == error_code and f.get("severity") == "error"
                                  for f in findings):
            probs.append(f"{error_code} is not an error")
        if quiet and loud:
            probs.append(f"healthy machine warned: {loud}")
        if no_driver_claim:
            said = [f["code"] for f in findings
                    if any(w in (f.get("title", "") + " " + f.get("why", "")).lower()
                           for w in NO_DRIVER_CLAIMS[:1]) or
                    any(w in f.get("title", "").lower() for w in NO_DRIVER_CLAIMS[1:])]
            if said:
                probs.append(f"claims no driver: {said}")
        if failed_field and st != "error" and failed_field not in (probe.get("failed") or {}):
            probs.append(f"{failed_field!r} not recorded as failed")
        if gpus is not None and len(nv.get("gpus") or []) != gpus:
            probs.append(f"{len(nv.get('gpus') or [])} GPU(s) (want {gpus})")
        if unobserved and unobserved not in (probe.get("unobserved") or []) \
                and unobserved not in (probe.get("failed") or {}) and st != "error":
            probs.append(f"{unobserved!r} neither unobserved nor failed")
        return "; ".join(probs)
    return check


FAILED = {"error"}
# ``quiet`` judges what the fault touches: the driver, GPUs, probes, CUDA and device
# visibility. The frameworks of the interpreter running the matrix are what they are (this
# CI's torch is a CPU build, so TORCH001 on a simulated GPU host is a true finding).
MACHINE_AREAS = ("PROBE", "DRV", "GPU", "ENV", "INTENT", "CUDA")


def spec(env: dict, check, bound: float = 10, rc=frozenset({0, 1}), args=None, **extra) -> dict:
    root = extra.pop("env_root", None)
    if root:
        env = {**env, "EDFAULT_ROOT": root}
    out = dict(args=args or STATIC, env=env, rc=set(rc), bound=bound, check=check)
    out.update(extra)
    return out


def with_root(root: Path, env: dict, check, argv=(), **kw) -> dict:
    r = rooted(root, *argv)
    return spec(env, check, cmd=r["cmd"], env_root=r["env_root"], **kw)


# --------------------------------------------------------------------------- NVML / driver stack
@fault("V01", "nvml state", "nvidia-smi: Driver/library version mismatch + NVML library version line",
       "https://github.com/tinygrad/open-gpu-kernel-modules/issues/47")
def _(d):
    env = smi(d, raw="printf 'Failed to initialize NVML: Driver/library version mismatch\\n"
                     "NVML library version: 570.124\\n'; exit 18")
    root = fake_root(d, dev=True, proc=PROC_550)
    return with_root(root, env, verdict(codes=("DRV003",), error_code="DRV003"))


@fault("V02", "nvml state", "couldn't communicate with the driver, no kernel module, GPU on PCI",
       "https://github.com/mattshma/bigdata/issues/133")
def _(d):
    env = smi(d, raw="cat <<'E'\nNVIDIA-SMI has failed because it couldn't communicate with the "
                     "NVIDIA driver. Make sure that the latest NVIDIA driver is installed and "
                     "running.\n\nE\nexit 9")
    root = fake_root(d, pci=1)
    return with_root(root, env, verdict(status={"not_found"}, codes=("DRV005",),
                                        no_driver_claim=False))


@fault("V03", "nvml state", "couldn't communicate with the driver while the kernel module is loaded",
       "https://github.com/flydiscohuebr/nvidia-304/issues/11")
def _(d):
    # the failure text names a known state: that diagnosis (PROBE003), not "probe failed"
    env = smi(d, raw="echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
                     "driver. Make sure that the latest NVIDIA driver is installed and running.\"; "
                     "exit 9")
    root = fake_root(d, dev=True, proc=PROC_550, pci=1)
    return with_root(root, env, verdict(status=FAILED, reason=("couldn't communicate",),
                                        codes=("PROBE003",)))


@fault("V04", "nvml state", "Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error",
       "https://github.com/NVIDIA/open-gpu-kernel-modules/issues/387")
def _(d):
    # the failure text names a known state: that diagnosis (PROBE003), not "probe failed"
    env = smi(d, raw="echo 'Unable to determine the device handle for GPU 0000:0B:00.0: Unknown "
                     "Error'; exit 15")
    return spec(env, verdict(status=FAILED, reason=("device handle",), codes=("PROBE003",)))


@fault("V05", "nvml state", "GPU is lost. Reboot the system to recover this GPU",
       "https://github.com/JosephKJ/OWOD/issues/81")
def _(d):
    # the failure text names a known state: that diagnosis (PROBE003), not "probe failed"
    env = smi(d, raw="echo 'Unable to determine the device handle for GPU 0000:02:00.0: GPU is "
                     "lost. Reboot the system to recover this GPU'; exit 15")
    return spec(env, verdict(status=FAILED, reason=("GPU is lost",), codes=("PROBE003",)),
                args=["check", "--static", "--format", "json", "--expect", "gpu"])


@fault("V06", "nvml state", "Failed to initialize NVML: Unknown Error (container, cgroup devices)",
       "https://github.com/NVIDIA/nvidia-docker/issues/1671")
def _(d):
    env = smi(d, raw="echo 'Failed to initialize NVML: Unknown Error'; exit 255")
    root = fake_root(d, dev=True, proc=PROC_550)
    # only the NVIDIA probe is rooted here: whether the host probe finds a container (so that the
    # text names a known state, ECTR020 through PROBE003) depends on the machine the matrix runs
    # on; tests/heldout/plat28's daemon-reload container pins that verdict under --root
    return with_root(root, env, verdict(status=FAILED, reason=("Unknown Error",)))


@fault("V07", "nvml state", "Failed to initialize NVML: Insufficient Permissions",
       "https://github.com/NVIDIA/nvidia-docker/issues/284")
def _(d):
    # the failure text names a known state: that diagnosis (PROBE003), not "probe failed"
    env = smi(d, raw="echo 'Failed to initialize NVML: Insufficient Permissions'; exit 4")
    return spec(env, verdict(status=FAILED, reason=("Insufficient Permissions",),
                             codes=("PROBE003",)))


@fault("V08", "nvml state", "nvidia-smi present, libnvidia-ml.so missing, /dev/nvidia* present",
       "https://github.com/NVIDIA/nvidia-docker/issues/1163")
def _(d):
    env = smi(d, raw="echo \"NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. "
                     "Please make sure that the NVIDIA Display Driver is properly installed and "
                     "present in your system.\"; echo 'Please also try adding directory that "
                     "contains libnvidia-ml.so to your system PATH.'; exit 12")
    root = fake_root(d, dev=True, proc=PROC_550)
    return with_root(root, env, verdict(status=FAILED, reason=("libnvidia-ml",),
                                        codes=("PROBE001",)))


@fault("V09", "nvml state", "nvidia-smi present, libnvidia-ml.so missing, no driver traces at all",
       "https://github.com/warmshao/FasterLivePortrait/issues/8")
def _(d):
    env = smi(d, raw="echo \"NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. "
                     "Please make sure that the NVIDIA Display Driver is properly installed and "
                     "present in your system.\"; exit 12")
    root = fake_root(d)
    return with_root(root, env, verdict(status={"not_found"}, no_driver_claim=False,
                                        not_codes=("PROBE001",)))


@fault("V10", "nvml state", "No devices were found, kernel module loaded, GPU on PCI",
       "https://github.com/NVIDIA/open-gpu-kernel-modules/issues/862")
def _(d):
    # the failure text names a known state: that diagnosis (PROBE003), not "probe failed"
    env = smi(d, raw="echo 'No devices were found'; exit 6")
    root = fake_root(d, dev=True, proc=PROC_550, pci=1)
    return with_root(root, env, verdict(status=FAILED, reason=("No devices were found",),
                                        codes=("PROBE003",)))


@fault("V11", "nvml state", "libnvidia-ml.so.1 in the driver folder is not loadable, no nvidia-smi",
       "https://github.com/NVIDIA/nvidia-container-toolkit/issues/269")
def _(d):
    root = fake_root(d, dev=True, proc=PROC_550, nvml_lib=b"\x7fELF\x01\x01" + b"\0" * 58)
    return with_root(root, {}, verdict(status=FAILED | {"ok"}, reason=("libnvidia-ml",),
                                       codes=("PROBE001",)))


# --------------------------------------------------------------------------- a real NVML child
# tests/faults/fake_nvml.c built in a mode; pynvml loads it in envdoctor's NVML child process.
@fault("NL01", "nvml lib", "libnvidia-ml: nvmlInit returns NVML_ERROR_UNKNOWN (container cgroup)",
       "https://github.com/NVIDIA/nvidia-docker/issues/1671")
def _(d):
    lib = m.fake_nvml(d, "unknown")
    return spec({"LD_LIBRARY_PATH": str(lib)},
                verdict(status=FAILED, reason=("Unknown Error",), codes=("PROBE001",)))


@fault("NL02", "nvml lib", "libnvidia-ml: two GPUs, the second NVML_ERROR_GPU_IS_LOST",
       "https://github.com/JosephKJ/OWOD/issues/81")
def _(d):
    lib = m.fake_nvml(d, "lost")
    return spec({"LD_LIBRARY_PATH": str(lib)},
                verdict(reason=("GPU is lost",), codes=("PROBE001",), failed_field="gpus"))


@fault("NL03", "nvml lib", "libnvidia-ml: GPU answers, its temperature NVML_ERROR_RESET_REQUIRED",
       "https://github.com/leptonai/gpud/pull/1133")
def _(d):
    lib = m.fake_nvml(d, "reset")
    return spec({"LD_LIBRARY_PATH": str(lib)},
                verdict(status={"ok"}, reason=("requires",), codes=("PROBE001",),
                        failed_field="gpus.health", gpus=1))


# --------------------------------------------------------------------------- the binary itself
@fault("B01", "binary", "nvidia-smi is a wrong-arch ELF (Exec format error)",
       "https://github.com/NVIDIA/nvidia-container-toolkit/issues/303")
def _(d):
    (d / "bin").mkdir()
    elf = d / "bin/nvidia-smi"
    elf.write_bytes(b"\x7fELF\x02\x01\x01" + b"\0" * 9 + b"\x02\x00\xb7\x00" + b"\0" * 44)
    elf.chmod(0o755)
    return spec({"PATH": f"{d}/bin:" + os.environ["PATH"]},
                verdict(status=FAILED, reason=("exec format",), codes=("PROBE001",)))


@fault("B02", "binary", "nvidia-smi killed by SIGABRT",
       "https://github.com/NVIDIA/nvidia-docker/issues/1553")
def _(d):
    return spec(smi(d, raw="kill -ABRT $$"),
                verdict(status=FAILED, reason=("SIGABRT",), codes=("PROBE001",)))


@fault("B03", "binary", "nvidia-smi exits 255 with no output",
       "https://github.com/NVIDIA/NVSentinel/issues/1690")
def _(d):
    return spec(smi(d, raw="exit 255"), verdict(status=FAILED, reason=("255",), codes=("PROBE001",)))


@fault("B04", "binary", "nvidia-smi output truncated mid-table (query row cut, table cut)",
       "https://github.com/cBio/cbio-cluster/issues/24")
def _(d):
    env = smi(d, query="0, NVIDIA H100 80GB HBM3, GPU-5f6b1c4e-8d2a", table=H100_TABLE[:700])
    return spec(env, verdict(failed_field="gpus", codes=("PROBE001",)))


@fault("B05", "binary", "nvidia-smi slow (persistenced stuck): 3.5 s a call, under its 10 s timeout",
       "https://github.com/TIGRLab/admin/issues/335")
def _(d):
    env = smi(d, query=H100_CSV, table=H100_TABLE, sleep=3.5)
    return spec(env, verdict(status={"ok"}, gpus=8, quiet=True), bound=20)


@fault("B06", "binary", "nvidia-smi slow past its timeout (12 s per call)",
       "https://github.com/TIGRLab/admin/issues/335")
def _(d):
    env = smi(d, query=H100_CSV, table=H100_TABLE, sleep=12)
    return spec(env, verdict(status=FAILED, reason=("timed out",), codes=("PROBE001",)),
                bound=25)


@fault("B07", "binary", "nvidia-smi prints a valid table but exits 14 with an infoROM warning",
       "https://github.com/NVIDIA/nvidia-docker/issues/1553")
def _(d):
    warn = "WARNING: infoROM is corrupted at gpu 0000:18:00.0\n"
    env = smi(d, query=warn + H100_CSV, query_rc=14, table=warn + H100_TABLE, table_rc=14)
    return spec(env, verdict(status={"ok", "error"}, reason=("infoROM",), codes=("PROBE001",)))


# --------------------------------------------------------------------------- GPU rows
@fault("G01", "gpu rows", "one GPU of eight fell off the bus: 7 rows + 'Unable to determine the device handle'",
       "https://github.com/NVIDIA/nvidia-container-toolkit/issues/69")
def _(d):
    # the failure text names a known state: that diagnosis (PROBE003), not "probe failed"
    lost = "Unable to determine the device handle for GPU 0000:5D:00.0: Unknown Error\n"
    rows = "".join(csv_row(i) + "\n" for i in range(8) if i != 3)
    env = smi(d, query=rows + lost, query_rc=15, table=lost, table_rc=15)
    return spec(env, verdict(reason=("device handle",), codes=("PROBE003",)))


@fault("G02", "gpu rows", "ERR! cells in the table (GPU in an error state)",
       "https://github.com/NVIDIA/open-gpu-kernel-modules/issues/507")
def _(d):
    table = H100_TABLE.replace("| N/A   30C    P0            100W /  700W |",
                               "|ERR!  ERR!   ERR!           ERR! /  ERR! |", 1)
    rest = "".join(csv_row(i) + "\n" for i in range(1, 8))
    env = smi(d, query=csv_row(0, **{"temperature.gpu": "[Unknown Error]",
                                     "power.draw": "[Unknown Error]"}) + "\n" + rest, table=table)
    return spec(env, verdict(codes=("PROBE001",), reason=("GPU 0",)))


@fault("G03", "gpu rows", "[GPU requires reset] cells in --query-gpu",
       "https://github.com/leptonai/gpud/pull/1133")
def _(d):
    reset = "[GPU requires reset]"
    rows = csv_row(0, **{k: reset for k in ("memory.used", "temperature.gpu", "power.draw",
                                            "ecc.errors.uncorrected.volatile.total")}) + "\n"
    env = smi(d, query=rows, table=H100_TABLE)
    return spec(env, verdict(codes=("PROBE001",), reason=("requires reset",)),
                args=["check", "--static", "--format", "json", "--expect", "gpu"])


@fault("G04", "gpu rows", "[N/A] and [Not Supported] cells on a healthy GeForce",
       "https://github.com/utkuozdemir/nvidia_gpu_exporter")
def _(d):
    row = csv_row(0, name="NVIDIA GeForce RTX 4090", compute_cap="8.9", **{
        "memory.total": "24564", "power.limit": "[N/A]",
        "ecc.errors.uncorrected.volatile.total": "[N/A]", "retired_pages.pending": "[N/A]",
        "pcie.link.gen.current": "[Not Supported]", "mig.mode.current": "[N/A]",
        "driver_version": "580.65.06"})
    env = smi(d, query=row + "\n", table=recorded("nvidia-smi/15-rtx4090-580-cuda13.txt"))
    return spec(env, verdict(status={"ok"}, gpus=1, quiet=True))


@fault("G05", "gpu rows", "[Insufficient Permissions] process names in the table",
       "https://github.com/NVIDIA/nvidia-docker/issues/1523")
def _(d):
    table = H100_TABLE.replace(
        "|  No running processes found                                                             |",
        "|    0   N/A  N/A      4711      C   [Insufficient Permissions]                   1MiB |")
    return spec(smi(d, query=H100_CSV, table=table), verdict(status={"ok"}, gpus=8, quiet=True))


@fault("G06", "gpu rows", "MIG enabled, no MIG devices configured",
       "https://github.com/NVIDIA/gpu-operator/issues/641")
def _(d):
    start = MIG_TABLE.index("| MIG devices:")
    end = MIG_TABLE.index("| Processes:")
    table = (MIG_TABLE[:start] + "| MIG devices:" + " " * 76 + "|\n" + "+" + "-" * 89 + "+\n"
             + "|  No MIG devices found" + " " * 67 + "|\n" + "+" + "-" * 89 + "+\n\n+"
             + "-" * 89 + "+\n" + MIG_TABLE[end:])
    row = csv_row(0, mig="Enabled", driver="590.48.01")
    return spec(smi(d, query=row + "\n", table=table), verdict(codes=("GPU007",)),
                args=["check", "--static", "--format", "json", "--expect", "gpu"])


@fault("G07", "gpu rows", "a healthy 8x H100 (recorded table): the control",
       "https://github.com/thamada/nvidia-smi")
def _(d):
    return spec(smi(d, query=H100_CSV, table=H100_TABLE), verdict(status={"ok"}, gpus=8, quiet=True))


# --------------------------------------------------------------------------- device visibility
def h100(d: Path, extra: dict) -> dict:
    return {**smi(d, query=H100_CSV, table=H100_TABLE), **extra}


@fault("CV01", "visibility", "CUDA_VISIBLE_DEVICES set to GPU UUIDs that exist",
       "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars")
def _(d):
    env = h100(d, {"CUDA_VISIBLE_DEVICES": f"{UUID[:-1]}0,{UUID[:-1]}1"})
    return spec(env, verdict(status={"ok"}, quiet=True))


@fault("CV02", "visibility", 'CUDA_VISIBLE_DEVICES="" hides all eight GPUs',
       "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars")
def _(d):
    return spec(h100(d, {"CUDA_VISIBLE_DEVICES": ""}), verdict(codes=("ENV001",)))


@fault("CV03", "visibility", "CUDA_VISIBLE_DEVICES=-1 hides all eight GPUs",
       "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars")
def _(d):
    return spec(h100(d, {"CUDA_VISIBLE_DEVICES": "-1"}), verdict(codes=("ENV001",)))


@fault("CV04", "visibility", "CUDA_VISIBLE_DEVICES=MIG-<uuid> on a MIG GPU",
       "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/index.html#cuda-visible-devices")
def _(d):
    env = {**smi(d, query=csv_row(0, mig="Enabled", driver="590.48.01") + "\n", table=MIG_TABLE),
           "CUDA_VISIBLE_DEVICES": "MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f"}
    return spec(env, verdict(status={"ok"}, not_codes=("ENV001", "ENV002")))


@fault("CV05", "visibility", "NVIDIA_VISIBLE_DEVICES=void: container without GPUs, no driver files",
       "https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html")
def _(d):
    root = fake_root(d)
    return with_root(root, {"NVIDIA_VISIBLE_DEVICES": "void"},
                     verdict(status={"not_found"}, no_driver_claim=False, not_codes=("PROBE001",)))


# --------------------------------------------------------------------------- driver traces
@fault("K01", "driver traces", "/dev/nvidia* present, /proc/driver/nvidia missing, nothing answers",
       "https://github.com/NVIDIA/nvidia-docker/issues/1330")
def _(d):
    root = fake_root(d, dev=True)
    return with_root(root, {}, verdict(status=FAILED, reason=("/dev/nvidia",), codes=("PROBE001",)))


@fault("K02", "driver traces", "/proc/driver/nvidia loaded, no /dev nodes, no nvidia-smi, no NVML",
       "https://github.com/NVIDIA/data-science-stack/issues/90")
def _(d):
    root = fake_root(d, proc=PROC_550, pci=1)
    return with_root(root, {}, verdict(unobserved="gpus", not_codes=("DRV005",),
                                       codes=("PROBE001",), error_code="PROBE001"),
                     argv=("check", "--static", "--format", "json", "--expect", "gpu"))


@fault("K03", "driver traces", "WSL: /dev/dxg and /usr/lib/wsl/lib/libcuda.so.1, no nvidia-smi",
       "https://docs.nvidia.com/cuda/wsl-user-guide/index.html")
def _(d):
    root = fake_root(d, dxg=True, wsl_libs=("libcuda.so.1", "libcuda.so"))
    return with_root(root, {}, verdict(status=FAILED, reason=("wsl",), codes=("PROBE001",)))


# --------------------------------------------------------------------------- other tools / files
@fault("TK01", "toolkit", "nvcc prints binary garbage and exits 0",
       "https://github.com/spack/spack/issues/8768")
def _(d):
    m.sh(d / "bin/nvcc", "head -c 4096 /dev/urandom; exit 0")

    def check(out, err, dd):
        _, facts, findings = report(out)
        cuda = facts.get("cuda") or {}
        if cuda.get("nvcc_version") not in (None, ""):
            return f"invented nvcc version {cuda.get('nvcc_version')!r}"
        return ""
    return spec({"PATH": f"{d}/bin:" + os.environ["PATH"]}, check)


@fault("TK02", "toolkit", "nvcc killed by SIGSEGV",
       "https://github.com/spack/spack/issues/8768")
def _(d):
    m.sh(d / "bin/nvcc", "kill -SEGV $$")

    def check(out, err, dd):
        _, facts, findings = report(out)
        cuda = facts.get("cuda") or {}
        probe = cuda.get("probe") or {}
        if cuda.get("nvcc_version"):
            return f"invented nvcc version {cuda.get('nvcc_version')!r}"
        if probe.get("status") == "ok" and not probe.get("failed") and cuda.get("nvcc_path"):
            return "a crashed nvcc recorded as answered"
        return ""
    return spec({"PATH": f"{d}/bin:" + os.environ["PATH"]}, check)


@fault("TK03", "toolkit", "ldconfig missing from PATH and /sbin",
       "https://github.com/tkestack/gpu-manager/issues/101")
def _(d):
    (d / "bin").mkdir()
    for tool in ("sh", "cat", "sleep", "uname", "nvcc"):
        src = next((Path(p) / tool for p in ("/usr/local/cuda/bin", "/usr/bin", "/bin")
                    if (Path(p) / tool).exists()), None)
        if src:
            (d / "bin" / tool).symlink_to(src)

    def check(out, err, dd):
        _, facts, findings = report(out)
        loud = [f["code"] for f in findings if f.get("severity") == "error"]
        return f"errors without ldconfig: {loud}" if loud else ""
    return spec({"PATH": f"{d}/bin"}, check)


def torch_site(d: Path, version_py: str | None = "dir", fifo_dist: bool = False) -> dict:
    sp = d / "sp"
    sp.mkdir()
    di = sp / "torch-2.5.1+cu124.dist-info"
    if fifo_dist:
        os.mkfifo(di)
    else:
        di.mkdir()
        (di / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1+cu124\n")
        (di / "top_level.txt").write_text("torch\n")
    (sp / "torch/lib").mkdir(parents=True)
    (sp / "torch/__init__.py").write_text("")
    (sp / "torch/lib/libtorch_cuda.so").write_text("")
    if version_py == "dir":
        (sp / "torch/version.py").mkdir()
    elif version_py == "dangling":
        (sp / "torch/version.py").symlink_to(sp / "nowhere")
    return {"PYTHONPATH": str(sp)}


def not_cpu_only(out, err, d):
    _, _, findings = report(out)
    said = [f["code"] for f in findings if "cpu-only" in f.get("title", "").lower()]
    return f"calls an unreadable torch CPU-only: {said}" if said else ""


@fault("PF01", "python files", "torch/version.py is a directory (unreadable as a file)",
       "synthetic: issue 11 (broken version files)")
def _(d):
    return spec(torch_site(d, "dir"), not_cpu_only, bound=5)


@fault("PF02", "python files", "torch/version.py is a dangling symlink",
       "synthetic: issue 11 (broken version files)")
def _(d):
    return spec(torch_site(d, "dangling"), not_cpu_only, bound=5)


@fault("PF03", "python files", "torch dist-info folder is a FIFO",
       "synthetic: issue 11 (broken dist-info)")
def _(d):
    return spec(torch_site(d, None, fifo_dist=True), lambda o, e, dd: "", bound=5)


# --------------------------------------------------------------------------- live workers
LIVE = ["check", "--framework", "torch", "--no-smoke", "--timeout", "8", "--format", "json"]


@fault("LW01", "live worker", "torch import prints a CUDA error and exits 0",
       "synthetic: issue 11 (shadowed packages)")
def _(d):
    body = ("import os, sys\nsys.stderr.write('RuntimeError: CUDA error: unknown error\\n"
            "CUDA kernel errors might be asynchronously reported at some other API call\\n')\n"
            "sys.stderr.flush()\nos._exit(0)\n")
    return dict(args=LIVE, env=m.shadow(d, body), rc={1}, bound=30, check=m.want_torch_failed)


@fault("LW02", "live worker", "torch import floods stdout (50 MB), then exits 0",
       "synthetic: issue 11 (shadowed packages)")
def _(d):
    body = ("import os, sys\nfor _ in range(50):\n    sys.stdout.write('x' * 1_000_000)\n"
            "sys.stdout.flush()\nos._exit(0)\n")
    return dict(args=LIVE, env=m.shadow(d, body), rc={1}, bound=30, check=m.want_torch_failed)


@fault("LW03", "live worker", "torch import segfaults after printing half a JSON answer",
       "synthetic: issue 11 (shadowed packages)")
def _(d):
    body = ("import os, signal, sys\nsys.stdout.write('{\"protocol\": 1, \"torch\": {\"version\"')\n"
            "sys.stdout.flush()\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    return dict(args=LIVE, env=m.shadow(d, body), rc={1}, bound=30, check=m.want_torch_failed)


def run_fault(fid: str, python: str = sys.executable, slack: float = 1.0) -> dict:
    return m.run_fault(fid, python, slack=slack, faults=FAULTS)


if __name__ == "__main__":
    m.main(FAULTS)
