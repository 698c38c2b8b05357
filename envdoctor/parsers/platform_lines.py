"""Platform tools' output pasted into an issue: what the GPU stack of a ROCm box, a Mac or a
Jetson says about itself, read into the same fields its probes fill.

- ``ls -l /dev/kfd /dev/dri`` (or ``ls -la /dev | grep kfd``) with ``id`` / ``groups``: the
  device nodes HIP opens, their group and mode, and the user's groups (``rocm.kfd``,
  ``rocm.render_nodes``, ``rocm.user``, ``rocm.user_groups``). A node is judged open or shut
  only when the text shows both its permissions and whose access it is (``id``/``groups``
  output); a ``+`` after the mode (an ACL, udev's ``uaccess``) leaves it undecided.
- ``rocm-smi --showproductname`` ("GPU[0] : Card series: …", "GPU[0] : GFX Version: gfx1100"),
  ``rocm-smi --showdriverversion`` ("Driver version: 6.8.5"), ``amd-smi static``
  ("MARKET_NAME:" / "TARGET_GRAPHICS_VERSION:") and ``amd-smi version`` ("ROCm version: 6.2.0").
- macOS: ``sysctl sysctl.proc_translated`` (1: the shell runs under Rosetta 2),
  ``sysctl hw.optional.arm64``, ``sysctl machdep.cpu.brand_string``, ``system_profiler
  SPHardwareDataType`` ("Chip: Apple M1 Max") / ``SPSoftwareDataType`` ("System Version: macOS
  14.5 (23F79)"), and ``platform.machine()`` answered in a Python prompt.
- Jetson: ``cat /etc/nv_tegra_release`` ("# R35 (release), REVISION: 4.1, … BOARD: t186ref")
  and ``dpkg -l | grep nvidia-l4t-core`` ("ii  nvidia-l4t-core  35.4.1-20230801124926 …").
- WSL: ``uname -r`` printing WSL 2's kernel ("5.15.153.1-microsoft-standard-WSL2") on a line
  of its own.

Each is a tool's own output in its own shape (whole lines), so what it states is observed;
a version in a sentence is left to the prose reader.
"""

from __future__ import annotations

import re

from envdoctor.facts import DeviceNode
from envdoctor.parsers._partial import Partial
from envdoctor.parsers._text import ver

NAME = "platform"
RANK = 55

# ----------------------------------------------------------------------- device nodes
# `ls -l` of a character device: "crw-rw----  1 root render 226, 128 Mar  3 10:12 renderD128"
# (the name may be the whole path; "+" after the mode: an ACL grants more than the bits say)
_LS_DEV = re.compile(
    r"^[ \t]*c([r-][w-][xsS-])([r-][w-][xsS-])([r-][w-][xtT-])([+.@]?)[ \t]+\d+[ \t]+"
    r"([\w.-]{1,32})[ \t]+([\w.-]{1,32})[ \t]+\d+,[ \t]*\d+[ \t][^\n]{1,40}?[ \t]"
    r"((?:/dev/)?kfd|(?:/dev/dri/)?renderD\d{1,3})[ \t]*$", re.M)
# `id`: "uid=1000(alice) gid=1000(alice) groups=1000(alice),4(adm),44(video)"
_ID = re.compile(r"^[ \t]*uid=(\d+)\(([\w.-]{1,32})\)[ \t]+gid=\d+\([\w.-]{1,32}\)"
                 r"(?:[ \t]+groups=([\d(),\w. -]{1,600}))?[ \t]*$", re.M)
_ID_GROUP = re.compile(r"\d+\(([\w.-]{1,32})\)")
# a prompt that ran `groups` ("$ groups", "alice@box:~$ groups alice"); its answer is the next
# line: "alice adm video render" or "alice : alice adm video render"
_GROUPS_CMD = re.compile(r"^[^\n]{0,80}?[$#%>][ \t]*groups(?:[ \t]+([\w.-]{1,32}))?[ \t]*$", re.M)
_GROUPS_ANSWER = re.compile(r"^[ \t]*(?:([\w.-]{1,32})[ \t]+:[ \t]+)?([a-z_][\w.-]{0,31}"
                            r"(?:[ \t]+[a-z_][\w.-]{0,31}){0,40})[ \t]*$")


def _groups(text: str) -> tuple[str, tuple[str, ...]] | None:
    """(user, groups) from one ``id`` line or one ``groups`` command and its answer; None
    when the text shows neither, or two that disagree."""
    found: set[tuple[str, tuple[str, ...]]] = set()
    for m in _ID.finditer(text):
        if m.group(3) is None:
            continue
        user = "root" if m.group(1) == "0" else m.group(2)
        found.add((user, tuple(_ID_GROUP.findall(m.group(3)))))
    lines = text.split("\n")
    for m in _GROUPS_CMD.finditer(text):
        index = text.count("\n", 0, m.start())
        rest = [ln for ln in lines[index + 1:index + 3] if ln.strip()]
        if not rest:
            continue
        a = _GROUPS_ANSWER.match(rest[0])
        if a:
            names = tuple(a.group(2).split())
            found.add((a.group(1) or m.group(1) or "", names))
    return found.pop() if len(found) == 1 else None


