"""AMD GPUs and ROCm: the amdgpu driver, /opt/rocm, the GPUs and their gfx targets, device nodes.

Sources, first that lists the GPUs wins: the ``amdsmi`` Python library (in a child process with
a deadline, like NVML), ``amd-smi static --asic --json``, ``rocm-smi --showproductname --json``,
``rocminfo``, then the KFD topology in /sys (gfx targets without any tool). Files are read under
the probe's root (``--root``); tools come from PATH. The states follow what was seen: nothing of
AMD's on the machine (no amdgpu module, no /dev/kfd, no AMD GPU on the PCI bus, no ROCm, no
tools) is NOT_FOUND; tools that crashed, hung or printed garbage next to a driver are ERROR;
a tool that says "no GPU" is recorded (``smi_error``) and judged by the rules.
"""

from __future__ import annotations

import os
import re
import stat
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from envdoctor import runner
from envdoctor.bounded import decode_json, env, matching, read_proc
from envdoctor.facts import AmdGpu, DeviceNode, RocmFacts, Status
from envdoctor.probes import rocm_output as parse
from envdoctor.probes._base import Trail
from envdoctor.probes._root import SYSTEM, is_system, shown, under

SECTION = "rocm"
BUDGET = 16.0          # the whole probe, under the registry's 20 s deadline
TOOL_TIMEOUT = 8.0
CHILD_SOURCE = Path(__file__).with_name("_amdsmi_child.py")
AMD_VENDOR = "0x1002"
ROCM_DIRS = ("opt/rocm", "opt/rocm-*")


def probe(root: Path = SYSTEM) -> RocmFacts:
    """Read the machine under ``root``, then ask the tools (only where something of AMD's is
    there to ask about, or a tool is on PATH), all within ``BUDGET`` seconds."""
    trail = Trail()
    end = time.monotonic() + BUDGET
    pci = count_amd_gpus(under(root, "sys/bus/pci/devices"))
    modules = under(root, "sys/module")
    kernel_module = (modules / "amdgpu").is_dir() if modules.is_dir() else None
    driver = (trail.read(modules / "amdgpu" / "version", 256) or "").strip()
    version, rocm_path = rocm_version(root, trail)
    user, groups, judge = _user(root)
    kfd_path = under(root, "dev/kfd")
    kfd = _node(root, kfd_path, judge) if _exists(kfd_path) else None
    render = tuple(_node(root, Path(p), judge) for p in matching(under(root, 'dev/dri'), "renderD*")[:64]
        if _amd_render_node(root, Path(p), pci))
    topology = kfd_topology(root, trail)
    tools = {name: runner.which(name) for name in ("amd-smi", "rocm-smi", "rocminfo")}
    facts = RocmFacts(version=version, rocm_path=rocm_path, driver_version=driver,
                      kernel_module=kernel_module, pci_devices=pci, kfd=kfd,
                      render_nodes=render, user=user, user_groups=groups)
    traces = bool(kernel_module or kfd or render or topology or (pci or 0) > 0)
    if not traces and version is None and not any(tools.values()) and not _amdsmi_spec():
        trail.ran.append("tools: none of amd-smi, rocm-smi, rocminfo on PATH; no amdsmi")
        return replace(facts, probe=trail.info(
            Status.NOT_FOUND, "no AMD GPU driver, GPU or ROCm found (no amdgpu module, no "
            "/dev/kfd, no AMD GPU on the PCI bus, no /opt/rocm)"))

    gpus: list[tuple[str, str]] = []
    source = ""
    said: list[str] = []     # what the tools said about the machine ("no GPU", kfd denied)
    broke: list[str] = []    # tools that failed rather than answered
    for name, ask in (("amdsmi", _from_amdsmi), ("amd-smi", _from_amd_smi),
                      ("rocm-smi", _from_rocm_smi), ("rocminfo", _from_rocminfo)):
        if name != "amdsmi" and not tools.get(name):
            continue
        found, statement, failure = ask(trail, tools.get(name) or "", end)
        if statement:
            said.append(statement)
        if failure:
            broke.append(failure)
        if found:
            gpus, source = found, name
            break
    if not gpus and topology:
        gpus, source = [("", gfx) for gfx in topology], "kfd-topology"
    if gpus and topology and any(not gfx for _, gfx in gpus) and len(topology) == len(gpus):
        gpus = [(n, gfx or topology[i]) for i, (n, gfx) in enumerate(gpus)]
    if version is None and tools.get("amd-smi"):
        version = _amd_smi_version(trail, tools["amd-smi"] or "", end)
    if not driver and gpus and tools.get("rocm-smi"):  # no /sys/module/amdgpu/version
        shown_driver = _ran(trail, [tools["rocm-smi"] or "", "--showdriverversion"], end)
        driver = parse.rocm_smi_driver(shown_driver.stdout) if shown_driver.ok else ""
        facts = replace(facts, driver_version=driver)
    facts = replace(facts, version=version, smi_error="; ".join(said)[:500],
                    gpus=tuple(AmdGpu(index=i, name=n, gfx=g) for i, (n, g) in enumerate(gpus)))
    if gpus:
        return replace(facts, probe=trail.info(Status.OK, "; ".join(broke)[:500], source))
    if broke and not said:
        return replace(facts, probe=trail.info(Status.ERROR, "; ".join(broke)[:500]))
    # Nothing listed a GPU: the facts that were read (driver, nodes, ROCm, what the tools said)
    # are observed; the GPU list is an observed absence only where a tool stated it.
    reason = "; ".join(said or broke) or "no tool listed an AMD GPU"
    info = trail.info(Status.OK, reason[:500], "files")
    if not said and broke:
        info = replace(info, failed={"gpus": "; ".join(broke)[:500]})
    return replace(facts, probe=info)


