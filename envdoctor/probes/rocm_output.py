"""Parsers for what the AMD tools print: pure functions, fed recorded real outputs by the tests
(tests/data/tools/{rocminfo,rocm-smi,amd-smi}/). The probe reads the tools' live output with
them, and ``check --from`` a pasted rocminfo (envdoctor.parsers.rocminfo).

Every parser returns ``(name, gfx)`` pairs, one per GPU, in the order the tool lists them; a
field the tool did not print is "". gfx targets are normalised to LLVM's spelling (``gfx90a``):
rocm-smi and the KFD topology print the stepping in decimal (``gfx9010``, ``90010``).
"""

from __future__ import annotations

import re
from typing import Any

from envdoctor.bounded import decode_json

GFX = re.compile(r"^gfx[0-9a-f]{3,5}$")
_AGENT = re.compile(r"^[ \t]*Agent[ \t]+\d+[ \t]*$", re.M)
# the agent's own Name/Marketing Name/Device Type lines sit at an indent of 2 (ISA entries at 6)
_FIELD = re.compile(r"^\s{0,4}(Name|Marketing Name|Device Type):\s*(.*?)\s*$")
_KFD_OPEN = re.compile(r"Unable to open /dev/kfd read-write:\s*(.+?)\s*$", re.M)

# What the AMD tools say when they see no GPU or no driver: a statement about the machine,
# not a broken tool (the caller decides which, from what else is on the machine).
NO_GPU_MESSAGES = ("unable to detect any gpu devices", "driver not initialized",
                   "amdgpu not found in modules", "amdsmi_status_driver_not_loaded",
                   "driver not loaded", "no gpus found", "no amd gpus")


def gfx_of(text: str) -> str:
    """``gfx942:sramecc+:xnack-`` -> ``gfx942``; rocm-smi's ``gfx9010`` -> ``gfx90a``;
    anything that is not a gfx target -> ""."""
    token = (text or "").strip().lower().split(":", 1)[0]
    m = re.fullmatch(r"gfx(\d+)", token)
    if m and len(m.group(1)) >= 4 and (m.group(1)[0] == "9" or len(m.group(1)) >= 5):
        digits = m.group(1)
        major_len = 1 if digits[0] == "9" else 2
        major, minor, step = digits[:major_len], digits[major_len], digits[major_len + 1:]
        if step.isdigit() and int(step) < 16:
            return f"gfx{major}{minor}{int(step):x}"
    return token if GFX.match(token) else ""


def gfx_of_version(number: int) -> str:
    """The KFD topology's ``gfx_target_version`` (``90010``) -> ``gfx90a``; 0 (a CPU) -> ""."""
    if number <= 0:
        return ""
    major, rest = divmod(number, 10000)
    minor, step = divmod(rest, 100)
    return f"gfx{major}{minor}{step:x}" if step < 16 and minor < 10 else ""


def parse_rocminfo(text: str) -> list[tuple[str, str]]:
    """GPU agents of ``rocminfo``: (marketing name, gfx target). CPU agents are skipped; an
    agent without a Device Type line counts as a GPU when its Name is a gfx target."""
    blocks = _AGENT.split(text) if _AGENT.search(text) else [text]
    out = []
    for block in blocks:
        fields: dict[str, str] = {}
        for line in block.splitlines():
            m = _FIELD.match(line)
            if m and m.group(1) not in fields:
                fields[m.group(1)] = m.group(2)
        gfx = gfx_of(fields.get("Name", ""))
        kind = fields.get("Device Type", "").upper()
        if kind == "GPU" or (not kind and gfx):
            out.append((fields.get("Marketing Name", ""), gfx))
    return out


def rocminfo_problem(text: str) -> str:
    """What rocminfo said instead of listing agents (``Unable to open /dev/kfd read-write:
    Permission denied``), or ""."""
    m = _KFD_OPEN.search(text)
    if m:
        return f"rocminfo: unable to open /dev/kfd read-write: {m.group(1)}"
    m = re.search(r"(HSA_STATUS_ERROR_\w+)", text)
    return f"rocminfo: {m.group(1)}" if m else ""


def _card_name(fields: dict[str, str]) -> str:
    for key in ("Device Name", "Card Series", "Card series", "Card Model", "Card model"):
        value = fields.get(key, "").strip()
        if value and not value.lower().startswith("0x"):
            return value
    return ""


def _gfx_field(fields: dict[str, str]) -> str:
    for key in ("GFX Version", "gfx_version", "GFX version"):
        if fields.get(key):
            return gfx_of(fields[key])
    return ""


