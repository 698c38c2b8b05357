"""Issue-template "System information" blocks and ``transformers env`` / ``accelerate env``.

Three shapes: bullet lines (``- TensorFlow version (use command below): 2.1.0``,
``- PyTorch version (GPU?): 2.1.0+cu121 (True)``) and GitHub issue forms, where each field is
a ``### Heading`` followed by its value on the next non-empty line, and two-column Markdown
tables (``| ROCm | 4.1.1 |``). All end up as
``(key, value)`` pairs for ``_fields.apply``.
"""

from __future__ import annotations

import re

from envdoctor.parsers import _fields
from envdoctor.parsers._partial import Partial

NAME = "system_info"
RANK = 30

_BULLET = re.compile(r"^\s*(?:[-*+]\s+|\d+\.\s+)?(?:\*\*)?([A-Za-z`][\w `./()?&/+,-]{0,60}?)"
                     r"(?:\*\*)?\s*[:=]\s*(?:\*\*)?\s*(.*)$")
_HEADING = re.compile(r"^\s*#{2,6}\s+(.+?)\s*#*\s*$")
# a two-column Markdown table row, "| ROCm | 4.1.1 |", "| **PyTorch** | 2.1.0 |" (its header
# and rule rows name no value a key reads: "| Software | version |", "|---|---|")
_TABLE_ROW = re.compile(r"^\s*\|\s*(?:\*\*)?([A-Za-z`][\w `./()?&+,-]{0,60}?)(?:\*\*)?\s*\|"
                        r"\s*([^|]{1,200}?)\s*\|?\s*$")


def pairs(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        h = _HEADING.match(line)
        if h:
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j < len(lines) and not _HEADING.match(lines[j]) and len(lines[j]) < 200:
                out.append((h.group(1), lines[j].strip()))
            i = j if j > i else i + 1
            continue
        t = _TABLE_ROW.match(line)
        if t:
            out.append((t.group(1), t.group(2)))
            i += 1
            continue
        b = _BULLET.match(line)
        if b and not re.match(r"^\s*(?:https?|[A-Za-z]):[/\\]", line):
            out.append((b.group(1), b.group(2)))
        i += 1
    return out


# the tools whose output has this shape (their facts are observed, not stated by a person)
_TOOL_OUTPUT = re.compile(r"^\W*`?(?:transformers|accelerate|diffusers|huggingface_hub|"
                          r"sentence-transformers|peft|trl)`? version:|Copy-and-paste the text "
                          r"below in your GitHub issue", re.IGNORECASE | re.MULTILINE)


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK, stated=_TOOL_OUTPUT.search(text) is None)
    understood = 0
    for key, value in pairs(text):
        probe = Partial(NAME, RANK)
        if _fields.apply(probe, key, value):
            understood += 1
            _copy(probe, part)
    return part if understood >= 2 else Partial(NAME, RANK)


def _copy(src: Partial, dst: Partial) -> None:
    for k, v in src.values.items():
        dst.set(k, v)
    for name, version in src.packages.items():
        dst.package(name, version)
    dst.libraries.extend(src.libraries)
    if not dst.gpus:
        dst.gpus.extend(src.gpus)
    for fw, obs in src.live.items():
        for k, v in obs.items():
            dst.observe(fw, k, v)
