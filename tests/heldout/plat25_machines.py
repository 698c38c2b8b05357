"""Held-out batch plat25: 34 simulated machines over AMD ROCm, Apple silicon, Jetson, WSL and
containers, plus bare-Linux NVIDIA, run as a user runs them:
``check --static --root DIR --format json --expect gpu`` (tests/heldout/test_plat25_matrix.py).

Every machine below was written with its verdict (healthy, or the check ids that name its
problem and the severity they must reach) BEFORE envdoctor was run on any of them; the
first-run figure is in tests/heldout/PLATFORMS25.md. None of these scenarios is in the earlier
sets (rocm_machines, apple_machines, tests/probes/jetson_machines, wsl_machines,
platform_machines, plat24_machines, plat24_matrix); the builders of those sets lay the machines
out (this file only describes them), the new recordings are in
tests/heldout/platform_tools25/<tool>/*.txt with their source on line 1.

A label whose check does not exist (no rules/checks/** id for the problem) carries the id one
would expect and ``unlabelled_check=True``: such a row counts as a miss.

Sources for the verdicts (besides each recording's thread):
 SR    ROCm Linux system requirements, supported GPUs / LLVM targets per release (gfx90a MI210 /
       MI250X, gfx942 MI300X from ROCm 6.0, gfx1100 RX 7900 XTX; gfx803 not listed since ROCm 5):
       https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/system-requirements.html
 CM    ROCm compatibility matrix (ROCm release <-> PyTorch); a +rocmX.Y torch wheel carries the
       ROCm user-space libraries of X.Y and needs a driver/ROCm at least that new:
       https://rocm.docs.amd.com/en/latest/compatibility/compatibility-matrix.html
 ISO   GPU isolation: HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES; set to an empty value no device
       is exposed: https://rocm.docs.amd.com/en/latest/conceptual/gpu-isolation.html
 PERM  /dev/kfd and /dev/dri/renderD* belong to group render (Ubuntu 20.04+); the user must be in
       render and video: https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/prerequisites.html
 OVR11 HSA_OVERRIDE_GFX_VERSION=11.0.0 runs gfx1100 code on the 780M (gfx1103), unsupported but
       working: https://github.com/ollama/ollama/blob/main/docs/gpu.md (overrides),
       https://github.com/likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU
 PT    a +cuXYZ torch wheel has no HIP code: https://pytorch.org/get-started/locally/
 MPS14 torch 2.9+ needs macOS 14 for MPS: https://github.com/pytorch/pytorch/pull/163515 ("As
       PyTorch needs MacOS-14 or newer to use MPS"), https://github.com/pytorch/pytorch/issues/164943
       (macOS 13.7.4, M2 Max, torch 2.10: "The MPS backend is supported on MacOS 13.0+", MPS
       unavailable)
 JXM   jax-metal 0.0.4 and later need macOS 14 (Sonoma): https://developer.apple.com/metal/jax/ ,
       https://github.com/jax-ml/jax/issues/18006
 TFM   tensorflow-metal pairs (Apple's table): 0.8.0 <-> TF 2.12, 1.0.0 <-> TF 2.13:
       https://developer.apple.com/metal/tensorflow-plugin/
 ROS   an x86_64 Python under Rosetta 2 has no Metal device for any framework:
       https://developer.apple.com/documentation/apple-silicon/about-the-rosetta-translation-environment
 WMK   PYTORCH_MPS_LOW_WATERMARK_RATIO must not exceed PYTORCH_MPS_HIGH_WATERMARK_RATIO (the
       allocator refuses): https://pytorch.org/docs/stable/mps_environment_variables.html
 MPS   torch's arm64 macOS wheels carry MPS; macOS 14 satisfies every release's floor:
       https://pytorch.org/docs/stable/notes/mps.html
 JP    JetPack 5.1.x = L4T R35.x with CUDA 11.4; JetPack 6.x = L4T R36.x with CUDA 12.6:
       https://developer.nvidia.com/embedded/jetpack-archive
 PTJ   NVIDIA's Jetson torch wheels per JetPack (2.0.0+nv23.05 for JetPack 5.1.x):
       https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform-release-notes/pytorch-jetson-rel.html
 AIL   the Jetson AI Lab jp6/cu126 index builds for JetPack 6 (CUDA 12.6) only:
       https://pypi.jetson-ai-lab.io/jp6/cu126
 SBSA  PyPI's aarch64 torch: CPU-only (<= 2.5 and the +cpu builds) or CUDA for Arm servers (SBSA),
       which does not run on Orin's iGPU: https://github.com/pytorch/pytorch/issues/67997 ,
       https://github.com/pinokiocomputer/pinokio/issues/1027
 WSL   CUDA on WSL 2 only, through the Windows driver mapped into /usr/lib/wsl/lib; no Linux driver
       may be installed inside; WSL 1 has no GPU support:
       https://docs.nvidia.com/cuda/wsl-user-guide/index.html , https://learn.microsoft.com/windows/wsl/tutorials/gpu-compute
 CTK   the NVIDIA runtime injects /dev/nvidia* only when a GPU is requested; NVIDIA_VISIBLE_DEVICES
       alone under runc / podman without CDI gives none:
       https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html ,
       https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/cdi-support.html
 SHM   Docker's default /dev/shm is 64 MiB; DataLoader workers pass batches through it:
       https://github.com/pytorch/pytorch#docker-image
 CG    cgroup v2 memory.max (a 2 GiB limit kills a training process or its workers):
       https://docs.kernel.org/admin-guide/cgroup-v2.html#memory-interface-files
 DRV   CUDA minor-version compatibility needs driver >= 525.60.13 for CUDA 12.x and >= 580 for
       13.x: https://docs.nvidia.com/deploy/cuda-compatibility/
 ARCH  torch's CUDA wheels: cu124/cu126 builds stop at sm_90 (the RTX 5090's sm_120 needs cu128);
       cu130 builds start at sm_75 (Volta's sm_70 dropped by CUDA 13):
       https://github.com/pytorch/pytorch/issues/150733 ,
       https://github.com/pytorch/pytorch/blob/main/RELEASE.md (platform support),
       https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/ (CUDA 13.0: Maxwell/Pascal/Volta
       dropped)
"""
from __future__ import annotations

