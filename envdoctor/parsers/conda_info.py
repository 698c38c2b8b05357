"""``conda info``: the platform (subdir) the conda and its Python were built for, and that
Python's version. ``platform : osx-64`` is an x86_64 conda: on Apple silicon it runs under
Rosetta 2, where MPS is absent and only x86_64 wheels install. The subdir alone does not say
which Mac it is (an Intel Mac prints the same, and ``__osx=10.16`` / ``__archspec=1=x86_64``
appear on both), so it is read as the Python's architecture only; the Apple-silicon verdict
needs the CPU from another line of the paste.

conda's own errors state the same subdir: PackagesNotFoundError lists the "Current channels:"
it searched, each a URL ending in conda's platform or noarch
(``https://conda.anaconda.org/apple/osx-64``). One platform across the list is read as
``platform`` is; a list of several (a ``--platform`` override, a mirror) states none."""

from __future__ import annotations

import re

from envdoctor.parsers._partial import Partial
from envdoctor.parsers._text import ver

NAME = "conda_info"
RANK = 60

_FIELD = re.compile(r"^[ \t]{0,30}(platform|python version|conda version)[ \t]*:[ \t]*"
                    r"([\w.-]{1,40})[ \t]*$", re.M)
_OS = {"osx": "Darwin", "linux": "Linux", "win": "Windows"}
_ARCH = {"64": "x86_64", "arm64": "arm64", "aarch64": "aarch64", "ppc64le": "ppc64le",
         "32": "x86"}


# "Current channels:" and the URL lines under it ("  - https://…/osx-64"), as conda prints them
_CHANNELS = re.compile(r"^[ \t]{0,8}Current channels:[ \t]*\n(?:[ \t]*\n)?((?:[ \t]{0,8}- \S{1,300}"
                       r"[ \t]*\n?){1,40})", re.M)
_SUBDIR = re.compile(r"/((?:osx|linux|win)-(?:64|arm64|aarch64|ppc64le|32))/?$")


def _channel_platform(text: str) -> str | None:
    """The one platform subdir of conda's "Current channels:" lists, or None."""
    found = set()
    for block in _CHANNELS.finditer(text):
        for line in block.group(1).splitlines():
            m = _SUBDIR.search(line.strip())
            if m:
                found.add(m.group(1))
    return next(iter(found)) if len(found) == 1 else None


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    if "conda version" not in text or "platform" not in text:
        if "Current channels:" in text:
            _platform(part, _channel_platform(text))
        return part
    fields = {m.group(1): m.group(2) for m in _FIELD.finditer(text)}
    if "conda version" not in fields or "platform" not in fields:
        if "Current channels:" in text:
            _platform(part, _channel_platform(text))
        return part
    _platform(part, fields["platform"])
    m = re.match(r"(\d)\.(\d{1,2})\.\d{1,3}", fields.get("python version", ""))
    if m:
        part.set("host.python_version", ver(f"{m.group(1)}.{m.group(2)}"))
    return part


def _platform(part: Partial, subdir: str | None) -> None:
    if not subdir:
        return
    plat, _, arch = subdir.partition("-")
    if plat in _OS and arch in _ARCH:
        part.set("host.os", _OS[plat])
        part.set("host.arch", _ARCH[arch])
