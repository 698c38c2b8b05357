"""``jax.print_environment_info()``: jax, jaxlib, numpy, python, devices, platform.

It prints the ``nvidia-smi`` table after these lines when a GPU is present; that part is read
by the nvidia-smi parser. The device list is a runtime observation (which backend JAX chose),
kept under ``live["report"]["jax"]``.
"""

from __future__ import annotations

import re

from envdoctor.parsers._common import python_fields
from envdoctor.parsers._partial import Partial
from envdoctor.parsers._text import ver

NAME = "jax_env"
RANK = 70

_LINE = re.compile(r"^\s*(jax|jaxlib|numpy|python|device info|process_count|platform)\s*:\s*(.+)$",
                   re.IGNORECASE)
_DEVICES = re.compile(r"^\s*jax\.devices\s*\((\d+) total,\s*(\d+) local\)\s*:\s*(.*)$", re.IGNORECASE)


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    found: dict[str, str] = {}
    devices = None
    for line in text.split("\n"):
        m = _LINE.match(line)
        if m:
            found.setdefault(m.group(1).lower(), m.group(2).strip())
        d = _DEVICES.match(line)
        if d and devices is None:
            devices = d
    if not ({"jax", "jaxlib"} <= found.keys() or ("jax" in found and devices)):
        return part
    part.set("frameworks.jax.version", ver(found.get("jax")))
    part.set("frameworks.jax.jaxlib", ver(found.get("jaxlib")))
    if found.get("numpy"):
        part.package("numpy", ver(found["numpy"]))
    if found.get("python"):
        python_fields(part, found["python"])
    plat = found.get("platform", "")
    m = re.search(r"system='(\w+)'.*?release='([^']*)'.*?machine='(\w+)'", plat)
    if m:
        part.set("host.os", m.group(1))
        part.set("host.kernel", m.group(2))
        part.set("host.arch", {"AMD64": "x86_64"}.get(m.group(3), m.group(3)))
        if "microsoft" in m.group(2).lower():
            part.set("host.wsl", 2 if "wsl2" in m.group(2).lower() else 1)
    if devices:
        listing = devices.group(3).lower()
        kind = ("gpu" if re.search(r"cudadevice|gpudevice|\bcuda\(|\bgpu\(|rocmdevice|rocm\(",
                                   listing)
                else "tpu" if "tpu" in listing else "cpu" if "cpu" in listing else "")
        part.observe("jax", "backend", kind)
        part.observe("jax", "device_count", int(devices.group(1)))
    return part
