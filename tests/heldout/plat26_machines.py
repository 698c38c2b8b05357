"""Held-out batch plat26: 38 simulated machines over AMD ROCm, Apple silicon, Jetson, WSL 2,
containers, Intel XPU and bare-Linux NVIDIA, run as a user runs them:
``check --static --root DIR --format json --expect gpu`` (tests/heldout/test_plat26_matrix.py).

Every machine below was written with its verdict (healthy, or the check ids that name its
problem and the severity they must reach) BEFORE envdoctor was run on any of them; the
first-run figure is in tests/heldout/PLATFORMS26.md. None of these machines is in the earlier
sets (plat24, plat25, platform_machines, rocm/apple/wsl machines, tests/probes/jetson_machines,
tests/fixtures/machines); the builders of those sets lay the machines out (this file only
describes them, plus two small helpers for Intel and NVIDIA device nodes). New recordings are in
tests/heldout/platform_tools26/<tool>/*.txt with their source on line 1; one is composed around
a thread's stated facts and says so.

A label whose check does not exist (no rules/checks/** id for the problem) carries the id one
would expect and ``unlabelled_check=True``: such a row counts as a miss.

Sources for the verdicts (besides each recording's thread; SR, CM, PERM, PT, MPS14, JXM, TFM,
ROS, MPS, JP, PTJ, AIL, SBSA, WSL, CTK, SHM, CG, DRV, ARCH as in plat25_machines):
 SR    ROCm system requirements, supported GPUs / LLVM targets per release:
       https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/system-requirements.html
 CM    ROCm compatibility matrix; a +rocmX.Y torch wheel carries ROCm X.Y's user space, which
       AMD supports only with the kernel driver of nearby releases:
       https://rocm.docs.amd.com/en/latest/compatibility/compatibility-matrix.html ,
       https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/user-kernel-space-compat-matrix.html
 RDNA4 RX 9070 / 9070 XT (gfx1201) are supported on Linux from ROCm 6.4.1
       (https://github.com/ROCm/legacy-rocm-build/issues/4485, AMD's answer); gfx1200/gfx1201
       entered PyTorch's ROCm wheels in March 2025 (https://github.com/pytorch/pytorch/pull/148562),
       after torch 2.6; the 2.8 rocm6.4 wheels carry them
 G1101 gfx1101 (RX 7800 XT) in PyTorch's ROCm wheels from 2.6 (https://github.com/pytorch/pytorch/pull/141394
       -> #141667); ROCm 7.0 lists the RX 7800 XT
 WOVR  HSA_OVERRIDE_GFX_VERSION=10.3.0 left set on an MI210 (gfx90a) makes ROCr load gfx1030
       code on it: "Memory access fault by GPU node-2 on address (nil)", gone once unset
       (https://github.com/ROCm/legacy-rocm-build/issues/5238); the variable is "meant for internal
       debugging" (same thread, AMD)
 NAVI10 RX 5700 XT (gfx1010) is in no ROCm 6 support list and no PyTorch ROCm wheel; with
       HSA_OVERRIDE_GFX_VERSION=10.3.0 "this will lead to the RX5700 crush"
       (https://github.com/ROCm/legacy-rocm-build/issues/887), gfx1030 code is not RDNA1 code
 NOOP  HSA_OVERRIDE_GFX_VERSION=11.0.0 on a gfx1100 card names its own target: no change
 G908  MI100 (gfx908) is supported through ROCm 6.x and in every PyTorch ROCm wheel's arch list (SR)
 PERM  /dev/kfd and /dev/dri/renderD* are root:render 0660; a user in neither render nor video
       cannot open them, while rocm-smi (sysfs) still lists the GPU:
       https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/prerequisites.html
 JM    jax-metal 0.1.1 works with jax/jaxlib 0.4.34 .. 0.5.0; 0.5.1+ fails ("default_memory_space
       is not supported"): https://github.com/jax-ml/jax/issues/27062 ; 0.1.1 needs macOS 14.4+:
       https://pypi.org/project/jax-metal/
 TFM   Apple's tensorflow-metal table pairs 1.1.0 with TensorFlow 2.14:
       https://developer.apple.com/metal/tensorflow-plugin/
 NXSBSA PyPI's aarch64 torch 2.7.0 is a CUDA 12.6 build for Arm servers (SBSA) with nvidia-*-cu12
       wheels; it does not run on Orin's iGPU (SBSA above; https://github.com/pytorch/pytorch/issues/67997
       is pip torch on a Xavier NX)
 WSLPKG libnvidia-compute-<N> (pulled in by `cuda-drivers` / the `cuda` meta-package from the
       plain Ubuntu repo) puts a Linux libcuda.so.1 into /usr/lib/x86_64-linux-gnu inside WSL 2:
       https://docs.nvidia.com/cuda/wsl-user-guide/index.html ("install the cuda-toolkit
       package, not cuda or cuda-drivers")
 NGC   NGC PyTorch 24.05: torch 2.4.0a0+07cecf4168, CUDA 12.4.1, Python 3.10, image env
       NVIDIA_VISIBLE_DEVICES=all; without --gpus the runtime adds no device:
       https://docs.nvidia.com/deeplearning/frameworks/pytorch-release-notes/rel-24-05.html , CTK
 CG512 a 512 MiB cgroup v2 memory.max: importing torch and creating a CUDA context alone take
       several hundred MiB of host memory; the job is OOM-killed (CG)
 CDI   rootless podman with --device nvidia.com/gpu=all (CDI) gets /dev/nvidia* and nvidia-smi:
       https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/cdi-support.html
 XPU   PyTorch's XPU wheels (+xpu, download.pytorch.org/whl/xpu) run on Intel Arc A-series with
       the kernel's i915/xe driver and the user in render: https://pytorch.org/docs/stable/notes/get_start_xpu.html ,
       https://dgpu-docs.intel.com/driver/installation.html
 NVPERM nvidia-smi "Failed to initialize NVML: Insufficient Permissions" when /dev/nvidia* are not
       readable by the user (NVreg_DeviceFileMode=0660, group video):
       https://github.com/NVIDIA/nvidia-container-toolkit/issues/268
 LOST  "GPU is lost. Reboot the system to recover this GPU" (nvidia-smi exit 15, fallen off the bus):
       https://github.com/JosephKJ/OWOD/issues/81 , nvidia-smi(1) RETURN VALUE
 CVD   CUDA_VISIBLE_DEVICES=-1 (an invalid index) hides every GPU from CUDA:
       https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-environment-variables
 CU118 a cu118 wheel needs driver >= 450.80.02 (CUDA 11.x minor-version compatibility); 440.100 is
       CUDA 10.2's: https://docs.nvidia.com/deploy/cuda-compatibility/
"""
from __future__ import annotations

