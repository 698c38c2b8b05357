"""pip and conda installer output: what got installed, for which Python and platform.

pip: ``Successfully installed torch-2.1.0+cu121 …``, ``Requirement already satisfied: X==1.2
in …/python3.11/site-packages (…) (1.2)``, wheel file names (``Downloading
torch-2.1.0%2Bcu121-cp311-cp311-linux_x86_64.whl``: the cp311 tag is the Python, the platform
tag the OS), ``pip install torch==2.1.0+cu121`` command lines. conda:
``pytorch/linux-64::pytorch-2.1.0-py3.11_cuda12.1_cudnn8.9.2_0`` plan lines. pip's dependency
conflict sentences name both installed versions: ``torchvision 0.18.0 requires torch==2.3.0, but
you have torch 2.2.1 which is incompatible.`` (the legacy resolver: ``… has requirement
torch==1.5.1, but you'll have torch 1.5.0 which is incompatible.``). conda's specs are installed
too, whatever the plan shows of them: a solve satisfies every spec, so the ``added / updated
specs:`` of a plan, the packages of a ``conda install``/``create`` command line and the
``dependencies:`` of an environment.yml are in the environment (``cudatoolkit=10.1``).
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from envdoctor.parsers._partial import Partial
from envdoctor.parsers._text import ver
from envdoctor.parsers.packages import _conda_cuda

NAME = "installer"
RANK = 20

_SUCCESS = re.compile(r"Successfully installed\s+(.+)$", re.IGNORECASE)
_ALREADY = re.compile(r"Requirement already satisfied:\s*([A-Za-z0-9][\w.-]*)(?:\[[^\]]*\])?"
                      r"(?:[=<>!~]=?[^\s]+)?\s+in\s+(\S+)(?:.*\(([^()]+)\)\s*$)?", re.IGNORECASE)
_WHEEL = re.compile(r"([A-Za-z0-9][\w.]*?)-(\d[\w.!+%]*?)-(?:\d[\w]*-)?(cp\d+|py3\d*|py2\.py3)-"
                    r"([\w.]+?)-([\w.]+?)\.whl")
_CONDA = re.compile(r"(?:^|\s)[\w.-]+/(linux-64|linux-aarch64|osx-64|osx-arm64|win-64|noarch)::"
                    r"([A-Za-z0-9][\w.-]*?)-(\d[\w.+]*)-([\w.]+)")
# a row of conda's "The following packages will be downloaded:" table:
# "    pytorch-1.12.1             |      py3.8_cpu_0       133.8 MB  pytorch"
_DOWNLOAD_ROW = re.compile(r"^\s{0,12}([A-Za-z0-9][\w.-]{0,60}?)-(\d[\w.+]{0,30})\s{1,40}\|\s{0,40}"
                           r"([\w.+]{1,80})\s{1,20}\d[\d.]{0,8} [KMG]B\b")
# conda's exact spec, name=version=build ("pytorch=1.9.0=py3.8_cpu_0", one line of
# `conda list --export`, or quoted in prose): the build string says which variant was installed
_CONDA_TRIPLE = re.compile(r"(?<![\w.=/-])([A-Za-z][\w.-]{0,60})=(\d[\w.+]{0,30})="
                           r"([A-Za-z0-9][\w.+]{0,80}_\d{1,3})(?![\w=])")
# pip's own words: both names and versions are what is (or will be) installed
_CONFLICT = re.compile(r"(?<![\w.-])([A-Za-z0-9][\w.-]{0,60}) (\d[\w.+!]{0,40}) (?:has requirement|requires) "
                       r"([A-Za-z0-9][\w.-]{0,60})(?:\[[^\]]{0,60}\])?[^,]{0,80}, but you(?:'ll| will)? "
                       r"have \3 (\d[\w.+!]{0,40}) which is incompatible", re.IGNORECASE)
# a row of a conda transaction's UPDATED / DOWNGRADED / SUPERSEDED list: the left side is what
# goes, the right side what stays installed ("  pytorch   pytorch::pytorch-1.7.1-py3.8_cuda10.2~
# --> pkgs/main::pytorch-1.7.1-cpu_py38h6a09485_0", ContinuumIO/anaconda-issues#12302; before
# conda 4.6: "pytorch: 1.0.1-py3.7_cuda10.0.130_cudnn7.4.2_2 pytorch --> 1.0.1-cpu_py37h39e3cac_0")
_TRANSACTION = re.compile(r"^\s{0,12}([A-Za-z0-9][\w.-]{0,60}):?\s{1,40}(?:[\w./-]{1,80}::\1-)?"
                          r"\d[\w.+!]{0,30}[-\s][\w.+]{0,80}~?(?:\s{1,8}[\w./-]{1,60})?\s{1,8}-->"
                          r"\s{1,8}(?:[\w./-]{1,80}::\1-)?(\d[\w.+!]{0,30})[-\s]([\w.+]{1,80})")
_DIGIT = re.compile(r"\d")
_PYPATH = re.compile(r"python(\d\.\d{1,2})[/\\]site-packages|Python(\d)(\d{1,2})[/\\]", re.IGNORECASE)


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    hits = 0
    cuda_to_cpu = None  # the release of a pytorch channel CUDA build a transaction replaces by CPU
    digit = _DIGIT.search
    for line in text.split("\n"):
        if not digit(line):  # every reading below needs a version, a cp tag or a pythonX.Y
            continue
        m = _SUCCESS.search(line)
        if m:
            hits += 1
            for token in m.group(1).split():
                name, _, version = token.rpartition("-")
                if name and ver(version) is not None:
                    part.package(name, ver(version))
            continue
        m = _CONFLICT.search(line)
        if m:
            hits += 1
            for name, version in ((m.group(1), m.group(2)), (m.group(3), m.group(4))):
                if ver(version.rstrip(".")) is not None:
                    part.package(name, ver(version.rstrip(".")))
            continue
        m = _ALREADY.search(line)
        if m:
            hits += 1
            if m.group(3) and ver(m.group(3)) is not None:
                part.package(m.group(1), ver(m.group(3)))
            _python_from_path(part, m.group(2))
            continue
        for w in _wheels(line):
            hits += 1
            name, version, pytag, _abi, plat = w.groups()
            part.package(name.replace("_", "-"), ver(version))
            pm = re.match(r"cp(\d)(\d+)", pytag)
            if pm:
                part.set("host.python_version", ver(f"{pm.group(1)}.{pm.group(2)}"))
            _platform(part, plat)
        t = _TRANSACTION.match(line) if "-->" in line else None
        if t:
            hits += 1
            part.package(t.group(1), ver(t.group(2)))
            _conda_cuda(part, t.group(1), t.group(3))
            if _CUDA_TO_CPU.search(line) and t.group(1).lower() == "pytorch":
                cuda_to_cpu = ver(t.group(2))
            continue
        d = _DOWNLOAD_ROW.match(line)
        if d:
            hits += 1
            part.package(d.group(1), ver(d.group(2)))
            _conda_cuda(part, d.group(1), d.group(3))
        for c in _CONDA.finditer(line):
            hits += 1
            part.package(c.group(2), ver(c.group(3)))
            _conda_cuda(part, c.group(2), c.group(4))
            _platform(part, c.group(1))
        if "=" in line:
            for t in _CONDA_TRIPLE.finditer(line):
                hits += 1
                part.package(t.group(1), ver(t.group(2)))
                _conda_cuda(part, t.group(1), t.group(3))
        p = _PYPATH.search(line)
        if p:
            _python_from_path(part, p.group(0))
    specs = Partial(NAME, RANK)
    hits += _conda_specs(specs, text)
    for name, version in specs.packages.items():
        part.package(name, version)
    if cuda_to_cpu is not None and "cpuonly" not in specs.packages:
        _cuda_dependency_stays(part, cuda_to_cpu, text)
    for conda_name in ("pytorch", "pytorch-nightly"):  # conda's names of torch
        if conda_name in part.packages and "torch" not in part.packages:
            part.packages["torch"] = part.packages[conda_name]
    return part if hits else Partial(NAME, RANK)


# a transaction row that replaces a pytorch channel CUDA build ("py3.8_cuda10.2…", "py3.10_cuda11~")
# by a CPU one ("cpu_py38h…", "py3.9_cpu_0"): the solver's fallback (another package's pin, a
# channel of higher priority), not the user's choice, unless the specs ask for cpuonly
_CUDA_TO_CPU = re.compile(r"[-\s]py\d\.\d{1,2}_cuda\d[\w.]*~?(?:\s+[\w./-]+)?\s+-->\s+\S*?"
                          r"(?:cpu_py|_cpu_)")


def _cuda_dependency_stays(part: Partial, release: object, text: str) -> None:
    """The CUDA package a replaced pytorch channel CUDA build depends on (cudatoolkit before
    2.0, pytorch-cuda from 2.0) stays installed: a transaction removes only what it lists
    under REMOVED. ContinuumIO/anaconda-issues#12302: `conda update --all` supersedes
    pytorch 1.7.1 py3.8_cuda10.2 by pkgs/main's cpu_py38 build, cudatoolkit 10.2 stays."""
    from packaging.version import Version
    if not isinstance(release, Version):
        return
    name = "pytorch-cuda" if release.major >= 2 else "cudatoolkit"
    removed = text.find("will be REMOVED")
    if removed >= 0 and re.search(rf"^\s{{0,12}}{name}[-\s]", text[removed:removed + 4000],
                                  re.MULTILINE | re.IGNORECASE):
        return  # the transaction removes it too
    if name not in part.packages:
        part.package(name, None)


