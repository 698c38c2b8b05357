"""Node facts that matter for a fleet and that the single-machine probes do not gather.

InfiniBand ports (sysfs), the NCCL network plugin (libnccl-net*.so where NCCL looks for it),
and, through NVML where it answers, row remapping, SM clocks and NVLink state per GPU, plus
XID errors from the kernel log. Each part is bounded (a capped directory walk, NVML calls in a
daemon thread with a deadline, ``dmesg`` through the runner with a timeout) and says what it
could not see instead of guessing: a missing value is unknown, never "fine".

Under ``--root DIR`` (``check``'s root, given to every rank) the files are read under DIR and
named as the tree names them; NVML and the kernel log are asked only where the node's facts,
read under that root, list GPUs (as the NVIDIA probe does).
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import Any

from envdoctor import runner
from envdoctor.probes import SYSTEM, shown, under

IB_ROOT = Path("/sys/class/infiniband")
PLUGIN_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64",
               "/usr/local/lib", "/opt/amazon/ofi-nccl/lib", "/opt/aws-ofi-nccl/lib",
               "/usr/local/nccl-rdma-sharp-plugins/lib")
MAX_ENTRIES = 2000        # directory entries looked at per folder
MAX_PORTS = 64
NVML_DEADLINE = 5.0
DMESG_TIMEOUT = 3.0
MAX_LOG = 1 << 20         # characters of dmesg read
# NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.
_XID = re.compile(r"NVRM: Xid \(PCI:([0-9a-fA-F:.]{1,20})\): ([0-9]{1,4})")
# Newer drivers also say it without an XID, over several lines:
# "NVRM: The NVIDIA GPU 0000:b3:00.0 … has … fallen off the bus" (reported as XID 79 here)
_OFF_BUS = re.compile(r"NVRM: The NVIDIA GPU ([0-9a-fA-F:.]{1,20})[^\n]{0,80}\n?[^\n]{0,120}"
                      r"\n?[^\n]{0,120}fallen off the bus")


def _read(path: Path, limit: int = 256) -> str | None:
    from envdoctor.bounded import read_regular
    data = read_regular(path, limit)  # sysfs: a regular file; a FIFO planted there is refused
    return None if data is None else data.decode("ascii", errors="replace").strip()


def ib_ports(root: Path = IB_ROOT) -> dict[str, Any] | None:
    """``mlx5_0/1`` -> {"state": "ACTIVE", "rate": "200 Gb/sec (4X HDR)", "link_layer": …};
    {} when the machine has no RDMA devices, None when sysfs cannot be read."""
    if not root.exists():
        return {}
    ports: dict[str, Any] = {}
    try:
        devices = sorted(os.listdir(root))[:MAX_ENTRIES]
    except OSError:
        return None
    for dev in devices:
        try:
            numbers = sorted(os.listdir(root / dev / "ports"))[:MAX_PORTS]
        except OSError:
            continue
        for num in numbers:
            base = root / dev / "ports" / num
            state = _read(base / "state") or ""
            ports[f"{dev}/{num}"] = {
                "state": state.partition(":")[2].strip() or state,  # "4: ACTIVE" -> ACTIVE
                "rate": _read(base / "rate") or "",
                "link_layer": _read(base / "link_layer") or "",
            }
            if len(ports) >= MAX_PORTS:
                return ports
    return ports


def nccl_net_plugins(env: dict[str, str], extra_dirs: tuple[str, ...] = (),
                     root: Path = SYSTEM) -> list[str]:
    """Files named libnccl-net*.so that NCCL could load (NCCL_NET_PLUGIN names another one);
    every folder is looked at under ``root``, and the files named as the machine names them."""
    wanted = env.get("NCCL_NET_PLUGIN", "").strip()
    names = {"libnccl-net.so"}
    if wanted and wanted.lower() != "none":
        names |= {wanted, f"libnccl-net-{wanted}.so", f"libnccl-net_{wanted}.so"}
    dirs = [d for d in env.get("LD_LIBRARY_PATH", "").split(os.pathsep) if d][:64]
    found: list[str] = []
    for folder in dict.fromkeys([*dirs, *extra_dirs, *PLUGIN_DIRS]):
        try:
            entries = os.listdir(under(root, folder))[:MAX_ENTRIES]
        except OSError:
            continue
        for name in entries:
            if name in names or (name.startswith("libnccl-net") and ".so" in name):
                found.append(shown(root, under(root, os.path.join(folder, name))))
    return sorted(set(found))[:32]


def _nvml_gpus() -> list[dict[str, Any]] | str:
    """Per GPU: row remapping pending, SM clocks, NVLink links up/down, P2P; or why not."""
    try:
        import pynvml as nv
    except ImportError:
        return "pynvml is not installed"
    try:
        nv.nvmlInit()
    except Exception as exc:  # noqa: BLE001 - no driver, no library
        return f"NVML: {exc}"
    gpus = []
    try:
        for i in range(nv.nvmlDeviceGetCount()):
            h = nv.nvmlDeviceGetHandleByIndex(i)
            gpu: dict[str, Any] = {"index": i}
            for key, call in (("remap_pending", lambda: bool(nv.nvmlDeviceGetRemappedRows(h)[2])),
                              ("sm_clock_mhz", lambda: nv.nvmlDeviceGetClockInfo(
                                  h, nv.NVML_CLOCK_SM)),
                              ("sm_clock_max_mhz", lambda: nv.nvmlDeviceGetMaxClockInfo(
                                  h, nv.NVML_CLOCK_SM)),
                              ("app_clock_mhz", lambda: nv.nvmlDeviceGetApplicationsClock(
                                  h, nv.NVML_CLOCK_SM)),
                              ("pci_bus_id", lambda: _s(nv.nvmlDeviceGetPciInfo(h).busId))):
                try:
                    gpu[key] = call()
                except Exception:  # noqa: BLE001 - not supported on this GPU: unknown
                    pass
            up = down = 0
            for link in range(getattr(nv, "NVML_NVLINK_MAX_LINKS", 18)):
                try:
                    state = nv.nvmlDeviceGetNvLinkState(h, link)
                except Exception:  # noqa: BLE001 - no such link
                    break
                up, down = (up + 1, down) if state else (up, down + 1)
            if up or down:
                gpu["nvlink_up"], gpu["nvlink_down"] = up, down
            gpus.append(gpu)
        _p2p(nv, gpus)
    finally:
        try:
            nv.nvmlShutdown()
        except Exception:  # noqa: BLE001
            pass
    return gpus


def _p2p(nv: Any, gpus: list[dict[str, Any]]) -> None:
    """Per GPU, the peers it cannot read from over P2P (NVML's P2P status, read caps)."""
    caps = getattr(nv, "NVML_P2P_CAPS_INDEX_READ", None)
    ok = getattr(nv, "NVML_P2P_STATUS_OK", 0)
    if caps is None or len(gpus) < 2:
        return
    handles = [nv.nvmlDeviceGetHandleByIndex(g["index"]) for g in gpus]
    for i, g in enumerate(gpus):
        bad = 0
        for j in range(len(gpus)):
            if i == j:
                continue
            try:
                bad += nv.nvmlDeviceGetP2PStatus(handles[i], handles[j], caps) != ok
            except Exception:  # noqa: BLE001 - not supported: unknown, not "no P2P"
                return
        g["p2p_unreadable_peers"] = bad


def _s(value: Any) -> str:
    return value.decode("ascii", "replace") if isinstance(value, bytes) else str(value)


def nvml_gpus(deadline: float = NVML_DEADLINE) -> tuple[list[dict[str, Any]], str]:
    """``_nvml_gpus`` under a deadline (a wedged driver must not hold the rank)."""
    box: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: box.setdefault("v", _nvml_gpus()), daemon=True)
    thread.start()
    thread.join(deadline)
    value = box.get("v", f"NVML did not answer within {deadline:g}s")
    return (value, "") if isinstance(value, list) else ([], value)


