"""``rocminfo`` pasted into an issue: the AMD GPUs the ROCm runtime enumerates (marketing name
and gfx target per GPU agent), and whether it said the amdgpu kernel driver (ROCk/KFD) is
loaded; and ``clinfo`` / ``rocm-clinfo``'s board name and gfx target per device. The agent blocks are read by the probe's own parser (``probes.rocm_output``), so a
paste and a live run of the same machine give the same GPUs.

An excerpt without rocminfo's headers is read too: ``rocminfo | grep Name`` (``grep gfx``,
``grep -E 'Name|Marketing'``) or one agent's block cut out of the output, often pasted under an
issue form's "GPU" heading. An agent's own ``Name:`` line holding a gfx target is a GPU the
runtime enumerated (a CPU agent's Name is its model), and the ``Marketing Name:`` after it names
that GPU: observed by the tool, so it outranks what a form's free text calls the GPU."""

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


# an excerpt: an agent's own Name line with a gfx target (indent <= 4; the ISA entries'
# "Name: amdgcn-amd-amdhsa--gfx803" sit at 6), beside another line only rocminfo prints
_EXCERPT_GFX = re.compile(r"^[ \t]{0,4}Name:[ \t]*gfx[0-9a-f]{3,5}\b", re.M)
_EXCERPT_MARK = re.compile(r"^[ \t]*(?:Marketing Name:|Name:[ \t]*amdgcn-amd-amdhsa--gfx)", re.M)
_EXCERPT_FIELD = re.compile(r"^[ \t]{0,4}(Name|Marketing Name):[ \t]*(.*?)[ \t]*$")


def excerpt_gpus(text: str) -> tuple[tuple[str, str], ...]:
    """(marketing name, gfx) per GPU agent of a headerless rocminfo excerpt, in its order;
    () when the text is not one (no agent Name with a gfx target, or nothing else rocminfo
    prints beside it)."""
    if not (_EXCERPT_GFX.search(text) and _EXCERPT_MARK.search(text)):
        return ()
    out: list[list[str]] = []
    current: int | None = None  # the GPU whose fields follow; None after a CPU agent's Name
    for line in text.splitlines():
        m = _EXCERPT_FIELD.match(line)
        if not m:
            continue
        if m.group(1) == "Name":
            gfx = gfx_of(m.group(2))
            if gfx:
                out.append(["", gfx])
                current = len(out) - 1
            elif not m.group(2).startswith("amdgcn-"):
                current = None
        elif current is not None and not out[current][0]:
            out[current][0] = m.group(2)
    return tuple((name, gfx) for name, gfx in out)


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    if "Board name:" in text and "Marketing Name" not in text:
        boards = clinfo_gpus(text)
        if boards:
            part.set("rocm.gpus", boards)
        return part
    if "ROCk module" not in text and "Marketing Name" not in text \
            and "amdgcn-amd-amdhsa--" not in text:
        return part
    if not (_SIGN.search(text) and _AGENT_FIELD.search(text)) and not _MODULE.search(text):
        excerpt = excerpt_gpus(text)
        if excerpt:
            part.set("rocm.gpus", excerpt)
        return part
    gpus = tuple((name, gfx) for name, gfx in parse_rocminfo(text) if name or gfx)
    if gpus:
        part.set("rocm.gpus", gpus)
    m = _MODULE.search(text)
    if m and not m.group(2):
        part.set("rocm.kernel_module", True)
        part.set("rocm.driver_version", m.group(1) or "")
    return part
