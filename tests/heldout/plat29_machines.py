"""Held-out batch plat29: 51 simulated machines over AMD ROCm (bare and in containers), Apple
silicon, Jetson, WSL 2, NVIDIA containers, Intel XPU and a few bare-Linux NVIDIA boxes for
non-regression, run as a user runs them: ``check --static --root DIR --format json --expect gpu``
(tests/heldout/test_plat29_matrix.py).

Every machine below was written with its verdict (healthy, or the check ids that name its
problem and the severity they must reach) from the platform's documentation and the threads
named, BEFORE envdoctor was run on any of them; envdoctor had not been run on them when this file
was committed (only the structure tests were). None of these machines is in the earlier sets
(machines, machines2, plat24..plat28, platform_machines, rocm/apple/wsl machines,
tests/probes/jetson_machines, tests/fixtures/machines): new GPUs or recordings (Radeon 890M
gfx1150, RX 6700 XT gfx1031 as rocminfo names it, Data Center GPU Flex 170 and Arc Pro B60 as
xpu-smi names them, Data Center GPU Max 1100, a Jetson Nano on L4T R32.7.6) or new combinations
of recorded ones. The builders of the earlier batches lay the machines out (this file only
describes them, plus a helper for ROCm containers with a chosen /dev/shm). New recordings are in
tests/heldout/platform_tools29/<tool>/*.txt with their source on line 1; system files the
builders write (group files, sysfs entries, version files, dpkg answers) are composed around the
documentation named, as in every batch, and the notes say where a value is combined.

A label whose check does not exist (no rules/checks/** id for the problem) would carry the id one
would expect and ``unlabelled_check=True``; no row of this batch needs one.

Sources for the verdicts (besides each recording's thread; SR, CM, ISO, PERM, PT, MPS14, TFM, ROS,
MPS, JP, PTJ, AIL, SBSA, WSL, CTK, SHM, CG, DRV, ARCH as in plat25_machines; G1101, NOOP, XPU, JM,
CDI, CVD, NXSBSA as in plat26_machines; KMOD, RDOCK, CPUW, XPUW, XPERM, BMG, NVMAP, LIBS as in
plat27_machines; G1031, TFB as in plat28_machines):
 G1150 Radeon 890M (Strix Point, gfx1150): rocminfo names it gfx1150 on ROCm 7.x
       (https://github.com/ROCm/legacy-rocm-build/issues/6191, its queue hang resolved there by
       reinstalling amdgpu-dkms 30.20.1; https://github.com/ROCm/legacy-rocm-build/issues/5108,
       "Good news with kernel 6.16 + ROCm 7.0 RC1"); gfx1150 entered PyTorch's ROCm wheels'
       PYTORCH_ROCM_ARCH only with https://github.com/pytorch/pytorch/pull/167299 (merged
       2025-11-07, first in 2.10), so a 2.8 +rocm6.4 wheel has no gfx1150 code: "HIP error:
       invalid device function"; an 11.0.0 override on gfx1150 is reported failing with
       HSA_STATUS_ERROR_INVALID_ISA (https://github.com/likelovewant/ROCmLibs-for-gfx1103-AMD780M-APU/issues/37)
 G1031R RX 6700 XT (gfx1031) as rocminfo names it (https://github.com/ollama/ollama/issues/8463);
       gfx1031 is in no ROCm support list and no PyTorch ROCm wheel's arch list, and
       HSA_OVERRIDE_GFX_VERSION=10.3.0 is the documented way to run gfx1030 code on it (G1031)
 G1101O gfx1101 entered the wheels with 2.6 (G1101): torch 2.5.1+rocm6.2 on an RX 7800 XT has
       no gfx1101 code; the reporter of
       https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/13534 ("Unable to run on
       7800XT") is that machine class
 DKMS  "dkms failed for running kernel": amdgpu-dkms not built for the booted kernel
       (https://github.com/ROCm/legacy-rocm-build/issues/3883, RX 7900 XTX, ROCm 6.2.1 user space
       rocm-hip-runtime 6.2.1.60201-112); without the module there is no KFD (KMOD)
 FLEX  Data Center GPU Flex 170 is PCI 8086:56c0 (xpu-smi's "PCI Device ID: 0x56c0",
       https://github.com/intel/xpumanager/issues/69); a CUDA wheel cannot use an Intel GPU (XPUW)
 B60   Arc Pro B60 (Battlemage, PCI 8086:e211) with PyTorch's XPU build: "Is XPU available:
       True", device_id=0xE211 (https://github.com/intel/torch-xpu-ops/issues/5072); xpu-smi
       names it (https://github.com/sgl-project/sglang/pull/38873); B-series runs under xe (BMG)
 MAX   Data Center GPU Max 1100 (PCI 8086:0bda) with PyTorch's XPU build: _XpuDeviceProperties
       name='Intel(R) Data Center GPU Max 1100', device_id=0xBDA
       (https://github.com/intel/torch-xpu-ops/issues/4117); Max Series is on PyTorch's XPU list
       (https://docs.pytorch.org/docs/stable/notes/get_start_xpu.html)
 N3276 Jetson Nano on L4T R32.7.6 (JetPack 4.6.6; recorded nv_tegra_release); the R32.7.6 deb
       version suffix for tegra210 is 20241104234540 (https://github.com/OE4T/meta-tegra ,
       classes/l4t_bsp.bbclass of its L4T R32.7.6 branch: L4T_BSP_DEB_DEFAULT_VERSION:tegra210);
       JetPack 4.6.x releases are L4T R32.7.x updates (https://developer.nvidia.com/embedded/jetpack-archive)
       and the CUDA 10.2.300 / cuDNN 8.2.1 written here are JetPack 4.6.1's
       (tests/probes/jetson_machines JP461), composed; PyPI's aarch64 torch is CPU-only there
       (SBSA) and the Jetson AI Lab jp6 wheels are for JetPack 6 (AIL)
 OWN   HSA_OVERRIDE_GFX_VERSION names the gfx target ROCr reports (11.0.0 -> gfx1100, 10.3.0 ->
       gfx1030: OVR11, G1031); set to the card's own target (11.0.1 on gfx1101) it changes
       nothing: NOOP's reasoning, applied to gfx1101
 WINDRV WSL 2 gets CUDA only from the Windows driver's libraries mapped into /usr/lib/wsl/lib;
       without them (no NVIDIA driver on Windows) there is no libcuda at all (WSL)
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
TOOLS29 = HERE / "platform_tools29"
TOOLS26 = HERE / "platform_tools26"
TOOLS25 = HERE / "platform_tools25"
PLATFORM_TOOLS = HERE / "platform_tools"
DATA = HERE.parents[0] / "data" / "tools"
rec = p25.rec


def t29(rel: str) -> str:
    return rec(TOOLS29 / rel)


# --------------------------------------------------------------------------- ROCm
TORCH_290_ROCM70 = p25.TORCH_290_ROCM70
TORCH_271_ROCM63 = p25.TORCH_271_ROCM63
TORCH_251_ROCM62 = rm.TORCH_251_ROCM62
TORCH_280_ROCM64 = rm.TORCH_280_ROCM64
RX890M = {"rocminfo": {"": t29("rocminfo/01-radeon-890m-gfx1150-agent.txt")}}
RX6700XT = {"rocminfo": {"": t29("rocminfo/02-rx6700xt-gfx1031-agent.txt")}}
MI210 = {"rocminfo": {"": rec(TOOLS25 / "rocminfo/01-mi210-gfx90a-agent.txt")}}

ROCM = [
    dict(name="rx7800xt-gfx1101-override-11.0.1-own-target-rocm702-torch290-rocm70-healthy",
         healthy=True, sources=("G1101", "OWN", "CM"),
         note="an RX 7800 XT (gfx1101 in the KFD topology) on ROCm 7.0.2 with torch 2.9.0+rocm7.0, "
              "HSA_OVERRIDE_GFX_VERSION=11.0.1 left in the profile: the card's own target",
         env={"HSA_OVERRIDE_GFX_VERSION": "11.0.1"},
         system=rm.system(rocm="7.0.2-56", pci=1, topology=(110001,)), dists=[TORCH_290_ROCM70]),
    dict(name="rx7800xt-gfx1101-rocm624-torch251-rocm62-no-override", healthy=False,
         sources=("G1101O", "G1101"), ids={"rocm-gfx-unsupported", "rocm-rdna-needs-hsa-override"},
         severity="error",
         note="the same card on ROCm 6.2.4 with torch 2.5.1+rocm6.2 (before gfx1101 entered the wheels), "
              "no override: 'invalid device function'",
         system=rm.system(rocm="6.2.4-120", pci=1, topology=(110001,)), dists=[TORCH_251_ROCM62]),
    dict(name="radeon-890m-gfx1150-rocm702-torch280-rocm64", healthy=False, sources=("G1150",),
         ids={"rocm-gfx-unsupported", "rocm-rdna-needs-hsa-override"}, severity="error",
         note="a Ryzen AI 9 HX 370 laptop (Radeon 890M, gfx1150; recorded rocminfo agent) on ROCm 7.0.2 "
              "(version file composed) with torch 2.8.0+rocm6.4, whose arch list has no gfx1150",
         tools=RX890M, system=rm.system(rocm="7.0.2-56", pci=1, topology=(110500,)),
         dists=[TORCH_280_ROCM64]),
    dict(name="rx6700xt-gfx1031-override-10.3.0-rocm641-torch280-rocm64-healthy", healthy=True,
         sources=("G1031R", "G1031"),
         note="an RX 6700 XT (gfx1031 in the KFD topology) on ROCm 6.4.1 with torch 2.8.0+rocm6.4 and "
              "HSA_OVERRIDE_GFX_VERSION=10.3.0 exported; no GPU tool on PATH",
         env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"},
         system=rm.system(rocm="6.4.1-83", pci=1, topology=(100301,)), dists=[TORCH_280_ROCM64]),
    dict(name="rx6700xt-gfx1031-rocminfo-rocm624-torch251-rocm62-no-override", healthy=False,
         sources=("G1031R", "G1031"), ids={"rocm-gfx-unsupported", "rocm-rdna-needs-hsa-override"},
         severity="error",
         note="the same card, rocminfo on PATH naming gfx1031 (recorded), no override",
         tools=RX6700XT, system=rm.system(rocm="6.2.4-120", pci=1, topology=(100301,)),
         dists=[TORCH_251_ROCM62]),
    dict(name="mi210-rocm702-torch290-rocm70-healthy", healthy=True, sources=("SR", "CM"),
         note="an MI210 (gfx90a; recorded rocminfo agent of platform_tools25) on ROCm 7.0.2 with "
              "torch 2.9.0+rocm7.0",
         tools=MI210, system=rm.system(rocm="7.0.2-56", pci=1, topology=(90010,)),
         dists=[TORCH_290_ROCM70]),
    dict(name="mi250x-rocm633-user-outside-render-and-video", healthy=False, sources=("PERM",),
         ids={"rocm-device-access"}, severity="error",
         note="an MI250X box on ROCm 6.3.3 with torch 2.7.1+rocm6.3; /dev/kfd and renderD128 are "
              "0660 root:render, alice in neither render nor video",
         system=rm.system(rocm="6.3.3-74", kfd="0660", render="0660", alice_groups=(), pci=1,
                          topology=(90010, 90010)),
         dists=[TORCH_271_ROCM63]),
    dict(name="mi300x-rocm641-torch271-cu126", healthy=False, sources=("PT",),
         ids={"torch-cuda-wheel-on-amd"}, severity="error",
         note="PyPI's default torch 2.7.1 (a CUDA 12.6 build) on an MI300X with ROCm 6.4.1",
         system=rm.system(rocm="6.4.1-83", pci=1, topology=(90402,)),
         dists=[rm.torch("2.7.1+cu126", cuda="12.6")]),
    dict(name="rx7900xtx-rocm624-torch280-rocm64", healthy=False, sources=("CM",),
         ids={"rocm-torch-newer-than-installed"}, severity="error",
         note="torch 2.8.0+rocm6.4 on an RX 7900 XTX whose installed ROCm is 6.2.4",
         system=rm.system(rocm="6.2.4-120", pci=1, topology=(110000,)), dists=[TORCH_280_ROCM64]),
    dict(name="rx7900xtx-rocm621-amdgpu-dkms-failed-for-running-kernel", healthy=False,
         sources=("DKMS", "KMOD"), ids={"rocm-no-amdgpu-driver"}, severity="error",
         note="ROCm/legacy-rocm-build#3883's machine class: ROCm 6.2.1 user space (6.2.1-112 from the thread's "
              "package version), amdgpu-dkms not built for the running kernel: no /sys/module/amdgpu, "
              "no KFD, no /dev/kfd; the RX 7900 XTX is on the PCI bus; torch 2.5.1+rocm6.2",
         system=rm.system(rocm="6.2.1-112", kfd=None, render=None, module=False, pci=1, topology=()),
         dists=[TORCH_251_ROCM62]),
    dict(name="radeon-pro-w7900-rocm641-hip-visible-devices-empty", healthy=False, sources=("ISO",),
         ids={"hip-visible-devices-hides-all"}, severity="error",
         note="HIP_VISIBLE_DEVICES= (empty) exported by a job script on a one-W7900 (gfx1100) box with "
              "ROCm 6.4.1 and torch 2.8.0+rocm6.4",
         env={"HIP_VISIBLE_DEVICES": ""},
         system=rm.system(rocm="6.4.1-83", pci=1, topology=(110000,)), dists=[TORCH_280_ROCM64]),
    dict(name="rx7900xtx-rocm641-torch280-rocm64-healthy", healthy=True, sources=("SR", "CM"),
         note="an RX 7900 XTX (gfx1100) on ROCm 6.4.1 with torch 2.8.0+rocm6.4",
         system=rm.system(rocm="6.4.1-83", pci=1, topology=(110000,)), dists=[TORCH_280_ROCM64]),
]

# --------------------------------------------------------------------------- ROCm in containers
SHM_8G = 8388608
SHM_16G = 16777216
TORCH_271_ROCM63_PM = pm.torch("2.7.1+rocm6.3", "cp312-cp312-linux_x86_64", hip="6.3.42131-fa1d09cbd")


def rocm_container(shm_kib: int) -> dict:
    """`docker run --device=/dev/kfd --device=/dev/dri --group-add render` of a rocm/pytorch
    image on an MI300X host (the host's amdgpu module, PCI entry and KFD topology, ROCm 6.4.1
    inside), with the given /dev/shm; composed around RDOCK as plat27's rocm_container."""
    machine = p25.container(shm_kib, gpus=False)
    amd = pm.amd("6.4.1-83", 1, (90402,))
    machine["files"].update(amd["files"])
    machine["nodes"] = amd["nodes"]
    return machine