def parse_xids(text: str) -> dict[str, list[int]]:
    """Kernel-log XID lines -> {pci bus id: sorted distinct XID codes}."""
    out: dict[str, set[int]] = {}
    text = text[:MAX_LOG]
    for m in _XID.finditer(text):
        out.setdefault(m.group(1).lower(), set()).add(int(m.group(2)))
    for m in _OFF_BUS.finditer(text):
        bus = m.group(1).lower()
        bus = bus[:-2] if bus.endswith(".0") else bus  # 0000:b3:00.0 -> 0000:b3:00, as XIDs
        out.setdefault(bus, set()).add(79)
    return {bus: sorted(codes) for bus, codes in sorted(out.items())}


def xids() -> tuple[dict[str, list[int]] | None, str]:
    """XIDs from ``dmesg``; (None, why) when the kernel log is not readable (often: not root)."""
    if runner.which("dmesg") is None:
        return None, "dmesg is not on PATH"
    result = runner.run(["dmesg"], DMESG_TIMEOUT)
    if not result.ok:
        return None, (result.error or result.stderr.strip()[:200]
                      or f"dmesg exited {result.returncode}")
    return parse_xids(result.stdout), ""


def probe(env: dict[str, str], has_gpus: bool, root: Path = SYSTEM) -> dict[str, Any]:
    """Everything above as one JSON-able dict; ``*_error`` keys say what could not be seen.
    ``root``: the tree the node's system files are read under (``--root``)."""
    out: dict[str, Any] = {"ib_ports": ib_ports(under(root, "sys/class/infiniband")),
                           "nccl_net_plugins": nccl_net_plugins(env, root=root)}
    if has_gpus:
        gpus, why = nvml_gpus()
        out["nvml_gpus"] = gpus
        if why:
            out["nvml_error"] = why
        found, why = xids()
        out["xids"] = found
        if why:
            out["xids_error"] = why
    return out