from pathlib import Path

from tests.heldout import apple_machines as am
from tests.heldout import platform_machines as pm
from tests.heldout import rocm_machines as rm
from tests.probes import jetson_machines as jm

HERE = Path(__file__).resolve().parent
TOOLS25 = HERE / "platform_tools25"
DATA = HERE.parents[0] / "data" / "tools"
PLATFORM_TOOLS = HERE / "platform_tools"


def rec(path: Path) -> str:
    """A recording without its source line."""
    return path.read_text(encoding="utf-8").partition("\n")[2]


def t25(rel: str) -> str:
    return rec(TOOLS25 / rel)


# --------------------------------------------------------------------------- ROCm
def rocm_torch(version: str, hip: str) -> dict:
    return rm.torch(version, hip=hip)


TORCH_241_ROCM61 = rocm_torch("2.4.1+rocm6.1", "6.1.40091-a8dbc0c19")
TORCH_271_ROCM63 = rocm_torch("2.7.1+rocm6.3", "6.3.42131-fa1d09cbd")
TORCH_290_ROCM70 = rocm_torch("2.9.0+rocm7.0", "7.0.51831-a3e329ad8")
TORCH_260_CU124 = rm.torch("2.6.0+cu124", cuda="12.4")


def rocminfo(rel: str) -> dict:
    return {"rocminfo": {"": t25(rel)}}


