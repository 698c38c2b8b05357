"""``rocminfo`` pasted into an issue: the AMD GPUs the ROCm runtime enumerates (marketing name
and gfx target per GPU agent), and whether it said the amdgpu kernel driver (ROCk/KFD) is
loaded; and ``clinfo`` / ``rocm-clinfo``'s board name and gfx target per device. The agent blocks are read by the probe's own parser (``probes.rocm_output``), so a
paste and a live run of the same machine give the same GPUs."""

from __future__ import annotations

import re

from envdoctor.parsers._partial import Partial
from envdoctor.probes.rocm_output import gfx_of, parse_rocminfo

NAME = "rocminfo"
RANK = 80

# rocminfo's own header and agent fields: nothing else prints these together
_SIGN = re.compile(r"^[ \t]*(?:HSA System Attributes|HSA Agents|\*{5,}[ \t]*$)", re.M)
_AGENT_FIELD = re.compile(r"^\s{0,4}(?:Marketing Name|Device Type|Vendor Name):", re.M)
# the whole line as rocminfo prints it ("ROCk module version 6.8.5 is loaded"; the NOT form
# may go on: ", possibly no GPU devices")
_MODULE = re.compile(r"^[ \t]*ROCk module (?:version ([\w.-]{1,40}) )?is (NOT )?loaded"
                     r"(?:[ \t]*$|, possibly no GPU devices)", re.M)


# (rocm-)clinfo's device blocks: "Board name: AMD Radeon RX 6800 XT" and, further down the
# same block, "Name: gfx1030" (the target the runtime loads code for)
_BOARD = re.compile(r"^[ \t]*Board name:[ \t]*(\S[^\n]{0,80}?)[ \t]*$")
_CL_NAME = re.compile(r"^[ \t]*Name:[ \t]*(gfx[0-9a-f]{3,5})\b")


def clinfo_gpus(text: str) -> tuple[tuple[str, str], ...]:
    """(board, gfx) per clinfo device block that names both; () when none does."""
    out: list[tuple[str, str]] = []
    board = ""
    for line in text.splitlines():
        m = _BOARD.match(line)
        if m:
            board = m.group(1)
            continue
        m = _CL_NAME.match(line)
        if m and board:
            out.append((board, gfx_of(m.group(1))))
            board = ""
    return tuple(g for g in out if g[1])


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    if "Board name:" in text and "Marketing Name" not in text:
        boards = clinfo_gpus(text)
        if boards:
            part.set("rocm.gpus", boards)
        return part
    if "ROCk module" not in text and "Marketing Name" not in text:
        return part
    if not (_SIGN.search(text) and _AGENT_FIELD.search(text)) and not _MODULE.search(text):
        return part
    gpus = tuple((name, gfx) for name, gfx in parse_rocminfo(text) if name or gfx)
    if gpus:
        part.set("rocm.gpus", gpus)
    m = _MODULE.search(text)
    if m and not m.group(2):
        part.set("rocm.kernel_module", True)
        part.set("rocm.driver_version", m.group(1) or "")
    return part
