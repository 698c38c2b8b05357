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
import textwrap

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
_ID = re.compile(r"^[ \t]*uid=(\d+)(?:\(([\w.-]{1,32})\))?[ \t]+gid=\d+(?:\([\w.-]{1,32}\))?"
                 r"(?:[ \t]+groups=([\d(),\w. -]{1,600}))?[ \t]*$", re.M)
# each group as its number and, where it has one, its name: a container user added by GID
# (docker run --group-add 109) shows "109" alone, as `ls -l` then shows the node's group
_ID_GROUP = re.compile(r"(\d+)(?:\(([\w.-]{1,32})\))?")
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
        user = "root" if m.group(1) == "0" else (m.group(2) or m.group(1))
        names: list[str] = []
        for number, name in _ID_GROUP.findall(m.group(3)):
            names += [name, number] if name else [number]
        found.add((user, tuple(names)))
    lines = text.split("\n")
    for m in _GROUPS_CMD.finditer(text):
        index = text.count("\n", 0, m.start())
        rest = [ln for ln in lines[index + 1:index + 3] if ln.strip()]
        if not rest:
            continue
        a = _GROUPS_ANSWER.match(rest[0])
        if a:
            found.add((a.group(1) or m.group(1) or "", tuple(a.group(2).split())))
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
# read by the probe's own parsers (probes.rocm_output), so a paste and a live run of the same
# tool give the same GPUs
_SMI_LINE = re.compile(r"^[ \t]*GPU\[\d{1,3}\][ \t]*:[^\n]{0,200}$", re.M)
_SMI_CSV = re.compile(r"^[ \t]*device,(?:Card [Ss]eries|Device Name)[^\n]{0,200}\n"
                      r"(?:[ \t]*card\d{1,3},[^\n]{0,300}\n?){1,64}", re.M)
_SMI_DRIVER = re.compile(r"^[ \t]*(?:GPU\[\d{1,3}\][ \t]*:[ \t]*)?Driver version:[ \t]*"
                         r"(\d[\w.-]{0,40})[ \t]*$", re.M)
_AMDSMI_BLOCK = re.compile(r"^[ \t]*GPU:[ \t]*\d{1,3}[ \t]*\n(?:[ \t]+[^\n]{0,200}\n?){1,400}", re.M)
_AMDSMI_ROCM = re.compile(r"\bAMDSMI Tool:[^\n]{0,120}?\|[ \t]*ROCm version:[ \t]*"
                          r"(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\b")
_AMD_TOOL = re.compile(r"ROCm System Management Interface|\bAMDSMI Tool:|\brocm-smi\b|"
                       r"\bamd-smi\b")
_GFX = re.compile(r"^gfx[0-9a-f]{3,4}$")


def _amd_tools(part: Partial, text: str) -> None:
    from envdoctor.probes.rocm_output import parse_amd_smi_static, parse_rocm_smi, says_no_gpu
    found: list[tuple[str, str]] = []
    lines = "\n".join(m.group(0).strip() for m in _SMI_LINE.finditer(text))
    if lines:
        found = parse_rocm_smi(lines)
    if not found:
        csv = _SMI_CSV.search(text)
        if csv:
            found = parse_rocm_smi(textwrap.dedent(csv.group(0)))
    if not found and '"card' in text:
        start = re.search(r'^[ \t]*\{[ \t]*\n?[ \t]*"card\d', text, re.M)
        if start:  # `rocm-smi --json`: the JSON object from its first brace
            found = parse_rocm_smi(text[start.start():].strip())
    if not found and "TARGET_GRAPHICS_VERSION" in text:
        blocks = "".join(textwrap.dedent(m.group(0)).rstrip("\n") + "\n"
                         for m in _AMDSMI_BLOCK.finditer(text))
        # the probe reads "GPU: 0" at the start of a line: un-indent the blocks' heads only
        found = parse_amd_smi_static(re.sub(r"^[ \t]+(GPU:)", r"\1", blocks, flags=re.M))
    # a name alone is no gfx target (ROCm 4/5's rocm-smi prints none): not read as a GPU
    listed = tuple((name, gfx) for name, gfx in found if _GFX.match(gfx))
    if listed:
        part.set("rocm.gpus", listed)
    tool = _AMD_TOOL.search(text) is not None
    drv = _SMI_DRIVER.search(text)
    if drv and tool:
        part.set("rocm.driver_version", drv.group(1))
        part.set("rocm.kernel_module", True)
    release = _AMDSMI_ROCM.search(text)
    if release:
        part.set("rocm.version", ver(release.group(1)))
    said = says_no_gpu(text) if tool else ""
    if said and not listed:
        part.set("rocm.smi_error", said)


