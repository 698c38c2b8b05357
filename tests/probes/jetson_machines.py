"""Simulated Jetson boards, run through `check --static --root DIR --expect gpu`.

Written with their expected verdicts (and the sources below) before any Jetson probe or check
existed; the first-run figure is in tests/probes/JETSON.md. Each board is:

- the files L4T writes, under the root: /etc/nv_tegra_release (first lines as real boards print
  them, quoted in the threads below), /proc/device-tree/model and compatible (NUL-terminated,
  as the kernel exposes them), the dpkg status entries of nvidia-l4t-core / nvidia-jetpack,
  /etc/apt/sources.list.d/nvidia-l4t-apt-source.list, /usr/local/cuda/version.json (version.txt
  on CUDA 10.2), the cuDNN libraries in /usr/lib/aarch64-linux-gnu, /dev/nvmap and
  /dev/nvhost-ctrl-gpu with their group (video) and mode, /etc/passwd and /etc/group (the user
  checked is $USER, ``alice``);
- a fake site-packages laid out as the wheels lay it out: torch/version.py of NVIDIA's Jetson
  wheels (``2.5.0a0+872d972e41.nv24.08``, cuda 12.6), the Jetson AI Lab index (``2.8.0``,
  cuda 12.6), PyPI's aarch64 wheels (CPU ``2.5.1``; CUDA ``2.9.0`` with nvidia-*-cu12 wheels);
- no nvidia-smi on PATH (JetPack 4 and 5 have none; JetPack 6's, which lists "Orin (nvgpu)",
  is added in test_orin_boards_with_jetpack6_nvidia_smi).

Sources for the expected verdicts:
 JP   JetPack archive: L4T release -> JetPack -> CUDA/cuDNN/TensorRT
      https://developer.nvidia.com/embedded/jetpack-archive ,
      https://docs.nvidia.com/jetson/jetpack/release-notes/index.html (6.2: CUDA 12.6, cuDNN 9.3)
 PTJ  PyTorch for Jetson (NVIDIA's wheels per JetPack, Python 3.6 / 3.8 / 3.10):
      https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform/index.html ,
      https://forums.developer.nvidia.com/t/pytorch-for-jetson/72048
 AIL  Jetson AI Lab index for JetPack 6 (CUDA 12.6, cp310): https://pypi.jetson-ai-lab.io/jp6/cu126
      (named in https://github.com/pytorch/TensorRT/pull/3453)
 SBSA PyPI's aarch64 torch is a CPU build (<= 2.5) or a CUDA build for Arm servers (SBSA), which
      does not run on Orin's iGPU: https://github.com/pinokiocomputer/pinokio/issues/1027 ,
      https://github.com/conda-forge/pytorch-cpu-feedstock/issues/303 ; CUDA 13 unifies SBSA and
      Thor, "the only exception is Orin (sm_87)":
      https://developer.nvidia.com/blog/whats-new-in-cuda-toolkit-13-0-for-jetson-thor-unified-arm-ecosystem-and-more
 LIBS NVIDIA's Jetson wheels link the JetPack's CUDA and cuDNN (nvidia-jetpack installs them):
      https://github.com/dusty-nv/jetson-containers/issues/9 , https://github.com/pytorch/pytorch/issues/41975
 NVMAP /dev/nvmap and /dev/nvhost-* belong to group video (mode 0660); outside it CUDA fails
      with "NvRmMemInitNvmap failed with Permission denied":
      https://github.com/anduril/jetpack-nixos/issues/118
"""
from __future__ import annotations

import os
from pathlib import Path

VIDEO_GID = 44

# /etc/nv_tegra_release as boards print it (the quoted lines of public reports)
R36_4_3 = ("# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64, "
           "DATE: Wed Jan  8 01:49:37 UTC 2025\n# KERNEL_VARIANT: oot\n"
           "TARGET_USERSPACE_LIB_DIR=nvidia\n"
           "TARGET_USERSPACE_LIB_DIR_PATH=usr/lib/aarch64-linux-gnu/nvidia\n")
R36_4_7 = ("# R36 (release), REVISION: 4.7, GCID: 42132812, BOARD: generic, EABI: aarch64, "
           "DATE: Thu Sep 18 22:54:44 UTC 2025\n# KERNEL_VARIANT: oot\n"
           "TARGET_USERSPACE_LIB_DIR=nvidia\n"
           "TARGET_USERSPACE_LIB_DIR_PATH=usr/lib/aarch64-linux-gnu/nvidia\n")
