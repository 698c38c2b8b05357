"""``nvcc --version``: the CUDA toolkit that PATH picks (not the driver's "CUDA Version")."""

from __future__ import annotations

import re

from envdoctor.parsers._partial import Partial
from envdoctor.parsers._text import ver

NAME = "nvcc"
RANK = 85

RELEASE = re.compile(r"Cuda compilation tools,\s*release\s+(\d+\.\d+)(?:,\s*V(\d+\.\d+\.\d+))?",
                     re.IGNORECASE)
NOT_FOUND = re.compile(r"nvcc:\s*(?:command )?not found|'nvcc' is not recognized|"
                       r"Command 'nvcc' not found", re.IGNORECASE)


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    m = RELEASE.search(text)
    if m:
        part.set("cuda.nvcc_version", ver(m.group(2) or m.group(1)))
        # from the start of a path token only (lookbehind): a lazy scan from every "/" of a
        # long line would be quadratic
        p = re.search(r"(?<![\w./+-])(/[\w./+-]*?/bin/nvcc|[A-Za-z]:\\[^\s\"']*?\\bin\\nvcc"
                      r"(?:\.exe)?)\b", text) if "nvcc" in text else None
        if p:
            part.set("cuda.nvcc_path", p.group(1))
    elif NOT_FOUND.search(text):
        part.absent["cuda"] = "nvcc is not on PATH"
    return part
