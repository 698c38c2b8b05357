"""Held-out simulated machines for Apple silicon, Jetson, AMD ROCm, WSL2 and containers, run
through `check --static --root DIR` (tests/heldout/test_platform_machines.py).

Written with their expected verdicts and sources before envdoctor was run on any of them; the
first-run figures are in tests/heldout/PLATFORMS.md. Each machine is what the real one shows:

- tools on PATH that print RECORDED real outputs (tests/heldout/platform_tools/<tool>/*.txt,
  the source URL on line 1), answering only the invocations the recording answers; an
  invocation the recording does not cover exits as the real tool does for an unknown
  argument (usage, exit 2) or, for ``sysctl``, for an unknown name ("unknown oid", exit 1); a
  recording of a tool that fails whatever it is asked (nvidia-smi without a driver) answers
  every invocation (``*``);
- system files under the root: macOS ``/System/Library/CoreServices/SystemVersion.plist``;
  Jetson ``/etc/nv_tegra_release``, ``/proc/device-tree/model``, ``/dev/nvmap``, the Tegra driver
  libraries, ``/usr/local/cuda-X.Y``; AMD ``/opt/rocm/.info/version``, ``/dev/kfd``, the KFD
  topology; WSL ``/proc/version``, ``/usr/lib/wsl/lib``; containers ``/.dockerenv``,
  ``/proc/mounts``, cgroup files and ``/dev/nvidia*``;
- a fake site-packages laid out as the real wheels lay it out: the dist-info ``WHEEL`` file
  carries the wheel's platform tag (``macosx_11_0_arm64``, ``manylinux2014_aarch64``,
  ``linux_aarch64`` for NVIDIA's Jetson wheels), ``torch/version.py`` its CUDA/HIP build.

The tool outputs and board files come from the recordings; where a file's content is composed
(a plist around a recorded macOS version, a Jetson model string) the note says so.

Sources for the expected verdicts (besides each recording's thread):
 MPS   PyTorch MPS backend: Apple silicon or AMD GPUs, macOS 12.3+ (later releases need newer
       macOS); an x86_64 Python under Rosetta reports an Intel machine and cannot use MPS:
       https://developer.apple.com/metal/pytorch/ , https://pytorch.org/docs/stable/notes/mps.html
 TFM   tensorflow-metal releases pair with TensorFlow releases (1.1.0 with TF 2.14-2.17):
       https://developer.apple.com/metal/tensorflow-plugin/ (release table), tensorflow#84167
 JXM   jax-metal 0.0.4 needs macOS 14 (Sonoma); 0.0.3 is the last for macOS 13:
       https://developer.apple.com/metal/jax/ , jax#18006
 JP    JetPack ships CUDA on the board (L4T R32.x: CUDA 10.2, R35.x: CUDA 11.4); the PyPI
       aarch64 torch wheels have no CUDA; NVIDIA's Jetson wheels (linux_aarch64, +nvYY.MM) do:
       https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform/index.html ,
       https://github.com/pytorch/pytorch/issues/67997 (pip torch on a Xavier NX: no CUDA)
 OBL   numpy 1.19.5's OpenBLAS crashes with "Illegal instruction" on the Nano's Cortex-A57
       (OPENBLAS_CORETYPE=ARMV8 or another numpy): https://github.com/numpy/numpy/issues/18131
 ROCM  supported GPUs per ROCm release (gfx1102 and the gfx1036 iGPU are not listed for 6.2;
       gfx908 is supported since 3.x); HSA_OVERRIDE_GFX_VERSION=11.0.0 runs gfx1100 code on
       other RDNA3 chips; HIP_VISIBLE_DEVICES hides a device:
       https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/system-requirements.html
 WSL   CUDA on WSL: the Windows driver maps libcuda into /usr/lib/wsl/lib; no Linux driver may
       be installed inside WSL: https://docs.nvidia.com/cuda/wsl-user-guide/index.html ,
       https://github.com/microsoft/WSL/issues/8687 (distribution with preinstalled NVIDIA
       packages)
 SHM   Docker's default /dev/shm is 64 MiB; DataLoader workers pass batches through it:
       https://github.com/ZoneMinder/zoneminder/issues/1924 ,
       https://github.com/tahoebio/tahoe-x1/pull/63 ; --ipc=host avoids it:
       https://github.com/JarodMica/ai-voice-cloning/pull/111
"""
from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path