# ----------------------------------------------------------------------- macOS
_TRANSLATED = re.compile(r"^[ \t]*sysctl\.proc_translated:[ \t]*([01])[ \t]*$", re.M)
_ARM64 = re.compile(r"^[ \t]*hw\.optional\.arm64:[ \t]*([01])[ \t]*$", re.M)
_BRAND = re.compile(r"^[ \t]*machdep\.cpu\.brand_string:[ \t]*(\S[^\n]{0,60}?)[ \t]*$", re.M)
_CHIP = re.compile(r"^[ \t]*Chip:[ \t]*(Apple M\d{1,2}(?: (?:Pro|Max|Ultra))?)[ \t]*$", re.M)
_INTEL_CPU = re.compile(r"^[ \t]*Processor Name:[ \t]*((?:[\w-]{1,12}[ \t])?Intel[^\n]{1,40}?)"
                        r"[ \t]*$", re.M)
# system_profiler SPDisplaysDataType: "Chipset Model: Apple M1 Max" beside "Metal Support:"
_CHIPSET = re.compile(r"^[ \t]*Chipset Model:[ \t]*(Apple M\d{1,2}(?: (?:Pro|Max|Ultra))?)[ \t]*$",
                      re.M)
_METAL = re.compile(r"^[ \t]*Metal (?:Support|Family):[ \t]*\S", re.M)
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
    m = _CHIPSET.search(text)
    if m and _METAL.search(text):
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
# any L4T package carries the release (nvidia-l4t-core, -init, -cuda, …: "32.7.3-20221122092935");
# the kernel's own packages ("4.9.299-tegra-32.7.3-…") do not match
_L4T_CORE = re.compile(r"^[ \t]*ii[ \t]+nvidia-l4t-[\w-]{2,40}(?::arm64)?[ \t]+(\d{2}\.\d{1,2}\.\d{1,2})-\d{8,}"
                       r"[ \t]+arm64\b", re.M)

# `dpkg -l | grep nvidia-jetpack` / `apt show nvidia-jetpack`'s row: "ii  nvidia-jetpack  5.1.2-b104"
_JETPACK_DPKG = re.compile(r"^[ \t]*ii[ \t]+nvidia-jetpack[ \t]+(\d\.\d{1,2}(?:\.\d{1,2})?)-b\d{1,4}"
                           r"[ \t]+arm64\b", re.M)


def _jetson(part: Partial, text: str) -> None:
    from envdoctor.probes.jetson import parse_release
    releases = {m.group(0) for m in _TEGRA_RELEASE.finditer(text)}
    if len(releases) == 1:
        l4t, board = parse_release(releases.pop().strip())  # the probe's reading of the same file
        part.set("jetson.l4t", l4t)
        part.set("jetson.board", board)
    jetpacks = set(_JETPACK_DPKG.findall(text))
    if len(jetpacks) == 1:  # the nvidia-jetpack meta-package, as the probe reads dpkg's status
        part.set("jetson.jetpack", ver(jetpacks.pop()))
    cores = set(_L4T_CORE.findall(text))
    if len(cores) == 1:
        part.set("jetson.l4t", ver(cores.pop()))
    if "jetson.l4t" in part.values:
        part.set("host.os", "Linux")
        part.set("host.arch", "aarch64")


# ----------------------------------------------------------------------- WSL
# `wsl -l -v` (PowerShell): "  NAME   STATE   VERSION" then "* Ubuntu-22.04   Running   1"
_WSL_LIST_HEAD = re.compile(r"^[ \t]*NAME[ \t]+STATE[ \t]+VERSION[ \t]*$", re.M)
_WSL_LIST_ROW = re.compile(r"^[ \t]*(\*?)[ \t]*([\w.-]{1,64})[ \t]+(?:Running|Stopped|Installing|"
                           r"Converting|Uninstalling)[ \t]+([12])[ \t]*$", re.M)