# where conda lists specs, one per line ("    - cudatoolkit=10.1"): a plan's "added / updated
# specs:" block, an environment.yml's "dependencies:" (its "- pip:" sub-list is pip's)
_SPEC_BLOCK = re.compile(r"^\s*(?:added / updated specs|dependencies)\s*:\s*$", re.IGNORECASE)
_SPEC_ITEM = re.compile(r"^\s*-\s+[\"']?([A-Za-z0-9][\w.-]{0,60})(?:::)?\s*(?:(?:==?|>=|~=)\s*"
                        r"(\d[\w.*]{0,30}))?")
# the command up to where the shell or the prose around it ends it (a closing backtick, ;, |, &&)
_CONDA_CMD = re.compile(r"(?:^|[\s>$`])(?:conda|mamba|micromamba)\s+(?:install|create)\s+"
                        r"([^`;|&#\n]{1,600})")
_CMD_SPEC = re.compile(r"^[\"']?(?:[\w-]{1,40}::)?([A-Za-z0-9][\w.-]{0,60})(?:(?:==?|>=|~=)"
                       r"(\d[\w.*]{0,30}))?")
_VALUED = frozenset({"-c", "--channel", "-n", "--name", "-p", "--prefix", "--file",
                     "--override-channels", "-f"})


def _conda_specs(part: Partial, text: str) -> int:
    """The packages conda's specs put in the environment; returns how many were read."""
    found = 0
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if _SPEC_BLOCK.match(line):
            for item in lines[i + 1:i + 80]:
                m = _SPEC_ITEM.match(item)
                if not m:
                    break
                if m.group(1).lower() != "pip":
                    found += _spec(part, m.group(1), m.group(2))
            continue
        if "conda" not in line and "mamba" not in line:
            continue
        c = _CONDA_CMD.search(line)
        if c is None:
            continue
        skip = False
        for token in c.group(1).split():
            if skip or token.startswith("-"):
                skip = not skip and token in _VALUED
                continue
            m = _CMD_SPEC.match(token)
            if m:
                found += _spec(part, m.group(1), m.group(2))
    return found


