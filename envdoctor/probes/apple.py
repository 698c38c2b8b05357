"""A Mac: the macOS release, Apple silicon or Intel, and which architecture this Python and the
frameworks' wheels are built for.

Why: on Apple silicon the GPU (MPS, Metal) is reachable only from arm64 code on a recent
enough macOS. The classic failure is an x86_64 Python (an Intel Miniconda, a Homebrew under
/usr/local) running under Rosetta 2: torch then has no MPS device and stops at 2.2.2, jaxlib and
TensorFlow install their x86_64 wheels, and everything runs on an emulated CPU. ``uname`` and
``platform.machine()`` say "x86_64" there; ``sysctl hw.optional.arm64`` still says 1 and
``sysctl.proc_translated`` says 1 for a translated process and its children (Homebrew and
rustup detect Rosetta this way).

Sources: the macOS release from ``sw_vers`` on this machine, else (and first under ``--root``)
/System/Library/CoreServices/SystemVersion.plist, the file sw_vers reads; the CPU from one
``sysctl`` call; the interpreter's own ``platform.machine()``/``sysconfig.get_platform()`` and
its binary's Mach-O slices (only for the Python that runs here, never claimed under another
root); the WHEEL tags of the frameworks' dist-info folders and the Mach-O load commands of
torch's libtorch_cpu.dylib (MetalPerformanceShaders linked: built with MPS). Nothing is
imported. Not a Mac (no SystemVersion.plist, not darwin) is NOT_FOUND.
"""

from __future__ import annotations

import os
import platform
import re
import sys
import sysconfig
from dataclasses import replace
from pathlib import Path

from packaging.version import InvalidVersion, Version

from envdoctor.bounded import read_regular
from envdoctor.facts import AppleFacts, Status, WheelBuild
from envdoctor.probes import _dists, _macho
from envdoctor.probes._base import Trail
from envdoctor.probes._root import SYSTEM, is_system, under

SECTION = "apple"
PLIST = "System/Library/CoreServices/SystemVersion.plist"
SYSCTL_NAMES = ("machdep.cpu.brand_string", "hw.optional.arm64", "sysctl.proc_translated")
TOOL_TIMEOUT = 5.0
# frameworks whose wheels carry compiled code for one CPU (jax itself is pure Python)
WHEELS = ("torch", "jaxlib", "jax-metal", "tensorflow", "tensorflow-macos", "tensorflow-metal",
          "numpy")
MPS_FRAMEWORK = "MetalPerformanceShaders.framework"
_TAG = re.compile(r"macosx_(\d+)_(\d+)_(\w+)$")


def probe(root: Path = SYSTEM, paths: tuple[str, ...] | None = None) -> AppleFacts:
    """Read the Mac under ``root`` (its SystemVersion.plist), ask sw_vers and sysctl, read the
    interpreter and the wheels installed on ``paths`` (default ``sys.path``)."""
    trail = Trail()
    here = is_system(root) and sys.platform == "darwin"
    plist = _plist(trail, under(root, PLIST))
    if plist is None and not here:
        return AppleFacts(probe=trail.info(
            Status.NOT_FOUND, f"not macOS (no /{PLIST}, platform {sys.platform})"))
    facts = AppleFacts()
    unobserved: list[str] = []
    failed: dict[str, str] = {}
    sources: dict[str, str] = {}

    version, build, source = _macos(trail, plist, prefer_tool=here)
    facts = replace(facts, macos_version=version, macos_build=build)
    if version is None:
        failed["macos_version"] = "neither sw_vers nor SystemVersion.plist gave ProductVersion"
    else:
        sources["macos_version"] = source

    answers, missing, broke = _sysctl(trail)
    if broke:
        failed.update({f: broke for f in ("cpu_brand", "apple_silicon", "translated")})
    else:
        brand = answers.get("machdep.cpu.brand_string", "")
        arm = answers.get("hw.optional.arm64")
        translated = answers.get("sysctl.proc_translated")
        facts = replace(
            facts, cpu_brand=brand[:120],
            # an Intel Mac has no hw.optional.arm64 (unknown oid) and no Rosetta
            apple_silicon=(arm == "1") if arm is not None else
            (False if "hw.optional.arm64" in missing else None),
            translated=(translated == "1") if translated is not None else
            (False if "sysctl.proc_translated" in missing else None))
        if "machdep.cpu.brand_string" not in answers:
            unobserved.append("cpu_brand")
        sources.update({f: "sysctl" for f in ("cpu_brand", "apple_silicon", "translated")})

    if here:
        facts = replace(facts, python_machine=platform.machine(),
                        python_platform=sysconfig.get_platform(),
                        python_archs=_macho.read(os.path.realpath(sys.executable)).archs)
        trail.ran.append(f"read Mach-O header of {os.path.realpath(sys.executable)}")
    else:  # under another root the interpreter running is not that Mac's
        unobserved += ["python_machine", "python_platform", "python_archs"]

    installed = _dists.installed(paths)
    wheels = tuple(w for name in WHEELS if name in installed
                   for w in (_wheel(trail, installed[name]),))
    torch = installed.get("torch")
    linked, lib_arch = _torch_mps(trail, torch.location) if torch is not None else (None, "")
    if torch is not None and linked is None:
        unobserved.append("torch_mps_linked")
    facts = replace(facts, wheels=wheels, torch_mps_linked=linked, torch_lib_arch=lib_arch)
    info = trail.info(Status.OK, source=source or "sysctl")
    return replace(facts, probe=replace(info, unobserved=tuple(unobserved), failed=failed,
                                        sources=sources))


