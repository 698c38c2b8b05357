"""Held-out batch plat30: simulated machines over AMD ROCm (bare and in containers), Apple
silicon, Jetson, WSL 2, NVIDIA containers, Intel XPU and a few bare-Linux NVIDIA boxes for
non-regression, run as a user runs them: ``check --static --root DIR --format json --expect gpu``
(tests/heldout/test_plat30_matrix.py).

Every machine below was written with its verdict (healthy, or the check ids that name its
problem and the severity they must reach) from the platform's documentation and the threads
named, BEFORE envdoctor was run on any of them; envdoctor had not been run on them when this file
was committed (only the structure tests were). None of these machines is in the earlier sets
(machines, machines2, plat24..plat29, platform_machines, rocm/apple/wsl machines,
tests/probes/jetson_machines, tests/fixtures/machines): new recordings (an RTX 5090 beside an RTX
4090 on 580.82.09, two RTX 5090 on 610.57.04 with the KMD/UMD header) or new combinations of
recorded GPUs, OS releases, drivers and wheels (macOS 26, JetPack 6.2.1 on an AGX Orin, ROCm 7.0.2
containers, ROCR_VISIBLE_DEVICES, ...). The builders of the earlier batches lay the machines out
(this file only describes them, plus a helper for ROCm containers with a chosen /dev/shm and
cgroup memory limit). New recordings are in tests/heldout/platform_tools30/<tool>/*.txt with their
source on line 1; system files the builders write (group files, sysfs entries, version files,
dpkg answers, version plists) are composed around the documentation named, as in every batch.

A label whose check does not exist (no rules/checks/** id for the problem) would carry the id one
would expect and ``unlabelled_check=True``; no row of this batch needs one.

Sources for the verdicts (besides each recording's thread; SR, CM, ISO, PERM, PT, MPS14, MPS,
JP, PTJ, AIL, SBSA, WSL, CTK, SHM, CG, DRV, ARCH as in plat25_machines; XPU, JM, RDNA4 as in
plat26_machines; RDOCK, CPUW, XPUW, XPERM, BMG, NVMAP, NOMPS, SM120, ORIN13, CU130, CVDX as in
plat27_machines; G1031, BW as in plat28_machines; N3276, MAX, B60 as in plat29_machines):
 MAC26 macOS 26 (Tahoe) runs on every Apple-silicon Mac (M1 and later) and is above every MPS
       floor (MPS, MPS14); the version plists' build numbers (26.0 25A354, 26.0.1 25A362) are
       composed, macOS 26.0's arm64 platform string is recorded in
       tests/heldout/platform_tools/macos/03-macos-26.0-arm64-platform.txt
 B5090 an RTX 5090 (sm_120) and an RTX 4090 (sm_89) on one Fedora box, driver 580.82.09 (CUDA
       13.0; recorded nvidia-smi, https://github.com/aikitoria/open-gpu-kernel-modules/pull/5):
       every GPU of the box must be in the wheel's arch list, and the cu128/cu129/cu130 builds
       carry both sm_89 and sm_120 while cu124/cu126 stop at sm_90 (SM120, ARCH)
 D5090 two RTX 5090 on driver 610.57.04 (nvidia-smi's "KMD Version / CUDA UMD Version" header,
       CUDA 13.3; recorded, https://github.com/noonghunna/club-3090/issues/1261, a box running
       sglang on both cards): a driver >= 580 runs cu128 .. cu130 wheels (DRV, CU130)
 ROCRV ROCR_VISIBLE_DEVICES is the ROCm runtime's device list, applied to every application of
       the user-mode stack (ISO, https://rocm.docs.amd.com/en/latest/conceptual/gpu-isolation.html);
       ROCr filters GPUs whenever the variable is SET (ROCm/ROCR-Runtime src/core/util/flag.h:
       visible_gpus_ = GetEnvVar("ROCR_VISIBLE_DEVICES"); filter_visible_gpus_ =
       IsEnvVarSet("ROCR_VISIBLE_DEVICES")), so an empty value keeps no GPU at all
 JP46W NVIDIA's torch 1.10.0 wheel for JetPack 4.6 (Python 3.6, CUDA 10.2) is the documented
       PyTorch for every JetPack 4.6.x (L4T R32.7.x, CUDA 10.2:
       https://forums.developer.nvidia.com/t/pytorch-for-jetson/72048 ; N3276)
 ROCOLD a +rocmX.Y wheel carries its own ROCm user space, and AMD supports user space within
       +/- 2 releases of the kernel driver ("ROCm provides forward and backward compatibility
       between the AMD Kernel-mode GPU Driver (KMD) and its user space software for +/- 2
       releases": https://rocm.docs.amd.com/projects/install-on-linux/en/docs-6.3.0/reference/user-kernel-space-compat-matrix.html ,
       KMD 6.3.x tested with user space 6.1.x .. 6.3.x): a ROCm 6.4 wheel on a ROCm 7.0.2 install is
       one release older, a supported pairing; a 7.0 wheel on 6.1.3 is four releases newer, outside
       every row of the matrix (CM)
 WHL   the wheel variants per release (https://pytorch.org/get-started/previous-versions/): 2.8.0
       cu126/cu128/cu129, ROCm 6.3/6.4; 2.9.x cu126/cu128/cu130, ROCm 6.4 (no ROCm 7 wheel);
       2.10.0 cu126/cu128/cu130, ROCm 7.0/7.1; PyPI's own Linux x86_64 torch 2.9.0 / 2.10.0 is the
       CUDA 12.8 build (https://pytorch.org/get-started/locally/)
"""
from __future__ import annotations