ROCM_CONTAINERS = [
    dict(name="rocm-container-mi300x-devices-shm-16g-torch271-rocm63-healthy", healthy=True,
         sources=("RDOCK", "CM", "SHM"),
         note="rocm/pytorch with --device=/dev/kfd --device=/dev/dri --group-add render --shm-size 16G "
              "and torch 2.7.1+rocm6.3 (ROCm 6.4.1 in the image, an MI300X host)",
         machine=rocm_container(SHM_16G), dists=[TORCH_271_ROCM63_PM]),
    dict(name="rocm-container-mi300x-devices-default-64m-shm", healthy=False, sources=("SHM", "RDOCK"),
         ids={"small-dev-shm-in-container"}, severity="error",
         note="the same container started without --shm-size / --ipc=host (Docker's 64 MiB)",
         machine=rocm_container(65536), dists=[TORCH_271_ROCM63_PM]),
    dict(name="rocm-container-mi300x-devices-pypi-cuda-torch", healthy=False, sources=("PT", "RDOCK"),
         ids={"torch-cuda-wheel-on-amd"}, severity="error",
         note="the devices passed and 8 GiB /dev/shm, but `pip install torch` in a Python-only image "
              "brought PyPI's torch 2.6.0 (a CUDA 12.4 build)",
         machine=rocm_container(SHM_8G),
         dists=[pm.torch("2.6.0+cu124", "cp312-cp312-linux_x86_64", cuda="12.4")]),
]

