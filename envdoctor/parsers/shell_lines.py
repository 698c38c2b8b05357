"""Version and platform lines of a shell, pasted as they were printed.

``python --version`` ("Python 3.10.12") and the interactive banner ("Python 3.7.5 (default,
Oct 25 2019, …)"), ``uname -a`` ("Linux gpu-server 4.15.0-55-generic #60-Ubuntu SMP … x86_64
GNU/Linux", "Darwin mbp 23.5.0 Darwin Kernel Version 23.5.0: … arm64"), ``sw_vers``
("ProductName: macOS" / "ProductVersion: 12.7.6"), ``/etc/os-release`` (``PRETTY_NAME="Ubuntu
22.04.4 LTS"``) and ``/proc/driver/nvidia/version`` ("NVRM version: NVIDIA UNIX x86_64 Kernel
Module  550.90.07 …"), ``lsb_release -a`` (its "Distributor ID:" and "Description:" lines
together), Windows ``systeminfo``'s "OS Name: Microsoft Windows 11 Pro", and the line that sets
HSA_OVERRIDE_GFX_VERSION (an export, an env dump). Each is a tool's own output, so what it states is observed; only
whole lines in the tool's shape count, never a version mentioned in a sentence.
"""

from __future__ import annotations

import re

from envdoctor.parsers._common import os_fields
from envdoctor.parsers._partial import Partial
from envdoctor.parsers._text import ver

NAME = "shell"
RANK = 45

_PY_VERSION = re.compile(r"^\s*(?:\$\s*|>\s*)?Python (\d\.\d{1,2}\.\d{1,2}(?:[abrc]+\d+)?)"
                         r"(?:\s*$|\s+\((?:main|default|tags/|v\d|heads/)[^)]{0,80}\))",
                         re.MULTILINE)
# the interactive interpreter's banner: "Python 3.11.14 (main, Oct 10 2025, 08:54:03) [GCC
# 11.4.0] on linux" names the platform sys.platform reports (linux, win32, darwin)
_PY_BANNER_OS = re.compile(r"^\s*Python [23]\.\d{1,2}[^\n]{0,160}?\] on (linux|win32|darwin)\s*$",
                           re.MULTILINE)
_UNAME_LINUX = re.compile(r"^\s*Linux \S+ (\d+\.\d+\.\d+[\w.+-]*) #[^\n]{0,200}? "
                          r"(x86_64|aarch64|ppc64le)(?: \S+){0,3} GNU/Linux\s*$", re.MULTILINE)
_UNAME_DARWIN = re.compile(r"^\s*Darwin \S+ (\d+\.\d+\.\d+) Darwin Kernel Version [^\n]{0,200}?"
                           r" (arm64|x86_64)\s*$", re.MULTILINE)
_SW_NAME = re.compile(r"^\s*ProductName:\s+(macOS|Mac OS X)\s*$", re.MULTILINE)
_SW_VERSION = re.compile(r"^\s*ProductVersion:\s+(\d+\.\d+(?:\.\d+)?)\s*$", re.MULTILINE)
# `lsb_release -a` ("Distributor ID:\tUbuntu" then "Description:\tUbuntu 22.04.3 LTS") and
# Windows `systeminfo` ("OS Name:                   Microsoft Windows 11 Pro")
_LSB_ID = re.compile(r"^\s*Distributor ID:\s+(\w[\w ]{0,30}?)\s*$", re.MULTILINE)
_LSB_DESCRIPTION = re.compile(r"^\s*Description:\s+(\S[^\n]{0,80}?)\s*$", re.MULTILINE)
_SYSTEMINFO_OS = re.compile(r"^\s*OS Name:\s+(Microsoft Windows[^\n]{0,60}?)\s*$", re.MULTILINE)
_OS_RELEASE = re.compile(r"^\s*PRETTY_NAME=\"([^\"\n]{1,80})\"\s*$", re.MULTILINE)
# HSA_OVERRIDE_GFX_VERSION as a shell sets it or an env dump prints it, a line of its own
# ("export HSA_OVERRIDE_GFX_VERSION=10.3.0", "HSA_OVERRIDE_GFX_VERSION=12.0.1 python x.py",
# "$env:HSA_OVERRIDE_GFX_VERSION = '11.0.0'"); a commented-out line sets nothing
_HSA_OVERRIDE = re.compile(r"^[ \t]*(?:[$>][ \t]*)?(?:export[ \t]+|set[ \t]+|env[ \t]+|\$env:|"
                           r"-[ \t]+)?HSA_OVERRIDE_GFX_VERSION[ \t]*[=:][ \t]*[\"']?"
                           r"(\d{1,2}\.\d{1,2}\.\d{1,2})\b", re.MULTILINE)
_HSA_UNSET = re.compile(r"\bunset[ \t]+HSA_OVERRIDE_GFX_VERSION\b")
_NVRM = re.compile(r"NVRM version: NVIDIA UNIX (?:x86_64|aarch64|ppc64le|Open) Kernel Module"
                   r"(?: for \w+)?\s+(\d{3}\.\d{1,3}(?:\.\d{1,3})?)")


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    found = {m.group(1) for m in _PY_VERSION.finditer(text)}
    if len(found) == 1:  # two interpreters pasted side by side: which one ran is not said
        part.set("host.python_version", ver(found.pop()))
    banner = {m.group(1) for m in _PY_BANNER_OS.finditer(text)}
    if len(banner) == 1:
        part.set("host.os", {"linux": "Linux", "win32": "Windows", "darwin": "Darwin"}[
            banner.pop()])
    m = _UNAME_LINUX.search(text)
    if m:
        part.set("host.os", "Linux")
        part.set("host.kernel", m.group(1))
        part.set("host.arch", m.group(2))
        if "microsoft" in m.group(0).lower():
            os_fields(part, m.group(0))  # WSL's kernel
    m = _UNAME_DARWIN.search(text)
    if m and "host.os" not in part.values:
        part.set("host.os", "Darwin")
        part.set("host.kernel", m.group(1))
        part.set("host.arch", m.group(2))
    name, version = _SW_NAME.search(text), _SW_VERSION.search(text)
    if name and version:
        part.set("host.os", "Darwin")
        part.set("host.distro", f"macOS {version.group(1)}")
    lsb, description = _LSB_ID.search(text), _LSB_DESCRIPTION.search(text)
    if lsb and description and lsb.group(1).split()[0].lower() in description.group(1).lower():
        os_fields(part, description.group(1))  # the distribution lsb_release names
    m = _SYSTEMINFO_OS.search(text)
    if m:
        os_fields(part, m.group(1))
    m = _OS_RELEASE.search(text)
    if m:
        os_fields(part, m.group(1))  # "Ubuntu 22.04.4 LTS": Linux, and its distribution
    m = _NVRM.search(text)
    if m:
        part.set("nvidia.kernel_module_version", ver(m.group(1)))
    overrides = {m.group(1) for m in _HSA_OVERRIDE.finditer(text)}
    if len(overrides) == 1 and not _HSA_UNSET.search(text):
        part.set("env.HSA_OVERRIDE_GFX_VERSION", overrides.pop())
    return part
