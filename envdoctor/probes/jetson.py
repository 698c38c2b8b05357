"""NVIDIA Jetson (Tegra): L4T and JetPack from the board's own files, the module, the iGPU nodes.

Sources, all files read under the probe's root (``--root``), no tool run: ``/etc/nv_tegra_release``
(``# R36 (release), REVISION: 4.3, GCID: …, BOARD: generic, EABI: aarch64``), the device tree
(``/proc/device-tree/model`` and ``compatible``, NUL-terminated strings), dpkg's status file
(``nvidia-l4t-core`` 36.4.3-…, ``nvidia-jetpack`` 6.2+b77), the L4T apt source
(``repo.download.nvidia.com/jetson/common r36.4 main``) and the iGPU's device nodes
(/dev/nvmap, /dev/nvhost-ctrl-gpu, /dev/nvgpu/igpu0/ctrl; /dev/nvidia0 on Thor) with whether
this user may open them. ``tegrastats`` is only looked up on PATH.

States: nothing of L4T's (no nv_tegra_release, no Tegra compatible string, no -tegra kernel, no
L4T apt source; dpkg's status is read only after one of them) is NOT_FOUND; anything of it is
OK. Each field is what its file said, or confirmed absent where
the file is not there; ``jetpack`` is None both when the package is not installed and when
there was no dpkg status to say so (``dpkg_read`` tells them apart).
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

from packaging.version import InvalidVersion, Version

from envdoctor import runner
from envdoctor.facts import JetsonFacts, Status
from envdoctor.probes import rocm
from envdoctor.probes._base import Trail
from envdoctor.probes._root import SYSTEM, under

SECTION = "jetson"
RELEASE = "etc/nv_tegra_release"
DEVICE_TREE = ("proc/device-tree", "sys/firmware/devicetree/base")
DPKG_STATUS = "var/lib/dpkg/status"
APT_SOURCE = "etc/apt/sources.list.d/nvidia-l4t-apt-source.list"
# the iGPU's nodes: nvmap (memory), nvhost/nvgpu (JetPack 4-6, nvgpu driver), nvidia* (Thor,
# OpenRM); CUDA opens them as the user, who needs group video (L4T's udev rules)
NODES = ("dev/nvmap", "dev/nvhost-ctrl-gpu", "dev/nvhost-gpu", "dev/nvgpu/igpu0/ctrl",
         "dev/nvidia0", "dev/nvidiactl")
PACKAGES = ("nvidia-l4t-core", "nvidia-jetpack")
_RELEASE = re.compile(r"^#\s*R(\d+)\s*\(release\),\s*REVISION:\s*(\d+(?:\.\d+)?)", re.M)
_BOARD = re.compile(r"BOARD:\s*([\w.+-]+)")
_KERNEL = re.compile(r"^Linux version (\S{1,80})")
_APT = re.compile(r"repo\.download\.nvidia\.com/jetson/\S+\s+(r\d+(?:\.\d+)?)\b")


def probe(root: Path = SYSTEM) -> JetsonFacts:
    """Read L4T's files under ``root``; runs nothing, so it cannot hang."""
    trail = Trail()
    release_text = trail.read(under(root, RELEASE), 4096)
    l4t, board = parse_release(release_text or "")
    model, compatible = _device_tree(root, trail)
    tegra = bool(compatible and any(c.startswith("nvidia,tegra") for c in compatible))
    release = _KERNEL.search(trail.read(under(root, "proc/version"), 4096) or "")
    kernel = release.group(1) if release and release.group(1).endswith("-tegra") else ""
    apt_text = trail.read(under(root, APT_SOURCE), 1 << 16)
    if release_text is None and not tegra and not kernel and apt_text is None:
        # dpkg's status (megabytes on a desktop) is read only where something says L4T
        return JetsonFacts(probe=trail.info(
            Status.NOT_FOUND, "not a Jetson: no /etc/nv_tegra_release, no Tegra device tree, "
            "no L4T kernel, no L4T apt source"))
    status = trail.read(under(root, DPKG_STATUS), 64 << 20)
    packages = dpkg_versions(status or "", PACKAGES)
    if status is None:  # no status file to read: ask dpkg-query about the same database
        packages, queried = _dpkg_query(trail, root)
        status = "" if queried else None
    core = _version(packages.get("nvidia-l4t-core", ""))
    source = "nv_tegra_release" if l4t is not None else "dpkg" if core is not None else ""
    apt = _APT.search(apt_text or "")
    user, groups, judge = rocm._user(root)
    nodes = tuple(rocm._node(root, under(root, rel), judge) for rel in NODES
                  if rocm._exists(under(root, rel)))
    facts = JetsonFacts(
        l4t=l4t or core, l4t_source=source, board=board,
        jetpack=_version(packages.get("nvidia-jetpack", "")), dpkg_read=status is not None,
        model=model,
        soc=next((c.split(",", 1)[1] for c in reversed(compatible)
                  if c.startswith("nvidia,tegra")), ""),
        compatible=compatible, apt_release=apt.group(1) if apt else "", kernel=kernel,
        device_nodes=nodes, user=user, user_groups=groups,
        tegrastats=runner.which("tegrastats") or "")
    # every field is what its file said or, the file missing, confirmed absent; whether dpkg's
    # status was there to say "nvidia-jetpack is not installed" is ``dpkg_read``. A tree with
    # no /dev at all (an unpacked image, a copied rootfs) says nothing of the device nodes.
    info = trail.info(Status.OK, source=source or "device-tree")
    if not nodes and not _has_devices(under(root, "dev")):
        info = replace(info, unobserved=("device_nodes",))
    return replace(facts, probe=info)


