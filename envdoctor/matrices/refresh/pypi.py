"""Readers of what a package index states: a PEP 691 JSON project page of a PyPI-style simple
index (``https://pypi.org/simple/<project>/`` with ``Accept: application/vnd.pypi.simple.v1+json``)
and a wheel's core metadata (PEP 658 ``<wheel>.metadata``, or ``*.dist-info/METADATA`` read from
the wheel when the index serves none).

A listing states which releases exist, when they were uploaded and which Python and platform
tags their wheels carry; the metadata states what a wheel requires (the CUDA runtime torch
pins on Linux, the torch a companion pins). Neither states which CUDA variants
download.pytorch.org carries or which GPU architectures a build has: those cells stay with the
build matrix and RELEASE.md readers. The page is decoded by the bounded JSON decoder (nesting
and number limits), so a hostile copy is "not the expected source", never a crash.
"""

from __future__ import annotations

import re
from email.parser import HeaderParser
from typing import Any

from packaging.markers import UndefinedComparison, UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from packaging.tags import Tag
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from envdoctor.bounded import InputError, decode_json
from envdoctor.matrices.refresh.cell import Cell

MAX_FILES = 200_000     # files of one project page that are read

# wheel platform tag -> the platform names of rules/matrices/wheel_index.toml
_PLATFORMS = (("manylinux", "_x86_64", "linux_x86_64"), ("manylinux", "_aarch64", "linux_aarch64"),
              ("win", "_amd64", "win_amd64"), ("macosx", "_arm64", "macos_arm64"),
              ("macosx", "_x86_64", "macos_x86_64"))
_MACHINE = {"linux_x86_64": "x86_64", "linux_aarch64": "aarch64"}


def _platform(tag: str) -> str | None:
    return next((name for head, tail, name in _PLATFORMS
                 if tag.startswith(head) and tag.endswith(tail)), None)


def _wheels(text: str) -> tuple[str, list[tuple[Version, frozenset[Tag], str]]]:
    """(project name, [(version, tags, upload time)]) of a PEP 691 page's non-yanked wheels."""
    try:
        doc = decode_json(text, "a simple-index page")
    except InputError as exc:
        raise SyntaxError(f"not a PEP 691 project page ({exc})") from None
    files = doc.get("files") if isinstance(doc, dict) else None
    name = doc.get("name") if isinstance(doc, dict) else None
    if not isinstance(files, list) or not isinstance(name, str):
        raise SyntaxError("not a PEP 691 project page (no name and files)")
    out = []
    for item in files[:MAX_FILES]:
        filename = item.get("filename") if isinstance(item, dict) else None
        if not isinstance(filename, str) or not filename.endswith(".whl") \
                or item.get("yanked") not in (None, False):
            continue
        try:
            _, version, _, tags = parse_wheel_filename(filename)
        except (InvalidWheelFilename, InvalidVersion):
            continue
        upload = item.get("upload-time")
        out.append((version, tags, upload[:10] if isinstance(upload, str) else ""))
    return canonicalize_name(name), out


def _python_range(tags: set[Tag]) -> str:
    """">=3.10,<3.15" from the CPython tags (cp310 ... cp314); free-threaded ABIs (cp314t)
    are not counted, as the matrices do not list them. "" without CPython-specific tags."""
    minors = sorted({int(t.interpreter[3:]) for t in tags
                     if re.fullmatch(r"cp3\d+", t.interpreter) and not t.abi.endswith("t")})
    return f">=3.{minors[0]},<3.{minors[-1] + 1}" if minors else ""


def simple_page(text: str, source: str) -> list[Cell]:
    """The cells a PyPI project page states, by project:

    * torch: wheel_index [[torch]] ``python`` of each final release (from its CPython tags);
    * jax: one jax.toml "released" cell per final release (its upload date), which the
      comparison reports when it is newer than every [[release]] row;
    * tensorflow: tensorflow.toml [[release]] ``python`` of each series, from its newest final
      release's tags (2.22.0rc0 is a pre-release: no cell).
    Other projects state nothing here."""
    project, wheels = _wheels(text)
    by_version: dict[Version, tuple[set[Tag], str]] = {}
    for version, wheel_tags, upload in wheels:
        if version.is_prerelease or version.is_devrelease or version.local:
            continue
        by_version.setdefault(version, (set(), upload))[0].update(wheel_tags)
    out: list[Cell] = []
    if project == "torch":
        for version, (tags, _) in sorted(by_version.items()):
            if (python := _python_range(tags)):
                out.append(Cell("wheel_index", "torch", ("torch", str(version)), "python",
                                python, source, listing=True))
    elif project == "jax":
        out += [Cell("jax", "release", ("jax", str(v)), "released", up, source)
                for v, (_, up) in sorted(by_version.items())]
    elif project == "tensorflow":
        newest: dict[str, Version] = {}
        for version in by_version:
            series = f"{version.major}.{version.minor}"
            newest[series] = max(newest.get(series, version), version)
        for series, version in sorted(newest.items(), key=lambda kv: kv[1]):
            if (python := _python_range(by_version[version][0])):
                out.append(Cell("tensorflow", "release", ("tensorflow", series), "python",
                                python, source, listing=True))
    return out


