"""Held-out simulated AMD machines, run through `check --static --root DIR`.

Written with their expected verdicts (and the sources below) before any ROCm check existed;
the first-run figure is in tests/heldout/ROCM.md. Each machine is:

- fake ``amd-smi`` / ``rocm-smi`` / ``rocminfo`` on PATH that print RECORDED real outputs
  (tests/data/tools/<tool>/*.txt, each with its source URL), answering only the arguments the
  real tool would answer with that output;
- a fake site-packages on PYTHONPATH laid out as the torch wheels lay it out (torch/version.py
  with ``hip = '6.2.41133-dd7f95766'`` for a +rocm6.2 wheel, libamdhip64 in torch/lib);
- fake system files under the root: /opt/rocm/.info/version, /dev/kfd and /dev/dri/renderD128
  with their owner group and mode, /sys/module/amdgpu, AMD PCI functions, the KFD topology,
  /etc/passwd and /etc/group (the user checked is $USER, ``alice``).

Sources for the expected verdicts:
 SR   ROCm system requirements (Linux), supported GPUs per release, with LLVM targets:
      https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/system-requirements.html
 CM   ROCm compatibility matrix (ROCm release <-> PyTorch, kernel driver):
      https://rocm.docs.amd.com/en/latest/compatibility/compatibility-matrix.html
 PERM Prerequisites: add the user to the render and video groups (/dev/kfd, /dev/dri/renderD*):
      https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/prerequisites.html
 OVR  HSA_OVERRIDE_GFX_VERSION=10.3.0 runs gfx1030 code on other RDNA2 chips (unsupported, works):
      https://github.com/ROCm/legacy-rocm-build/issues/1756 , https://github.com/ROCm/legacy-rocm-build/issues/2720
 HIPV HIP_VISIBLE_DEVICES lists the devices HIP exposes; an index past the count exposes none:
      https://rocm.docs.amd.com/en/latest/conceptual/gpu-isolation.html
 PT   torch ROCm wheels (+rocmX.Y) from download.pytorch.org/whl/rocmX.Y; a +cuXYZ wheel has
      no HIP code: https://pytorch.org/get-started/locally/
 IGPU an integrated Radeon (gfx1036, Raphael) next to supported cards makes HIP fail with
      "Unable to find code object for all current devices" unless hidden by
      HIP_VISIBLE_DEVICES: https://github.com/ROCm/legacy-rocm-build/issues/2720 (thread), SR (gfx1036 absent)
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[1] / "data" / "tools"
RENDER_GID = 109
VIDEO_GID = 44


def recorded(rel: str) -> str:
    return (TOOLS / rel).read_text(encoding="utf-8").partition("\n")[2]


# --------------------------------------------------------------------------- site-packages
def torch(version: str, cuda: str | None = None, hip: str | None = None) -> dict:
    body = ("from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', "
            "'git_version', 'hip']\n"
            f"__version__ = '{version}'\ndebug = False\ncuda: Optional[str] = {cuda!r}\n"
            "git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\n"
            f"hip: Optional[str] = {hip!r}\n")
    files = {"torch/__init__.py": "", "torch/version.py": body, "torch/lib/libtorch_cpu.so": ""}
    if hip:
        files["torch/lib/libtorch_hip.so"] = ""
        files["torch/lib/libamdhip64.so"] = ""
    if cuda:
        files["torch/lib/libtorch_cuda.so"] = ""
    return {"name": "torch", "version": version, "files": files, "top": "torch"}


TORCH_251_ROCM62 = torch("2.5.1+rocm6.2", hip="6.2.41133-dd7f95766")
TORCH_260_ROCM624 = torch("2.6.0+rocm6.2.4", hip="6.2.41134-65d174c3e")
TORCH_251_CU124 = torch("2.5.1+cu124", cuda="12.4")
TORCH_280_ROCM64 = torch("2.8.0+rocm6.4", hip="6.4.43482-0f2d60242")


# --------------------------------------------------------------------------- tools
def rocminfo(rel: str, code: int = 0) -> dict:
    return {"rocminfo": {"": (rel, code)}}


def rocm_smi(rel: str, code: int = 0) -> dict:
    return {"rocm-smi": {"--showproductname": (rel, code)}}


def amd_smi(static: str | None = None, version: str | None = None, code: int = 0) -> dict:
    table = {}
    if static:
        table["static"] = (static, code)
    if version:
        table["version"] = (version, 0)
    return {"amd-smi": table}


# --------------------------------------------------------------------------- system files
def system(rocm="6.2.4-120", kfd="0666", kfd_group=RENDER_GID, render="0666",
           alice_groups=("render", "video"), module=True, pci=1, topology=()) -> dict:
    return {"rocm": rocm, "kfd": kfd, "kfd_group": kfd_group, "render": render,
            "alice_groups": alice_groups, "module": module, "pci": pci, "topology": topology}


SCENARIOS = [
    dict(name="mi250x-rocm62-healthy", healthy=True, sources=("SR", "CM"),
         tools=rocm_smi("rocm-smi/01-showproductname-json-mi250x.txt"),
         system=system(), dists=[TORCH_251_ROCM62]),
    dict(name="mi300x-rocm63-healthy", healthy=True, sources=("SR", "CM"),
         note="rocm-smi names the GPU without its target; the KFD topology gives gfx942",
         tools=rocm_smi("rocm-smi/05-showallinfo-mi300x-head.txt"),
         system=system(rocm="6.3.3-74", pci=1, topology=(90402,)), dists=[TORCH_260_ROCM624]),
    dict(name="mi350-rocm70-healthy", healthy=True, sources=("SR", "CM"),
         tools=amd_smi(static="amd-smi/03-static-mi350.txt"),
         system=system(rocm="7.0.2-56"), dists=[torch("2.9.0+rocm7.0", hip="7.0.51831-a3e329ad8")]),
    dict(name="rx7900xtx-rocm62-healthy", healthy=True, sources=("SR",),
         tools=rocminfo("rocminfo/01-rx7900xtx-gfx1100.txt"),
         system=system(), dists=[TORCH_251_ROCM62]),
    dict(name="rx6600xt-with-override-healthy", healthy=True, sources=("OVR",),
         tools=rocminfo("rocminfo/03-rx6600xt-gfx1032.txt"),
         env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"},
         system=system(), dists=[TORCH_251_ROCM62]),
    dict(name="rx6600xt-needs-override", healthy=False, sources=("SR", "OVR"),
         labels=["rdna-needs-hsa-override"],
         tools=rocminfo("rocminfo/03-rx6600xt-gfx1032.txt"),
         system=system(), dists=[TORCH_251_ROCM62]),
    dict(name="rx7900xtx-plus-raphael-igpu", healthy=False, sources=("SR", "IGPU"),
         labels=["gfx-unsupported"],
         tools=rocm_smi("rocm-smi/02-showproductname-rx7900xtx.txt"),
         system=system(pci=3), dists=[TORCH_251_ROCM62]),
    dict(name="rx7900xtx-igpu-hidden-healthy", healthy=True, sources=("IGPU", "HIPV"),
         tools=rocm_smi("rocm-smi/02-showproductname-rx7900xtx.txt"),
         env={"HIP_VISIBLE_DEVICES": "0,1"},
         system=system(pci=3), dists=[TORCH_251_ROCM62]),
    dict(name="kfd-not-in-render-group", healthy=False, sources=("PERM",),
         labels=["no-device-access"],
         tools=rocminfo("rocminfo/05-kfd-permission-denied.txt", code=1),
         system=system(kfd="0660", render="0660", alice_groups=()), dists=[TORCH_251_ROCM62]),
    dict(name="cuda-wheel-on-amd", healthy=False, sources=("PT",),
         labels=["cuda-wheel-on-amd"],
         tools=rocm_smi("rocm-smi/01-showproductname-json-mi250x.txt"),
         system=system(), dists=[TORCH_251_CU124]),
    dict(name="rocm-torch-newer-than-installed", healthy=False, sources=("CM",),
         labels=["rocm-torch-newer"],
         tools=rocminfo("rocminfo/01-rx7900xtx-gfx1100.txt"),
         system=system(rocm="5.7.1-98"), dists=[TORCH_280_ROCM64]),
    dict(name="hip-visible-devices-hides-all", healthy=False, sources=("HIPV",),
         labels=["hip-visible-hides-all"],
         tools=rocm_smi("rocm-smi/01-showproductname-json-mi250x.txt"),
         env={"HIP_VISIBLE_DEVICES": "2"},
         system=system(), dists=[TORCH_251_ROCM62]),
    dict(name="amd-smi-no-driver", healthy=False, sources=("SR",),
         labels=["no-amdgpu-driver"],
         note="ROCm installed, amd-smi says the amdgpu driver is not initialized; no /dev/kfd",
         tools=amd_smi(static="amd-smi/02-driver-not-initialized.txt",
                       version="amd-smi/01-version-no-gpu.txt", code=0),
         system=system(kfd=None, render=None, module=False, pci=1), dists=[TORCH_251_ROCM62]),
    dict(name="amd-smi-crashes-rocminfo-answers", healthy=True, sources=("SR",),
         note="a broken amd-smi must not hide the GPUs rocminfo lists, nor raise a warning",
         tools={**amd_smi(static="!crash", code=139), **rocminfo("rocminfo/01-rx7900xtx-gfx1100.txt")},
         system=system(), dists=[TORCH_251_ROCM62]),
]


def _script(path: Path, table: dict, box: Path) -> None:
    """A fake tool: per first argument, print a recorded output and exit with its code; an
    argument the recording does not answer exits 2 (as the real tool would refuse it)."""
    lines = ["#!/bin/sh", 'case "$1" in']
    for arg, (rel, code) in table.items():
        if rel == "!crash":
            body = "echo 'Traceback (most recent call last):' >&2; echo 'Segmentation fault' >&2"
        else:
            out = box / f"{path.name}-{arg or 'plain'}.txt"
            out.write_text(recorded(rel))
            body = f"cat '{out}'"
        lines.append(f"  {arg or '*'}) {body}; exit {code};;")
    if "" not in table:
        lines.append("  *) echo 'usage' >&2; exit 2;;")
    lines.append("esac")
    path.write_text("\n".join(lines) + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def _node(path: Path, mode: str, gid: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    try:
        os.chown(path, 0 if os.geteuid() == 0 else os.getuid(), gid)
    except OSError:
        pass  # not root: the node keeps this user's group, which etc/group then names
    path.chmod(int(mode, 8))


def build(sc: dict, box: Path) -> tuple[Path, Path, Path]:
    """(site-packages, bin, root) of one machine."""
    site, bindir, root = box / "site", box / "bin", box / "root"
    for d in (site, bindir, root):
        d.mkdir(parents=True)
    for dist in sc.get("dists", ()):
        meta = site / f"{dist['name'].replace('-', '_')}-{dist['version']}.dist-info"
        meta.mkdir()
        (meta / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {dist['name']}\nVersion: {dist['version']}\n\n")
        (meta / "top_level.txt").write_text(dist["top"] + "\n")
        for rel, text in dist["files"].items():
            p = site / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    for tool, table in sc.get("tools", {}).items():
        _script(bindir / tool, table, box)
    s = sc["system"]
    render_gid = RENDER_GID if os.geteuid() == 0 else os.getgid()
    (root / "etc").mkdir()
    (root / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/bash\n"
                                     "alice:x:1000:1000:Alice:/home/alice:/bin/bash\n")
    members = {g: ("alice" if g in s["alice_groups"] else "") for g in ("render", "video")}
    (root / "etc/group").write_text(f"root:x:0:\nvideo:x:{VIDEO_GID}:{members['video']}\n"
                                    f"render:x:{render_gid}:{members['render']}\n"
                                    "alice:x:1000:\n")
    if s["rocm"]:
        info = root / "opt/rocm/.info"
        info.mkdir(parents=True)
        (info / "version").write_text(s["rocm"] + "\n")
    if s["kfd"]:
        _node(root / "dev/kfd", s["kfd"], render_gid)
    if s["render"]:
        _node(root / "dev/dri/renderD128", s["render"], render_gid)
    (root / "sys/module").mkdir(parents=True)
    if s["module"]:
        (root / "sys/module/amdgpu").mkdir()
        (root / "sys/module/amdgpu/version").write_text("6.8.5\n")
    for i in range(s["pci"]):
        dev = root / f"sys/bus/pci/devices/0000:{3 + i:02x}:00.0"
        dev.mkdir(parents=True)
        (dev / "vendor").write_text("0x1002\n")
        (dev / "class").write_text("0x030000\n")
    for i, number in enumerate((0, *s["topology"])):
        node = root / f"sys/class/kfd/kfd/topology/nodes/{i}"
        node.mkdir(parents=True)
        (node / "properties").write_text(f"cpu_cores_count {0 if number else 16}\n"
                                         f"gfx_target_version {number}\n")
    return site, bindir, root