R35_4_1 = ("# R35 (release), REVISION: 4.1, GCID: 33958178, BOARD: t186ref, EABI: aarch64, "
           "DATE: Tue Aug  1 19:57:35 UTC 2023\n")
R32_7_1 = ("# R32 (release), REVISION: 7.1, GCID: 29818004, BOARD: t210ref, EABI: aarch64, "
           "DATE: Sat Feb 19 17:05:08 UTC 2022\n")
R38_2_0 = ("# R38 (release), REVISION: 2.0, GCID: 41844464, BOARD: generic, EABI: aarch64, "
           "DATE: Fri Aug 22 00:55:42 UTC 2025\n# KERNEL_VARIANT: oot\n"
           "TARGET_USERSPACE_LIB_DIR=nvidia\n"
           "TARGET_USERSPACE_LIB_DIR_PATH=usr/lib/aarch64-linux-gnu/nvidia\n")

# (model, compatible) of /proc/device-tree
AGX_ORIN = ("NVIDIA Jetson AGX Orin Developer Kit",
            ("nvidia,p3737-0000+p3701-0005", "nvidia,p3701-0005", "nvidia,tegra234"))
ORIN_NANO = ("NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super",
             ("nvidia,p3768-0000+p3767-0005-super", "nvidia,p3767-0005", "nvidia,tegra234"))
AGX_XAVIER = ("Jetson-AGX", ("nvidia,p2972-0000", "nvidia,galen", "nvidia,tegra194"))
NANO = ("NVIDIA Jetson Nano Developer Kit",
        ("nvidia,p3450-0000", "nvidia,jetson-nano", "nvidia,tegra210"))
AGX_THOR = ("NVIDIA Jetson AGX Thor Developer Kit",
            ("nvidia,p3971-0080+p3834-0008", "nvidia,p3834-0008", "nvidia,tegra264"))


def torch(version: str, cuda: str | None, nvidia_libs: bool = False) -> list[dict]:
    body = ("from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', "
            "'git_version', 'hip']\n"
            f"__version__ = '{version}'\ndebug = False\ncuda: Optional[str] = {cuda!r}\n"
            "git_version = '872d972e41596a9ac94cda69e8a6d7a6a3a1b5b6'\n"
            "hip: Optional[str] = None\n")
    files = {"torch/__init__.py": "", "torch/version.py": body, "torch/lib/libtorch_cpu.so": ""}
    if cuda:
        files["torch/lib/libtorch_cuda.so"] = ""
    dists = [{"name": "torch", "version": version, "files": files, "top": "torch"}]
    if nvidia_libs:  # what pip brings with PyPI's aarch64 CUDA wheel
        for name, ver, sub in (("nvidia-cudnn-cu12", "9.10.2.21", "cudnn"),
                               ("nvidia-cuda-runtime-cu12", "12.8.90", "cuda_runtime"),
                               ("nvidia-cublas-cu12", "12.8.4.1", "cublas")):
            dists.append({"name": name, "version": ver, "top": "nvidia",
                          "files": {f"nvidia/{sub}/lib/.keep": ""}})
    return dists


NV_JP61 = torch("2.5.0a0+872d972e41.nv24.08", "12.6")          # NVIDIA, JetPack 6.1/6.2
AIL_JP6 = torch("2.8.0", "12.6")                                # Jetson AI Lab jp6/cu126
NV_JP512 = torch("2.1.0a0+41361538.nv23.06", "11.4")            # NVIDIA, JetPack 5.1.2
NV_JP46 = torch("1.10.0", "10.2")                               # NVIDIA, JetPack 4.6
PYPI_CPU = torch("2.5.1", None)                                 # PyPI aarch64 (CPU)
PYPI_SBSA = torch("2.9.0", "12.8", nvidia_libs=True)            # PyPI aarch64 (SBSA CUDA)
PT_CU130 = torch("2.9.0+cu130", "13.0")                         # download.pytorch.org cu130


def board(release: str, dt: tuple, *, l4t: str, jetpack: str | None, cuda: str | None,
          cudnn: str | None, apt: str, nvmap: str = "0660", alice_video: bool = True) -> dict:
    return {"release": release, "model": dt[0], "compatible": dt[1], "l4t": l4t,
            "jetpack": jetpack, "cuda": cuda, "cudnn": cudnn, "apt": apt, "nvmap": nvmap,
            "alice_video": alice_video}


JP62 = dict(l4t="36.4.3-20250107174145", jetpack="6.2+b77", cuda="12.6.68", cudnn="9.3.0",
            apt="r36.4")