def parse_rocm_smi(text: str) -> list[tuple[str, str]]:
    """``rocm-smi --showproductname`` as JSON (``{"card0": {...}}``), as the text table
    (``GPU[0] : Card Series: ...``) or as CSV (``--csv``)."""
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            data = decode_json(stripped, "rocm-smi JSON")
        except ValueError:
            data = None
        if isinstance(data, dict):
            cards = [(k, v) for k, v in data.items()
                     if re.fullmatch(r"card\d+", str(k)) and isinstance(v, dict)]
            cards.sort(key=lambda kv: int(str(kv[0])[4:]))
            return [(_card_name(v), _gfx_field(v)) for _, v in cards]
        return []
    if stripped.startswith("device,"):
        lines = [ln for ln in stripped.splitlines() if ln.strip()]
        header = [h.strip() for h in lines[0].split(",")]
        out = []
        for line in lines[1:]:
            cells = dict(zip(header, (c.strip() for c in line.split(",")), strict=False))
            if re.fullmatch(r"card\d+", cells.get("device", "")):
                out.append((_card_name(cells), _gfx_field(cells)))
        return out
    gpus: dict[int, dict[str, str]] = {}
    for line in text.splitlines():
        m = re.match(r"GPU\[(\d+)\][ \t]*:[ \t]*([^:\n]+?):(.*)", line)
        if m:
            gpus.setdefault(int(m.group(1)), {})[m.group(2).strip()] = m.group(3).strip()
    return [(_card_name(f), _gfx_field(f)) for _, f in sorted(gpus.items())]


def rocm_smi_driver(text: str) -> str:
    """``rocm-smi --showdriverversion`` (text or CSV) -> the amdgpu driver version."""
    m = re.search(r"Driver version:\s*(\S+)", text)
    if m:
        return m.group(1)
    for line in text.splitlines():
        if line.startswith("cardsystem,"):
            return line.split(",", 1)[1].strip()
    return ""


def _asic(entry: dict[str, Any]) -> tuple[str, str]:
    nested = entry.get("asic")
    asic: dict[str, Any] = nested if isinstance(nested, dict) else entry
    name = str(asic.get("market_name") or asic.get("MARKET_NAME") or "")
    gfx = gfx_of(str(asic.get("target_graphics_version")
                     or asic.get("TARGET_GRAPHICS_VERSION") or ""))
    return name, gfx


def parse_amd_smi_static(text: str) -> list[tuple[str, str]]:
    """``amd-smi static --asic --json`` (a list, or ``{"gpu_data": [...]}`` in newer releases),
    or its text form (``GPU: 0`` / ``MARKET_NAME:`` / ``TARGET_GRAPHICS_VERSION:``)."""
    start = min((i for i in (text.find("["), text.find("{")) if i >= 0), default=-1)
    if start >= 0:
        try:
            data = decode_json(text[start:], "amd-smi JSON")
        except ValueError:
            data = None
        if isinstance(data, dict):
            data = data.get("gpu_data", [data])
        if isinstance(data, list):
            return [_asic(e) for e in data if isinstance(e, dict)]
    out: list[tuple[str, str]] = []
    name = gfx = ""
    seen = False
    for line in text.splitlines():
        if re.match(r"^GPU:\s*\d+\s*$", line):
            if seen:
                out.append((name, gfx))
            name = gfx = ""
            seen = True
        m = re.match(r"^\s*MARKET_NAME:\s*(.*?)\s*$", line)
        if m:
            name = m.group(1)
        m = re.match(r"^\s*TARGET_GRAPHICS_VERSION:\s*(.*?)\s*$", line)
        if m:
            gfx = gfx_of(m.group(1))
    if seen:
        out.append((name, gfx))
    return out


def amd_smi_rocm_version(text: str) -> str:
    """``amd-smi version``: ``AMDSMI Tool: … | ROCm version: 7.11.0`` -> ``7.11.0``."""
    m = re.search(r"ROCm version:\s*([0-9][0-9.]*)", text)
    return m.group(1).rstrip(".") if m else ""


def says_no_gpu(text: str) -> str:
    """The first line in which an AMD tool says it sees no GPU or no driver, or ""."""
    for line in text.splitlines():
        low = line.lower()
        if any(m in low for m in NO_GPU_MESSAGES):
            return re.sub(r"^ERROR:root:\s*", "", line.strip())[:200]
    return ""