from pathlib import Path

from tests.heldout import apple_machines as am
from tests.heldout import plat25_machines as p25
from tests.heldout import plat27_machines as p27
from tests.heldout import platform_machines as pm
from tests.heldout import rocm_machines as rm
from tests.probes import jetson_machines as jm

HERE = Path(__file__).resolve().parent
TOOLS30 = HERE / "platform_tools30"
TOOLS29 = HERE / "platform_tools29"
TOOLS28 = HERE / "platform_tools28"
TOOLS27 = HERE / "platform_tools27"
TOOLS26 = HERE / "platform_tools26"
TOOLS25 = HERE / "platform_tools25"
PLATFORM_TOOLS = HERE / "platform_tools"
DATA = HERE.parents[0] / "data" / "tools"
rec = p25.rec
CP312 = "cp312-cp312-linux_x86_64"
CP311 = "cp311-cp311-linux_x86_64"


def t30(rel: str) -> str:
    return rec(TOOLS30 / rel)


# --------------------------------------------------------------------------- ROCm
TORCH_2100_ROCM70 = p25.rocm_torch("2.10.0+rocm7.0", "7.0.51831-a3e329ad8")   # hip string as plat25/27 (composed)
TORCH_271_ROCM63 = p25.TORCH_271_ROCM63
TORCH_280_ROCM64 = rm.TORCH_280_ROCM64
RX9070XT = {"rocminfo": {"": rec(TOOLS26 / "rocminfo/01-rx9070xt-gfx1201-agent.txt")}}
MI300X = {"rocminfo": {"": rec(TOOLS25 / "rocminfo/03-mi300x-gfx942-agent.txt")}}
RX7900XTX = {"rocminfo": {"": rec(TOOLS25 / "rocminfo/05-rx7900xtx-gfx1100-agent.txt")}}
RX6700XT = {"rocminfo": {"": rec(TOOLS29 / "rocminfo/02-rx6700xt-gfx1031-agent.txt")}}