# distributions of Docker/Podman/Rancher Desktop: a VM of theirs, not the user's Linux
_WSL_TOOL_DISTRO = re.compile(r"^(?:docker-desktop|podman-machine|rancher-desktop)", re.I)
# the Windows driver's files as WSL 2 maps them, in a tool's line: ldconfig's "=> /usr/lib/wsl/
# lib/libcuda.so.1", a symlink "-> /usr/lib/wsl/…", `which nvidia-smi` / a prompt running it
_WSL_LIB_PATH = re.compile(r"(?:=>|->)[ \t]*/usr/lib/wsl/(?:lib|drivers)/[\w.+/-]{1,120}$|"
                           r"^(?:[^\n]{0,80}?[$#][ \t]*)?/usr/lib/wsl/lib/nvidia-smi\b", re.M)
_UNAME_R_WSL = re.compile(r"^[ \t]*(\d+\.\d+\.\d+(?:\.\d+)?-microsoft-standard(-WSL2)?)[ \t]*$",
                          re.M)


# WSL 1 has no Linux kernel: `uname -r` prints the Windows build ("4.4.0-19041-Microsoft")
_UNAME_R_WSL1 = re.compile(r"^[ \t]*(4\.4\.0-\d{4,5}-Microsoft)[ \t]*$", re.M)


def _wsl(part: Partial, text: str) -> None:
    old = {m.group(1) for m in _UNAME_R_WSL1.finditer(text)}
    kernels = set(m.group(1) for m in _UNAME_R_WSL.finditer(text))
    if len(old) == 1 and not kernels:
        part.set("host.os", "Linux")
        part.set("host.kernel", old.pop())
        part.set("host.wsl", 1)
        return
    if len(kernels) == 1:
        kernel = kernels.pop()
        part.set("host.os", "Linux")
        part.set("host.kernel", kernel)
        part.set("host.wsl", 2)  # WSL 1 has no Linux kernel: uname shows Microsoft's 4.4.0
        return
    if _WSL_LIST_HEAD.search(text):
        rows = [(star, name, int(v)) for star, name, v in _WSL_LIST_ROW.findall(text)
                if not _WSL_TOOL_DISTRO.match(name)]
        versions = {v for _, _, v in rows}
        if len(versions) == 1:  # every distribution the user has runs as that WSL version
            part.set("host.wsl", versions.pop())
            return
    if _WSL_LIB_PATH.search(text):
        part.set("host.os", "Linux")
        part.set("host.wsl", 2)  # only WSL 2 maps the Windows driver into /usr/lib/wsl


# ----------------------------------------------------------------------- /dev/shm
# `df -h /dev/shm`: "shm   64M   0   64M   0% /dev/shm". Docker, Podman and Kubernetes mount a
# filesystem named "shm" there; a host mounts "tmpfs"
_DF_SHM = re.compile(r"^[ \t]*(shm|tmpfs|none)[ \t]+(\d{1,6}(?:\.\d{1,3})?)([KMGT])i?[ \t]+\S+"
                     r"[ \t]+\S+[ \t]+\d{1,3}%[ \t]+/dev/shm[ \t]*$", re.M)
_ENGINE = (("podman", "podman"), ("kubectl", "kubernetes"), ("docker", "docker"))


def _shm(part: Partial, text: str) -> None:
    sizes = {(m.group(1), float(m.group(2)), m.group(3)) for m in _DF_SHM.finditer(text)}
    if len(sizes) != 1:
        return
    fs, size, unit = sizes.pop()
    gb = size * {"K": 1 / 1024 ** 2, "M": 1 / 1024, "G": 1.0, "T": 1024.0}[unit]
    part.set("host.shm_total_gb", round(gb, 4))
    if fs == "shm":
        low = text.lower()
        engine = next((name for word, name in _ENGINE if word in low), "")
        part.set("host.container", engine)  # which engine: only where the text names one