from pathlib import Path

from tests.heldout import apple_machines as am
from tests.heldout import plat25_machines as p25
from tests.heldout import platform_machines as pm
from tests.heldout import rocm_machines as rm
from tests.probes import jetson_machines as jm

HERE = Path(__file__).resolve().parent
TOOLS26 = HERE / "platform_tools26"
TOOLS25 = HERE / "platform_tools25"
DATA = HERE.parents[0] / "data" / "tools"
PLATFORM_TOOLS = HERE / "platform_tools"
rec = p25.rec


def t26(rel: str) -> str:
    return rec(TOOLS26 / rel)


# --------------------------------------------------------------------------- ROCm
TORCH_290_ROCM70 = p25.TORCH_290_ROCM70
TORCH_251_CU121 = rm.torch("2.5.1+cu121", cuda="12.1")
RX9070XT = {"rocminfo": {"": t26("rocminfo/01-rx9070xt-gfx1201-agent.txt")}}
RX7800XT_AMDSMI = {"amd-smi": {"static --asic --json": t26("amd-smi/01-static-json-rx7800xt-gfx1101.txt")}}

ROCM = [
    dict(name="rx9070xt-gfx1201-rocm641-torch280-rocm64-healthy", healthy=True, sources=("RDNA4", "CM"),
         note="an RX 9070 XT (gfx1201) on ROCm 6.4.1 with torch 2.8.0's ROCm 6.4 wheel",
         tools=RX9070XT, system=rm.system(rocm="6.4.1-83", pci=1, topology=(120001,)),
         dists=[rm.TORCH_280_ROCM64]),
    dict(name="rx9070xt-gfx1201-rocm633-torch260-rocm624", healthy=False, sources=("RDNA4", "SR"),
         ids={"rocm-gfx-unsupported"}, severity="error",
         note="the same card on ROCm 6.3.3 with torch 2.6.0+rocm6.2.4: neither the ROCm release nor "
              "the wheel has gfx1201 code (the rocminfo agent block is the thread's, recorded on 7.1.1)",
         tools=RX9070XT, system=rm.system(rocm="6.3.3-74", pci=1, topology=(120001,)),
         dists=[rm.TORCH_260_ROCM624]),
    dict(name="rx7800xt-gfx1101-amdsmi-rocm702-torch290-rocm70-healthy", healthy=True,
         sources=("G1101", "CM"),
         note="an RX 7800 XT (gfx1101) on ROCm 7.0.2, amd-smi's gpu_data JSON, torch's ROCm 7.0 wheel",
         tools=RX7800XT_AMDSMI, system=rm.system(rocm="7.0.2-56", pci=1, topology=(110001,)),
         dists=[TORCH_290_ROCM70]),
    dict(name="mi210-hsa-override-10.3.0-left-set", healthy=False, sources=("WOVR",),
         ids={"rocm-rdna-needs-hsa-override", "rocm-gfx-unsupported"}, severity="error",
         note="legacy-rocm-build#5238: HSA_OVERRIDE_GFX_VERSION=10.3.0 left over from another card on an "
              "MI210 (gfx90a in the KFD topology); rocminfo then names it gfx1030 (composed recording)",
         tools={"rocminfo": {"": t26("rocminfo/02-mi210-under-override-10.3.0-composed.txt")}},
         env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"},
         system=rm.system(rocm="6.4.1-83", pci=1, topology=(90010,)), dists=[rm.TORCH_280_ROCM64]),
    dict(name="rx5700xt-gfx1010-override-10.3.0", healthy=False, sources=("NAVI10", "SR"),
         ids={"rocm-gfx-unsupported", "rocm-rdna-needs-hsa-override"}, severity="error",
         note="an RX 5700 XT (gfx1010, RDNA1) with HSA_OVERRIDE_GFX_VERSION=10.3.0 (an RDNA2 value) and "
              "torch's ROCm 6.2 wheel; no GPU tool on PATH, the KFD topology names gfx1010",
         env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"},
         system=rm.system(rocm="6.2.4-120", pci=1, topology=(100100,)), dists=[rm.TORCH_251_ROCM62]),
    dict(name="rx7900xtx-override-11.0.0-own-target-healthy", healthy=True, sources=("NOOP", "SR", "CM"),
         note="an RX 7900 XTX (gfx1100) with HSA_OVERRIDE_GFX_VERSION=11.0.0 (its own target, a no-op) "
              "on ROCm 6.4.1 with torch's ROCm 6.4 wheel",
         tools={"rocminfo": {"": rec(DATA / "rocminfo/01-rx7900xtx-gfx1100.txt")}},
         env={"HSA_OVERRIDE_GFX_VERSION": "11.0.0"},
         system=rm.system(rocm="6.4.1-83", pci=1, topology=(110000,)), dists=[rm.TORCH_280_ROCM64]),
    dict(name="mi100-gfx908-rocm624-torch251-rocm62-healthy", healthy=True, sources=("G908", "CM"),
         note="two MI100s on ROCm 6.2.4, torch ROCm 6.2; rocm-smi's recorded --showproductname --csv "
              "output answers the product-name query (--json too), as in rocm_machines / plat24",
         tools={"rocm-smi": {"--showproductname --json":
                             rec(DATA / "rocm-smi/03-showproductname-csv-mi100.txt")}},
         system=rm.system(rocm="6.2.4-120", pci=2, topology=(90008, 90008)), dists=[rm.TORCH_251_ROCM62]),
    dict(name="rx7900xtx-user-in-neither-render-nor-video-rocm-smi-lists", healthy=False, sources=("PERM",),
         ids={"rocm-device-access"}, severity="error",
         note="/dev/kfd and renderD128 0660 root:render, alice in neither render nor video; rocm-smi "
              "(sysfs) still names the card, so no tool fails",
         tools={"rocm-smi": {"--showproductname --json":
                             rec(DATA / "rocm-smi/02-showproductname-rx7900xtx.txt")}},
         system=rm.system(rocm="6.4.1-83", kfd="0660", render="0660", alice_groups=(), pci=1,
                          topology=(110000,)),
         dists=[rm.TORCH_280_ROCM64]),
    dict(name="rx6800xt-gfx1030-rocm624-torch251-cu121", healthy=False, sources=("PT",),
         ids={"torch-cuda-wheel-on-amd"}, severity="error",
         note="`pip install torch` (PyPI's CUDA 12.1 build) on an RX 6800 XT box; no GPU tool on PATH "
              "(/opt/rocm/bin not added), the KFD topology names gfx1030",
         system=rm.system(rocm="6.2.4-120", pci=1, topology=(100300,)), dists=[TORCH_251_CU121]),
    dict(name="mi210-rocm613-torch290-rocm70", healthy=False, sources=("CM",),
         ids={"rocm-torch-newer-than-installed"}, severity="error",
         note="torch's ROCm 7.0 wheel on an MI210 whose installed ROCm/driver is 6.1.3",
         tools={"rocminfo": {"": rec(TOOLS25 / "rocminfo/01-mi210-gfx90a-agent.txt")}},
         system=rm.system(rocm="6.1.3-122", pci=1, topology=(90010,)), dists=[TORCH_290_ROCM70]),
    dict(name="mi300x-rocm702-torch290-rocm70-healthy", healthy=True, sources=("SR", "CM"),
         note="an MI300X on ROCm 7.0.2 with torch's ROCm 7.0 wheel",
         tools={"rocminfo": {"": rec(TOOLS25 / "rocminfo/03-mi300x-gfx942-agent.txt")}},
         system=rm.system(rocm="7.0.2-56", pci=1, topology=(90402,)), dists=[TORCH_290_ROCM70]),
]

