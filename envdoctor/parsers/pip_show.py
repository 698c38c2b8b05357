"""``pip show NAME`` blocks: ``Name:``, ``Version:`` and ``Location:``.

One block names one distribution, so it says nothing about what else is installed (a missing
jax-cuda plugin next to ``pip show jax`` is not observed absence); it is its own source for
that reason. ``Location`` shows the interpreter (``…/lib/python3.10/site-packages`` on POSIX,
``…\\Lib\\site-packages`` on Windows).
"""

from __future__ import annotations

import re

from envdoctor.parsers._partial import Partial
from envdoctor.parsers._text import ver

NAME = "pip_show"
RANK = 45

_NAME = re.compile(r"^\s*Name:\s*([A-Za-z0-9][A-Za-z0-9._-]{0,80})\s*$")
_FIELD = re.compile(r"^\s*(Version|Location):\s*(.{0,2000})$")
_PY = re.compile(r"[/\\]lib[/\\]python(3\.\d{1,2})[/\\](?:site|dist)-packages", re.IGNORECASE)


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    name = ""
    for line in text.split("\n"):
        m = _NAME.match(line)
        if m:
            name = m.group(1)
            continue
        f = _FIELD.match(line) if name else None
        if not f:
            if line.strip() == "---":
                name = ""
            continue
        key, value = f.group(1), f.group(2).strip()
        if key == "Version":
            version = ver(value)
            if version is not None:
                part.package(name, version)
        elif key == "Location":
            py = _PY.search(value)
            if py:
                part.set("host.python_version", ver(py.group(1)))
            if value.startswith("/"):
                part.set("host.os", "Darwin" if value.startswith("/Users/") else "Linux")
            elif re.match(r"^[A-Za-z]:\\", value):
                part.set("host.os", "Windows")
    return part