# --------------------------------------------------------------------------- macOS release
def _plist(trail: Trail, path: Path) -> dict[str, object] | None:
    trail.ran.append(f"read {path}")
    data = read_regular(path, 1 << 16)
    if data is None:
        return None
    import plistlib  # its XML parser costs ~5 ms to import: only where a plist exists
    try:
        value = plistlib.loads(data)
    except Exception:  # noqa: BLE001 - a damaged plist is unreadable, whatever the parser raises
        return {}
    return value if isinstance(value, dict) else {}


def parse_sw_vers(text: str) -> dict[str, str]:
    """``ProductName:\\tmacOS`` lines as a dict (ProductVersion, BuildVersion)."""
    out = {}
    for line in text.splitlines()[:32]:
        key, sep, value = line.partition(":")
        if sep and key.strip() in ("ProductName", "ProductVersion", "BuildVersion"):
            out[key.strip()] = value.strip()[:64]
    return out


def _macos(trail: Trail, plist: dict[str, object] | None,
           prefer_tool: bool) -> tuple[Version | None, str, str]:
    """(version, build, source): sw_vers first on this Mac, the plist first under --root."""
    def from_plist() -> tuple[Version | None, str, str]:
        if not plist:
            return None, "", ""
        return (_version(str(plist.get("ProductVersion") or "")),
                str(plist.get("ProductBuildVersion") or "")[:32], "SystemVersion.plist")

    def from_tool() -> tuple[Version | None, str, str]:
        from envdoctor import runner
        tool = runner.which("sw_vers")
        if not tool:
            return None, "", ""
        result = trail.run([tool], TOOL_TIMEOUT)
        fields = parse_sw_vers(result.stdout) if result.ok else {}
        return (_version(fields.get("ProductVersion", "")), fields.get("BuildVersion", ""),
                "sw_vers")

    first, second = (from_tool, from_plist) if prefer_tool else (from_plist, from_tool)
    answer = first()
    return answer if answer[0] is not None else second()


def _version(text: str) -> Version | None:
    try:
        return Version(text) if text else None
    except InvalidVersion:
        return None


# --------------------------------------------------------------------------- sysctl
_UNKNOWN = re.compile(r"unknown oid '([\w.]+)'")


def parse_sysctl(stdout: str, stderr: str) -> tuple[dict[str, str], set[str]]:
    """``name: value`` lines of ``sysctl NAME...`` and the names it called unknown oids."""
    answers = {}
    for line in stdout.splitlines()[:64]:
        name, sep, value = line.partition(":")
        if sep and name.strip() in SYSCTL_NAMES:
            answers[name.strip()] = value.strip()
    return answers, set(_UNKNOWN.findall(stderr[:4096]))