# --------------------------------------------------------------------------- Apple
NUMPY_X86 = am._dist("numpy", "1.24.3", "cp311-cp311-macosx_10_9_x86_64", {"numpy/__init__.py": ""},
                     "numpy")

APPLE = [
    dict(name="m1-macos13.6-torch290-mps-floor-14", healthy=False, sources=("MPS14",),
         ids={"apple-macos-too-old-for-mps"}, severity="error",
         note="torch 2.9.0 on an M1 with macOS 13.6 (MPS needs macOS 14 from 2.9); plist composed",
         system=am.mac("13.6", "22G120", "sysctl/01-m1-native.txt"),
         dists=[am.numpy("2.1.3"), am.torch("2.9.0")]),
    dict(name="m1pro-macos14.2.1-torch290-healthy", healthy=True, sources=("MPS14", "MPS"),
         note="torch 2.9.0 on macOS 14.2.1: the floor met",
         system=am.mac("14.2.1", "23C71", "sysctl/02-m1pro-native.txt", "sw_vers/02-14.2.1.txt"),
         dists=[am.numpy("2.1.3"), am.torch("2.9.0")]),
    dict(name="m3max-macos15-jax-metal-011-jax0435-healthy", healthy=True, sources=("JM",),
         note="jax-metal 0.1.1 with jax/jaxlib 0.4.35 on macOS 15.1.1 (>= 14.4, jax inside 0.4.34..0.5.0)",
         system=am.mac("15.1.1", "24B91", "sysctl/05-m3max-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[am.numpy(), am.jax("0.4.35"), am.jaxlib("0.4.35"), am.jax_metal("0.1.1")]),
    dict(name="m2max-macos15-jax-metal-011-jax062", healthy=False, sources=("JM",),
         ids={"apple-jax-metal-mismatch"}, severity="error",
         note="jax-metal 0.1.1 under jax/jaxlib 0.6.2 (a `pip install -U jax` after the plugin)",
         system=am.mac("15.1.1", "24B91", "sysctl/03-m2max-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[am.numpy(), am.jax("0.6.2"), am.jaxlib("0.6.2"), am.jax_metal("0.1.1")]),
    dict(name="m2max-macos15-tf214-tf-metal-110-healthy", healthy=True, sources=("TFM",),
         note="tensorflow 2.14.1 with tensorflow-metal 1.1.0, the pair of Apple's table",
         system=am.mac("15.1.1", "24B91", "sysctl/03-m2max-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[am.numpy(), am.tensorflow("2.14.1"), am.tensorflow_metal("1.1.0")]),
    dict(name="m3max-rosetta-x86-tf213-macos14", healthy=False, sources=("ROS",),
         ids={"apple-x86-python-on-apple-silicon"}, severity="error",
         note="an x86_64 Python (Rosetta) with TF 2.13's and numpy's x86_64 wheels on an M3 Max, "
              "macOS 14.2.1",
         system=am.mac("14.2.1", "23C71", "sysctl/04-m3max-rosetta.txt", "sw_vers/02-14.2.1.txt"),
         dists=[NUMPY_X86, am.tensorflow("2.13.0", tag="cp311-cp311-macosx_10_15_x86_64")]),
]

# --------------------------------------------------------------------------- Jetson
XAVIER_NX = ("NVIDIA Jetson Xavier NX Developer Kit",                    # composed (p3668-0001)
             ("nvidia,p3509-0000+p3668-0001", "nvidia,p3668-0001", "nvidia,tegra194"))


def pypi_aarch64_cu126(version: str) -> list[dict]:
    """PyPI's aarch64 torch 2.7.0 (CUDA 12.6, SBSA) with the nvidia-*-cu12 wheels it pins."""
    dists = jm.torch(version, "12.6")
    for name, ver, sub in (("nvidia-cudnn-cu12", "9.5.1.17", "cudnn"),
                           ("nvidia-cuda-runtime-cu12", "12.6.77", "cuda_runtime"),
                           ("nvidia-cublas-cu12", "12.6.4.1", "cublas")):
        dists.append({"name": name, "version": ver, "top": "nvidia",
                      "files": {f"nvidia/{sub}/lib/.keep": ""}})
    return dists


JETSON = [
    dict(name="xavier-nx-jp512-pypi-cpu-torch-2.1.0", healthy=False, sources=("SBSA", "JP", "PTJ"),
         ids={"jetson-cpu-only-torch"}, severity="error",
         note="pytorch#67997's board class: `pip install torch` (2.1.0, PyPI aarch64, CPU) on a Xavier NX "
              "with JetPack 5.1.2",
         system=jm.board(p25.R35_4_1, XAVIER_NX, **jm.JP512), dists=jm.torch("2.1.0", None)),
    dict(name="orin-nx-jp62-ai-lab-torch-2.7.0-healthy", healthy=True, sources=("AIL", "JP"),
         note="Orin NX on L4T R36.4.3 / JetPack 6.2 with the Jetson AI Lab jp6/cu126 torch 2.7.0",
         system=jm.board(jm.R36_4_3, p25.ORIN_NX, **jm.JP62), dists=jm.torch("2.7.0", "12.6")),
    dict(name="orin-nano-jp62-pypi-sbsa-cu126-torch-2.7.0", healthy=False, sources=("NXSBSA",),
         ids={"jetson-foreign-cuda-torch"}, severity="error",
         note="PyPI's aarch64 torch 2.7.0 (CUDA 12.6 for SBSA) with its nvidia-*-cu12 wheels on an Orin "
              "Nano whose JetPack is also CUDA 12.6: the same CUDA version, the wrong platform",
         system=jm.board(jm.R36_4_3, jm.ORIN_NANO, **jm.JP62), dists=pypi_aarch64_cu126("2.7.0")),
    dict(name="agx-orin-jp621-nv-wheel-healthy", healthy=True, sources=("JP", "PTJ"),
         note="AGX Orin on L4T R36.4.7 / JetPack 6.2.1 with NVIDIA's JetPack 6 wheel (nv24.08, CUDA 12.6)",
         system=jm.board(jm.R36_4_7, jm.AGX_ORIN, **p25.JP621), dists=jm.NV_JP61),
]

# --------------------------------------------------------------------------- WSL 2
SMI_WSL_537 = t26("nvidia-smi/01-wsl2-gtx1650-535.103-driver-537.13.txt")
WSL_LDCONFIG = ["libcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1",
                "libcuda.so (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so"]


def wsl2_libnvidia_compute(version: str) -> dict:
    """WSL 2 whose distribution got libnvidia-compute-<major> (and nvidia-utils) from `cuda-drivers`:
    a Linux libcuda.so.1 and nvidia-smi, no nvidia-driver-<major> package."""
    machine = pm.wsl(windows_libs=True, linux_driver=False)
    files = machine["files"]
    major = version.split(".")[0]
    files[f"usr/lib/x86_64-linux-gnu/libcuda.so.{version}"] = ""
    files["usr/lib/x86_64-linux-gnu/libcuda.so.1"] = ""
    files[f"usr/lib/x86_64-linux-gnu/libnvidia-ml.so.{version}"] = ""
    files[f"var/lib/dpkg/info/libnvidia-compute-{major}:amd64.list"] = (
        f"/usr/lib/x86_64-linux-gnu/libcuda.so.{version}\n"
        f"/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.{version}\n")
    files[f"var/lib/dpkg/info/nvidia-utils-{major}.list"] = "/usr/bin/nvidia-smi\n"
    return machine


WSL = [
    dict(name="wsl2-gtx1650-537.13-torch251-cu121-healthy", healthy=True, sources=("WSL", "DRV"),
         note="microsoft/WSL#11277's WSL 2 after going back to the 537.13 Windows driver; torch cu121",
         machine=pm.wsl(windows_libs=True, linux_driver=False),
         tools={"nvidia-smi": {"": SMI_WSL_537}}, ldconfig=WSL_LDCONFIG,
         dists=[pm.torch("2.5.1+cu121", "cp311-cp311-linux_x86_64", cuda="12.1")]),
    dict(name="wsl2-gtx1650-537.13-torch290-cu130", healthy=False, sources=("DRV",),
         ids={"driver-too-old-for-framework-cuda"}, severity="error",
         note="the same WSL 2 (Windows driver 537.13, CUDA 12.2) with torch 2.9.0+cu130 (needs >= 580)",
         machine=pm.wsl(windows_libs=True, linux_driver=False),
         tools={"nvidia-smi": {"": SMI_WSL_537}}, ldconfig=WSL_LDCONFIG,
         dists=[pm.torch("2.9.0+cu130", "cp312-cp312-linux_x86_64", cuda="13.0")]),
    dict(name="wsl2-libnvidia-compute-570-from-cuda-drivers", healthy=False, sources=("WSLPKG", "WSL"),
         ids={"linux-driver-inside-wsl"}, severity="error",
         note="`apt install cuda` from the plain Ubuntu repo inside WSL 2 brought libnvidia-compute-570 "
              "and nvidia-utils-570: their libcuda.so.1 is first in the loader cache and their "
              "nvidia-smi cannot reach a driver (microsoft/WSL#9134's output)",
         machine=wsl2_libnvidia_compute("570.133.07"),
         tools={"nvidia-smi": {"*": (rec(PLATFORM_TOOLS / "nvidia-smi/03-wsl-couldnt-communicate.txt"), 9)}},
         ldconfig=["libcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1",
                   "libcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1",
                   "libcuda.so (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so"],
         dists=[pm.torch("2.6.0+cu124", "cp312-cp312-linux_x86_64", cuda="12.4")]),
]

# --------------------------------------------------------------------------- containers
SHM_16G = 16777216
CONTAINERS = [
    dict(name="container-2x-a100-580-shm-16g-torch280-cu128-healthy", healthy=True, sources=("CTK", "SHM", "DRV"),
         machine=p25.container(SHM_16G, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools={"nvidia-smi": {"": rec(DATA / "nvidia-smi/20-2x-a100-40gb-580-bottlerocket.txt")}},
         dists=[pm.torch("2.8.0+cu128", "cp312-cp312-linux_x86_64", cuda="12.8")]),
    dict(name="podman-rootless-cdi-rtx4090-healthy", healthy=True, sources=("CDI", "DRV"),
         note="rootless podman with --device nvidia.com/gpu=all: the devices and nvidia-smi are there",
         machine=p25.container(SHM_16G, gpus=True, podman=True),
         env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools={"nvidia-smi": {"": rec(DATA / "nvidia-smi/15-rtx4090-580-cuda13.txt")}},
         dists=[pm.torch("2.8.0+cu128", "cp312-cp312-linux_x86_64", cuda="12.8")]),
    dict(name="ngc-pytorch-24.05-started-without-gpus", healthy=False, sources=("NGC", "CTK"),
         ids={"container-without-gpu-devices"}, severity="error",
         note="`docker run nvcr.io/nvidia/pytorch:24.05-py3` without --gpus: the image's env says all, "
              "no /dev/nvidia*, no nvidia-smi; image env composed from NGC's release notes",
         machine=p25.container(SHM_16G, gpus=False),
         env={"NVIDIA_VISIBLE_DEVICES": "all", "NVIDIA_DRIVER_CAPABILITIES": "compute,utility,video",
              "CUDA_VERSION": "12.4.1.003", "PYTORCH_VERSION": "2.4.0a0+07cecf4"},
         dists=[pm.torch("2.4.0a0+07cecf4168.nv24.05", "cp310-cp310-linux_x86_64", cuda="12.4")]),
    dict(name="container-8x-h100-default-64m-shm", healthy=False, sources=("SHM",),
         ids={"small-dev-shm-in-container"}, severity="error",
         note="an 8x H100 training container started without --shm-size / --ipc=host",
         machine=p25.container(65536, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools={"nvidia-smi": {"": rec(DATA / "nvidia-smi/12-8x-h100-565-no-processes.txt")}},
         dists=[pm.torch("2.5.1+cu124", "cp311-cp311-linux_x86_64", cuda="12.4")]),
    dict(name="container-t4-cgroup-memory-512m", healthy=False, sources=("CG512", "CG"),
         ids={"container-memory-limit-low"}, severity="error",
         note="a T4 container started with --memory=512m on a 128 GiB host: torch + a CUDA context do "
              "not fit; error under --expect gpu (unlike plat25's 2 GiB row, labelled warning)",
         machine=p25.container(SHM_16G, gpus=True, memory_max="536870912"),
         env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools={"nvidia-smi": {"": rec(DATA / "nvidia-smi/17-t4-580-exclusive-process.txt")}},
         dists=[pm.torch("2.7.1+cu126", "cp311-cp311-linux_x86_64", cuda="12.6")]),
]

# --------------------------------------------------------------------------- Intel XPU
INTEL_GROUPS = "root:x:0:\nvideo:x:44:alice\nrender:x:{gid}:alice\nalice:x:1000:\n"  # {gid}: the nodes' group


def intel_arc() -> dict:
    """A bare Linux box with an Arc A770 (PCI 8086:56a0, display class) driven by i915, its render
    node, alice in render; composed around XPU's stated requirements (no Intel tool is probed)."""
    files = dict(p25.BARE["files"])
    dev = "sys/bus/pci/devices/0000:03:00.0"
    files.update({f"{dev}/vendor": "0x8086\n", f"{dev}/device": "0x56a0\n",
                  f"{dev}/class": "0x030000\n", "sys/module/i915/initstate": "live\n",
                  "dev/dri/renderD128": "", "dev/dri/card0": "", "etc/group": INTEL_GROUPS,
                  "etc/passwd": "root:x:0:0:root:/root:/bin/bash\n"
                                "alice:x:1000:1000:Alice:/home/alice:/bin/bash\n"})
    # the device's driver link, as sysfs has it once i915 is bound to the card
    return {"files": files, "links": {f"{dev}/driver": "../../../bus/pci/drivers/i915"}}


INTEL = [
    dict(name="arc-a770-i915-torch270-xpu-healthy", healthy=True, sources=("XPU",),
         note="an Arc A770 with PyTorch's XPU wheel (2.7.0+xpu)",
         machine=intel_arc(), dists=[pm.torch("2.7.0+xpu", "cp311-cp311-linux_x86_64")]),
    dict(name="arc-a770-pypi-cuda-torch", healthy=False, sources=("XPU", "PT"),
         ids={"torch-cuda-wheel-on-intel-gpu"}, severity="error", unlabelled_check=True,
         note="PyPI's default (CUDA 12.4) torch on the Arc A770 box: no CUDA device, and the XPU wheel is "
              "the fix. No check names a CUDA wheel on an Intel GPU (unlabelled-check: counts as a miss)",
         machine=intel_arc(), dists=[pm.torch("2.6.0", "cp311-cp311-manylinux1_x86_64", cuda="12.4")]),
]

# --------------------------------------------------------------------------- NVIDIA, bare Linux
BARE = p25.BARE
PROC_DRIVER_565 = rec(DATA / "proc-driver-version/01-open-kernel-module-565.txt")


def bare(groups_video_alice: bool = True, nodes_mode: str | None = None) -> dict:
    """Bare Linux with the 565 open kernel module loaded (recorded /proc/driver/nvidia/version) and,
    where asked, /dev/nvidia* with a mode and alice's membership of video."""
    files = dict(BARE["files"])
    files["proc/driver/nvidia/version"] = PROC_DRIVER_565
    files["etc/passwd"] = ("root:x:0:0:root:/root:/bin/bash\n"
                           "alice:x:1000:1000:Alice:/home/alice:/bin/bash\n")
    files["etc/group"] = ("root:x:0:\nvideo:x:{gid}:"  # {gid}: the group the nodes get here
                          + ("alice" if groups_video_alice else "") + "\nalice:x:1000:\n")
    machine: dict = {"files": files}
    if nodes_mode:
        machine["nodes"] = {"dev/nvidia0": nodes_mode, "dev/nvidiactl": nodes_mode,
                            "dev/nvidia-uvm": nodes_mode}
    return machine


NVIDIA = [
    dict(name="2x-b200-610-torch290-cu130-healthy", healthy=True, sources=("DRV", "ARCH"),
         machine=BARE, tools={"nvidia-smi": {"": rec(DATA / "nvidia-smi/16-2x-b200-610-kmd-umd-header.txt")}},
         dists=[pm.torch("2.9.0+cu130", "cp312-cp312-linux_x86_64", cuda="13.0")]),
    dict(name="l40s-595-torch280-cu128-healthy", healthy=True, sources=("DRV", "ARCH"),
         machine=BARE, tools={"nvidia-smi": {"": rec(DATA / "nvidia-smi/04-l40s-595-load.txt")}},
         dists=[pm.torch("2.8.0+cu128", "cp312-cp312-linux_x86_64", cuda="12.8")]),
    dict(name="rtx4090-580-torch290-cu130-healthy", healthy=True, sources=("DRV", "ARCH"),
         machine=BARE, tools={"nvidia-smi": {"": rec(DATA / "nvidia-smi/15-rtx4090-580-cuda13.txt")}},
         dists=[pm.torch("2.9.0+cu130", "cp312-cp312-linux_x86_64", cuda="13.0")]),
    dict(name="rtx4090-580-cuda-visible-devices-minus-1", healthy=False, sources=("CVD",),
         ids={"cuda-visible-devices-hides-all"}, severity="error",
         note="CUDA_VISIBLE_DEVICES=-1 left in the shell profile (a TensorFlow 'disable the GPU' idiom)",
         machine=BARE, env={"CUDA_VISIBLE_DEVICES": "-1"},
         tools={"nvidia-smi": {"": rec(DATA / "nvidia-smi/15-rtx4090-580-cuda13.txt")}},
         dists=[pm.torch("2.9.0+cu130", "cp312-cp312-linux_x86_64", cuda="13.0")]),
    dict(name="rtx2070-440-torch241-cu118", healthy=False, sources=("CU118",),
         ids={"driver-too-old-for-framework-cuda"}, severity="error",
         note="driver 440.100 (CUDA 10.2) under a cu118 wheel",
         machine=BARE, tools={"nvidia-smi": {"": rec(DATA / "nvidia-smi/06-rtx2070-440-old-process-header.txt")}},
         dists=[pm.torch("2.4.1+cu118", "cp311-cp311-linux_x86_64", cuda="11.8")]),
    dict(name="gpu-fallen-off-the-bus-565", healthy=False, sources=("LOST",),
         ids={"probe-failure-names-known-state"}, severity="error",
         note="the 565 module loaded, nvidia-smi: 'GPU is lost' (exit 15)",
         machine=bare(), tools={"nvidia-smi": {"*": (rec(DATA / "nvidia-smi/22-gpu-is-lost.txt"), 15)}},
         dists=[pm.torch("2.5.1+cu124", "cp311-cp311-linux_x86_64", cuda="12.4")]),
    dict(name="nvml-insufficient-permissions-not-in-video", healthy=False, sources=("NVPERM",),
         ids={"probe-failure-names-known-state"}, severity="error",
         note="/dev/nvidia* 0660 (NVreg_DeviceFileMode=0660, group video), alice not in video; "
              "nvidia-smi: 'Insufficient Permissions' (exit 4)",
         machine=bare(groups_video_alice=False, nodes_mode="0660"),
         tools={"nvidia-smi": {"*": (rec(DATA / "nvidia-smi/26-nvml-insufficient-permissions.txt"), 4)}},
         dists=[pm.torch("2.5.1+cu124", "cp311-cp311-linux_x86_64", cuda="12.4")]),
]

# platform -> (builder, machines)
PLATFORMS: dict[str, tuple[str, list[dict]]] = {
    "rocm": ("rocm", ROCM), "apple": ("apple", APPLE), "jetson": ("jetson", JETSON),
    "wsl": ("platform", WSL), "container": ("platform", CONTAINERS), "intel": ("platform", INTEL),
    "nvidia": ("platform", NVIDIA),
}

ROWS: list[tuple[str, dict]] = [(p, sc) for p, (_, scs) in PLATFORMS.items() for sc in scs]


def build(platform: str, sc: dict, box: Path) -> tuple[Path, Path, Path, dict[str, str]]:
    """(site-packages, bin, root, extra environment) of one machine, by plat25's builders."""
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