# --------------------------------------------------------------------------- files
def rocm_version(root: Path, trail: Trail) -> tuple[Version | None, str]:
    """The installed ROCm: ``.info/version`` of ROCM_PATH, /opt/rocm, else the newest
    /opt/rocm-X.Y.Z (the file reads ``6.2.4-120``: the release before the build number)."""
    folders = [under(root, env("ROCM_PATH", ""))] if env("ROCM_PATH") else []
    for pattern in ROCM_DIRS:
        folders += [Path(p) for p in reversed(matching(root, pattern))]
    for folder in folders:
        text = trail.read(folder / ".info" / "version", 256)
        m = re.match(r"\s*(\d+\.\d+(?:\.\d+)?)", text or "")
        if m:
            try:
                return Version(m.group(1)), shown(root, folder)
            except InvalidVersion:
                continue
    return None, ""


def count_amd_gpus(devices: Path) -> int | None:
    """AMD (vendor 0x1002) display or 3D controllers (class 0x03xxxx) on the PCI bus."""
    try:
        entries = list(devices.iterdir())[:1024]
    except OSError:
        return None
    count = 0
    for dev in entries:
        vendor, klass = read_proc(dev / "vendor", 64), read_proc(dev / "class", 64)
        if (vendor or "").strip().lower() == AMD_VENDOR \
                and (klass or "").strip().startswith("0x03"):
            count += 1
    return count


def display_vendors(devices: Path) -> set[str] | None:
    """The PCI vendor ids of the display or 3D controllers on the bus ({"0x8086", "0x1002"}),
    or None when /sys/bus/pci cannot be read."""
    try:
        entries = list(devices.iterdir())[:1024]
    except OSError:
        return None
    return {(read_proc(d / "vendor", 64) or "").strip().lower() for d in entries
            if (read_proc(d / "class", 64) or "").strip().startswith("0x03")} - {""}


def _amd_render_node(root: Path, path: Path, amd_pci: int | None) -> bool:
    """Whether a /dev/dri/renderD* node belongs to an AMD GPU: the vendor of its DRM device
    (/sys/class/drm/renderDN/device/vendor) where that is readable; otherwise every node counts
    unless the PCI bus shows display controllers of other vendors and none of AMD's (an Intel
    or NVIDIA machine's render node says nothing about AMD GPUs)."""
    vendor = read_proc(under(root, "sys/class/drm") / path.name / "device" / "vendor", 64)
    if vendor is not None and vendor.strip():
        return vendor.strip().lower() == AMD_VENDOR
    if amd_pci:
        return True
    others = display_vendors(under(root, "sys/bus/pci/devices"))
    return not others or AMD_VENDOR in others


