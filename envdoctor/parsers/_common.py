"""Facts that several report formats state the same way: OS strings, Python strings, cuDNN.

Kept apart so that ``collect_env``, the issue templates and ``transformers env`` read
"Windows-10-10.0.22631-SP0" or "3.12.9 | packaged by Anaconda, Inc. | (main, …)" alike.
"""

from __future__ import annotations

import re

from envdoctor.facts import Library
from envdoctor.parsers._partial import Partial
from envdoctor.parsers._text import missing, plain, ver

_ARCHES = {"x86_64": "x86_64", "amd64": "x86_64", "x64": "x86_64", "aarch64": "aarch64",
           "arm64": "arm64", "i386": "", "ppc64le": "ppc64le"}


def os_fields(part: Partial, value: str) -> None:
    """An OS description: "Ubuntu 18.04.5 LTS (x86_64)", "Microsoft Windows 11 Pro",
    "macOS 14.5 (arm64)", "Linux-5.15.0-86-generic-x86_64-with-glibc2.35", "Win11"."""
    value = plain(value)
    if missing(value):
        return
    m = re.search(r"uname_result\(system='(\w+)'.*?release='([^']*)'", value)
    if m:  # jax's platform: line
        part.set("host.os", m.group(1))
        part.set("host.kernel", m.group(2))
        return
    low = value.lower()
    if re.search(r"subsystem for linux|\bwsl ?2?\b|microsoft-standard", low):
        part.set("host.os", "Linux")  # WSL runs Linux, whatever Windows hosts it
        part.set("host.wsl", 1 if "wsl1" in low or "wsl 1" in low else 2)
    if re.search(r"\bwin(?:dows)?(?:[\s_-]?(?:7|8|10|11|server)|\b)|win32|win_amd64", low):
        part.set("host.os", "Windows")
    elif re.search(r"mac\s?os|os\s?x|darwin|macos", low):
        part.set("host.os", "Darwin")
        # "macOS 13.7.4 (arm64)", "Mac OSX 10.15.5 (x86_64)": the release (collect_env reads
        # it from the system; a Python platform string's "macOS-10.16" is Rosetta's, skipped)
        m = re.search(r"\bmac\s?os(?:\s?x)?\s+(\d{2}\.\d{1,2}(?:\.\d{1,2})?)\b", value,
                      re.IGNORECASE)
        if m and "host.distro" not in part.values:
            part.set("host.distro", f"macOS {m.group(1)}")
    elif re.search(r"linux|ubuntu|debian|centos|fedora|red hat|rhel|arch|suse|rocky|alma|"
                   r"amazon|wsl|pop!_os|mint|gentoo|nixos", low):
        part.set("host.os", "Linux")
    if "microsoft" in low and "linux" in low or "wsl" in low:
        # WSL 1 reports Windows' own build as a 4.4.0 kernel: "4.4.0-19041-Microsoft"
        part.set("host.wsl", 2 if ("wsl2" in low or "microsoft-standard" in low
                                   or "wsl 2" in low) else 1 if "wsl1" in low
                 or re.search(r"\b4\.4\.0-\d+-microsoft\b", low) else 2)
    m = re.search(r"\((x86_64|amd64|aarch64|arm64|ppc64le)\)", low) or \
        re.search(r"[-_ ](x86_64|amd64|aarch64|arm64|ppc64le)(?:[-_ ]|$)", low)
    if m:
        part.set("host.arch", _ARCHES.get(m.group(1), m.group(1)))
    m = re.search(r"glibc-?(\d+\.\d+)", low)
    if m:
        part.set("host.glibc", "glibc-" + m.group(1))
    m = re.search(r"mac\s?os(?:\s?x)?[\s-]+(\d{2}(?:\.\d{1,2}){0,2})\b", low)
    if m and part.values.get("host.os") == "Darwin":  # "macOS 13.2.1 (x86_64)", "macOS-13.2.1-…"
        part.set("host.distro", f"macOS {m.group(1)}")
    if part.values.get("host.os") == "Linux" and not value.lower().startswith("linux-"):
        part.set("host.distro", re.sub(r"\s*\((?:x86_64|aarch64|ppc64le)\)\s*$", "", value))
    m = re.match(r"linux-(\d[\w.+-]*?)-(?:x86_64|aarch64|ppc64le)", low)
    if m:
        part.set("host.kernel", m.group(1))


def python_fields(part: Partial, value: str) -> None:
    """ "3.10.13 (main, …) [GCC 11.2.0] (64-bit runtime)", "3.7", "Python 3.11.5"."""
    value = plain(value)
    if missing(value):
        return
    m = re.search(r"(?<![\w.])(?:python\s*)?([23]\.\d{1,2}(?:\.\d{1,2})?(?:[abrc]+\d+)?)",
                  value, re.IGNORECASE)
    if m:
        part.set("host.python_version", ver(m.group(1)))
    low = value.lower()
    if "anaconda" in low or "conda-forge" in low or "continuum" in low:
        part.set("host.python_env", "conda")
    if "32-bit runtime" in low:
        part.set("host.arch", "x86")


CUDNN_FILE = re.compile(r"(?:lib)?cudnn(?:_\w+?)?(?:64)?(?:_(\d+))?\.(?:so|dll|dylib)"
                        r"(?:\.(\d+(?:\.\d+){0,2}))?", re.IGNORECASE)


def cudnn_values(text: str) -> list[tuple[str, str]]:
    """(version, path) pairs from "8.9.2", "libcudnn.so.8.9.2" paths or "cudnn64_7.dll"."""
    out = []
    for token in re.split(r"[\s,;]+", text.strip()):
        token = plain(token)
        if not token or missing(token):
            continue
        m = CUDNN_FILE.search(token)
        if m:
            v = m.group(2) or m.group(1)
            if v:
                out.append((v, token))
            continue
        if re.fullmatch(r"\d+(?:\.\d+){0,3}", token):
            out.append((token, ""))
    return out


def add_cudnn(part: Partial, text: str) -> None:
    seen = set()
    for version, path in cudnn_values(text):
        v = ver(version)
        if v is None or (v, path) in seen:
            continue
        seen.add((v, path))
        part.libraries.append(Library(name="cudnn", version=v, path=path,
                                      source=f"report:{part.source}"))