JP512 = dict(l4t="35.4.1-20230801124926", jetpack="5.1.2-b104", cuda="11.4.19", cudnn="8.6.0",
             apt="r35.4")
JP461 = dict(l4t="32.7.1-20220219090432", jetpack="4.6.1-b110", cuda="10.2.300", cudnn="8.2.1",
             apt="r32.7")

SCENARIOS = [
    dict(name="agx-orin-jp62-nvidia-wheel-healthy", healthy=True, sources=("JP", "PTJ"),
         system=board(R36_4_3, AGX_ORIN, **JP62), dists=NV_JP61),
    dict(name="orin-nano-super-jp6-ai-lab-wheel-healthy", healthy=True, sources=("JP", "AIL"),
         system=board(R36_4_7, ORIN_NANO, **{**JP62, "l4t": "36.4.7-20250918154033",
                                             "jetpack": "6.2.1+b38"}),
         dists=AIL_JP6),
    dict(name="agx-xavier-jp512-healthy", healthy=True, sources=("JP", "PTJ"),
         system=board(R35_4_1, AGX_XAVIER, **JP512), dists=NV_JP512),
    dict(name="nano-jp461-healthy", healthy=True, sources=("JP", "PTJ"),
         system=board(R32_7_1, NANO, **JP461), dists=NV_JP46),
    dict(name="agx-thor-jp7-cu130-wheel-healthy", healthy=True, sources=("JP", "SBSA"),
         note="JetPack 7 is SBSA-aligned: PyTorch's cu130 wheels are Thor's path",
         system=board(R38_2_0, AGX_THOR, l4t="38.2.0-20250821174705", jetpack="7.0",
                      cuda="13.0.48", cudnn="9.12.0", apt="r38.2"),
         dists=PT_CU130),
    dict(name="agx-orin-pypi-cpu-torch", healthy=False, sources=("SBSA", "PTJ"),
         labels=["jetson-cpu-torch"],
         system=board(R36_4_3, AGX_ORIN, **JP62), dists=PYPI_CPU),
    dict(name="agx-orin-pypi-sbsa-cuda-torch", healthy=False, sources=("SBSA",),
         labels=["jetson-foreign-cuda-torch"],
         system=board(R36_4_3, AGX_ORIN, **JP62), dists=PYPI_SBSA),
    dict(name="agx-orin-jp6-with-jp5-wheel", healthy=False, sources=("JP", "PTJ"),
         labels=["jetson-torch-wrong-jetpack"],
         system=board(R36_4_3, AGX_ORIN, **JP62), dists=NV_JP512),
    dict(name="agx-xavier-jp5-with-jp6-wheel", healthy=False, sources=("JP", "PTJ"),
         labels=["jetson-torch-wrong-jetpack"],
         system=board(R35_4_1, AGX_XAVIER, **JP512), dists=NV_JP61),
    dict(name="agx-orin-l4t-only-no-cudnn", healthy=False, sources=("LIBS", "JP"),
         note="L4T flashed without the JetPack components: no cuDNN for NVIDIA's wheel",
         labels=["jetpack-libraries-missing"],
         system=board(R36_4_3, AGX_ORIN, **{**JP62, "jetpack": None, "cudnn": None}),
         dists=NV_JP61),
    dict(name="nano-jp461-pypi-cpu-torch", healthy=False, sources=("PTJ", "SBSA"),
         labels=["jetson-cpu-torch"],
         system=board(R32_7_1, NANO, **JP461), dists=torch("1.13.1", None)),
    dict(name="orin-nano-user-not-in-video-group", healthy=False, sources=("NVMAP",),
         labels=["jetson-device-access"],
         system=board(R36_4_7, ORIN_NANO, **JP62, alice_video=False), dists=NV_JP61),
]


def _dpkg(system: dict) -> str:
    entries = [("nvidia-l4t-core", system["l4t"], "NVIDIA Core Package")]
    if system["jetpack"]:
        entries.append(("nvidia-jetpack", system["jetpack"], "NVIDIA Jetpack Meta Package"))
    if system["cudnn"]:
        major = system["cudnn"].split(".")[0]
        cuda_major = (system["cuda"] or "12").split(".")[0]
        name = f"libcudnn{major}" if major == "8" else f"libcudnn{major}-cuda-{cuda_major}"
        entries.append((name, f"{system['cudnn']}.0-1+cuda{cuda_major}", "cuDNN runtime"))
    out = []
    for package, version, description in entries:
        out.append(f"Package: {package}\nStatus: install ok installed\nPriority: standard\n"
                   f"Section: libs\nArchitecture: arm64\nVersion: {version}\n"
                   f"Maintainer: NVIDIA Corporation\nDescription: {description}\n")
    return "\n".join(out)