def _spec(part: Partial, name: str, version: str | None) -> int:
    if name.lower() in ("python", "pip") or not re.search(r"[a-z]", name.lower()):
        return 0
    part.package(name, ver(version.rstrip(".*")) if version else None)
    return 1


# Wheel file names are whole tokens of a line: split once (linear), then match each token that
# ends in .whl from its start. Searching the line with _WHEEL at every position instead would
# rescan a long token from each of its characters (quadratic).
_TOKEN = re.compile(r"[^\s'\"()<>\[\]=,;/\\]+")


def _wheels(line: str):
    if ".whl" not in line:
        return
    for token in _TOKEN.findall(unquote(line)):
        end = token.find(".whl")
        if 0 < end < 512:
            m = _WHEEL.fullmatch(token[:end + 4])
            if m:
                yield m


def _python_from_path(part: Partial, path: str) -> None:
    m = _PYPATH.search(path)
    if m:
        part.set("host.python_version", ver(m.group(1) or f"{m.group(2)}.{m.group(3)}"))
    if "\\" in path or re.match(r"[A-Za-z]:", path):
        part.set("host.os", "Windows")


def _platform(part: Partial, plat: str) -> None:
    low = plat.lower()
    if low.startswith("win"):
        part.set("host.os", "Windows")
    elif "linux" in low:
        part.set("host.os", "Linux")
    elif low.startswith(("macosx", "osx")):
        part.set("host.os", "Darwin")
    m = re.search(r"(x86_64|amd64|aarch64|arm64)", low)
    if m:
        part.set("host.arch", {"amd64": "x86_64"}.get(m.group(1), m.group(1)))