def kfd_topology(root: Path, trail: Trail) -> list[str]:
    """gfx targets of the GPU nodes of the KFD topology (``gfx_target_version 90010`` in
    /sys/class/kfd/kfd/topology/nodes/N/properties; CPU nodes say 0)."""
    nodes = under(root, "sys/class/kfd/kfd/topology/nodes")
    try:
        names = sorted((p.name for p in nodes.iterdir() if p.name.isdigit()), key=int)[:128]
    except OSError:
        return []
    out = []
    for name in names:
        text = trail.read(nodes / name / "properties", 1 << 14) or ""
        m = re.search(r"^gfx_target_version\s+(\d+)\s*$", text, re.M)
        gfx = parse.gfx_of_version(int(m.group(1))) if m else ""
        if gfx:
            out.append(gfx)
    return out


def _exists(path: Path) -> bool:
    try:
        return os.path.lexists(path)
    except (OSError, ValueError):
        return False


# --------------------------------------------------------------------------- device access
_Judge = Any  # (st: os.stat_result, path: Path) -> bool | None


def _user(root: Path) -> tuple[str, tuple[str, ...], _Judge]:
    """Whose access the device nodes are judged for, that user's groups, and the judge.

    On this machine: this process (``os.access``, which knows ACLs and root). Under another
    root: the user named by $USER (else $LOGNAME) as that tree's /etc/passwd and /etc/group
    list them, by the owner/group/other bits; None where that user is not in the tree.
    """
    if is_system(root):
        try:
            import grp
            import pwd
            name = pwd.getpwuid(os.geteuid()).pw_name
            groups = tuple(sorted({_group_name(g, grp) for g in os.getgroups()} - {""}))
        except (ImportError, KeyError, OSError):
            name, groups = "", ()
        return name, groups, lambda st, path: os.access(path, os.R_OK | os.W_OK)
    name = env("USER") or env("LOGNAME") or ""
    passwd = _table(under(root, "etc/passwd"))
    group_rows = _table(under(root, "etc/group"))
    row = next((r for r in passwd if r and r[0] == name), None)
    if not name or row is None or len(row) < 4 or not (row[2].isdigit() and row[3].isdigit()):
        return name, (), lambda st, path: None
    uid, gid = int(row[2]), int(row[3])
    gids = {gid} | {int(r[2]) for r in group_rows if len(r) >= 4 and r[2].isdigit()
                    and name in r[3].split(",")}
    names = tuple(sorted(r[0] for r in group_rows if len(r) >= 3 and r[2].isdigit()
                         and int(r[2]) in gids))

    def judge(st: os.stat_result, path: Path) -> bool | None:
        mode = st.st_mode
        if uid == 0:
            return True
        if st.st_uid == uid:
            return bool(mode & stat.S_IRUSR and mode & stat.S_IWUSR)
        if st.st_gid in gids:
            return bool(mode & stat.S_IRGRP and mode & stat.S_IWGRP)
        return bool(mode & stat.S_IROTH and mode & stat.S_IWOTH)
    return name, names, judge


def _group_name(gid: int, grp: Any) -> str:
    try:
        return str(grp.getgrgid(gid).gr_name)
    except (KeyError, OverflowError):
        return ""


def _table(path: Path) -> list[list[str]]:
    from envdoctor.bounded import read_text
    return [line.split(":") for line in (read_text(path, 1 << 20) or "").splitlines()[:100000]
            if line and not line.startswith("#")]


def judge_node(root: Path, relative: str) -> DeviceNode:
    """``dev/...`` under ``root`` as a DeviceNode judged for this machine's user (see _user):
    for other probes whose devices sit beside ROCm's (an Intel GPU's render node)."""
    return _node(root, under(root, relative), _user(root)[2])


def _node(root: Path, path: Path, judge: _Judge) -> DeviceNode:
    try:
        st = os.stat(path)
    except OSError:
        return DeviceNode(path=shown(root, path))
    group = ""
    if is_system(root):
        try:
            import grp
            group = _group_name(st.st_gid, grp)
        except ImportError:
            group = ""
    else:
        group = next((r[0] for r in _table(under(root, "etc/group"))
                      if len(r) >= 3 and r[2] == str(st.st_gid)), "")
    return DeviceNode(path=shown(root, path), group=group,
                      mode=f"{stat.S_IMODE(st.st_mode):04o}", accessible=judge(st, path))


# --------------------------------------------------------------------------- tools
_Answer = tuple[list[tuple[str, str]], str, str]   # (gpus, statement, failure)


def _left(end: float) -> float:
    return max(0.5, min(TOOL_TIMEOUT, end - time.monotonic()))


def _ran(trail: Trail, argv: list[str], end: float) -> runner.CommandResult:
    return trail.run(argv, _left(end))