ROCM = [
    dict(name="mi210-rocm61-torch241-rocm61-healthy", healthy=True, sources=("SR", "CM"),
         note="an Instinct MI210 (gfx90a) on ROCm 6.1.3 with torch's ROCm 6.1 wheel",
         tools=rocminfo("rocminfo/01-mi210-gfx90a-agent.txt"),
         system=rm.system(rocm="6.1.3-122", pci=1, topology=(90010,)), dists=[TORCH_241_ROCM61]),
    dict(name="mi250x-rocm62-hip-visible-devices-empty", healthy=False, sources=("ISO",),
         ids={"hip-visible-devices-hides-all"}, severity="error",
         note="HIP_VISIBLE_DEVICES set to an empty value (a job script's unset variable expanded): "
              "HIP exposes no device",
         tools=rocminfo("rocminfo/02-mi250x-gfx90a-rock-6.10.5.txt"),
         env={"HIP_VISIBLE_DEVICES": ""},
         system=rm.system(rocm="6.2.4-120", pci=1, topology=(90010,)), dists=[rm.TORCH_251_ROCM62]),
    dict(name="mi250x-rocm571-torch251-rocm62", healthy=False, sources=("CM",),
         ids={"rocm-torch-newer-than-installed"}, severity="error",
         note="torch's ROCm 6.2 wheel on a node whose installed ROCm is 5.7.1",
         tools=rocminfo("rocminfo/02-mi250x-gfx90a-rock-6.10.5.txt"),
         system=rm.system(rocm="5.7.1-98", pci=1, topology=(90010,)), dists=[rm.TORCH_251_ROCM62]),
    dict(name="mi300x-rocm633-cuda-torch260", healthy=False, sources=("PT", "SR"),
         ids={"torch-cuda-wheel-on-amd"}, severity="error",
         note="`pip install torch` from the cu124 index on an MI300X node",
         tools=rocminfo("rocminfo/03-mi300x-gfx942-agent.txt"),
         system=rm.system(rocm="6.3.3-74", pci=1, topology=(90402,)), dists=[TORCH_260_CU124]),
    dict(name="mi300x-rocm641-torch271-rocm63-healthy", healthy=True, sources=("SR", "CM"),
         note="MI300X on ROCm 6.4.1 with torch's ROCm 6.3 wheel (a wheel for an older ROCm runs on a "
              "newer driver/ROCm; the matrix lists 2.7 with 6.3 and 6.4)",
         tools=rocminfo("rocminfo/03-mi300x-gfx942-agent.txt"),
         system=rm.system(rocm="6.4.1-83", pci=1, topology=(90402,)), dists=[TORCH_271_ROCM63]),
    dict(name="rx590-gfx803-rocm624-torch251-rocm62", healthy=False, sources=("SR",),
         ids={"rocm-gfx-unsupported"}, severity="error",
         note="a Radeon RX 590 (gfx803, Polaris) with torch's official ROCm 6.2 wheel: no gfx803 code "
              "objects in the build (the thread's repo exists to rebuild ROCm for gfx803)",
         tools=rocminfo("rocminfo/04-rx590-gfx803.txt"),
         system=rm.system(rocm="6.2.4-120", pci=1, topology=(80003,)), dists=[rm.TORCH_251_ROCM62]),
    dict(name="rx7900xtx-rocm70-torch290-rocm70-healthy", healthy=True, sources=("SR", "CM"),
         note="an RX 7900 XTX (gfx1100) on ROCm 7.0.2 with torch's ROCm 7.0 wheel",
         tools=rocminfo("rocminfo/05-rx7900xtx-gfx1100-agent.txt"),
         system=rm.system(rocm="7.0.2-56", pci=1, topology=(110000,)), dists=[TORCH_290_ROCM70]),
    dict(name="rx7900xtx-user-in-video-not-render", healthy=False, sources=("PERM",),
         ids={"rocm-device-access"}, severity="error",
         note="the user is in video but not render; /dev/kfd and renderD128 are 0660 root:render; "
              "rocminfo says Permission denied (recorded output of tests/data/tools/rocminfo/05)",
         tools={"rocminfo": {"": (rec(DATA / "rocminfo/05-kfd-permission-denied.txt"), 1)}},
         system=rm.system(rocm="6.2.4-120", kfd="0660", render="0660", alice_groups=("video",),
                          pci=1, topology=(110000,)),
         dists=[rm.TORCH_251_ROCM62]),
    dict(name="radeon-780m-apu-override-11-healthy", healthy=True, sources=("OVR11", "SR"),
         note="the Radeon 780M APU (gfx1103) of platform_machines' broken twin, now with "
              "HSA_OVERRIDE_GFX_VERSION=11.0.0 (rocm-smi answers only the recorded --showallinfo --json)",
         tools={"rocm-smi": {"--showallinfo --json":
                             rec(PLATFORM_TOOLS / "rocm-smi/03-all-json-radeon-780m-phoenix3.txt")}},
         env={"HSA_OVERRIDE_GFX_VERSION": "11.0.0"},
         system=rm.system(rocm="6.2.4-120", pci=1, topology=(110003,)), dists=[rm.TORCH_251_ROCM62]),
]