TOOLS = Path(__file__).resolve().parent / "platform_tools"


def recorded(rel: str) -> str:
    """A recording without its source line."""
    return (TOOLS / rel).read_text(encoding="utf-8").partition("\n")[2]


# --------------------------------------------------------------------------- site-packages
def dist(name: str, version: str, tag: str, files: dict[str, str], top: str) -> dict:
    return {"name": name, "version": version, "tag": tag, "files": files, "top": top}


def torch(version: str, tag: str, cuda: str | None = None, hip: str | None = None,
          suffix: str = ".so") -> dict:
    body = (f"__version__ = '{version}'\ndebug = False\ncuda = {cuda!r}\n"
            f"git_version = '0123456789abcdef0123456789abcdef01234567'\nhip = {hip!r}\n")
    files = {"torch/__init__.py": "", "torch/version.py": body,
             f"torch/lib/libtorch_cpu{suffix}": ""}
    if cuda:
        files["torch/lib/libtorch_cuda.so"] = ""
    if hip:
        files["torch/lib/libtorch_hip.so"] = ""
        files["torch/lib/libamdhip64.so"] = ""
    return dist("torch", version, tag, files, "torch")


MAC_ARM = "cp311-none-macosx_11_0_arm64"
MAC_X86 = "cp311-none-macosx_10_9_x86_64"
MAC_NUMPY = "cp311-cp311-macosx_14_0_arm64"


def tensorflow(version: str) -> dict:
    return dist("tensorflow", version, "cp311-cp311-macosx_12_0_arm64",
                {"tensorflow/__init__.py": f"__version__ = '{version}'\n"}, "tensorflow")


def tensorflow_metal(version: str) -> dict:
    return dist("tensorflow-metal", version, "cp311-cp311-macosx_12_0_arm64",
                {"tensorflow-plugins/libmetal_plugin.dylib": ""}, "tensorflow-plugins")


def jax_stack(jax: str, jaxlib: str, metal: str) -> list[dict]:
    return [dist("jax", jax, "py3-none-any", {"jax/__init__.py": "", "jax/version.py":
                 f"_version = '{jax}'\n"}, "jax"),
            dist("jaxlib", jaxlib, "cp311-cp311-macosx_11_0_arm64",
                 {"jaxlib/__init__.py": "", "jaxlib/version.py": f"_version = '{jaxlib}'\n"},
                 "jaxlib"),
            dist("jax-metal", metal, "py3-none-macosx_13_0_arm64",
                 {"jax_plugins/metal_plugin/__init__.py": "",
                  "jax_plugins/metal_plugin/pjrt_plugin_metal_14.dylib": ""}, "jax_plugins")]


def numpy(version: str, tag: str) -> dict:
    return dist("numpy", version, tag, {"numpy/__init__.py": "", "numpy/version.py":
                                        f"version = '{version}'\n"}, "numpy")


# --------------------------------------------------------------------------- machines
def mac(product: str, build: str, brand: str, translated: bool = False) -> dict:
    """A Mac: sw_vers and sysctl answer as macOS does (``sysctl.proc_translated`` is 1 only in
    a Rosetta-translated process; hw.optional.arm64 is 1 on every Apple silicon Mac)."""
    sysctl = {"-n machdep.cpu.brand_string": brand + "\n", "-n hw.optional.arm64": "1\n",
              "-n sysctl.proc_translated": ("1\n" if translated else "0\n"),
              "-n hw.memsize": "34359738368\n"}
    sw = {"": f"ProductName:\t\tmacOS\nProductVersion:\t\t{product}\nBuildVersion:\t\t{build}\n",
          "-productVersion": product + "\n", "-buildVersion": build + "\n",
          "-productName": "macOS\n"}
    uname = {"-m": ("x86_64\n" if translated else "arm64\n"), "-s": "Darwin\n",
             "": "Darwin\n"}
    plist = ('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST '
             '1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n'
             f"<dict>\n\t<key>ProductBuildVersion</key>\n\t<string>{build}</string>\n"
             "\t<key>ProductName</key>\n\t<string>macOS</string>\n"
             f"\t<key>ProductVersion</key>\n\t<string>{product}</string>\n</dict>\n</plist>\n")
    return {"tools": {"sw_vers": sw, "sysctl": sysctl, "uname": uname},
            "files": {"System/Library/CoreServices/SystemVersion.plist": plist},
            "unknown": {"sysctl": ("sysctl: unknown oid '{arg}'", 1)}}