def _mode(user: str, group: str, other: str) -> str:
    def digit(bits: str) -> int:
        return (4 if bits[0] == "r" else 0) + (2 if bits[1] == "w" else 0) + \
            (1 if bits[2] in "xsStT" and bits[2] not in "ST" else 0)
    return f"0{digit(user)}{digit(group)}{digit(other)}"


def _nodes(text: str, who: tuple[str, tuple[str, ...]] | None) -> list[DeviceNode]:
    out: list[DeviceNode] = []
    seen: set[str] = set()
    for m in _LS_DEV.finditer(text):
        ubits, gbits, obits, acl, owner, group, name = m.groups()
        path = name if name.startswith("/dev/") else (
            "/dev/kfd" if name == "kfd" else f"/dev/dri/{name}")
        if path in seen:
            continue
        seen.add(path)
        rw = lambda bits: bits[:2] == "rw"  # noqa: E731
        accessible: bool | None = None
        if rw(obits):
            accessible = True
        elif acl == "+":
            accessible = None  # an ACL (udev's uaccess) may grant this user access
        elif who is not None:
            user, groups = who
            if user == "root" or (user == owner and rw(ubits)):
                accessible = True
            elif user or groups:
                accessible = rw(gbits) and group in groups
        out.append(DeviceNode(path=path, group=group, mode=_mode(ubits, gbits, obits),
                              accessible=accessible))
    return out


def _rocm_nodes(part: Partial, text: str) -> None:
    if "kfd" not in text:
        return
    who = _groups(text)
    nodes = _nodes(text, who)
    kfd = next((n for n in nodes if n.path == "/dev/kfd"), None)
    if kfd is None:
        return  # render nodes alone may be an Intel GPU's: not read as ROCm's
    part.set("rocm.kfd", kfd)
    part.set("rocm.render_nodes", tuple(n for n in nodes if n.path != "/dev/kfd"))
    if who is not None:
        part.set("rocm.user", who[0])
        part.set("rocm.user_groups", who[1])


# ----------------------------------------------------------------------- AMD tools
_SMI_FIELD = re.compile(r"^[ \t]*GPU\[(\d{1,3})\][ \t]*:[ \t]*(Card [Ss]eries|GFX Version)"
                        r":[ \t]*(\S[^\n]{0,80}?)[ \t]*$", re.M)
_SMI_DRIVER = re.compile(r"^[ \t]*Driver version:[ \t]*(\d[\w.-]{0,40})[ \t]*$", re.M)
_AMDSMI_GPU = re.compile(r"^[ \t]*GPU:[ \t]*(\d{1,3})[ \t]*$", re.M)
_AMDSMI_FIELD = re.compile(r"^[ \t]*(MARKET_NAME|TARGET_GRAPHICS_VERSION):[ \t]*"
                           r"(\S[^\n]{0,80}?)[ \t]*$", re.M)
_AMDSMI_ROCM = re.compile(r"\bAMDSMI Tool:[^\n]{0,120}?\|[ \t]*ROCm version:[ \t]*"
                          r"(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\b")
_GFX = re.compile(r"^gfx[0-9a-f]{3,4}$")


def _amd_tools(part: Partial, text: str) -> None:
    gpus: dict[int, dict[str, str]] = {}
    if "GPU[" in text:
        for m in _SMI_FIELD.finditer(text):
            key = "name" if m.group(2).lower().startswith("card") else "gfx"
            gpus.setdefault(int(m.group(1)), {}).setdefault(key, m.group(3))
    if not gpus and "TARGET_GRAPHICS_VERSION" in text:
        index = -1
        for line in text.split("\n"):
            g = _AMDSMI_GPU.match(line)
            if g:
                index = int(g.group(1))
                continue
            f = _AMDSMI_FIELD.match(line)
            if f and index >= 0:
                key = "name" if f.group(1) == "MARKET_NAME" else "gfx"
                gpus.setdefault(index, {}).setdefault(key, f.group(2))
    listed = tuple((g.get("name", ""), g["gfx"]) for _, g in sorted(gpus.items())
                   if _GFX.match(g.get("gfx", "")))
    if listed:
        part.set("rocm.gpus", listed)
    if "rocm" in text.lower() or listed:
        drv = _SMI_DRIVER.search(text)
        if drv and ("ROCm System Management" in text or "rocm-smi" in text):
            part.set("rocm.driver_version", drv.group(1))
            part.set("rocm.kernel_module", True)
    release = _AMDSMI_ROCM.search(text)
    if release:
        part.set("rocm.version", ver(release.group(1)))