# ------------------------------------------------------------------ core metadata
_CUDA_PIN = re.compile(r"^(?:cuda-toolkit|nvidia-cuda-runtime(?:-cu\d+)?)$")


def _fields(text: str) -> tuple[str, str, list[str]]:
    msg = HeaderParser().parsestr(text)
    name, version = msg.get("Name"), msg.get("Version")
    if not name or not version:
        raise SyntaxError("not core metadata (no Name and Version)")
    return canonicalize_name(str(name)), str(version), [str(r) for r in
                                                        msg.get_all("Requires-Dist") or []]


def _applies(req: Requirement, env: dict[str, str]) -> bool:
    if req.marker is None:
        return True
    try:
        return req.marker.evaluate(env)
    except (UndefinedComparison, UndefinedEnvironmentName):
        return False


def _cuda_variant(requires: list[str], env: dict[str, str]) -> str:
    """The CUDA build a torch wheel is from its Linux requirements: ``cuda-toolkit==13.2.2``
    (2.11+) or ``nvidia-cuda-runtime-cu12==12.8.90`` -> cu132 / cu128; none: the CPU build."""
    for line in requires:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if not _CUDA_PIN.match(canonicalize_name(req.name)) or not _applies(req, env):
            continue
        pins = [s.version for s in req.specifier if s.operator in ("==", "===")]
        m = re.match(r"^(\d+)\.(\d+)", pins[0]) if pins else None
        if m:
            return f"cu{m.group(1)}{m.group(2)}"
    return "cpu"


def _wheel_of(source: str) -> tuple[str, frozenset[Tag]] | None:
    name = source.rsplit("/", 1)[-1].split("#")[0]
    name = name[:-len(".metadata")] if name.endswith(".metadata") else name
    try:
        _, _, _, tags = parse_wheel_filename(name)
    except (InvalidWheelFilename, InvalidVersion):
        return None
    return name, tags


def core_metadata(text: str, source: str) -> list[Cell]:
    """The cells one wheel's core metadata states. ``source`` is the wheel's URL (or its
    ``.metadata``): its filename gives the platform the requirements are evaluated for.

    * torch on Linux: wheel_index [[torch]] ``pypi.<platform>`` = the CUDA build it pins;
    * torchvision / torchaudio with an exact ``torch==X`` pin: the [[torch]] row X's
      ``torchvision`` / ``torchaudio``. A range (torch>=2.14.0) pairs with no one release."""
    project, version, requires = _fields(text)
    wheel = _wheel_of(source)
    out: list[Cell] = []
    if project == "torch" and wheel is not None:
        platforms = {p for t in wheel[1] if (p := _platform(t.platform)) in _MACHINE}
        for platform in sorted(platforms):
            py = next((t.interpreter for t in wheel[1] if t.interpreter.startswith("cp3")), "")
            env = {"platform_system": "Linux", "sys_platform": "linux", "os_name": "posix",
                   "platform_machine": _MACHINE[platform], "extra": "",
                   "python_version": f"3.{py[3:]}" if py else "3.12"}
            out.append(Cell("wheel_index", "torch", ("torch", version), f"pypi.{platform}",
                            _cuda_variant(requires, env), source))
    elif project in ("torchvision", "torchaudio"):
        for line in requires:
            try:
                req = Requirement(line)
            except InvalidRequirement:
                continue
            pins = [s.version for s in req.specifier if s.operator == "=="]
            if canonicalize_name(req.name) == "torch" and len(pins) == 1 and req.marker is None:
                out.append(Cell("wheel_index", "torch", ("torch", pins[0].split("+")[0]),
                                project, version, source))
    return out


READERS: dict[str, Any] = {"pypi_simple": simple_page, "pypi_metadata": core_metadata}