# --------------------------------------------------------------------------- Apple
APPLE = [
    dict(name="m2max-macos13.7.4-torch2.10-mps-floor-14", healthy=False, sources=("MPS14",),
         ids={"apple-macos-too-old-for-mps"}, severity="error",
         note="pytorch#164943's Mac: M2 Max, macOS 13.7.4, torch 2.10 (MPS needs macOS 14 from 2.9); "
              "build number 22H420 and the plist composed around the thread's version",
         system=am.mac("13.7.4", "22H420", "sysctl/03-m2max-native.txt"),
         dists=[am.numpy("2.3.3"), am.torch("2.10.0")]),
    dict(name="m1pro-macos14.2.1-torch260-healthy", healthy=True, sources=("MPS",),
         system=am.mac("14.2.1", "23C71", "sysctl/02-m1pro-native.txt", "sw_vers/02-14.2.1.txt"),
         dists=[am.numpy(), am.torch("2.6.0")]),
    dict(name="m1-macos13.4.1-jax-metal-011", healthy=False, sources=("JXM",),
         ids={"apple-jax-metal-mismatch"}, severity="error",
         note="jax-metal 0.1.1 (with the jax/jaxlib 0.4.34 it pairs with) on macOS 13: needs 14",
         system=am.mac("13.4.1", "22F82", "sysctl/01-m1-native.txt"),
         dists=[am.numpy(), am.jax("0.4.34"), am.jaxlib("0.4.34"), am.jax_metal("0.1.1")]),
    dict(name="m2max-macos15-tf215-tf-metal-080", healthy=False, sources=("TFM",),
         ids={"apple-tensorflow-metal-mismatch"}, severity="error",
         note="tensorflow-metal 0.8.0 (built for TF 2.12) left in place after upgrading TF to 2.15",
         system=am.mac("15.1.1", "24B91", "sysctl/03-m2max-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[am.numpy(), am.tensorflow("2.15.0"), am.tensorflow_metal("0.8.0")]),
    dict(name="m1-macos13-tf213-tf-metal-100-healthy", healthy=True, sources=("TFM",),
         system=am.mac("13.4.1", "22F82", "sysctl/01-m1-native.txt"),
         dists=[am.numpy(), am.tensorflow("2.13.0"), am.tensorflow_metal("1.0.0")]),
    dict(name="m3max-rosetta-x86-tensorflow-2.16", healthy=False, sources=("ROS",),
         ids={"apple-x86-python-on-apple-silicon"}, severity="error",
         note="an x86_64 Python (Rosetta) with TensorFlow's x86_64 macOS wheel on an M3 Max",
         system=am.mac("15.1.1", "24B91", "sysctl/04-m3max-rosetta.txt", "sw_vers/03-15.1.1.txt"),
         dists=[am.tensorflow("2.16.2", tag="cp311-cp311-macosx_10_15_x86_64")]),
    dict(name="m2max-macos15-torch251-mps-watermarks-inverted", healthy=False, sources=("WMK", "MPS"),
         ids={"apple-mps-watermark-invalid"}, severity="error",
         note="PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.5 with PYTORCH_MPS_LOW_WATERMARK_RATIO=0.8",
         env={"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.5", "PYTORCH_MPS_LOW_WATERMARK_RATIO": "0.8"},
         system=am.mac("15.1.1", "24B91", "sysctl/03-m2max-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[am.numpy(), am.torch("2.5.1")]),
]

# --------------------------------------------------------------------------- Jetson
ORIN_NX = ("NVIDIA Jetson Orin NX Engineering Reference Developer Kit",   # composed (p3767-0000)
           ("nvidia,p3768-0000+p3767-0000", "nvidia,p3767-0000", "nvidia,tegra234"))
JP621 = {**jm.JP62, "l4t": "36.4.7-20250918154033", "jetpack": "6.2.1+b38"}
# /etc/nv_tegra_release R35.4.1 as recorded in platform_tools/jetson/01 (its source on line 1)
R35_4_1 = rec(PLATFORM_TOOLS / "jetson/01-nv-tegra-release-r35.4.1-agx-orin.txt")

JETSON = [
    dict(name="orin-nx-jp512-nv-torch-2.0.0-nv23.05-healthy", healthy=True, sources=("JP", "PTJ"),
         note="Orin NX on L4T R35.4.1 / JetPack 5.1.2 with NVIDIA's JetPack 5.1.x wheel (CUDA 11.4)",
         system=jm.board(R35_4_1, ORIN_NX, **jm.JP512), dists=jm.torch("2.0.0+nv23.05", "11.4")),
    dict(name="orin-nano-jp62-pypi-cpu-torch-2.3.1", healthy=False, sources=("SBSA", "JP"),
         ids={"jetson-cpu-only-torch"}, severity="error",
         note="`pip install torch==2.3.1` from PyPI on an Orin Nano (JetPack 6.2): a CPU build",
         system=jm.board(jm.R36_4_3, jm.ORIN_NANO, **jm.JP62), dists=jm.torch("2.3.1", None)),
    dict(name="agx-orin-jp512-ai-lab-jp6-wheel", healthy=False, sources=("AIL", "JP"),
         ids={"jetson-torch-wrong-jetpack"}, severity="error",
         note="the Jetson AI Lab jp6/cu126 torch 2.8.0 on a JetPack 5.1.2 board (CUDA 11.4)",
         system=jm.board(R35_4_1, jm.AGX_ORIN, **jm.JP512), dists=jm.AIL_JP6),
    dict(name="orin-nano-jp621-pypi-cu128-sbsa-torch", healthy=False, sources=("SBSA",),
         ids={"jetson-foreign-cuda-torch"}, severity="error",
         note="PyPI's aarch64 torch 2.8.0 (CUDA 12.8, SBSA) with its nvidia-*-cu12 wheels on an Orin Nano",
         system=jm.board(jm.R36_4_7, jm.ORIN_NANO, **JP621),
         dists=jm.torch("2.8.0", "12.8", nvidia_libs=True)),
    dict(name="orin-nano-jp621-nv-wheel-healthy", healthy=True, sources=("JP", "PTJ"),
         note="Orin Nano Super on L4T R36.4.7 / JetPack 6.2.1 with NVIDIA's JetPack 6 wheel (CUDA 12.6)",
         system=jm.board(jm.R36_4_7, jm.ORIN_NANO, **JP621), dists=jm.NV_JP61),
]

# --------------------------------------------------------------------------- WSL
WSL1_VERSION = t25("wsl/01-wsl1-kernel-release.txt")


def wsl2(linux_driver: str | None) -> dict:
    machine = pm.wsl(windows_libs=True, linux_driver=False)
    if linux_driver:  # nvidia-driver-<major> installed inside the distribution
        files = machine["files"]
        files[f"usr/lib/x86_64-linux-gnu/libcuda.so.{linux_driver}"] = ""
        files["usr/lib/x86_64-linux-gnu/libcuda.so.1"] = ""
        files[f"usr/lib/x86_64-linux-gnu/libnvidia-ml.so.{linux_driver}"] = ""
        major = linux_driver.split(".")[0]
        files[f"var/lib/dpkg/info/nvidia-driver-{major}.list"] = (
            f"/usr/lib/x86_64-linux-gnu/libcuda.so.{linux_driver}\n")
    return machine


def wsl1_with_linux_driver() -> dict:
    return {"files": {
        "proc/version": WSL1_VERSION,
        "proc/sys/fs/binfmt_misc/WSLInterop": "enabled\ninterpreter /init\nflags: P\n",
        "usr/lib/x86_64-linux-gnu/libcuda.so.440.100": "",
        "usr/lib/x86_64-linux-gnu/libcuda.so.1": "",
        "var/lib/dpkg/info/nvidia-driver-440.list": "/usr/lib/x86_64-linux-gnu/libcuda.so.440.100\n"}}


WSL = [
    dict(name="wsl2-rtx2060-laptop-537-torch251-cu121-healthy", healthy=True, sources=("WSL", "DRV"),
         note="WSL 2 with the Windows 537.42 driver (CUDA 12.2) mapped into /usr/lib/wsl/lib, torch cu121",
         machine=wsl2(None),
         tools={"nvidia-smi": {"": rec(PLATFORM_TOOLS / "nvidia-smi/01-wsl2-rtx2060-laptop-535-driver-537.txt")}},
         ldconfig=["libcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1",
                   "libcuda.so (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so"],
         dists=[pm.torch("2.5.1+cu121", "cp311-cp311-linux_x86_64", cuda="12.1")]),
    dict(name="wsl2-nvidia-driver-535-package-inside", healthy=False, sources=("WSL",),
         ids={"linux-driver-inside-wsl"}, severity="error",
         note="nvidia-driver-535 installed inside the WSL 2 distribution: its libcuda is in the loader "
              "cache before /usr/lib/wsl/lib's",
         machine=wsl2("535.183.01"),
         tools={"nvidia-smi": {"": rec(PLATFORM_TOOLS / "nvidia-smi/02-wsl2-525-driver-527.txt")}},
         ldconfig=["libcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1",
                   "libcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1"],
         dists=[pm.torch("2.5.1+cu121", "cp311-cp311-linux_x86_64", cuda="12.1")]),
    dict(name="wsl1-nvidia-driver-440-installed", healthy=False, sources=("WSL",),
         ids={"wsl1-has-no-gpu"}, severity="error", unlabelled_check=True,
         note="microsoft/WSL#5554: WSL 1 (kernel 4.4.0-19041-Microsoft) with nvidia-driver-440 "
              "installed; nvidia-smi cannot reach a driver. WSL 1 has no GPU at all: the expected "
              "answer is 'WSL 1 has no GPU support, convert to WSL 2'. No check for WSL 1 exists "
              "(unlabelled-check: counts as a miss); WSL001's fix (install the Windows driver) and "
              "DRV004's (remove the Linux driver) leave it without a GPU",
         machine=wsl1_with_linux_driver(),
         tools={"nvidia-smi": {"*": (t25("nvidia-smi/02-wsl1-couldnt-communicate.txt"), 9)}},
         ldconfig=["libcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1"],
         dists=[pm.torch("2.1.2+cu121", "cp310-cp310-linux_x86_64", cuda="12.1")]),
]

# --------------------------------------------------------------------------- containers
SMI_L4 = rec(DATA / "nvidia-smi/18-l4-570-idle.txt")
SMI_A100X4 = rec(DATA / "nvidia-smi/14-4x-a100-sxm4-555.txt")
SHM_8G = 8388608


def container(shm_kib: int, gpus: bool, memory_max: str = "max", podman: bool = False) -> dict:
    machine = pm.container(shm_kib, gpus)
    files = machine["files"]
    files["sys/fs/cgroup/memory.max"] = memory_max + "\n"
    if podman:
        del files[".dockerenv"]
        files["run/.containerenv"] = ('engine="podman-4.9.3"\nname="trainer"\n'
                                      'id="4f1c2b7e9a0d"\nimage="docker.io/pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime"\n'
                                      'imageid="0c5d"\nrootless=1\n')
    return machine


CONTAINERS = [
    dict(name="container-l4-570-shm-8g-healthy", healthy=True, sources=("CTK", "SHM"),
         machine=container(SHM_8G, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools={"nvidia-smi": {"": SMI_L4}},
         dists=[pm.torch("2.6.0+cu124", "cp311-cp311-linux_x86_64", cuda="12.4")]),
    dict(name="container-nvidia-visible-0-runc", healthy=False, sources=("CTK",),
         ids={"container-without-gpu-devices"}, severity="error",
         note="`docker run -e NVIDIA_VISIBLE_DEVICES=0` under runc (no --gpus, no nvidia runtime)",
         machine=container(SHM_8G, gpus=False), env={"NVIDIA_VISIBLE_DEVICES": "0"},
         dists=[pm.torch("2.6.0+cu124", "cp311-cp311-linux_x86_64", cuda="12.4")]),
    dict(name="container-4x-a100-default-64m-shm", healthy=False, sources=("SHM",),
         ids={"small-dev-shm-in-container"}, severity="error",
         note="a 4x A100 training container started without --shm-size / --ipc=host",
         machine=container(65536, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools={"nvidia-smi": {"": SMI_A100X4}},
         dists=[pm.torch("2.5.1+cu124", "cp311-cp311-linux_x86_64", cuda="12.4")]),
    dict(name="container-l4-cgroup-memory-2g", healthy=False, sources=("CG",),
         ids={"container-memory-limit-low"}, severity="warning",
         note="a GPU container started with --memory=2g on a 128 GiB host",
         machine=container(SHM_8G, gpus=True, memory_max="2147483648"),
         env={"NVIDIA_VISIBLE_DEVICES": "all"}, tools={"nvidia-smi": {"": SMI_L4}},
         dists=[pm.torch("2.6.0+cu124", "cp311-cp311-linux_x86_64", cuda="12.4")]),
    dict(name="podman-rootless-no-gpu-devices", healthy=False, sources=("CTK",),
         ids={"container-without-gpu-devices"}, severity="error",
         note="rootless podman running a CUDA image (NVIDIA_VISIBLE_DEVICES=all from the image) "
              "without --device nvidia.com/gpu=all (CDI): no /dev/nvidia*; /run/.containerenv composed "
              "in podman's layout",
         machine=container(SHM_8G, gpus=False, podman=True),
         env={"NVIDIA_VISIBLE_DEVICES": "all", "NVIDIA_DRIVER_CAPABILITIES": "compute,utility"},
         dists=[pm.torch("2.5.1+cu124", "cp311-cp311-linux_x86_64", cuda="12.4")]),
]

# --------------------------------------------------------------------------- NVIDIA, bare Linux
BARE = {"files": {"proc/version": "Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103) "
                                  "(x86_64-linux-gnu-gcc-13 (Ubuntu 13.2.0-23ubuntu4) 13.2.0) "
                                  "#49-Ubuntu SMP PREEMPT_DYNAMIC Mon Nov  4 02:06:24 UTC 2024\n"}}

NVIDIA = [
    dict(name="8x-rtx4090-550-torch251-cu124-healthy", healthy=True, sources=("DRV", "ARCH"),
         machine=BARE, tools={"nvidia-smi": {"": rec(DATA / "nvidia-smi/13-8x-rtx4090-550.txt")}},
         dists=[pm.torch("2.5.1+cu124", "cp311-cp311-linux_x86_64", cuda="12.4")]),
    dict(name="h200-570-torch271-cu128-healthy", healthy=True, sources=("DRV", "ARCH"),
         machine=BARE, tools={"nvidia-smi": {"": rec(DATA / "nvidia-smi/19-h200-570.86.15.txt")}},
         dists=[pm.torch("2.7.1+cu128", "cp312-cp312-linux_x86_64", cuda="12.8")]),
    dict(name="rtx-laptop-470-torch251-cu124", healthy=False, sources=("DRV",),
         ids={"driver-too-old-for-framework-cuda"}, severity="error",
         note="driver 470.63.01 (CUDA 11.4) under a cu124 wheel: below 525.60.13, no minor-version "
              "compatibility (the class of lllyasviel/Fooocus#1313: 470.86 with a CUDA 12 torch)",
         machine=BARE, tools={"nvidia-smi": {"": rec(DATA / "nvidia-smi/05-rtx-laptop-470-processes.txt")}},
         dists=[pm.torch("2.5.1+cu124", "cp311-cp311-linux_x86_64", cuda="12.4")]),
    dict(name="rtx5090d-570-torch260-cu126", healthy=False, sources=("ARCH",),
         ids={"gpu-arch-missing-from-torch-wheel"}, severity="error",
         note="pytorch#150733: RTX 5090 D (sm_120) with torch 2.6.0+cu126 (sm_50..sm_90)",
         machine=BARE, tools={"nvidia-smi": {"": t25("nvidia-smi/01-rtx5090d-570.124.04-composed.txt")}},
         dists=[pm.torch("2.6.0+cu126", "cp312-cp312-linux_x86_64", cuda="12.6")]),
    dict(name="titanv-515-torch290-cu130", healthy=False, sources=("ARCH", "DRV"),
         ids={"gpu-arch-missing-from-torch-wheel", "driver-too-old-for-framework-cuda"},
         severity="error",
         note="a TITAN V (sm_70) on driver 515.65.01 with torch 2.9.0+cu130: CUDA 13 has no Volta "
              "code and needs driver >= 580",
         machine=BARE, tools={"nvidia-smi": {"": rec(DATA / "nvidia-smi/07-titanv-515-no-processes.txt")}},
         dists=[pm.torch("2.9.0+cu130", "cp312-cp312-linux_x86_64", cuda="13.0")]),
]

# platform -> (builder, machines)
PLATFORMS: dict[str, tuple[str, list[dict]]] = {
    "rocm": ("rocm", ROCM), "apple": ("apple", APPLE), "jetson": ("jetson", JETSON),
    "wsl": ("platform", WSL), "container": ("platform", CONTAINERS), "nvidia": ("platform", NVIDIA),
}

ROWS: list[tuple[str, dict]] = [(p, sc) for p, (_, scs) in PLATFORMS.items() for sc in scs]


def build(platform: str, sc: dict, box: Path) -> tuple[Path, Path, Path, dict[str, str]]:
    """(site-packages, bin, root, extra environment) of one machine."""
    builder = PLATFORMS[platform][0]
    if builder == "platform":
        return pm.build(sc, box)
    if builder == "rocm":
        site, bindir, root = rm.build({**sc, "tools": {}}, box)
        for name, table in sc.get("tools", {}).items():
            pm._tool(bindir / name, table, box, None)
    elif builder == "apple":
        site, bindir, root = am.build(sc, box)
    else:
        site, bindir, root = jm.build(sc, box)
    return site, bindir, root, dict(sc.get("env", {}))