def jetson(release: str, model: str, cuda: str, jetpack: str | None, l4t_core: str,
           kernel: str, nvmap: bool = True) -> dict:
    """A Jetson: /etc/nv_tegra_release (recorded), the device-tree model (NUL-terminated, as
    the kernel exposes it), the Tegra driver libraries, CUDA under /usr/local/cuda-X.Y, and
    dpkg-query answering for the L4T and JetPack packages."""
    files = {"etc/nv_tegra_release": release,
             "proc/device-tree/model": model + "\x00",
             "proc/version": f"Linux version {kernel} (buildbrain@mobile-u64) (gcc version 9.3.0) #1 SMP PREEMPT\n",
             "usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1": "",
             "usr/lib/aarch64-linux-gnu/tegra/libnvrm_gpu.so": "",
             f"usr/local/cuda-{cuda}/version.txt": f"CUDA Version {cuda}\n",
             "etc/ld.so.conf.d/nvidia-tegra.conf": "/usr/lib/aarch64-linux-gnu/tegra\n"}
    if nvmap:
        files["dev/nvmap"] = ""
        files["dev/nvhost-ctrl-gpu"] = ""
    packages = {"nvidia-l4t-core": l4t_core}
    if jetpack:
        packages["nvidia-jetpack"] = jetpack
    return {"files": files, "dpkg": packages, "links": {"usr/local/cuda": f"cuda-{cuda}"}}


def amd(rocm: str, pci: int, topology: tuple[int, ...]) -> dict:
    """An AMD box: ROCm's version file, /dev/kfd and a render node open to the user's group,
    the amdgpu module, AMD display functions on the PCI bus, the KFD topology's gfx targets."""
    files = {"opt/rocm/.info/version": rocm + "\n", "sys/module/amdgpu/version": "6.8.5\n",
             "etc/group": "root:x:0:\nvideo:x:44:alice\nrender:x:{gid}:alice\nalice:x:1000:\n",
             "etc/passwd": "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000:Alice:/home/alice:/bin/bash\n"}
    for i in range(pci):
        files[f"sys/bus/pci/devices/0000:{3 + i:02x}:00.0/vendor"] = "0x1002\n"
        files[f"sys/bus/pci/devices/0000:{3 + i:02x}:00.0/class"] = "0x030000\n"
    for i, number in enumerate((0, *topology)):
        files[f"sys/class/kfd/kfd/topology/nodes/{i}/properties"] = (
            f"cpu_cores_count {0 if number else 16}\ngfx_target_version {number}\n")
    return {"files": files, "nodes": {"dev/kfd": "0660", "dev/dri/renderD128": "0660"}}


WSL_KERNEL = ("Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1) (gcc (GCC) "
              "11.2.0, GNU ld (GNU Binutils) 2.37) #1 SMP Fri Mar 29 23:14:13 UTC 2024\n")


def wsl(windows_libs: bool, linux_driver: bool) -> dict:
    files = {"proc/version": WSL_KERNEL,
             "proc/sys/fs/binfmt_misc/WSLInterop": "enabled\ninterpreter /init\nflags: PF\n",
             "etc/ld.so.conf.d/ld.wsl.conf": "# This file was automatically generated by WSL.\n/usr/lib/wsl/lib\n",
             "usr/lib/wsl/lib/libdxcore.so": "", "usr/lib/wsl/lib/libd3d12.so": "",
             "dev/dxg": ""}
    if windows_libs:
        for name in ("libcuda.so", "libcuda.so.1", "libcuda.so.1.1", "libnvidia-ml.so.1",
                     "nvidia-smi"):
            files[f"usr/lib/wsl/lib/{name}"] = ""
    if linux_driver:
        files["usr/lib/x86_64-linux-gnu/libcuda.so.525.65"] = ""
        files["usr/lib/x86_64-linux-gnu/libcuda.so.1"] = ""
        files["usr/lib/x86_64-linux-gnu/libnvidia-ml.so.525.65"] = ""
        files["var/lib/dpkg/info/nvidia-driver-525.list"] = "/usr/lib/x86_64-linux-gnu/libcuda.so.525.65\n"
    return {"files": files}