def _failure(tool: str, result: runner.CommandResult) -> str:
    if result.error:
        return f"{tool}: {result.error}"
    tail = (result.stderr or result.stdout).strip().splitlines()
    return f"{tool}: exited {result.returncode}" + (f" ({tail[-1][:160]})" if tail else "")


def _from_amd_smi(trail: Trail, path: str, end: float) -> _Answer:
    result = _ran(trail, [path, "static", "--asic", "--json"], end)
    text = f"{result.stdout}\n{result.stderr}"
    gpus = parse.parse_amd_smi_static(result.stdout) if not result.error else []
    if gpus:
        return gpus, "", ""
    statement = parse.says_no_gpu(text)
    if statement:
        return [], f"amd-smi: {statement}", ""
    return [], "", _failure("amd-smi static", result) if not result.ok else \
        "amd-smi static: listed no GPU it could read"


def _amd_smi_version(trail: Trail, path: str, end: float) -> Version | None:
    result = _ran(trail, [path, "version"], end)
    found = parse.amd_smi_rocm_version(f"{result.stdout}\n{result.stderr}")
    try:
        return Version(found) if found else None
    except InvalidVersion:
        return None


def _from_rocm_smi(trail: Trail, path: str, end: float) -> _Answer:
    result = _ran(trail, [path, "--showproductname", "--json"], end)
    gpus = parse.parse_rocm_smi(result.stdout) if not result.error else []
    if gpus:
        return gpus, "", ""
    statement = parse.says_no_gpu(f"{result.stdout}\n{result.stderr}")
    if statement:
        return [], f"rocm-smi: {statement}", ""
    return [], "", _failure("rocm-smi --showproductname", result)


def _from_rocminfo(trail: Trail, path: str, end: float) -> _Answer:
    result = _ran(trail, [path], end)
    text = f"{result.stdout}\n{result.stderr}"
    gpus = parse.parse_rocminfo(result.stdout) if not result.error else []
    if gpus:
        return gpus, "", ""
    problem = parse.rocminfo_problem(text)
    if problem:
        return [], problem, ""
    if result.ok and "HSA Agents" in result.stdout:
        return [], "rocminfo: lists no GPU agent", ""
    return [], "", _failure("rocminfo", result)


def _amdsmi_spec() -> str:
    """The folder ``amdsmi`` imports from, or "" when it is not importable."""
    import importlib.util
    try:
        spec = importlib.util.find_spec("amdsmi")
    except (ImportError, ValueError):
        return ""
    if spec is None or not spec.origin:
        return ""
    origin = spec.origin
    return os.path.dirname(os.path.dirname(origin)) if origin.endswith("__init__.py") \
        else os.path.dirname(origin)


def _from_amdsmi(trail: Trail, _path: str, end: float) -> _Answer:
    """The AMD SMI library in a child process: a crash or hang of libamd_smi ends that child."""
    where = _amdsmi_spec()
    if not where:
        trail.ran.append("amdsmi: not importable")
        return [], "", ""
    source = (read_proc(CHILD_SOURCE, 1 << 20) or "").strip()
    if not source:
        return [], "", f"amdsmi: {CHILD_SOURCE.name} unreadable"
    timeout = _left(end)
    result = runner.run([sys.executable, "-I", "-S", "-c", source, where], timeout)
    trail.ran.append(f"amdsmi: amdsmi_init in a child process ({result.seconds:.2f}s)")
    step = next((ln[5:].strip()[:80] for ln in reversed(result.stderr.splitlines())
                 if ln.startswith("step ")), "")
    if result.error:
        what = f"did not answer within {timeout:g}s" if "timed out" in result.error \
            else result.error
        return [], "", f"amdsmi {what}" + (f" (in {step})" if step else "")
    try:
        answer = decode_json(result.stdout, "an amdsmi answer")
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        return [], "", f"amdsmi child printed no answer (exit {result.returncode})"
    if not answer.get("ok"):
        error = str(answer.get("error") or "amdsmi failed")[:300]
        if answer.get("stage") == "import":
            return [], "", ""
        said = parse.says_no_gpu(error)
        return ([], f"amdsmi: {said}", "") if said else ([], "", f"amdsmi: {error}")
    gpus = [(str(g.get("name") or ""), parse.gfx_of(str(g.get("gfx") or "")))
            for g in answer.get("gpus") or () if isinstance(g, dict)]
    return gpus, "", ""