def _sysctl(trail: Trail) -> tuple[dict[str, str], set[str], str]:
    """(answers, names sysctl does not know, why it failed): one ``sysctl`` call for the three
    names; an unknown oid is an answer (Intel Macs have no hw.optional.arm64), a missing,
    hung or silent sysctl is a failure."""
    from envdoctor import runner
    tool = runner.which("sysctl")
    if not tool:
        return {}, set(), "sysctl is not on PATH"
    result = trail.run([tool, *SYSCTL_NAMES], TOOL_TIMEOUT)
    if result.error:
        return {}, set(), f"sysctl: {result.error}"
    answers, missing = parse_sysctl(result.stdout, result.stderr)
    if "machdep.cpu.brand_string" not in answers:
        # Every Mac knows machdep.cpu.brand_string: a call that did not print it did not answer
        # the three names (a wrapper, a sysctl that stops at the first name): one name a call.
        answers, missing, broke = _sysctl_each(trail, tool)
        if broke:
            return {}, set(), broke
    if not answers and not missing:
        tail = (result.stderr or result.stdout).strip().splitlines()
        return {}, set(), f"sysctl exited {result.returncode}" + (
            f" ({tail[-1][:160]})" if tail else "")
    return answers, missing, ""


def _sysctl_each(trail: Trail, tool: str) -> tuple[dict[str, str], set[str], str]:
    """``sysctl -n NAME`` for each name: its value, an unknown oid, or why it failed."""
    answers: dict[str, str] = {}
    missing: set[str] = set()
    for name in SYSCTL_NAMES:
        result = trail.run([tool, "-n", name], TOOL_TIMEOUT)
        if result.error:
            return {}, set(), f"sysctl -n {name}: {result.error}"
        value = result.stdout.strip().splitlines()
        if result.returncode == 0 and value:
            answers[name] = value[0].strip()[:200]
        elif _UNKNOWN.search(result.stderr[:4096]) or "unknown oid" in result.stderr[:4096]:
            missing.add(name)
        elif name == "machdep.cpu.brand_string":
            tail = (result.stderr or result.stdout).strip().splitlines()
            return {}, set(), f"sysctl -n {name} exited {result.returncode}" + (
                f" ({tail[-1][:160]})" if tail else "")
    return answers, missing, ""


# --------------------------------------------------------------------------- wheels
def wheel_arch(tags: tuple[str, ...]) -> tuple[str, Version | None]:
    """The CPU and oldest macOS of a wheel's macOS tags (``macosx_11_0_arm64`` -> arm64, 11.0);
    ("any", None) for a pure-Python wheel, ("", None) when no tag says."""
    found = [m for t in tags if (m := _TAG.search(t.rsplit("-", 1)[-1]))]
    if found:
        m = found[0]
        return m.group(3), _version(f"{m.group(1)}.{m.group(2)}")
    if any(t.endswith("-any") for t in tags):
        return "any", None
    return "", None


def _wheel(trail: Trail, dist: _dists.InstalledDist) -> WheelBuild:
    text = trail.read(dist.meta_dir / "WHEEL", 1 << 14) or ""
    tags = tuple(line[4:].strip()[:120] for line in text.splitlines()[:64]
                 if line.startswith("Tag:"))[:16]
    arch, macos = wheel_arch(tags)
    return WheelBuild(name=dist.name, version=dist.version, tags=tags, arch=arch, macos=macos)


def _torch_mps(trail: Trail, location: Path) -> tuple[bool | None, str]:
    """Whether torch's libtorch_cpu.dylib links MetalPerformanceShaders (the MPS backend is
    compiled into it), and the library's CPU slices; (None, "") when it cannot be read."""
    path = location / "torch" / "lib" / "libtorch_cpu.dylib"
    trail.ran.append(f"read Mach-O load commands of {path}")
    seen = _macho.read(path)
    if seen.error or not seen.archs:
        return None, ""
    return any(MPS_FRAMEWORK in d for d in seen.dylibs), ",".join(seen.archs)
