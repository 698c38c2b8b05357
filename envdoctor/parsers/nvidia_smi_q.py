"""``nvidia-smi -q`` (the long "NVSMI LOG") and ``nvidia-smi --query-gpu=… --format=csv``.

``-q`` is indented ``Key : value`` blocks, one ``GPU 00000000:68:00.0`` block per GPU; nested
keys (``MIG Mode`` / ``Current``) are read by remembering the parent line. The CSV form has a
header naming its columns, which we map onto the probe's own CSV parser fields.
"""

from __future__ import annotations

import re
from dataclasses import replace

from envdoctor.facts import Gpu
from envdoctor.parsers._partial import Partial
from envdoctor.parsers._text import mib, ver
from envdoctor.parsers.gpus import clean_name

NAME = "nvidia_smi_q"
RANK = 90

_KV = re.compile(r"^(\s*)([A-Za-z][\w ./()-]{0,80}?)\s+:\s*(.*)$")  # keys are short: bounded
_GPU = re.compile(r"^\s*GPU\s+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s*$")


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    if "NVSMI LOG" in text or re.search(r"^\s*Driver Version\s{2,}:", text, re.MULTILINE):
        _parse_q(part, text)
    if "," in text and _csv_header(text) is not None:
        _parse_csv(part, text)
    return part


def _parse_q(part: Partial, text: str) -> None:
    gpu: dict | None = None
    gpus: list[dict] = []
    parent = ""
    for line in text.split("\n"):
        g = _GPU.match(line)
        if g:
            gpu = {"index": len(gpus)}
            gpus.append(gpu)
            continue
        m = _KV.match(line)
        if not m:
            if line.strip() and not line.strip().startswith("="):
                parent = line.strip().lower()
            continue
        key, value = m.group(2).strip().lower(), m.group(3).strip()
        if gpu is None:
            if key == "driver version":
                part.set("nvidia.driver_version", ver(value))
            elif key == "cuda version":
                part.set("nvidia.cuda_driver_version", ver(value))
            continue
        if key == "product name":
            gpu["name"] = clean_name(value)
        elif key == "gpu uuid":
            gpu["uuid"] = value
        elif key == "persistence mode":
            gpu["persistence_mode"] = {"enabled": True, "disabled": False}.get(value.lower())
        elif key == "current" and parent == "mig mode":
            gpu["mig_mode"] = {"enabled": True, "disabled": False}.get(value.lower())
        elif key == "total" and parent.startswith("fb memory usage") and "memory_total_mb" \
                not in gpu:
            gpu["memory_total_mb"] = mib(value)
        elif key == "used" and parent.startswith("fb memory usage") and "memory_used_mb" \
                not in gpu:
            gpu["memory_used_mb"] = mib(value)
        elif key in ("cuda compute capability", "compute capability"):
            gpu["cc"] = ver(value)
    for seen in gpus:
        if seen.get("name"):
            part.gpus.append(Gpu(**{k: v for k, v in seen.items() if v is not None}))


# a --query-gpu header: comma-separated field names (``memory.total [MiB]`` carries its unit),
# in any order the user asked for them (``compute_cap, compute_mode, driver_version, name,
# index``). It counts with "name" and one more field only nvidia-smi prints, or with
# ``driver_version`` (then the driver is read and no GPU).
_CSV_FIELD = r"[a-z][a-z0-9_.]{1,80}(?: \[[^\[\],\n]{1,12}\])?"
_CSV_HEAD = re.compile(rf"^[ \t]*({_CSV_FIELD}(?:, ?{_CSV_FIELD}){{1,600}})[ \t]*$",
                       re.MULTILINE | re.IGNORECASE)
_SMI_FIELDS = frozenset({"index", "driver_version", "compute_cap", "uuid", "pci.bus_id",
                         "memory.total", "memory.used", "memory.free", "timestamp",
                         "utilization.gpu", "temperature.gpu", "power.draw", "vbios_version",
                         "mig.mode.current", "persistence_mode", "pstate", "compute_mode",
                         "gpu_name", "gpu_uuid", "gpu_bus_id", "count", "serial"})


def _csv_fields(line: str) -> list[str]:
    return [re.sub(r"\s*\[[^\[\]]*\]\s*$", "", c.strip()).lower() for c in line.split(",")]


def _csv_header(text: str) -> int | None:
    """Where the first --query-gpu header line starts, or None."""
    for m in _CSV_HEAD.finditer(text):
        fields = _csv_fields(m.group(1))
        named = "name" in fields or "gpu_name" in fields
        if (named and len(set(fields) & _SMI_FIELDS) >= 1) or "driver_version" in fields:
            return m.start()
    return None


def _parse_csv(part: Partial, text: str) -> None:
    start = _csv_header(text)
    if start is None:
        return
    lines = [ln for ln in text[start:].split("\n") if ln.strip()]
    fields = ["name" if f == "gpu_name" else f for f in _csv_fields(lines[0])]
    for ln in lines[1:65]:
        cells = [c.strip() for c in ln.split(",")]
        if len(cells) != len(fields):
            break
        row = dict(zip(fields, cells, strict=False))
        part.set("nvidia.driver_version", ver(row.get("driver_version")))
        if not row.get("name"):
            continue
        gpu = Gpu(index=_int(row.get("index"), len(part.gpus)), name=clean_name(row["name"]),
                  uuid=row.get("uuid", ""), cc=ver(row.get("compute_cap")),
                  memory_total_mb=_mib_cell(row.get("memory.total")))
        mig = (row.get("mig.mode.current") or "").lower()
        if mig in ("enabled", "disabled"):
            gpu = replace(gpu, mig_mode=mig == "enabled")
        part.gpus.append(gpu)


def _mib_cell(cell: str | None) -> int | None:
    """``24268`` (nounits) or ``24268 MiB``."""
    if not cell:
        return None
    return mib(cell if cell.lower().endswith("mib") else cell + " MiB")


def _int(text: str | None, default: int) -> int:
    try:
        return int(text) if text is not None else default
    except ValueError:
        return default