# ----------------------------------------------------------------------- environment
# variables that decide a platform check, set on a line of their own ("export X=v", an env
# dump's "X=v", PowerShell's "$env:X = 'v'", cmd's "set X=v")
_PLATFORM_VARS = ("TPU_ACCELERATOR_TYPE", "TPU_VISIBLE_CHIPS", "PJRT_DEVICE", "JAX_PLATFORMS",
                  "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                  "PYTORCH_MPS_HIGH_WATERMARK_RATIO", "PYTORCH_MPS_LOW_WATERMARK_RATIO")
_VAR_LINE = re.compile(r"^[ \t]*(?:[$>][ \t]*)?(?:export[ \t]+|set[ \t]+|\$env:)?"
                       r"(" + "|".join(_PLATFORM_VARS) + r")[ \t]*=[ \t]*[\"']?([\w.,:-]{0,64})"
                       r"[\"']?[ \t]*$", re.M)


def _vars(part: Partial, text: str) -> None:
    seen: dict[str, set[str]] = {}
    for name, value in _VAR_LINE.findall(text):
        seen.setdefault(name, set()).add(value)
    for name, values in seen.items():
        if len(values) == 1 and re.search(rf"\bunset[ \t]+{name}\b", text) is None:
            value = values.pop()
            if value:
                part.set(f"env.{name}", value)


# ----------------------------------------------------------------------- NVIDIA container CLI
# `nvidia-container-cli -k -d /dev/tty info`: the host driver libnvidia-container found, and
# per GPU its model and architecture (compute capability)
_NVC_DRIVER = re.compile(r"^[ \t]*NVRM version:[ \t]+(\d{3}\.\d{1,3}(?:\.\d{1,3})?)[ \t]*$", re.M)
_NVC_CUDA = re.compile(r"^[ \t]*CUDA version:[ \t]+(\d{1,2}\.\d{1,2})[ \t]*$", re.M)
_NVC_FIELD = re.compile(r"^[ \t]*(Device Index|Model|Architecture):[ \t]+(\S[^\n]{0,80}?)[ \t]*$",
                        re.M)


def _container_cli(part: Partial, text: str) -> None:
    from envdoctor.facts import Gpu
    driver, cuda = _NVC_DRIVER.search(text), _NVC_CUDA.search(text)
    if driver is None or cuda is None or "Device Index:" not in text:
        return
    part.set("nvidia.driver_version", ver(driver.group(1)))
    part.set("nvidia.cuda_driver_version", ver(cuda.group(1)))
    gpus: list[Gpu] = []
    index: int | None = None
    name = ""
    for m in _NVC_FIELD.finditer(text):
        key, value = m.group(1), m.group(2)
        if key == "Device Index" and value.isdigit():
            index, name = int(value), ""
        elif key == "Model" and index is not None:
            name = value
        elif key == "Architecture" and index is not None and name:
            cc = ver(value) if re.fullmatch(r"\d{1,2}\.\d", value) else None
            gpus.append(Gpu(index=index, name=name, cc=cc))
            index = None
    if gpus:
        part.gpus.extend(gpus)


# ----------------------------------------------------------------------- loader cache
# `ldconfig -p` rows ("\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1"), read by
# the libraries probe's own parser
_LDCONFIG_ROW = re.compile(r"^[ \t]*lib[\w+.-]{1,80}\.so[\w.]{0,20}[ \t]+\((?:libc6|ELF)[^)\n]{0,40}\)"
                           r"[ \t]+=>[ \t]+/[^\s]{1,200}[ \t]*$", re.M)


_TOOLKIT_DIR = re.compile(r"/cuda[\w.-]{0,12}/(?:targets|lib64|lib|compat)/|/stubs/")


def _ldconfig(part: Partial, text: str) -> None:
    rows = "\n".join(m.group(0) for m in _LDCONFIG_ROW.finditer(text))
    if not rows:
        return
    from envdoctor.probes.libraries import from_ldconfig
    # a libcuda under a CUDA toolkit's folder is its link stub or a hand-made link, never a
    # driver package's: a paste cannot tell which, so it is not read as the driver
    part.libraries.extend(lib for lib in from_ldconfig(rows)
                          if not (lib.name == "libcuda" and _TOOLKIT_DIR.search(lib.path)))


def parse(text: str) -> Partial:
    part = Partial(NAME, RANK)
    _rocm_nodes(part, text)
    _amd_tools(part, text)
    _mac(part, text)
    _jetson(part, text)
    _wsl(part, text)
    _shm(part, text)
    _vars(part, text)
    _container_cli(part, text)
    _ldconfig(part, text)
    return part