ROCM = [
    dict(name="rx9070xt-gfx1201-rocminfo-rocm702-torch2100-rocm70-healthy", healthy=True,
         sources=("RDNA4", "SR", "CM", "WHL"),
         note="an RX 9070 XT (gfx1201; recorded rocminfo agent of platform_tools26) on ROCm 7.0.2 with "
              "torch 2.10.0+rocm7.0",
         tools=RX9070XT, system=rm.system(rocm="7.0.2-56", pci=1, topology=(120001,)),
         dists=[TORCH_2100_ROCM70]),
    dict(name="mi300x-rocminfo-rocm641-torch280-rocm64-healthy", healthy=True, sources=("SR", "CM"),
         note="an MI300X (gfx942; recorded rocminfo agent of platform_tools25) on ROCm 6.4.1 with "
              "torch 2.8.0+rocm6.4",
         tools=MI300X, system=rm.system(rocm="6.4.1-83", pci=1, topology=(90402,)),
         dists=[TORCH_280_ROCM64]),
    dict(name="rx7900xtx-rocminfo-rocm633-torch271-rocm63-healthy", healthy=True, sources=("SR", "CM"),
         note="an RX 7900 XTX (gfx1100; recorded rocminfo agent of platform_tools25) on ROCm 6.3.3 with "
              "torch 2.7.1+rocm6.3",
         tools=RX7900XTX, system=rm.system(rocm="6.3.3-74", pci=1, topology=(110000,)),
         dists=[TORCH_271_ROCM63]),
    dict(name="rx6700xt-gfx1031-override-10.3.0-rocm702-torch2100-rocm70-healthy", healthy=True,
         sources=("G1031", "WHL"),
         note="an RX 6700 XT (rocminfo naming gfx1031, recorded in platform_tools29) on ROCm 7.0.2 with "
              "torch 2.10.0+rocm7.0 and HSA_OVERRIDE_GFX_VERSION=10.3.0 exported",
         env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}, tools=RX6700XT,
         system=rm.system(rocm="7.0.2-56", pci=1, topology=(100301,)), dists=[TORCH_2100_ROCM70]),
    dict(name="mi250x-rocm702-torch280-rocm64-older-wheel-healthy", healthy=True,
         sources=("ROCOLD", "SR", "CM"),
         note="an MI250X (two gfx90a GCDs in the KFD topology) upgraded to ROCm 7.0.2, still running "
              "torch 2.8.0+rocm6.4 (a wheel one release older than the installed ROCm); no GPU tool on "
              "PATH (platform_tools25's MI250X rocminfo names a ROCm 6.3 kernel module, so it is not used)",
         system=rm.system(rocm="7.0.2-56", pci=1, topology=(90010, 90010)),
         dists=[TORCH_280_ROCM64]),
    dict(name="mi300x-rocminfo-rocm641-user-outside-render-and-video", healthy=False, sources=("PERM",),
         ids={"rocm-device-access"}, severity="error",
         note="the MI300X box with /dev/kfd and renderD128 0660 root:render and alice in neither render "
              "nor video; torch 2.8.0+rocm6.4",
         tools=MI300X, system=rm.system(rocm="6.4.1-83", kfd="0660", render="0660", alice_groups=(), pci=1,
                                       topology=(90402,)),
         dists=[TORCH_280_ROCM64]),
    dict(name="rx7900xtx-rocminfo-rocm613-torch2100-rocm70", healthy=False, sources=("CM", "ROCOLD"),
         ids={"rocm-torch-newer-than-installed"}, severity="error",
         note="torch 2.10.0+rocm7.0 on the RX 7900 XTX whose installed ROCm (and its amdgpu-dkms) is "
              "6.1.3: the wheel's user space is four releases newer (6.2, 6.3, 6.4, 7.0)",
         tools=RX7900XTX, system=rm.system(rocm="6.1.3-122", pci=1, topology=(110000,)),
         dists=[TORCH_2100_ROCM70]),
    dict(name="2x-mi300x-rocm641-rocr-visible-devices-empty", healthy=False, sources=("ROCRV", "ISO"),
         ids={"hip-visible-devices-hides-all"}, severity="error",
         note="ROCR_VISIBLE_DEVICES= (empty) exported by a job script on a two-MI300X box with ROCm 6.4.1 "
              "and torch 2.8.0+rocm6.4",
         env={"ROCR_VISIBLE_DEVICES": ""},
         system=rm.system(rocm="6.4.1-83", pci=2, topology=(90402, 90402)), dists=[TORCH_280_ROCM64]),
    dict(name="mi300x-rocminfo-rocm702-torch290-cpu-wheel", healthy=False, sources=("CPUW", "PT"),
         ids={"gpu-expected-but-cpu-only-builds"}, severity="error",
         note="torch 2.9.0+cpu (the CPU index) on the MI300X box with ROCm 7.0.2, under --expect gpu",
         tools=MI300X, system=rm.system(rocm="7.0.2-56", pci=1, topology=(90402,)),
         dists=[rm.torch("2.9.0+cpu")]),
]