def _has_devices(dev: Path) -> bool:
    try:
        with os.scandir(dev) as entries:
            return any(True for _ in entries)
    except OSError:
        return False


def parse_release(text: str) -> tuple[Version | None, str]:
    """``# R36 (release), REVISION: 4.3, …, BOARD: generic`` -> (36.4.3, "generic")."""
    m = _RELEASE.search(text)
    if not m:
        return None, ""
    board = _BOARD.search(text[m.start():m.start() + 400])
    return _version(f"{m.group(1)}.{m.group(2)}"), board.group(1) if board else ""


def _dpkg_query(trail: Trail, root: Path) -> tuple[dict[str, str], bool]:
    """(versions, whether dpkg-query answered): ``dpkg-query --admindir ROOT/var/lib/dpkg -W
    -f=${Version} PACKAGE`` for each package, where the status file could not be read. Only a
    version is an answer: without a status file dpkg-query says "no packages found" of any
    name, so that says nothing about what is installed. Bounded by the runner's timeout."""
    tool = runner.which("dpkg-query")
    if not tool:
        return {}, False
    admindir = str(under(root, "var/lib/dpkg"))
    versions: dict[str, str] = {}
    answered = False
    for name in PACKAGES:
        result = trail.run([tool, f"--admindir={admindir}", "-W", "-f=${Version}", name], 5.0)
        if result.error:
            return {}, False
        text = result.stdout.strip()
        if result.returncode == 0 and text:
            versions[name], answered = text.splitlines()[0][:80], True
    return versions, answered


def dpkg_versions(status: str, wanted: tuple[str, ...]) -> dict[str, str]:
    """The version of each wanted package dpkg lists as installed (``Status: install ok
    installed``); a package removed but not purged (``deinstall ok config-files``) is not."""
    out: dict[str, str] = {}
    for stanza in status.split("\n\n"):
        fields: dict[str, str] = {}
        for line in stanza.splitlines():
            key, sep, value = line.partition(":")
            if sep and not key.startswith((" ", "\t")):
                fields[key.strip()] = value.strip()
        name = fields.get("Package", "")
        if name in wanted and fields.get("Status", "").endswith(" installed") \
                and fields.get("Status", "").startswith("install "):
            out[name] = fields.get("Version", "")
    return out


def _device_tree(root: Path, trail: Trail) -> tuple[str, tuple[str, ...]]:
    """The model and the compatible strings of the device tree (NUL-terminated; the first
    folder that has them)."""
    for folder in DEVICE_TREE:
        model = trail.read(under(root, f"{folder}/model"), 1024)
        compatible = trail.read(under(root, f"{folder}/compatible"), 4096)
        if model is not None or compatible is not None:
            names = tuple(c.strip() for c in (compatible or "").split("\0") if c.strip())[:16]
            return (model or "").split("\0", 1)[0].strip()[:160], names
    return "", ()


def _version(text: str) -> Version | None:
    """The release of a package version or L4T field: ``36.4.3-20250107174145`` -> 36.4.3,
    ``6.2+b77`` -> 6.2, ``5.1.2-b104`` -> 5.1.2."""
    m = re.match(r"\s*(\d+(?:\.\d+){0,3})", text or "")
    if not m:
        return None
    try:
        return Version(m.group(1))
    except InvalidVersion:
        return None