# ----------------------------------------------------------------------- macOS
_TRANSLATED = re.compile(r"^[ \t]*sysctl\.proc_translated:[ \t]*([01])[ \t]*$", re.M)
_ARM64 = re.compile(r"^[ \t]*hw\.optional\.arm64:[ \t]*([01])[ \t]*$", re.M)
_BRAND = re.compile(r"^[ \t]*machdep\.cpu\.brand_string:[ \t]*(\S[^\n]{0,60}?)[ \t]*$", re.M)
_CHIP = re.compile(r"^[ \t]*Chip:[ \t]*(Apple M\d{1,2}(?: (?:Pro|Max|Ultra))?)[ \t]*$", re.M)
_INTEL_CPU = re.compile(r"^[ \t]*Processor Name:[ \t]*((?:[\w-]{1,12}[ \t])?Intel[^\n]{1,40}?)"
                        r"[ \t]*$", re.M)
_MODEL_ID = re.compile(r"^[ \t]*Model Identifier:[ \t]*(?:Mac|iMac|MacBook)", re.M)
_SYS_VERSION = re.compile(r"^[ \t]*System Version:[ \t]*macOS (\d{2}\.\d{1,2}(?:\.\d{1,2})?)"
                          r"[ \t]+\(\w{4,10}\)[ \t]*$", re.M)
# >>> platform.machine()   /   'arm64'
_PY_MACHINE = re.compile(r"^[ \t]*>>>[ \t]*(?:platform\.)?machine\(\)[ \t]*\n[ \t]*"
                         r"'(arm64|x86_64)'[ \t]*$", re.M)


def _mac(part: Partial, text: str) -> None:
    mac = False
    m = _TRANSLATED.search(text)
    if m and len(set(_TRANSLATED.findall(text))) == 1:
        part.set("apple.translated", m.group(1) == "1")
        if m.group(1) == "1":
            part.set("apple.apple_silicon", True)  # only Apple silicon runs Rosetta 2
        mac = True
    m = _ARM64.search(text)
    if m:
        mac = True
        if m.group(1) == "1":
            part.set("apple.apple_silicon", True)
    m = _BRAND.search(text)
    if m and (m.group(1).startswith("Apple M") or mac):
        part.set("host.cpu_model", m.group(1))
        mac = True
    profiler = _MODEL_ID.search(text) is not None
    m = _CHIP.search(text)
    if m and profiler:
        part.set("host.cpu_model", m.group(1))
        mac = True
    m = _INTEL_CPU.search(text)
    if m and profiler:
        part.set("host.cpu_model", m.group(1))
        mac = True
    m = _SYS_VERSION.search(text)
    if m:
        part.set("host.distro", f"macOS {m.group(1)}")
        mac = True
    machines = set(_PY_MACHINE.findall(text))
    if mac and len(machines) == 1:
        part.set("apple.python_machine", machines.pop())
    if mac:
        part.set("host.os", "Darwin")


# ----------------------------------------------------------------------- Jetson
_TEGRA_RELEASE = re.compile(r"^[ \t]*# R(\d{2}) \(release\), REVISION: (\d{1,2}\.\d{1,2})"
                            r"(?:, GCID: \d+)?, BOARD: ([\w-]{1,32})", re.M)
_L4T_CORE = re.compile(r"^[ \t]*ii[ \t]+nvidia-l4t-core[ \t]+(\d{2}\.\d{1,2}\.\d{1,2})-\d{8,}"
                       r"[ \t]+arm64\b", re.M)


def _jetson(part: Partial, text: str) -> None:
    releases = {(m.group(1), m.group(2), m.group(3)) for m in _TEGRA_RELEASE.finditer(text)}
    if len(releases) == 1:
        major, revision, board = releases.pop()
        part.set("jetson.l4t", ver(f"{major}.{revision}"))
        part.set("jetson.board", board)
    cores = set(_L4T_CORE.findall(text))
    if len(cores) == 1:
        part.set("jetson.l4t", ver(cores.pop()))
    if "jetson.l4t" in part.values:
        part.set("host.os", "Linux")
        part.set("host.arch", "aarch64")


# ----------------------------------------------------------------------- WSL
_UNAME_R_WSL = re.compile(r"^[ \t]*(\d+\.\d+\.\d+(?:\.\d+)?-microsoft-standard(-WSL2)?)[ \t]*$",
                          re.M)


def _wsl(part: Partial, text: str) -> None:
    kernels = set(m.group(1) for m in _UNAME_R_WSL.finditer(text))
    if len(kernels) == 1:
        kernel = kernels.pop()
        part.set("host.os", "Linux")
        part.set("host.kernel", kernel)
        part.set("host.wsl", 2)  # WSL 1 has no Linux kernel: uname shows Microsoft's 4.4.0


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    _rocm_nodes(part, text)
    _amd_tools(part, text)
    _mac(part, text)
    _jetson(part, text)
    _wsl(part, text)
    return part