# --------------------------------------------------------------------------- ROCm in containers
SHM_8G = 8388608
SHM_HOST_64G = 65945616
TORCH_2100_ROCM70_PM = pm.torch("2.10.0+rocm7.0", CP312, hip="7.0.51831-a3e329ad8")


def rocm_container(shm_kib: int, memory_max: str = "max") -> dict:
    """`docker run --device=/dev/kfd --device=/dev/dri --group-add render` of a rocm/pytorch
    image (ROCm 7.0.2 inside) on an MI300X host (the host's amdgpu module, PCI entry and KFD
    topology), with the given /dev/shm and cgroup memory.max; composed around RDOCK as plat29's."""
    machine = p25.container(shm_kib, gpus=False, memory_max=memory_max)
    amd = pm.amd("7.0.2-56", 1, (90402,))
    machine["files"].update(amd["files"])
    machine["nodes"] = amd["nodes"]
    return machine


ROCM_CONTAINERS = [
    dict(name="rocm-container-mi300x-rocm702-ipc-host-torch2100-rocm70-healthy", healthy=True,
         sources=("RDOCK", "CM", "SHM", "WHL"),
         note="rocm/pytorch (ROCm 7.0.2) with --device=/dev/kfd --device=/dev/dri --group-add render "
              "--ipc=host (the host's 64 GiB /dev/shm) and torch 2.10.0+rocm7.0",
         machine=rocm_container(SHM_HOST_64G), dists=[TORCH_2100_ROCM70_PM]),
    dict(name="rocm-container-mi300x-rocm702-cgroup-memory-2g", healthy=False, sources=("CG", "RDOCK"),
         ids={"container-memory-limit-low"}, severity="warning",
         note="the same container started with --memory=2g (cgroup v2 memory.max 2 GiB), 8 GiB /dev/shm",
         machine=rocm_container(SHM_8G, memory_max="2147483648"), dists=[TORCH_2100_ROCM70_PM]),
    dict(name="rocm-container-mi300x-rocm702-default-64m-shm-torch2100", healthy=False,
         sources=("SHM", "RDOCK"), ids={"small-dev-shm-in-container"}, severity="error",
         note="the ROCm 7.0.2 container started without --shm-size / --ipc=host (Docker's 64 MiB)",
         machine=rocm_container(65536), dists=[TORCH_2100_ROCM70_PM]),
]