def _write(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)


def _node(path: Path, mode: str, gid: int) -> None:
    _write(path, "")
    try:
        os.chown(path, 0 if os.geteuid() == 0 else os.getuid(), gid)
    except OSError:
        pass  # not root: the node keeps this user's group, which etc/group then names
    path.chmod(int(mode, 8))


def build(sc: dict, box: Path) -> tuple[Path, Path, Path]:
    """(site-packages, bin, root) of one board."""
    site, bindir, root = box / "site", box / "bin", box / "root"
    for d in (site, bindir, root):
        d.mkdir(parents=True)
    for dist in sc.get("dists", ()):
        meta = site / f"{dist['name'].replace('-', '_')}-{dist['version']}.dist-info"
        meta.mkdir()
        (meta / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {dist['name']}\nVersion: {dist['version']}\n\n")
        (meta / "top_level.txt").write_text(dist["top"] + "\n")
        (meta / "WHEEL").write_text("Wheel-Version: 1.0\nRoot-Is-Purelib: false\n"
                                    "Tag: cp310-cp310-linux_aarch64\n")
        for rel, text in dist["files"].items():
            _write(site / rel, text)
    s = sc["system"]
    video_gid = VIDEO_GID if os.geteuid() == 0 else os.getgid()
    _write(root / "etc/nv_tegra_release", s["release"])
    _write(root / "proc/device-tree/model", s["model"].encode() + b"\0")
    _write(root / "proc/device-tree/compatible", b"".join(c.encode() + b"\0"
                                                           for c in s["compatible"]))
    _write(root / "var/lib/dpkg/status", _dpkg(s))
    soc = s["compatible"][-1].split(",")[1].replace("tegra", "t")
    _write(root / "etc/apt/sources.list.d/nvidia-l4t-apt-source.list",
           f"deb https://repo.download.nvidia.com/jetson/common {s['apt']} main\n"
           f"deb https://repo.download.nvidia.com/jetson/{soc} {s['apt']} main\n")
    _write(root / "etc/os-release", 'PRETTY_NAME="Ubuntu 22.04.5 LTS"\nID=ubuntu\n')
    _write(root / "proc/version", "Linux version 5.15.148-tegra (buildbrain@mobile-u64-6354-"
                                  "d6000) (aarch64-buildroot-linux-gnu-gcc.br_real (Buildroot "
                                  "2022.08) 11.3.0) #1 SMP PREEMPT Tue Jan  7 17:14:07 PST 2025\n")
    if s["cuda"]:
        cuda = root / f"usr/local/cuda-{'.'.join(s['cuda'].split('.')[:2])}"
        if s["cuda"].startswith("10."):
            _write(cuda / "version.txt", f"CUDA Version {s['cuda']}\n")
        else:
            _write(cuda / "version.json", '{\n   "cuda" : {\n      "name" : "CUDA SDK",\n'
                   f'      "version" : "{s["cuda"]}"\n   }}\n}}\n')
        (root / "usr/local/cuda").symlink_to(cuda.name)
        _write(cuda / f"lib64/libcudart.so.{s['cuda']}", "")
    if s["cudnn"]:
        lib = root / "usr/lib/aarch64-linux-gnu"
        major = s["cudnn"].split(".")[0]
        _write(lib / f"libcudnn.so.{s['cudnn']}", "")
        (lib / f"libcudnn.so.{major}").symlink_to(f"libcudnn.so.{s['cudnn']}")
        a, b, c = s["cudnn"].split(".")
        _write(root / "usr/include/aarch64-linux-gnu/cudnn_version.h",
               f"#define CUDNN_MAJOR {a}\n#define CUDNN_MINOR {b}\n#define CUDNN_PATCHLEVEL {c}\n")
    _write(root / "etc/passwd", "root:x:0:0:root:/root:/bin/bash\n"
                                "alice:x:1000:1000:Alice:/home/alice:/bin/bash\n")
    _write(root / "etc/group", f"root:x:0:\nvideo:x:{video_gid}:"
                               f"{'alice' if s['alice_video'] else ''}\nalice:x:1000:\n")
    _node(root / "dev/nvmap", s["nvmap"], video_gid)
    _node(root / "dev/nvhost-ctrl-gpu", "0660", video_gid)
    return site, bindir, root
