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
    if re.search(r"^\s*(?:index|name|timestamp)\s*,.*\bname\b", text, re.MULTILINE | re.IGNORECASE):
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


def _parse_csv(part: Partial, text: str) -> None:
    lines = [ln for ln in text.split("\n") if ln.strip()]
    head_i = next((i for i, ln in enumerate(lines)
                   if re.match(r"^\s*(?:index|name|timestamp)\s*,", ln, re.IGNORECASE)), None)
    if head_i is None:
        return
    fields = [re.sub(r"\s*\[[^\[\]]*\]\s*$", "", c.strip()).lower()
              for c in lines[head_i].split(",")]
    if "name" not in fields:
        return
    for ln in lines[head_i + 1:]:
        cells = [c.strip() for c in ln.split(",")]
        if len(cells) != len(fields):
            break
        row = dict(zip(fields, cells, strict=False))
        part.set("nvidia.driver_version", ver(row.get("driver_version")))
        gpu = Gpu(index=_int(row.get("index"), len(part.gpus)), name=clean_name(row["name"]),
                  uuid=row.get("uuid", ""), cc=ver(row.get("compute_cap")),
                  memory_total_mb=mib(row.get("memory.total", "") + " MiB")
                  if row.get("memory.total") else None)
        mig = (row.get("mig.mode.current") or "").lower()
        if mig in ("enabled", "disabled"):
            gpu = replace(gpu, mig_mode=mig == "enabled")
        part.gpus.append(gpu)


def _int(text: str | None, default: int) -> int:
    try:
        return int(text) if text is not None else default
    except ValueError:
        return default