# --------------------------------------------------------------------------- Apple
APPLE = [
    dict(name="m3max-macos26.0-torch291-healthy", healthy=True, sources=("MAC26", "MPS", "MPS14"),
         note="torch 2.9.1 (arm64, MPS built) on an M3 Max (recorded sysctl) with macOS 26.0 (25A354; "
              "version plist composed)",
         system=am.mac("26.0", "25A354", "sysctl/05-m3max-native.txt"),
         dists=[am.numpy("2.3.4"), am.torch("2.9.1")]),
    dict(name="m1-macos26.0.1-torch290-healthy", healthy=True, sources=("MAC26", "MPS", "MPS14"),
         note="torch 2.9.0 on an M1 (recorded sysctl) with macOS 26.0.1 (25A362; plist composed)",
         system=am.mac("26.0.1", "25A362", "sysctl/01-m1-native.txt"),
         dists=[am.numpy("2.3.4"), am.torch("2.9.0")]),
    dict(name="m1pro-macos15.1.1-torch290-healthy", healthy=True, sources=("MPS", "MPS14"),
         note="torch 2.9.0 on an M1 Pro (recorded sysctl) with macOS 15.1.1 (recorded sw_vers)",
         system=am.mac("15.1.1", "24B91", "sysctl/02-m1pro-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[am.numpy(), am.torch("2.9.0")]),
    dict(name="m2max-macos15.1.1-jax-metal-011-jax050-healthy", healthy=True, sources=("JM",),
         note="jax-metal 0.1.1 with jax/jaxlib 0.5.0 (the top of 0.4.34 .. 0.5.0) on macOS 15.1.1",
         system=am.mac("15.1.1", "24B91", "sysctl/03-m2max-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[am.numpy(), am.jax("0.5.0"), am.jaxlib("0.5.0"), am.jax_metal("0.1.1")]),
    dict(name="m1-macos12.7.6-torch291-mps-floor-14", healthy=False, sources=("MPS14",),
         ids={"apple-macos-too-old-for-mps"}, severity="error",
         note="torch 2.9.1 on an M1 still on macOS 12.7.6 (recorded sw_vers): MPS needs macOS 14 from 2.9",
         system=am.mac("12.7.6", "21H1320", "sysctl/01-m1-native.txt", "sw_vers/01-12.7.6-m1.txt"),
         dists=[am.numpy(), am.torch("2.9.1")]),
    dict(name="m1pro-macos14.2.1-torch291-built-without-mps", healthy=False, sources=("NOMPS",),
         ids={"apple-torch-without-mps"}, severity="error",
         note="a torch 2.9.1 built from source without MPS (no Metal in libtorch_cpu) on an M1 Pro, "
              "macOS 14.2.1 (recorded sw_vers)",
         system=am.mac("14.2.1", "23C71", "sysctl/02-m1pro-native.txt", "sw_vers/02-14.2.1.txt"),
         dists=[am.numpy(), am.torch("2.9.1", mps=False)]),
]

# --------------------------------------------------------------------------- Jetson
R32_7_6 = rec(TOOLS29 / "jetson/01-nv-tegra-release-r32.7.6-nano.txt")
JP466 = dict(l4t="32.7.6-20241104234540", jetpack=None, cuda="10.2.300", cudnn="8.2.1", apt="r32.7")
JP621 = p25.JP621

JETSON = [
    dict(name="agx-orin-jp621-ai-lab-torch-2.8.0-healthy", healthy=True, sources=("AIL", "JP"),
         note="an AGX Orin on L4T R36.4.7 / JetPack 6.2.1 with the Jetson AI Lab jp6/cu126 torch 2.8.0",
         system=jm.board(jm.R36_4_7, jm.AGX_ORIN, **JP621), dists=jm.AIL_JP6),
    dict(name="orin-nx-jp621-nv-torch-2.5.0-nv24.08-healthy", healthy=True, sources=("PTJ", "JP"),
         note="an Orin NX on JetPack 6.2.1 with NVIDIA's JetPack 6 wheel 2.5.0a0+872d972e41.nv24.08",
         system=jm.board(jm.R36_4_7, p25.ORIN_NX, **JP621), dists=jm.NV_JP61),
    dict(name="nano-r32.7.6-nv-torch-1.10.0-jp46-healthy", healthy=True, sources=("JP46W", "N3276", "PTJ"),
         note="the Jetson Nano on L4T R32.7.6 (recorded nv_tegra_release of platform_tools29) with "
              "NVIDIA's torch 1.10.0 wheel for JetPack 4.6 (CUDA 10.2)",
         system=jm.board(R32_7_6, jm.NANO, **JP466), dists=jm.NV_JP46),
    dict(name="agx-orin-jp621-pypi-cpu-torch-2.5.1", healthy=False, sources=("SBSA", "PTJ"),
         ids={"jetson-cpu-only-torch"}, severity="error",
         note="`pip install torch==2.5.1` from PyPI (aarch64, CPU only) on an AGX Orin with JetPack 6.2.1",
         system=jm.board(jm.R36_4_7, jm.AGX_ORIN, **JP621), dists=jm.PYPI_CPU),
    dict(name="agx-orin-jp621-pytorch-cu130-aarch64", healthy=False, sources=("ORIN13", "JP"),
         ids={"jetson-foreign-cuda-torch"}, severity="error",
         note="download.pytorch.org's aarch64 torch 2.9.0+cu130 (an SBSA build, CUDA 13) on an AGX Orin "
              "with JetPack 6.2.1 (CUDA 12.6)",
         system=jm.board(jm.R36_4_7, jm.AGX_ORIN, **JP621), dists=jm.PT_CU130),
    dict(name="orin-nx-jp621-ai-lab-user-not-in-video", healthy=False, sources=("NVMAP",),
         ids={"jetson-device-access"}, severity="error",
         note="an Orin NX on JetPack 6.2.1 with the Jetson AI Lab torch 2.8.0; /dev/nvmap 0660 video and "
              "alice not in video",
         system=jm.board(jm.R36_4_7, p25.ORIN_NX, **JP621, alice_video=False), dists=jm.AIL_JP6),
]

# --------------------------------------------------------------------------- WSL 2
SMI_WSL_531 = rec(DATA / "nvidia-smi/08-rtx3070-wsl-530-driver-531.txt")
SMI_WSL_2060 = rec(PLATFORM_TOOLS / "nvidia-smi/01-wsl2-rtx2060-laptop-535-driver-537.txt")
SMI_WSL_5090 = p27.SMI_WSL_5090
WSL_LDCONFIG = p27.WSL_LDCONFIG


def wsl_tool(text: str) -> dict:
    return {"nvidia-smi": {"": text}}


WSL = [
    dict(name="wsl2-rtx5090-572.70-torch280-cu128-healthy", healthy=True, sources=("WSL", "SM120", "DRV"),
         note="the RTX 5090 under WSL 2 on the 572.70 Windows driver (CUDA 12.8; recorded nvidia-smi of "
              "platform_tools27) with torch 2.8.0+cu128",
         machine=pm.wsl(windows_libs=True, linux_driver=False), tools=wsl_tool(SMI_WSL_5090),
         ldconfig=WSL_LDCONFIG, dists=[pm.torch("2.8.0+cu128", CP312, cuda="12.8")]),
    dict(name="wsl2-rtx2060-laptop-537-torch280-cu126-healthy", healthy=True, sources=("WSL", "DRV", "ARCH"),
         note="the RTX 2060 laptop (sm_75) under WSL 2 on the 537 Windows driver (CUDA 12.2; recorded "
              "nvidia-smi of platform_tools) with torch 2.8.0+cu126 (minor-version compatibility)",
         machine=pm.wsl(windows_libs=True, linux_driver=False), tools=wsl_tool(SMI_WSL_2060),
         ldconfig=WSL_LDCONFIG, dists=[pm.torch("2.8.0+cu126", CP312, cuda="12.6")]),
    dict(name="wsl2-rtx3070-531.68-torch271-cu118-healthy", healthy=True, sources=("WSL", "DRV"),
         note="the RTX 3070 under WSL 2 on the 531.68 Windows driver (CUDA 12.1; recorded nvidia-smi) "
              "with torch 2.7.1+cu118",
         machine=pm.wsl(windows_libs=True, linux_driver=False), tools=wsl_tool(SMI_WSL_531),
         ldconfig=WSL_LDCONFIG, dists=[pm.torch("2.7.1+cu118", CP311, cuda="11.8")]),
    dict(name="wsl2-rtx2060-laptop-537-torch290-cu130", healthy=False, sources=("CU130", "DRV"),
         ids={"driver-too-old-for-framework-cuda"}, severity="error",
         note="torch 2.9.0+cu130 (needs a driver >= 580) on the RTX 2060 WSL 2 whose Windows driver is 537 "
              "(CUDA 12.2)",
         machine=pm.wsl(windows_libs=True, linux_driver=False), tools=wsl_tool(SMI_WSL_2060),
         ldconfig=WSL_LDCONFIG, dists=[pm.torch("2.9.0+cu130", CP312, cuda="13.0")]),
    dict(name="wsl2-rtx5090-572.70-torch260-cu126", healthy=False, sources=("SM120", "BW"),
         ids={"gpu-arch-missing-from-torch-wheel"}, severity="error",
         note="torch 2.6.0+cu126 (sm_50 .. sm_90) on the RTX 5090 (sm_120) under WSL 2",
         machine=pm.wsl(windows_libs=True, linux_driver=False), tools=wsl_tool(SMI_WSL_5090),
         ldconfig=WSL_LDCONFIG, dists=[pm.torch("2.6.0+cu126", CP312, cuda="12.6")]),
    dict(name="wsl2-rtx3070-531.68-linux-driver-550-installed-inside", healthy=False, sources=("WSL",),
         ids={"linux-driver-inside-wsl"}, severity="error",
         note="the RTX 3070 WSL 2 (recorded nvidia-smi) after `apt install nvidia-driver-550` inside the "
              "distribution (file names composed); torch 2.5.1+cu121",
         machine=p25.wsl2("550.144.03"), tools=wsl_tool(SMI_WSL_531), ldconfig=WSL_LDCONFIG,
         dists=[pm.torch("2.5.1+cu121", CP311, cuda="12.1")]),
]

# --------------------------------------------------------------------------- NVIDIA containers
SHM_16G = 16777216
SMI_5090_4090 = TOOLS30 / "nvidia-smi/01-rtx5090-plus-rtx4090-580.82.09.txt"
SMI_2X_5090 = TOOLS30 / "nvidia-smi/02-2x-rtx5090-610.57.04-kmd-umd.txt"
SMI_H200 = DATA / "nvidia-smi/19-h200-570.86.15.txt"


def smi(path: Path) -> dict:
    return {"nvidia-smi": {"": rec(path)}}


CONTAINERS = [
    dict(name="container-2x-rtx5090-610-ipc-host-torch290-cu130-healthy", healthy=True,
         sources=("D5090", "CTK", "SHM", "CU130"),
         note="a container with --gpus all --ipc=host on the two-RTX 5090 box (610.57.04, recorded "
              "nvidia-smi) with torch 2.9.0+cu130",
         machine=p25.container(SHM_HOST_64G, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools=smi(SMI_2X_5090), dists=[pm.torch("2.9.0+cu130", CP312, cuda="13.0")]),
    dict(name="container-rtx5090-plus-4090-580-shm-16g-torch280-cu128-healthy", healthy=True,
         sources=("B5090", "CTK", "SHM"),
         note="a container with --gpus all --shm-size 16g on the RTX 5090 + RTX 4090 box (580.82.09, "
              "recorded nvidia-smi) with torch 2.8.0+cu128",
         machine=p25.container(SHM_16G, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools=smi(SMI_5090_4090), dists=[pm.torch("2.8.0+cu128", CP312, cuda="12.8")]),
    dict(name="container-h200-570-ipc-host-torch280-cu129-minor-compat-healthy", healthy=True,
         sources=("CTK", "SHM", "DRV", "WHL"),
         note="an H200 container (570.86.15 = CUDA 12.8, recorded nvidia-smi) with --ipc=host and "
              "torch 2.8.0+cu129: CUDA 12.x minor-version compatibility (driver >= 525.60.13)",
         machine=p25.container(SHM_HOST_64G, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools=smi(SMI_H200), dists=[pm.torch("2.8.0+cu129", CP312, cuda="12.9")]),
    dict(name="container-2x-rtx5090-610-torch260-cu124", healthy=False, sources=("D5090", "SM120", "ARCH"),
         ids={"gpu-arch-missing-from-torch-wheel"}, severity="error",
         note="an older training image with torch 2.6.0+cu124 (sm_50 .. sm_90) started with --gpus all "
              "--ipc=host on the two-RTX 5090 box",
         machine=p25.container(SHM_HOST_64G, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools=smi(SMI_2X_5090), dists=[pm.torch("2.6.0+cu124", CP311, cuda="12.4")]),
    dict(name="container-2x-rtx5090-610-cuda-visible-devices-2-3", healthy=False, sources=("CVDX", "D5090"),
         ids={"cuda-visible-devices-names-missing-gpus", "cuda-visible-devices-hides-all"}, severity="error",
         note="CUDA_VISIBLE_DEVICES=2,3 from a four-GPU node's job script, in a --gpus all container on "
              "the two-RTX 5090 box (the container numbers its GPUs 0 and 1): index 2 is invalid, so it "
              "and all after it are dropped; none visible",
         machine=p25.container(SHM_HOST_64G, gpus=True),
         env={"NVIDIA_VISIBLE_DEVICES": "all", "CUDA_VISIBLE_DEVICES": "2,3"},
         tools=smi(SMI_2X_5090), dists=[pm.torch("2.9.0+cu130", CP312, cuda="13.0")]),
]

# --------------------------------------------------------------------------- Intel XPU
INTEL = [
    dict(name="arc-b580-xe-torch290-xpu-healthy", healthy=True, sources=("BMG", "XPU"),
         note="an Arc B580 (8086:e20b) under xe with torch 2.9.0+xpu",
         machine=p27.intel_card("e20b", "xe"), dists=[pm.torch("2.9.0+xpu", CP312)]),
    dict(name="max1100-i915-torch290-xpu-healthy", healthy=True, sources=("MAX", "XPU"),
         note="a Data Center GPU Max 1100 (8086:0bda) under i915 with torch 2.9.0+xpu",
         machine=p27.intel_card("0bda", "i915"), dists=[pm.torch("2.9.0+xpu", CP312)]),
    dict(name="arc-pro-b60-xe-pypi-cuda-torch290", healthy=False, sources=("B60", "XPUW", "WHL"),
         ids={"torch-cuda-wheel-on-intel-gpu"}, severity="error",
         note="`pip install torch` from PyPI: 2.9.0, its Linux x86_64 wheel a CUDA 12.8 build, on an Arc Pro "
              "B60 (8086:e211, xe)",
         machine=p27.intel_card("e211", "xe"), dists=[pm.torch("2.9.0", CP312, cuda="12.8")]),
    dict(name="max1100-i915-user-not-in-render", healthy=False, sources=("XPERM", "MAX"),
         ids={"intel-gpu-device-access"}, severity="error",
         note="the Max 1100 box with torch 2.9.0+xpu; renderD128 0660 root:render and alice not in render",
         machine=p27.intel_card("0bda", "i915", alice_in_render=False), dists=[pm.torch("2.9.0+xpu", CP312)]),
]

# --------------------------------------------------------------------------- NVIDIA, bare Linux
NVIDIA = [
    dict(name="rtx5090-plus-4090-580-torch290-cu128-healthy", healthy=True, sources=("B5090", "DRV"),
         note="the Fedora box with an RTX 5090 and an RTX 4090 on 580.82.09 (recorded nvidia-smi) with "
              "torch 2.9.0+cu128",
         machine=p25.BARE, tools=smi(SMI_5090_4090), dists=[pm.torch("2.9.0+cu128", CP312, cuda="12.8")]),
    dict(name="rtx5090-plus-4090-580-torch260-cu124", healthy=False, sources=("B5090", "SM120"),
         ids={"gpu-arch-missing-from-torch-wheel"}, severity="error",
         note="torch 2.6.0+cu124 on the same box: the RTX 4090 (sm_89) is in its arch list, the RTX 5090 "
              "(sm_120) is not",
         machine=p25.BARE, tools=smi(SMI_5090_4090), dists=[pm.torch("2.6.0+cu124", CP311, cuda="12.4")]),
    dict(name="2x-rtx5090-610-torch271-cu126", healthy=False, sources=("D5090", "SM120", "BW"),
         ids={"gpu-arch-missing-from-torch-wheel"}, severity="error",
         note="torch 2.7.1+cu126 (sm_50 .. sm_90) on the two-RTX 5090 box (610.57.04, recorded nvidia-smi)",
         machine=p25.BARE, tools=smi(SMI_2X_5090), dists=[pm.torch("2.7.1+cu126", CP312, cuda="12.6")]),
]

# platform -> (builder, machines)
PLATFORMS: dict[str, tuple[str, list[dict]]] = {
    "rocm": ("rocm", ROCM), "rocm-container": ("platform", ROCM_CONTAINERS), "apple": ("apple", APPLE),
    "jetson": ("jetson", JETSON), "wsl": ("platform", WSL), "container": ("platform", CONTAINERS),
    "intel": ("platform", INTEL), "nvidia": ("platform", NVIDIA),
}

ROWS: list[tuple[str, dict]] = [(p, sc) for p, (_, scs) in PLATFORMS.items() for sc in scs]


def build(platform: str, sc: dict, box: Path) -> tuple[Path, Path, Path, dict[str, str]]:
    """(site-packages, bin, root, extra environment) of one machine, by the earlier batches' builders."""
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