# --------------------------------------------------------------------------- Apple
APPLE = [
    dict(name="m2max-macos15.1.1-torch270-healthy", healthy=True, sources=("MPS",),
         note="torch 2.7.0 (arm64, MPS built) on an M2 Max with macOS 15.1.1 (recorded sysctl and sw_vers)",
         system=am.mac("15.1.1", "24B91", "sysctl/03-m2max-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[am.numpy(), am.torch("2.7.0")]),
    dict(name="m1pro-macos14.2.1-torch280-healthy", healthy=True, sources=("MPS", "MPS14"),
         note="torch 2.8.0 on an M1 Pro with macOS 14.2.1 (recorded sw_vers): every MPS floor met",
         system=am.mac("14.2.1", "23C71", "sysctl/02-m1pro-native.txt", "sw_vers/02-14.2.1.txt"),
         dists=[am.numpy(), am.torch("2.8.0")]),
    dict(name="m2max-macos15.1.1-jax-metal-011-jax0438-healthy", healthy=True, sources=("JM",),
         note="jax-metal 0.1.1 with jax/jaxlib 0.4.38 (inside 0.4.34 .. 0.5.0) on macOS 15.1.1",
         system=am.mac("15.1.1", "24B91", "sysctl/03-m2max-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[am.numpy(), am.jax("0.4.38"), am.jaxlib("0.4.38"), am.jax_metal("0.1.1")]),
    dict(name="m2max-macos13.4.1-torch291-mps-floor-14", healthy=False, sources=("MPS14",),
         ids={"apple-macos-too-old-for-mps"}, severity="error",
         note="torch 2.9.1 on an M2 Max still on macOS 13.4.1 (22F82; version plist composed, no "
              "sw_vers recording): MPS needs macOS 14 from torch 2.9",
         system=am.mac("13.4.1", "22F82", "sysctl/03-m2max-native.txt"),
         dists=[am.numpy(), am.torch("2.9.1")]),
    dict(name="m3max-rosetta-x86-python-torch212-macos15", healthy=False, sources=("ROS",),
         ids={"apple-x86-python-on-apple-silicon"}, severity="error",
         note="an x86_64 Python (Rosetta 2; recorded sysctl with proc_translated 1) with torch 2.1.2's "
              "macOS x86_64 wheel on an M3 Max, macOS 15.1.1",
         system=am.mac("15.1.1", "24B91", "sysctl/04-m3max-rosetta.txt", "sw_vers/03-15.1.1.txt"),
         dists=[am.numpy(), am.torch("2.1.2", tag="cp311-none-macosx_10_9_x86_64")]),
    dict(name="m1pro-macos14.2.1-tf216-tf-metal-110", healthy=False, sources=("TFM",),
         ids={"apple-tensorflow-metal-mismatch"}, severity="error",
         note="tensorflow-metal 1.1.0 (Apple pairs it with TF 2.14) beside TensorFlow 2.16.2",
         system=am.mac("14.2.1", "23C71", "sysctl/02-m1pro-native.txt", "sw_vers/02-14.2.1.txt"),
         dists=[am.numpy(), am.tensorflow("2.16.2"), am.tensorflow_metal("1.1.0")]),
    dict(name="m1-macos15.1.1-jax-metal-011-jax060", healthy=False, sources=("JM",),
         ids={"apple-jax-metal-mismatch"}, severity="error",
         note="jax-metal 0.1.1 with jax/jaxlib 0.6.0 (past 0.5.0) on an M1, macOS 15.1.1",
         system=am.mac("15.1.1", "24B91", "sysctl/01-m1-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[am.numpy(), am.jax("0.6.0"), am.jaxlib("0.6.0"), am.jax_metal("0.1.1")]),
]

# --------------------------------------------------------------------------- Jetson
R32_7_6 = t29("jetson/01-nv-tegra-release-r32.7.6-nano.txt")
# JetPack 4.6.6 on a Nano: the recorded release line, the OE4T deb suffix, JetPack 4.6.x's CUDA
# and cuDNN (N3276); no nvidia-jetpack meta package answered by dpkg (its 4.6.6 build number is
# not in a source read here), the components themselves installed
JP466 = dict(l4t="32.7.6-20241104234540", jetpack=None, cuda="10.2.300", cudnn="8.2.1", apt="r32.7")
PYPI_CPU_1102 = jm.torch("1.10.2", None)   # PyPI's aarch64 torch for Python 3.6 (CPU only)

JETSON = [
    dict(name="nano-r32.7.6-pypi-cpu-torch-1.10.2", healthy=False, sources=("N3276", "SBSA", "PTJ"),
         ids={"jetson-cpu-only-torch"}, severity="error",
         note="a Jetson Nano on L4T R32.7.6 (recorded nv_tegra_release) with `pip3 install torch` "
              "(PyPI's aarch64 1.10.2, CPU only)",
         system=jm.board(R32_7_6, jm.NANO, **JP466), dists=PYPI_CPU_1102),
    dict(name="nano-r32.7.6-ai-lab-jp6-torch-2.8.0", healthy=False, sources=("N3276", "AIL"),
         ids={"jetson-torch-wrong-jetpack"}, severity="error",
         note="the Jetson AI Lab jp6/cu126 torch 2.8.0 (JetPack 6, CUDA 12.6) on the same Nano",
         system=jm.board(R32_7_6, jm.NANO, **JP466), dists=jm.AIL_JP6),
    dict(name="orin-nano-jp621-ai-lab-torch-2.8.0-healthy", healthy=True, sources=("AIL", "JP"),
         note="an Orin Nano on L4T R36.4.7 / JetPack 6.2.1 with the Jetson AI Lab jp6/cu126 torch 2.8.0",
         system=jm.board(jm.R36_4_7, jm.ORIN_NANO, **p25.JP621), dists=jm.AIL_JP6),
    dict(name="agx-orin-jp512-nv-torch-2.1.0-nv23.06-healthy", healthy=True, sources=("JP", "PTJ"),
         note="an AGX Orin on L4T R35.4.1 / JetPack 5.1.2 (recorded nv_tegra_release of "
              "platform_tools) with NVIDIA's JetPack 5.1.2 wheel",
         system=jm.board(p25.R35_4_1, jm.AGX_ORIN, **jm.JP512), dists=jm.NV_JP512),
    dict(name="orin-nx-jp621-pypi-torch-2.9.0-sbsa-cu128", healthy=False, sources=("SBSA", "NXSBSA"),
         ids={"jetson-foreign-cuda-torch"}, severity="error",
         note="PyPI's aarch64 torch 2.9.0 (CUDA 12.8 for Arm servers, with its nvidia-*-cu12 wheels) "
              "on an Orin NX with JetPack 6.2.1",
         system=jm.board(jm.R36_4_7, p25.ORIN_NX, **p25.JP621), dists=jm.PYPI_SBSA),
    dict(name="agx-orin-jp62-user-not-in-video", healthy=False, sources=("NVMAP",),
         ids={"jetson-device-access"}, severity="error",
         note="an AGX Orin on JetPack 6.2 with NVIDIA's nv24.08 wheel; /dev/nvmap 0660 video and "
              "alice not in video",
         system=jm.board(jm.R36_4_3, jm.AGX_ORIN, **jm.JP62, alice_video=False), dists=jm.NV_JP61),
    dict(name="orin-nx-jp62-ai-lab-torch-2.8.0-healthy", healthy=True, sources=("AIL", "JP"),
         note="an Orin NX on L4T R36.4.3 / JetPack 6.2 with the Jetson AI Lab jp6/cu126 torch 2.8.0",
         system=jm.board(jm.R36_4_3, p25.ORIN_NX, **jm.JP62), dists=jm.AIL_JP6),
]

# --------------------------------------------------------------------------- WSL 2
SMI_WSL_531 = rec(DATA / "nvidia-smi/08-rtx3070-wsl-530-driver-531.txt")
SMI_WSL_537 = rec(TOOLS26 / "nvidia-smi/01-wsl2-gtx1650-535.103-driver-537.13.txt")
SMI_WSL_527 = rec(PLATFORM_TOOLS / "nvidia-smi/02-wsl2-525-driver-527.txt")
SMI_WSL_5090 = p27.SMI_WSL_5090
WSL_LDCONFIG = p27.WSL_LDCONFIG


def wsl_tool(text: str) -> dict:
    return {"nvidia-smi": {"": text}}


WSL = [
    dict(name="wsl2-rtx3070-531.68-torch251-cu121-healthy", healthy=True, sources=("WSL", "DRV"),
         note="an RTX 3070 under WSL 2 on the 531.68 Windows driver (CUDA 12.1; recorded nvidia-smi) "
              "with torch 2.5.1+cu121",
         machine=pm.wsl(windows_libs=True, linux_driver=False), tools=wsl_tool(SMI_WSL_531),
         ldconfig=WSL_LDCONFIG, dists=[pm.torch("2.5.1+cu121", "cp311-cp311-linux_x86_64", cuda="12.1")]),
    dict(name="wsl2-rtx3070-531.68-torch290-cu130", healthy=False, sources=("DRV",),
         ids={"driver-too-old-for-framework-cuda"}, severity="error",
         note="the same WSL 2 with torch 2.9.0+cu130 (needs a driver >= 580; 531.68 is CUDA 12.1)",
         machine=pm.wsl(windows_libs=True, linux_driver=False), tools=wsl_tool(SMI_WSL_531),
         ldconfig=WSL_LDCONFIG, dists=[pm.torch("2.9.0+cu130", "cp312-cp312-linux_x86_64", cuda="13.0")]),
    dict(name="wsl2-gtx1650-537.13-linux-driver-535-installed-inside", healthy=False, sources=("WSL",),
         ids={"linux-driver-inside-wsl"}, severity="error",
         note="the GTX 1650 WSL 2 (recorded nvidia-smi) after `apt install nvidia-driver-535` inside the "
              "distribution: a Linux libcuda beside the Windows driver's (file names composed)",
         machine=p25.wsl2("535.183.01"), tools=wsl_tool(SMI_WSL_537), ldconfig=WSL_LDCONFIG,
         dists=[pm.torch("2.6.0+cu124", "cp311-cp311-linux_x86_64", cuda="12.4")]),
    dict(name="wsl2-no-windows-nvidia-driver-torch270-cu128", healthy=False, sources=("WINDRV", "WSL"),
         ids={"wsl-without-windows-gpu-driver"}, severity="error",
         note="WSL 2 with /dev/dxg and the D3D12 libraries but no NVIDIA libraries in /usr/lib/wsl/lib "
              "(no NVIDIA driver on Windows); no nvidia-smi; torch 2.7.0+cu128",
         machine=pm.wsl(windows_libs=False, linux_driver=False),
         dists=[pm.torch("2.7.0+cu128", "cp312-cp312-linux_x86_64", cuda="12.8")]),
    dict(name="wsl2-gtx1650-537.13-torch280-cu126-healthy", healthy=True, sources=("WSL", "DRV", "ARCH"),
         note="the GTX 1650 (sm_75) on the 537.13 Windows driver (CUDA 12.2) with torch 2.8.0+cu126 "
              "(minor-version compatibility)",
         machine=pm.wsl(windows_libs=True, linux_driver=False), tools=wsl_tool(SMI_WSL_537),
         ldconfig=WSL_LDCONFIG, dists=[pm.torch("2.8.0+cu126", "cp312-cp312-linux_x86_64", cuda="12.6")]),
    dict(name="wsl2-rtx5090-572.70-cuda-visible-devices-minus-1", healthy=False, sources=("CVD",),
         ids={"cuda-visible-devices-hides-all"}, severity="error",
         note="CUDA_VISIBLE_DEVICES=-1 left in ~/.bashrc on the RTX 5090 WSL 2 (recorded nvidia-smi) "
              "with torch 2.7.0+cu128",
         machine=pm.wsl(windows_libs=True, linux_driver=False), env={"CUDA_VISIBLE_DEVICES": "-1"},
         tools=wsl_tool(SMI_WSL_5090), ldconfig=WSL_LDCONFIG,
         dists=[pm.torch("2.7.0+cu128", "cp312-cp312-linux_x86_64", cuda="12.8")]),
    dict(name="wsl2-527.56-torch241-cu121-healthy", healthy=True, sources=("WSL", "DRV"),
         note="microsoft/WSL#9099's WSL 2 on the 527.56 Windows driver (CUDA 12.0; recorded nvidia-smi) "
              "with torch 2.4.1+cu121 (CUDA 12.x minor-version compatibility)",
         machine=pm.wsl(windows_libs=True, linux_driver=False), tools=wsl_tool(SMI_WSL_527),
         ldconfig=WSL_LDCONFIG, dists=[pm.torch("2.4.1+cu121", "cp311-cp311-linux_x86_64", cuda="12.1")]),
]

# --------------------------------------------------------------------------- NVIDIA containers
SHM_32G = 33554432


def smi(path: Path) -> dict:
    return {"nvidia-smi": {"": rec(path)}}


CONTAINERS = [
    dict(name="container-h100-590-ipc-host-torch280-cu128-healthy", healthy=True,
         sources=("CTK", "SHM", "DRV"),
         note="an H100 container with --gpus all --ipc=host (the host's 32 GiB /dev/shm)",
         machine=p25.container(SHM_32G, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools=smi(DATA / "nvidia-smi/01-h100-590-idle-no-processes.txt"),
         dists=[pm.torch("2.8.0+cu128", "cp312-cp312-linux_x86_64", cuda="12.8")]),
    dict(name="container-2x-a100-bottlerocket-580-torch271-cu126-healthy", healthy=True,
         sources=("CTK", "SHM", "DRV"),
         note="a Bottlerocket node's 2x A100 40GB (580.126.09, recorded) in a container with --shm-size 8g",
         machine=p25.container(SHM_8G, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools=smi(DATA / "nvidia-smi/20-2x-a100-40gb-580-bottlerocket.txt"),
         dists=[pm.torch("2.7.1+cu126", "cp312-cp312-linux_x86_64", cuda="12.6")]),
    dict(name="container-l40s-595-default-64m-shm", healthy=False, sources=("SHM",),
         ids={"small-dev-shm-in-container"}, severity="error",
         note="an L40S training container (--gpus all) without --shm-size / --ipc=host",
         machine=p25.container(65536, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools=smi(DATA / "nvidia-smi/04-l40s-595-load.txt"),
         dists=[pm.torch("2.8.0+cu129", "cp312-cp312-linux_x86_64", cuda="12.9")]),
    dict(name="container-8x-h100-565-cgroup-memory-2g", healthy=False, sources=("CG",),
         ids={"container-memory-limit-low"}, severity="warning",
         note="an 8x H100 container started with --memory=2g (cgroup v2 memory.max 2 GiB)",
         machine=p25.container(SHM_8G, gpus=True, memory_max="2147483648"),
         env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools=smi(DATA / "nvidia-smi/12-8x-h100-565-no-processes.txt"),
         dists=[pm.torch("2.6.0+cu124", "cp311-cp311-linux_x86_64", cuda="12.4")]),
    dict(name="pytorch-image-docker-run-without-gpus", healthy=False, sources=("CTK",),
         ids={"container-without-gpu-devices", "gpu-expected-but-unusable"}, severity="error",
         note="a training image built FROM pytorch/pytorch with ENV NVIDIA_VISIBLE_DEVICES=all started by "
              "plain `docker run` (runc, no --gpus): no /dev/nvidia*, no nvidia-smi (image env composed)",
         machine=p25.container(SHM_8G, gpus=False),
         env={"NVIDIA_VISIBLE_DEVICES": "all", "NVIDIA_DRIVER_CAPABILITIES": "compute,utility"},
         dists=[pm.torch("2.6.0+cu126", "cp311-cp311-linux_x86_64", cuda="12.6")]),
    dict(name="podman-rootless-cdi-t4-580-torch270-cu126-healthy", healthy=True, sources=("CDI", "DRV"),
         note="rootless podman with --device nvidia.com/gpu=all on a T4 host (580, recorded nvidia-smi)",
         machine=p25.container(SHM_8G, gpus=True, podman=True),
         tools=smi(DATA / "nvidia-smi/17-t4-580-exclusive-process.txt"),
         dists=[pm.torch("2.7.0+cu126", "cp311-cp311-linux_x86_64", cuda="12.6")]),
]

# --------------------------------------------------------------------------- Intel XPU
XPU_FLEX = {"xpu-smi": {"discovery -d 0": t29("xpu-smi/01-flex170-discovery-d0.txt")}}
XPU_B60 = {"xpu-smi": {"discovery": t29("xpu-smi/02-arc-pro-b60-discovery.txt")}}

INTEL = [
    dict(name="arc-pro-b60-xe-torch290-xpu-healthy", healthy=True, sources=("B60", "BMG", "XPU"),
         note="an Arc Pro B60 (8086:e211) under xe with torch 2.9.0+xpu; xpu-smi on PATH (recorded)",
         machine=p27.intel_card("e211", "xe"), tools=XPU_B60,
         dists=[pm.torch("2.9.0+xpu", "cp312-cp312-linux_x86_64")]),
    dict(name="arc-pro-b60-xe-user-not-in-render", healthy=False, sources=("XPERM", "B60"),
         ids={"intel-gpu-device-access"}, severity="error",
         note="the same B60 box, /dev/dri/renderD128 0660 root:render and alice not in render",
         machine=p27.intel_card("e211", "xe", alice_in_render=False), tools=XPU_B60,
         dists=[pm.torch("2.9.0+xpu", "cp312-cp312-linux_x86_64")]),
    dict(name="flex170-i915-pypi-cuda-torch251", healthy=False, sources=("FLEX", "XPUW"),
         ids={"torch-cuda-wheel-on-intel-gpu"}, severity="error",
         note="PyPI's torch 2.5.1 (a CUDA 12.4 build) on a Data Center GPU Flex 170 (8086:56c0, i915; "
              "xpu-smi recorded)",
         machine=p27.intel_card("56c0", "i915"), tools=XPU_FLEX,
         dists=[pm.torch("2.5.1+cu124", "cp311-cp311-linux_x86_64", cuda="12.4")]),
    dict(name="max1100-i915-torch280-xpu-healthy", healthy=True, sources=("MAX", "XPU"),
         note="a Data Center GPU Max 1100 (8086:0bda) under i915 with torch 2.8.0+xpu",
         machine=p27.intel_card("0bda", "i915"), dists=[pm.torch("2.8.0+xpu", "cp312-cp312-linux_x86_64")]),
    dict(name="max1100-i915-torch280-cpu-wheel", healthy=False, sources=("MAX", "XPUW", "CPUW"),
         ids={"gpu-expected-but-cpu-only-builds", "torch-cuda-wheel-on-intel-gpu"}, severity="error",
         note="torch 2.8.0+cpu on the Max 1100 box under --expect gpu: the XPU wheel is the fix",
         machine=p27.intel_card("0bda", "i915"), dists=[pm.torch("2.8.0+cpu", "cp312-cp312-linux_x86_64")]),
    dict(name="arc-a750-i915-torch280-xpu-healthy", healthy=True, sources=("XPU",),
         note="an Arc A750 (8086:56a1) under i915 with torch 2.8.0+xpu",
         machine=p27.intel_card("56a1", "i915"), dists=[pm.torch("2.8.0+xpu", "cp312-cp312-linux_x86_64")]),
]

# --------------------------------------------------------------------------- NVIDIA, bare Linux
NVIDIA = [
    dict(name="rtx4090-580-torch280-cu129-healthy", healthy=True, sources=("DRV", "ARCH"),
         note="an RTX 4090 on 580 (CUDA 13.0; recorded nvidia-smi) with torch 2.8.0+cu129",
         machine=p25.BARE, tools=smi(DATA / "nvidia-smi/15-rtx4090-580-cuda13.txt"),
         dists=[pm.torch("2.8.0+cu129", "cp312-cp312-linux_x86_64", cuda="12.9")]),
    dict(name="h100-590-torch260-cpu-wheel", healthy=False, sources=("CPUW",),
         ids={"torch-cpu-build-on-gpu-host", "gpu-expected-but-cpu-only-builds"}, severity="error",
         note="torch 2.6.0+cpu (the CPU index) on an H100 box (590, recorded nvidia-smi)",
         machine=p25.BARE, tools=smi(DATA / "nvidia-smi/01-h100-590-idle-no-processes.txt"),
         dists=[pm.torch("2.6.0+cpu", "cp311-cp311-linux_x86_64")]),
    dict(name="l40s-595-torch280-rocm64", healthy=False, sources=("PT", "CM"),
         ids={"rocm-torch-on-nvidia-host"}, severity="error",
         note="torch 2.8.0+rocm6.4 (the ROCm index by mistake) on an L40S box (595, recorded nvidia-smi)",
         machine=p25.BARE, tools=smi(DATA / "nvidia-smi/04-l40s-595-load.txt"),
         dists=[pm.torch("2.8.0+rocm6.4", "cp312-cp312-linux_x86_64", hip="6.4.43482-0f2d60242")]),
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
