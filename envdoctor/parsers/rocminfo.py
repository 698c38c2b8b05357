"""``rocminfo`` pasted into an issue: the AMD GPUs the ROCm runtime enumerates (marketing name
and gfx target per GPU agent), and whether it said the amdgpu kernel driver (ROCk/KFD) is
loaded. The agent blocks are read by the probe's own parser (``probes.rocm_output``), so a
paste and a live run of the same machine give the same GPUs."""

from __future__ import annotations

import re

from envdoctor.parsers._partial import Partial
from envdoctor.probes.rocm_output import parse_rocminfo

NAME = "rocminfo"
RANK = 80

# rocminfo's own header and agent fields: nothing else prints these together
_SIGN = re.compile(r"^[ \t]*(?:HSA System Attributes|HSA Agents|\*{5,}[ \t]*$)", re.M)
_AGENT_FIELD = re.compile(r"^\s{0,4}(?:Marketing Name|Device Type|Vendor Name):", re.M)
# the whole line as rocminfo prints it ("ROCk module version 6.8.5 is loaded"; the NOT form
# may go on: ", possibly no GPU devices")
_MODULE = re.compile(r"^[ \t]*ROCk module (?:version ([\w.-]{1,40}) )?is (NOT )?loaded"
                     r"(?:[ \t]*$|, possibly no GPU devices)", re.M)


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
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