def container(shm_kib: int, gpus: bool) -> dict:
    overlay = ("overlay / overlay rw,relatime,lowerdir=/var/lib/docker/overlay2/l/ABC,upperdir="
               "/var/lib/docker/overlay2/123/diff,workdir=/var/lib/docker/overlay2/123/work 0 0\n"
               "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n")
    files = {".dockerenv": "", "proc/1/cgroup": "0::/\n",
             "proc/version": "Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) #49-Ubuntu SMP PREEMPT_DYNAMIC\n",
             "proc/mounts": overlay + f"shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size={shm_kib}k,inode64 0 0\n",
             "proc/meminfo": "MemTotal:       131891232 kB\nMemFree:        120000000 kB\nMemAvailable:   125000000 kB\n",
             "sys/fs/cgroup/cgroup.controllers": "cpuset cpu io memory hugetlb pids rdma misc\n",
             "sys/fs/cgroup/memory.max": "max\n"}
    if gpus:
        for node in ("nvidia0", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools"):
            files[f"dev/{node}"] = ""
    return {"files": files}


SMI_H100 = Path(__file__).resolve().parents[1] / "data" / "tools" / "nvidia-smi" / "01-h100-590-idle-no-processes.txt"
NANO_TEGRA_R3271 = "# R32 (release), REVISION: 7.1, GCID: 29818004, BOARD: t210ref, EABI: aarch64, DATE: Sat Feb 19 17:05:08 UTC 2022\n"

SCENARIOS: list[dict] = [
    # ---------------- Apple silicon ----------------
    dict(name="mac-m1-pro-macos-12.3.1-native-torch-2.0-healthy", platform="apple", healthy=True,
         sources=("macos/01", "MPS"), note="native arm64 Python and an arm64 torch 2.0.1 on macOS 12.3.1 (MPS's floor for 2.0); plist composed around the recorded version",
         machine=mac("12.3.1", "21E258", "Apple M1 Pro"),
         dists=[torch("2.0.1", MAC_ARM, suffix=".dylib")]),
    dict(name="mac-rosetta-x86_64-python-torch", platform="apple", healthy=False,
         labels=["x86-python-on-apple-silicon"], sources=("macos/02", "macos/03", "MPS"),
         note="an Apple silicon Mac (macOS 26.0) whose Python runs translated by Rosetta: sysctl.proc_translated=1, uname -m x86_64, an x86_64 torch wheel",
         machine=mac("26.0", "25A354", "Apple M2 Pro", translated=True),
         dists=[torch("2.2.2", MAC_X86, suffix=".dylib")]),
    dict(name="mac-macos-13-jax-metal-0.0.4", platform="apple", healthy=False,
         labels=["jax-metal-needs-newer-macos"], sources=("macos/05", "JXM"),
         note="macOS 13 (the thread gives the major; 13.6 composed) with jax-metal 0.0.4, which needs macOS 14",
         machine=mac("13.6", "22G120", "Apple M1"),
         dists=[*jax_stack("0.4.20", "0.4.20", "0.0.4"), numpy("1.26.4", MAC_NUMPY)]),
    dict(name="mac-m2-max-macos-15.2-tf-2.18-metal-1.1.0", platform="apple", healthy=False,
         labels=["tensorflow-metal-mismatch"], sources=("macos/04", "TFM"),
         note="tensorflow 2.18 with tensorflow-metal 1.1.0: the plugin fails to load (the thread's own pairing)",
         machine=mac("15.2", "24C101", "Apple M2 Max"),
         dists=[tensorflow("2.18.0"), tensorflow_metal("1.1.0"), numpy("1.26.4", MAC_NUMPY)]),
    dict(name="mac-m2-max-macos-15.2-tf-2.17-metal-1.1.0-healthy", platform="apple", healthy=True,
         sources=("macos/04", "TFM"), note="the same Mac with tensorflow 2.17, which the thread reports working with tensorflow-metal 1.1.0",
         machine=mac("15.2", "24C101", "Apple M2 Max"),
         dists=[tensorflow("2.17.0"), tensorflow_metal("1.1.0"), numpy("1.26.4", MAC_NUMPY)]),
    # ---------------- Jetson ----------------
    dict(name="jetson-nano-r32.7.1-jetpack-torch-1.10-healthy", platform="jetson", healthy=True,
         sources=("jetson/04", "JP"), note="a Nano on L4T R32.7.1 (CUDA 10.2) with NVIDIA's JetPack 4.6 torch 1.10.0 wheel (CUDA available in the report); the release line is composed around the recorded R32.7.1",
         machine=jetson(NANO_TEGRA_R3271, "NVIDIA Jetson Nano Developer Kit", "10.2", None,
                        "32.7.1-20220219090432", "4.9.253-tegra"),
         dists=[torch("1.10.0", "cp36-cp36m-linux_aarch64", cuda="10.2"),
                numpy("1.19.4", "cp36-cp36m-manylinux2014_aarch64")]),
    dict(name="jetson-nano-r32.7.4-numpy-1.19.5-openblas", platform="jetson", healthy=False,
         labels=["jetson-numpy-illegal-instruction"], sources=("jetson/03", "OBL", "JP"),
         note="a Nano on L4T R32.7.4 with a JetPack torch wheel and numpy 1.19.5 from PyPI, whose OpenBLAS dies with Illegal instruction on the Cortex-A57",
         machine=jetson(recorded("jetson/03-nv-tegra-release-r32.7.4-nano.txt"),
                        "NVIDIA Jetson Nano Developer Kit", "10.2", None,
                        "32.7.4-20230608212426", "4.9.337-tegra"),
         dists=[torch("1.9.0a0+gitd69c22d", "cp36-cp36m-linux_aarch64", cuda="10.2"),
                numpy("1.19.5", "cp36-cp36m-manylinux2014_aarch64")]),
    dict(name="jetson-agx-orin-r35.4.1-jetpack-5.1.2-nv-torch-healthy", platform="jetson", healthy=True,
         sources=("jetson/01", "jetson/02", "JP"), note="AGX Orin devkit on L4T R35.4.1 / JetPack 5.1.2 with NVIDIA's JetPack 5.1.2 torch (2.1.0a0+41361538.nv23.06, CUDA 11.4); model string composed",
         machine=jetson(recorded("jetson/01-nv-tegra-release-r35.4.1-agx-orin.txt"),
                        "Jetson AGX Orin Developer Kit", "11.4", "5.1.2-b104",
                        "35.4.1-20230801124926", "5.10.120-tegra"),
         dists=[torch("2.1.0a0+41361538.nv23.06", "cp38-cp38-linux_aarch64", cuda="11.4")]),
    dict(name="jetson-agx-orin-r35.4.1-pypi-cpu-torch", platform="jetson", healthy=False,
         labels=["jetson-pypi-cpu-torch"], sources=("jetson/01", "jetson/02", "JP"),
         note="the same board with `pip install torch`: the PyPI manylinux2014_aarch64 wheel has no CUDA",
         machine=jetson(recorded("jetson/01-nv-tegra-release-r35.4.1-agx-orin.txt"),
                        "Jetson AGX Orin Developer Kit", "11.4", "5.1.2-b104",
                        "35.4.1-20230801124926", "5.10.120-tegra"),
         dists=[torch("2.1.0", "cp38-cp38-manylinux2014_aarch64")]),
    # ---------------- AMD ROCm ----------------
    dict(name="rocm-rx7600xt-plus-raphael-igpu-no-override", platform="rocm", healthy=False,
         labels=["gfx-unsupported"], sources=("rocm-smi/01", "ROCM"),
         note="RX 7600 XT (gfx1102) and the Raphael iGPU (gfx1036) both visible, no HSA_OVERRIDE_GFX_VERSION, ROCm 6.2 torch: neither target has code in the build",
         machine=amd("6.2.4-120", 2, (110002, 100306)),
         tools={"rocm-smi": {"--showhw": recorded("rocm-smi/01-showhw-rx7600xt-raphael-igpu.txt")}},
         dists=[torch("2.5.1+rocm6.2", "cp312-cp312-manylinux_2_28_x86_64", hip="6.2.41133-dd7f95766")]),
    dict(name="rocm-rx7600xt-igpu-hidden-override-healthy", platform="rocm", healthy=True,
         sources=("rocm-smi/01", "ROCM"), note="the same box with HIP_VISIBLE_DEVICES=0 (the iGPU hidden) and HSA_OVERRIDE_GFX_VERSION=11.0.0 (gfx1100 code on gfx1102)",
         machine=amd("6.2.4-120", 2, (110002, 100306)),
         env={"HIP_VISIBLE_DEVICES": "0", "HSA_OVERRIDE_GFX_VERSION": "11.0.0"},
         tools={"rocm-smi": {"--showhw": recorded("rocm-smi/01-showhw-rx7600xt-raphael-igpu.txt")}},
         dists=[torch("2.5.1+rocm6.2", "cp312-cp312-manylinux_2_28_x86_64", hip="6.2.41133-dd7f95766")]),
    dict(name="rocm-4.0-mi100-torch-rocm4.0.1-healthy", platform="rocm", healthy=True,
         sources=("rocm-smi/02", "ROCM"), note="an Instinct MI100 (gfx908) on ROCm 4.0 with torch 1.8.1+rocm4.0.1",
         machine=amd("4.0.0-23", 1, (90008,)),
         tools={"rocm-smi": {"--showproductname": recorded("rocm-smi/02-showproductname-mi100-rocm-4.0.txt")}},
         dists=[torch("1.8.1+rocm4.0.1", "cp38-cp38-linux_x86_64", hip="4.0.20496-4f163c68")]),
    dict(name="rocm-radeon-780m-apu-no-override", platform="rocm", healthy=False,
         labels=["rdna-needs-override"], sources=("rocm-smi/03", "ROCM"),
         note="a Radeon 780M APU (Phoenix, gfx1103) on ROCm 6.2 without HSA_OVERRIDE_GFX_VERSION: gfx1103 is not a supported target",
         machine=amd("6.2.4-120", 1, (110003,)),
         tools={"rocm-smi": {"--showallinfo --json": recorded("rocm-smi/03-all-json-radeon-780m-phoenix3.txt")}},
         dists=[torch("2.5.1+rocm6.2", "cp312-cp312-manylinux_2_28_x86_64", hip="6.2.41133-dd7f95766")]),
    # ---------------- WSL2 ----------------
    dict(name="wsl2-rtx2060-laptop-windows-driver-healthy", platform="wsl", healthy=True,
         sources=("nvidia-smi/01", "WSL"), note="WSL2 with the Windows driver's libraries in /usr/lib/wsl/lib and nothing else; torch cu121",
         machine=wsl(windows_libs=True, linux_driver=False),
         tools={"nvidia-smi": {"": recorded("nvidia-smi/01-wsl2-rtx2060-laptop-535-driver-537.txt")}},
         ldconfig=["libcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1",
                   "libcuda.so (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so"],
         dists=[torch("2.1.2+cu121", "cp310-cp310-linux_x86_64", cuda="12.1")]),
    dict(name="wsl2-linux-nvidia-driver-inside-distro", platform="wsl", healthy=False,
         labels=["linux-driver-inside-wsl"], sources=("nvidia-smi/02", "WSL"),
         note="the distribution carries a Linux driver (nvidia-driver-525): its libcuda in /usr/lib/x86_64-linux-gnu is found before /usr/lib/wsl/lib",
         machine=wsl(windows_libs=True, linux_driver=True),
         tools={"nvidia-smi": {"": recorded("nvidia-smi/02-wsl2-525-driver-527.txt")}},
         ldconfig=["libcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1",
                   "libcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1"],
         dists=[torch("2.1.2+cu121", "cp310-cp310-linux_x86_64", cuda="12.1")]),
    dict(name="wsl2-no-gpu-from-windows", platform="wsl", healthy=False,
         labels=["wsl-no-gpu"], sources=("nvidia-smi/03", "WSL"),
         note="WSL2 where Windows maps no NVIDIA driver (no libcuda in /usr/lib/wsl/lib); nvidia-smi cannot reach a driver",
         machine=wsl(windows_libs=False, linux_driver=False),
         tools={"nvidia-smi": {"*": (recorded("nvidia-smi/03-wsl-couldnt-communicate.txt"), 9)}},
         ldconfig=[], dists=[torch("2.1.2+cu121", "cp310-cp310-linux_x86_64", cuda="12.1")]),
    # ---------------- containers ----------------
    dict(name="container-gpus-default-64m-shm", platform="container", healthy=False,
         labels=["small-dev-shm"], sources=("SHM",),
         note="a GPU container started without --shm-size or --ipc=host: Docker's default 64 MiB /dev/shm",
         machine=container(65536, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools={"nvidia-smi": {"": SMI_H100.read_text().partition("\n")[2]}},
         dists=[torch("2.5.1+cu124", "cp311-cp311-linux_x86_64", cuda="12.4")]),
    dict(name="container-gpus-ipc-host-healthy", platform="container", healthy=True,
         sources=("SHM",), note="the same container with --ipc=host: /dev/shm is the host's (64 GiB)",
         machine=container(65945616, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools={"nvidia-smi": {"": SMI_H100.read_text().partition("\n")[2]}},
         dists=[torch("2.5.1+cu124", "cp311-cp311-linux_x86_64", cuda="12.4")]),
]


# --------------------------------------------------------------------------- building
def _tool(path: Path, table: dict, box: Path, unknown: tuple[str, int] | None) -> None:
    """A fake tool answering exactly the recorded invocations ("$*"; ``*`` answers all);
    anything else exits as the real tool does for an argument it does not know."""
    lines = ["#!/bin/sh", 'case "$*" in']
    for i, (args, answer) in enumerate(table.items()):
        text, code = answer if isinstance(answer, tuple) else (answer, 0)
        out = box / f"{path.name}-{i}.txt"
        out.write_text(text)
        stream = " >&2" if code else ""
        pattern = "*" if args == "*" else shlex.quote(args)
        lines.append(f"  {pattern}) cat '{out}'{stream}; exit {code};;")
    if unknown:
        message, code = unknown
        lines.append(f'  *) echo "{message.format(arg="$2")}" >&2; exit {code};;')
    else:
        lines.append(f"  *) echo 'usage: {path.name}' >&2; exit 2;;")
    lines.append("esac")
    path.write_text("\n".join(lines) + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def _dpkg_query(path: Path, packages: dict[str, str]) -> None:
    """dpkg-query -W [-f=FORMAT] PACKAGE: the version (with -f) or 'name<TAB>version'; an
    unknown package: 'no packages found matching', exit 1."""
    lines = ["#!/bin/sh", 'for last; do :; done', 'case "$last" in']
    for name, version in packages.items():
        lines.append(f'  {name}) case "$*" in *-f*|*--showformat*) printf "%s" "{version}";; '
                     f'*) printf "%s\\t%s\\n" "{name}" "{version}";; esac; exit 0;;')
    lines.append('  *) echo "dpkg-query: no packages found matching $last" >&2; exit 1;;')
    lines.append("esac")
    path.write_text("\n".join(lines) + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def build(sc: dict, box: Path) -> tuple[Path, Path, Path, dict[str, str]]:
    """(site-packages, bin, root, environment) of one machine."""
    site, bindir, root = box / "site", box / "bin", box / "root"
    for d in (site, bindir, root):
        d.mkdir(parents=True)
    machine = sc.get("machine", {})
    gid = os.getgid()
    for rel, text in machine.get("files", {}).items():
        _write(root / rel, text.replace("{gid}", str(gid)))
    for rel, target in machine.get("links", {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).symlink_to(target)
    for rel, mode in machine.get("nodes", {}).items():
        _write(root / rel, "")
        (root / rel).chmod(int(mode, 8))
    unknown = machine.get("unknown", {})
    tools = {**machine.get("tools", {}), **sc.get("tools", {})}
    for name, table in tools.items():
        _tool(bindir / name, table, box, unknown.get(name))
    if machine.get("dpkg"):
        _dpkg_query(bindir / "dpkg-query", machine["dpkg"])
    if "ldconfig" in sc:
        cache = sc["ldconfig"]
        listing = box / "ldconfig.txt"
        listing.write_text(f"{len(cache)} libs found in cache `/etc/ld.so.cache'\n"
                           + "".join(f"\t{line}\n" for line in cache))
        _tool(bindir / "ldconfig", {"-p": listing.read_text()}, box, None)
    for d in sc.get("dists", ()):
        meta = site / f"{d['name'].replace('-', '_')}-{d['version']}.dist-info"
        meta.mkdir()
        (meta / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {d['name']}\nVersion: {d['version']}\n\n")
        (meta / "WHEEL").write_text(
            f"Wheel-Version: 1.0\nGenerator: bdist_wheel (0.41.2)\nRoot-Is-Purelib: false\nTag: {d['tag']}\n")
        (meta / "top_level.txt").write_text(d["top"] + "\n")
        for rel, text in d["files"].items():
            _write(site / rel, text)
    return site, bindir, root, dict(sc.get("env", {}))
