"""Held-out batch plat27: 44 simulated machines over AMD ROCm (bare and in containers), Apple
silicon, Jetson, WSL 2, NVIDIA containers and Intel XPU, run as a user runs them:
``check --static --root DIR --format json --expect gpu`` (tests/heldout/test_plat27_matrix.py).

Every machine below was written with its verdict (healthy, or the check ids that name its
problem and the severity they must reach) from the platform's documentation and the threads
named, BEFORE envdoctor was run on any of them; envdoctor has not been run on them when this
file was committed (only the structure tests were). None of these machines is in the earlier
sets (plat24, plat25, plat26, platform_machines, rocm/apple/wsl machines,
tests/probes/jetson_machines, tests/fixtures/machines): new GPUs (Strix Halo gfx1151, RX 7600 XT
gfx1102, RX 9060 XT gfx1200, Radeon PRO W7900, RX 7900 GRE, MI300A, RTX 5090 under WSL 2, Arc
B580 / A750 / A580, AGX Thor, Xavier NX, Orin NX on JetPack 5) or new combinations. The builders
of the earlier sets lay the machines out; this file describes them, plus small helpers for
Intel cards and ROCm containers. New recordings are in tests/heldout/platform_tools27/<tool>/*.txt
with their source on line 1.

A label whose check does not exist (no rules/checks/** id for the problem) carries the id one
would expect and ``unlabelled_check=True``: such a row counts as a miss.

Sources for the verdicts (besides each recording's thread; SR, CM, PERM, PT, JM, TFM, ROS, MPS,
JP, PTJ, AIL, SBSA, WSL, CTK, SHM, CG, DRV, ARCH, XPU, CVD as in plat25_machines /
plat26_machines):
 G1151 Strix Halo (Ryzen AI Max, Radeon 8060S, gfx1151): torch 2.10.0.dev+rocm7.0 fails with "HIP
       error: invalid device function"; "Until gfx1151 support is enabled use `export
       HSA_OVERRIDE_GFX_VERSION=11.0.0`" -> "This worked for me"
       (https://github.com/pytorch/pytorch/issues/164346); same on ROCm's own build
       (https://github.com/ROCm/legacy-rocm-build/issues/5668)
 G1102 RX 7600 / 7600 XT (gfx1102): "HIP error: invalid device function" on the first tensor with
       PyTorch's ROCm wheels (https://github.com/pytorch/pytorch/issues/147626 ,
       https://github.com/ROCm/pytorch/issues/2730); gfx1102 is not in the Linux support list of
       ROCm 6.x (SR). No healthy gfx1102 row: with HSA_OVERRIDE_GFX_VERSION=11.0.0 some report
       HSA_STATUS_ERROR_INVALID_ISA (https://github.com/ROCm/legacy-rocm-build/issues/3054 ,
       https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/15434), so no verdict
       for the override is settled
 G1102W gfx1102 entered PyTorch's ROCm wheels with https://github.com/pytorch/pytorch/pull/147761
       (merged 2025-02-24, after 2.6.0: "most ROCm libs have gfx1102 code objects available since
       ROCm 5.5"; a 2.7.0 nightly +rocm6.2.4 "Totally saved me" on the card); the 2.7 wheels carry it
 G1200 RX 9060 XT (gfx1200): the Radeon RX 9000 series is supported on Linux from ROCm 6.4.1
       (https://rocm.docs.amd.com/projects/install-on-linux/en/docs-6.4.1/reference/system-requirements.html#rdna-os ,
       quoted in https://github.com/ggml-org/llama.cpp/pull/15994); gfx1200/gfx1201 are in PyTorch's
       ROCm wheels since https://github.com/pytorch/pytorch/pull/148562 (2.7 on)
 W7900 Radeon PRO W7900 / RX 7900 GRE are gfx1100, on ROCm's Radeon support list since 6.0 (SR)
 MI300A MI300A is gfx942 like MI300X ("when I run rocminfo on MI300A (this returns Name: gfx942)",
       https://github.com/ROCm/legacy-rocm-build/issues/4825); supported from ROCm 6.0 (SR)
 KMOD  ROCm needs the amdgpu kernel driver (amdgpu-dkms or the distribution kernel's) loaded;
       without it there is no /sys/module/amdgpu and no usable KFD:
       https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/prerequisites.html ,
       https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/post-install.html
 CPUW  a `+cpu` torch wheel has no GPU backend at all (https://pytorch.org/get-started/locally/)
 RDOCK ROCm containers get the GPU only through `--device=/dev/kfd --device=/dev/dri` (and
       `--group-add video`/render); without them the container has no device nodes:
       https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html
 MPS12 torch's MPS floor is macOS 12.3 up to torch 2.4 (https://pytorch.org/docs/stable/notes/mps.html
       "MPS ... macOS 12.3+"); 12.7.6 meets it
 JM010 jax-metal 0.1.0 pairs with jax/jaxlib 0.4.26 on macOS 14+ (Apple's table,
       https://developer.apple.com/metal/jax/ ; https://pypi.org/project/jax-metal/0.1.0/)
 JM014 jax-metal 0.1.1 needs macOS 14.4 or later (https://pypi.org/project/jax-metal/ ,
       https://developer.apple.com/metal/jax/); 14.2.1 is Sonoma but older
 NOMPS a torch built without MPS: torch.backends.mps.is_built() False, "the current PyTorch
       install was not built with MPS enabled" (https://pytorch.org/docs/stable/notes/mps.html)
 TFNOM TensorFlow on macOS reaches the GPU only through the tensorflow-metal PluggableDevice
       (https://developer.apple.com/metal/tensorflow-plugin/)
 THOR  JetPack 7.0 (L4T R38.2) on AGX Thor ships CUDA 13.0; the Jetson AI Lab jp6/cu126 index
       builds for JetPack 6 / CUDA 12.6 / Orin (AIL); CUDA 13 unifies SBSA and Thor, "the only
       exception is Orin (sm_87)":
       https://developer.nvidia.com/blog/whats-new-in-cuda-toolkit-13-0-for-jetson-thor-unified-arm-ecosystem-and-more
 ORIN13 download.pytorch.org's aarch64 cu130 torch is an SBSA build; Orin (sm_87) is the one
       exception to CUDA 13's unified Arm build (THOR), JetPack 6 has CUDA 12.6 (JP)
 NVMAP /dev/nvmap and /dev/nvhost-* are group video, mode 0660; outside video CUDA fails with
       "NvRmMemInitNvmap failed with Permission denied":
       https://github.com/anduril/jetpack-nixos/issues/118
 LIBS  NVIDIA's Jetson wheels link the JetPack's cuDNN; an L4T without nvidia-jetpack (no cuDNN)
       cannot load them: https://github.com/dusty-nv/jetson-containers/issues/9
 DXG   WSL 2 reaches the GPU through the dxgkrnl paravirtualised device /dev/dxg and the Windows
       driver's libraries in /usr/lib/wsl/lib; without /dev/dxg there is no GPU:
       https://learn.microsoft.com/windows/wsl/tutorials/gpu-compute ,
       https://docs.nvidia.com/cuda/wsl-user-guide/index.html
 SM120 the RTX 5090 (sm_120) needs torch's cu128 (or later) builds; cu124/cu126 builds stop at
       sm_90: https://github.com/pytorch/pytorch/issues/150733 ,
       https://github.com/zcai0612/UP2You/issues/10 (WSL, RTX 5090, "no kernel image is available")
 CU130 cu130 wheels need driver >= 580 (DRV); Windows driver 572.70 is CUDA 12.8
 CVDX  CUDA_VISIBLE_DEVICES naming an index that does not exist: "only the devices whose index is
       present in the sequence are visible"; an invalid index and all after it are dropped, so
       "1" on a one-GPU machine exposes none; an empty value exposes none:
       https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-environment-variables
 VLLM  vLLM's image (vllm/vllm-openai) is built on nvidia/cuda with NVIDIA_VISIBLE_DEVICES=all;
       it needs `--gpus all` / `--runtime nvidia` like any CUDA image (CTK):
       https://docs.vllm.ai/en/latest/deployment/docker.html
 BMG   Arc B-series (Battlemage, B580 = PCI 8086:e20b) runs under the xe kernel driver with
       PyTorch's XPU wheels (XPU; https://dgpu-docs.intel.com/devices/hardware-table.html)
 XPUW  on an Intel discrete GPU the XPU wheel (download.pytorch.org/whl/xpu) is the only PyTorch
       build that uses it; a CPU, CUDA or ROCm wheel cannot (XPU)
 XPERM Intel's client GPU install: the user must be in the render group to open
       /dev/dri/renderD*: https://dgpu-docs.intel.com/driver/client/overview.html
"""
from __future__ import annotations

from pathlib import Path

from tests.heldout import apple_machines as am
from tests.heldout import plat25_machines as p25
from tests.heldout import platform_machines as pm
from tests.heldout import rocm_machines as rm
from tests.probes import jetson_machines as jm

HERE = Path(__file__).resolve().parent
TOOLS27 = HERE / "platform_tools27"
TOOLS26 = HERE / "platform_tools26"
DATA = HERE.parents[0] / "data" / "tools"
rec = p25.rec


def t27(rel: str) -> str:
    return rec(TOOLS27 / rel)


# --------------------------------------------------------------------------- ROCm
TORCH_290_ROCM70 = p25.TORCH_290_ROCM70
TORCH_271_ROCM63 = p25.TORCH_271_ROCM63
TORCH_280_CPU = rm.torch("2.8.0+cpu")
# the nightly of pytorch#164346 (its ROCm 7.0 HIP version as in torch 2.9.0+rocm7.0)
TORCH_210DEV_ROCM70 = p25.rocm_torch("2.10.0.dev20250929+rocm7.0", "7.0.51831-a3e329ad8")
STRIX_HALO = {"rocminfo": {"": t27("rocminfo/01-strix-halo-8060s-gfx1151-agent.txt")}}

ROCM = [
    dict(name="strix-halo-8060s-gfx1151-rocm702-torch210dev-rocm70-no-override", healthy=False,
         sources=("G1151", "CM"), ids={"rocm-gfx-unsupported", "rocm-rdna-needs-hsa-override"},
         severity="error",
         note="a Ryzen AI Max (Radeon 8060S, gfx1151 APU) on ROCm 7.0.2 with pytorch#164346's nightly "
              "(2.10.0.dev20250929+rocm7.0) and no override: 'invalid device function', the wheel has "
              "no gfx1151 code then; the thread's fix is HSA_OVERRIDE_GFX_VERSION=11.0.0",
         tools=STRIX_HALO, system=rm.system(rocm="7.0.2-56", pci=1, topology=(110501,)),
         dists=[TORCH_210DEV_ROCM70]),
    dict(name="strix-halo-8060s-gfx1151-override-11.0.0-healthy", healthy=True, sources=("G1151",),
         note="the same APU with HSA_OVERRIDE_GFX_VERSION=11.0.0 exported (the thread's fix, confirmed "
              "by the reporter); no GPU tool on PATH, the KFD topology names gfx1151",
         env={"HSA_OVERRIDE_GFX_VERSION": "11.0.0"},
         system=rm.system(rocm="7.0.2-56", pci=1, topology=(110501,)), dists=[TORCH_210DEV_ROCM70]),
    dict(name="rx7600xt-gfx1102-rocm624-torch260-rocm624-no-override", healthy=False,
         sources=("G1102", "G1102W"), ids={"rocm-gfx-unsupported", "rocm-rdna-needs-hsa-override"},
         severity="error",
         note="pytorch#147626's machine class: an RX 7600 XT (gfx1102) on ROCm 6.2.4 with torch "
              "2.6.0+rocm6.2.4; 'invalid device function' on the first tensor",
         system=rm.system(rocm="6.2.4-120", pci=1, topology=(110002,)), dists=[rm.TORCH_260_ROCM624]),
    dict(name="rx7600xt-gfx1102-rocm633-torch271-rocm63-healthy", healthy=True, sources=("G1102W",),
         note="the same card on ROCm 6.3.3 with torch 2.7.1+rocm6.3, whose arch list has gfx1102 "
              "(pytorch#147761), no override",
         system=rm.system(rocm="6.3.3-74", pci=1, topology=(110002,)), dists=[TORCH_271_ROCM63]),
    dict(name="rx9060xt-gfx1200-rocm702-torch290-rocm70-healthy", healthy=True, sources=("G1200", "CM"),
         note="an RX 9060 XT (gfx1200, RDNA4) on ROCm 7.0.2 with torch 2.9.0+rocm7.0",
         system=rm.system(rocm="7.0.2-56", pci=1, topology=(120000,)), dists=[TORCH_290_ROCM70]),
    dict(name="2x-radeon-pro-w7900-rocm641-torch280-rocm64-healthy", healthy=True, sources=("W7900", "CM"),
         note="two Radeon PRO W7900 (gfx1100) on ROCm 6.4.1 with torch 2.8.0+rocm6.4",
         system=rm.system(rocm="6.4.1-83", pci=2, topology=(110000, 110000)),
         dists=[rm.TORCH_280_ROCM64]),
    dict(name="rx7900gre-rocm633-torch271-rocm63-healthy", healthy=True, sources=("W7900", "CM"),
         note="an RX 7900 GRE (gfx1100) on ROCm 6.3.3 with torch 2.7.1+rocm6.3",
         system=rm.system(rocm="6.3.3-74", pci=1, topology=(110000,)), dists=[TORCH_271_ROCM63]),
    dict(name="mi300a-rocm641-torch280-rocm64-healthy", healthy=True, sources=("MI300A", "SR", "CM"),
         note="an MI300A APU (gfx942 in the KFD topology) on ROCm 6.4.1 with torch's ROCm 6.4 wheel",
         system=rm.system(rocm="6.4.1-83", pci=1, topology=(90402,)), dists=[rm.TORCH_280_ROCM64]),
    dict(name="mi300a-rocm624-torch290-rocm70", healthy=False, sources=("CM", "MI300A"),
         ids={"rocm-torch-newer-than-installed"}, severity="error",
         note="torch's ROCm 7.0 wheel on an MI300A whose installed ROCm/driver is 6.2.4",
         system=rm.system(rocm="6.2.4-120", pci=1, topology=(90402,)), dists=[TORCH_290_ROCM70]),
    dict(name="mi300x-amdgpu-module-not-loaded-after-kernel-update", healthy=False, sources=("KMOD",),
         ids={"rocm-no-amdgpu-driver"}, severity="error",
         note="ROCm 6.4.1 installed, the box booted into a kernel amdgpu-dkms was not built for: no "
              "/sys/module/amdgpu, no KFD topology, /dev/kfd absent; the MI300X is on the PCI bus",
         system=rm.system(rocm="6.4.1-83", kfd=None, render=None, module=False, pci=1, topology=()),
         dists=[rm.TORCH_280_ROCM64]),
    dict(name="rx7900gre-rocm633-torch280-cpu-wheel", healthy=False, sources=("CPUW", "PT"),
         ids={"gpu-expected-but-cpu-only-builds"}, severity="error",
         note="torch 2.8.0+cpu (the CPU index) on the RX 7900 GRE box: no GPU backend at all",
         system=rm.system(rocm="6.3.3-74", pci=1, topology=(110000,)), dists=[TORCH_280_CPU]),
]

# --------------------------------------------------------------------------- ROCm in containers
SHM_8G = 8388608


def rocm_container(devices: bool) -> dict:
    """A `docker run rocm/pytorch` container: the host's sysfs (amdgpu module, an MI300X on the PCI
    bus, its KFD topology) and ROCm 6.4.1 inside; /dev/kfd and the render node only when the
    container was started with --device=/dev/kfd --device=/dev/dri --group-add render."""
    machine = p25.container(SHM_8G, gpus=False)
    amd = pm.amd("6.4.1-83", 1, (90402,))
    machine["files"].update(amd["files"])
    if devices:
        machine["nodes"] = amd["nodes"]
    return machine


ROCM_CONTAINERS = [
    dict(name="rocm-pytorch-container-mi300x-devices-passed-healthy", healthy=True, sources=("RDOCK", "CM"),
         note="rocm/pytorch (ROCm 6.4.1, torch 2.8.0+rocm6.4) run with --device=/dev/kfd "
              "--device=/dev/dri --group-add render --shm-size 8G on an MI300X host",
         machine=rocm_container(devices=True), dists=[pm.torch("2.8.0+rocm6.4", "cp312-cp312-linux_x86_64",
                                                               hip="6.4.43482-0f2d60242")]),
    dict(name="rocm-pytorch-container-mi300x-no-device-flags", healthy=False, sources=("RDOCK",),
         ids={"rocm-device-access", "gpu-expected-but-unusable", "container-without-gpu-devices"},
         severity="error",
         note="the same image started without --device=/dev/kfd --device=/dev/dri: no device node "
              "in the container, the host's sysfs still shows the GPU",
         machine=rocm_container(devices=False), dists=[pm.torch("2.8.0+rocm6.4", "cp312-cp312-linux_x86_64",
                                                                hip="6.4.43482-0f2d60242")]),
]

# --------------------------------------------------------------------------- Apple
APPLE = [
    dict(name="m1-macos12.7.6-torch241-healthy", healthy=True, sources=("MPS12", "MPS"),
         note="torch 2.4.1 on an M1 with macOS 12.7.6 (recorded sw_vers): MPS floor 12.3 met",
         system=am.mac("12.7.6", "21H1320", "sysctl/01-m1-native.txt", "sw_vers/01-12.7.6-m1.txt"),
         dists=[am.numpy("1.26.4"), am.torch("2.4.1")]),
    dict(name="m3max-macos15-jax-metal-010-jax0426-healthy", healthy=True, sources=("JM010",),
         note="jax-metal 0.1.0 with jax/jaxlib 0.4.26, its pair, on macOS 15.1.1",
         system=am.mac("15.1.1", "24B91", "sysctl/05-m3max-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[am.numpy(), am.jax("0.4.26"), am.jaxlib("0.4.26"), am.jax_metal("0.1.0")]),
    dict(name="m1-macos15-torch280-tf214-tf-metal-110-healthy", healthy=True, sources=("MPS", "TFM"),
         note="torch 2.8.0 beside TF 2.14.1 + tensorflow-metal 1.1.0 on an M1, macOS 15.1.1",
         system=am.mac("15.1.1", "24B91", "sysctl/01-m1-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[am.numpy(), am.torch("2.8.0"), am.tensorflow("2.14.1"), am.tensorflow_metal("1.1.0")]),
    dict(name="m1pro-macos14.2.1-jax-metal-011-needs-14.4", healthy=False, sources=("JM014",),
         ids={"apple-jax-metal-mismatch"}, severity="error",
         note="jax-metal 0.1.1 with jax 0.4.35 (its jax range) on macOS 14.2.1: Sonoma, but older than "
              "the 14.4 the plugin needs",
         system=am.mac("14.2.1", "23C71", "sysctl/02-m1pro-native.txt", "sw_vers/02-14.2.1.txt"),
         dists=[am.numpy(), am.jax("0.4.35"), am.jaxlib("0.4.35"), am.jax_metal("0.1.1")]),
    dict(name="m3max-macos15-torch290-built-without-mps", healthy=False, sources=("NOMPS",),
         ids={"apple-torch-without-mps"}, severity="error",
         note="an arm64 torch 2.9.0 built without MPS (a source build with USE_MPS=0) on macOS 15.1.1",
         system=am.mac("15.1.1", "24B91", "sysctl/05-m3max-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[am.numpy(), am.torch("2.9.0", mps=False)]),
    dict(name="m2max-macos15-tf216-without-tf-metal", healthy=False, sources=("TFNOM",),
         ids={"apple-framework-without-metal-plugin"}, severity="error",
         note="TensorFlow 2.16.2 alone (no tensorflow-metal) on an M2 Max under --expect gpu",
         system=am.mac("15.1.1", "24B91", "sysctl/03-m2max-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[am.numpy(), am.tensorflow("2.16.2")]),
]

# --------------------------------------------------------------------------- Jetson
XAVIER_NX = ("NVIDIA Jetson Xavier NX Developer Kit",                    # composed (p3668-0001)
             ("nvidia,p3509-0000+p3668-0001", "nvidia,p3668-0001", "nvidia,tegra194"))
JP621 = p25.JP621
JP70 = dict(l4t="38.2.0-20250821174705", jetpack="7.0", cuda="13.0.48", cudnn="9.12.0", apt="r38.2")

JETSON = [
    dict(name="xavier-nx-jp512-nv-torch-2.1.0-nv23.06-healthy", healthy=True, sources=("JP", "PTJ"),
         note="Xavier NX on L4T R35.4.1 / JetPack 5.1.2 with NVIDIA's JetPack 5.1.2 wheel",
         system=jm.board(p25.R35_4_1, XAVIER_NX, **jm.JP512), dists=jm.NV_JP512),
    dict(name="xavier-nx-l4t-r35.4.1-no-jetpack-no-cudnn-nv-wheel", healthy=False, sources=("LIBS", "JP"),
         ids={"jetpack-libraries-missing"}, severity="error",
         note="the same board with nvidia-l4t-core only (no nvidia-jetpack, no cuDNN) and NVIDIA's wheel",
         system=jm.board(p25.R35_4_1, XAVIER_NX, **{**jm.JP512, "jetpack": None, "cudnn": None}),
         dists=jm.NV_JP512),
    dict(name="orin-nx-jp512-user-not-in-video", healthy=False, sources=("NVMAP",),
         ids={"jetson-device-access"}, severity="error",
         note="Orin NX on JetPack 5.1.2 with NVIDIA's wheel, /dev/nvmap 0660 video, alice not in video",
         system=jm.board(p25.R35_4_1, p25.ORIN_NX, **jm.JP512, alice_video=False), dists=jm.NV_JP512),
    dict(name="orin-nx-jp62-jp5-nv-wheel", healthy=False, sources=("JP", "PTJ"),
         ids={"jetson-torch-wrong-jetpack"}, severity="error",
         note="NVIDIA's JetPack 5.1.2 wheel (CUDA 11.4) carried over to an Orin NX reflashed with JetPack 6.2",
         system=jm.board(jm.R36_4_3, p25.ORIN_NX, **jm.JP62), dists=jm.NV_JP512),
    dict(name="orin-nx-jp621-ai-lab-torch-2.8.0-healthy", healthy=True, sources=("AIL", "JP"),
         note="Orin NX on L4T R36.4.7 / JetPack 6.2.1 with the Jetson AI Lab jp6/cu126 torch 2.8.0",
         system=jm.board(jm.R36_4_7, p25.ORIN_NX, **JP621), dists=jm.AIL_JP6),
    dict(name="orin-nx-jp62-nv-wheel-healthy", healthy=True, sources=("JP", "PTJ"),
         note="Orin NX on L4T R36.4.3 / JetPack 6.2 with NVIDIA's JetPack 6 wheel (nv24.08)",
         system=jm.board(jm.R36_4_3, p25.ORIN_NX, **jm.JP62), dists=jm.NV_JP61),
    dict(name="orin-nano-jp62-pytorch-cu130-aarch64", healthy=False, sources=("ORIN13", "SBSA"),
         ids={"jetson-foreign-cuda-torch", "jetson-torch-wrong-jetpack"}, severity="error",
         note="download.pytorch.org's aarch64 torch 2.9.0+cu130 on an Orin Nano with JetPack 6.2 (CUDA 12.6)",
         system=jm.board(jm.R36_4_3, jm.ORIN_NANO, **jm.JP62), dists=jm.PT_CU130),
    dict(name="agx-thor-jp70-ai-lab-jp6-torch-2.8.0", healthy=False, sources=("THOR", "AIL"),
         ids={"jetson-torch-wrong-jetpack"}, severity="error",
         note="the Jetson AI Lab jp6/cu126 torch 2.8.0 (CUDA 12.6, JetPack 6 / Orin) on an AGX Thor with "
              "JetPack 7.0 (CUDA 13.0)",
         system=jm.board(jm.R38_2_0, jm.AGX_THOR, **JP70), dists=jm.AIL_JP6),
]

# --------------------------------------------------------------------------- WSL 2
SMI_WSL_5090 = t27("nvidia-smi/01-wsl2-rtx5090-570.124.06-driver-572.70.txt")
SMI_WSL_537 = rec(TOOLS26 / "nvidia-smi/01-wsl2-gtx1650-535.103-driver-537.13.txt")
WSL_LDCONFIG = ["libcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1",
                "libcuda.so (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so"]


def wsl2_without_dxg() -> dict:
    """WSL 2 with the Windows driver's libraries mapped but no /dev/dxg (GPU paravirtualisation off)."""
    machine = pm.wsl(windows_libs=True, linux_driver=False)
    del machine["files"]["dev/dxg"]
    return machine


WSL = [
    dict(name="wsl2-rtx5090-572.70-torch270-cu128-healthy", healthy=True, sources=("WSL", "SM120", "DRV"),
         note="flash-attention#1563's WSL 2 (RTX 5090, Windows driver 572.70, CUDA 12.8) with torch cu128",
         machine=pm.wsl(windows_libs=True, linux_driver=False),
         tools={"nvidia-smi": {"": SMI_WSL_5090}}, ldconfig=WSL_LDCONFIG,
         dists=[pm.torch("2.7.0+cu128", "cp312-cp312-linux_x86_64", cuda="12.8")]),
    dict(name="wsl2-rtx5090-572.70-torch251-cu124", healthy=False, sources=("SM120",),
         ids={"gpu-arch-missing-from-torch-wheel"}, severity="error",
         note="the same WSL 2 with torch 2.5.1+cu124 (no sm_120 code)",
         machine=pm.wsl(windows_libs=True, linux_driver=False),
         tools={"nvidia-smi": {"": SMI_WSL_5090}}, ldconfig=WSL_LDCONFIG,
         dists=[pm.torch("2.5.1+cu124", "cp312-cp312-linux_x86_64", cuda="12.4")]),
    dict(name="wsl2-rtx5090-572.70-torch290-cu130", healthy=False, sources=("CU130", "DRV"),
         ids={"driver-too-old-for-framework-cuda"}, severity="error",
         note="the same WSL 2 with torch 2.9.0+cu130 (needs driver >= 580; 572.70 is CUDA 12.8)",
         machine=pm.wsl(windows_libs=True, linux_driver=False),
         tools={"nvidia-smi": {"": SMI_WSL_5090}}, ldconfig=WSL_LDCONFIG,
         dists=[pm.torch("2.9.0+cu130", "cp312-cp312-linux_x86_64", cuda="13.0")]),
    dict(name="wsl2-rtx5090-cuda-visible-devices-1-of-one-gpu", healthy=False, sources=("CVDX",),
         ids={"cuda-visible-devices-names-missing-gpus", "cuda-visible-devices-hides-all"}, severity="error",
         note="CUDA_VISIBLE_DEVICES=1 (copied from a two-GPU workstation) on the one-GPU WSL 2 machine",
         machine=pm.wsl(windows_libs=True, linux_driver=False), env={"CUDA_VISIBLE_DEVICES": "1"},
         tools={"nvidia-smi": {"": SMI_WSL_5090}}, ldconfig=WSL_LDCONFIG,
         dists=[pm.torch("2.7.0+cu128", "cp312-cp312-linux_x86_64", cuda="12.8")]),
    dict(name="wsl2-windows-libs-but-no-dev-dxg", healthy=False, sources=("DXG", "WSL"),
         ids={"wsl-no-gpu-paravirtualization"}, severity="error",
         note="WSL 2 whose /usr/lib/wsl/lib holds the driver's libcuda but /dev/dxg is missing "
              "(paravirtualisation off); no nvidia-smi on PATH",
         machine=wsl2_without_dxg(), ldconfig=WSL_LDCONFIG,
         dists=[pm.torch("2.7.0+cu128", "cp312-cp312-linux_x86_64", cuda="12.8")]),
    dict(name="wsl2-gtx1650-537.13-torch260-cu118-healthy", healthy=True, sources=("WSL", "DRV"),
         note="microsoft/WSL#11277's GTX 1650 on the 537.13 Windows driver (CUDA 12.2) with torch cu118",
         machine=pm.wsl(windows_libs=True, linux_driver=False),
         tools={"nvidia-smi": {"": SMI_WSL_537}}, ldconfig=WSL_LDCONFIG,
         dists=[pm.torch("2.6.0+cu118", "cp311-cp311-linux_x86_64", cuda="11.8")]),
]

# --------------------------------------------------------------------------- NVIDIA containers
SHM_32G = 33554432
CONTAINERS = [
    dict(name="container-h200-570-ipc-host-torch271-cu128-healthy", healthy=True, sources=("CTK", "SHM", "DRV"),
         note="an H200 container with --gpus all --ipc=host (the host's 32 GiB /dev/shm)",
         machine=p25.container(SHM_32G, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools={"nvidia-smi": {"": rec(DATA / "nvidia-smi/19-h200-570.86.15.txt")}},
         dists=[pm.torch("2.7.1+cu128", "cp312-cp312-linux_x86_64", cuda="12.8")]),
    dict(name="container-rtx4090-580-shm-8g-torch280-cu129-healthy", healthy=True, sources=("CTK", "SHM", "DRV"),
         machine=p25.container(SHM_8G, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools={"nvidia-smi": {"": rec(DATA / "nvidia-smi/15-rtx4090-580-cuda13.txt")}},
         dists=[pm.torch("2.8.0+cu129", "cp312-cp312-linux_x86_64", cuda="12.9")]),
    dict(name="container-l4-570-cgroup-memory-64g-healthy", healthy=True, sources=("CTK", "CG"),
         note="an L4 (24 GB) container with --memory=64g and --shm-size=8g",
         machine=p25.container(SHM_8G, gpus=True, memory_max="68719476736"),
         env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools={"nvidia-smi": {"": rec(DATA / "nvidia-smi/18-l4-570-idle.txt")}},
         dists=[pm.torch("2.6.0+cu124", "cp311-cp311-linux_x86_64", cuda="12.4")]),
    dict(name="container-2x-b200-default-64m-shm", healthy=False, sources=("SHM",),
         ids={"small-dev-shm-in-container"}, severity="error",
         note="a 2x B200 training container started without --shm-size / --ipc=host",
         machine=p25.container(65536, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools={"nvidia-smi": {"": rec(DATA / "nvidia-smi/16-2x-b200-610-kmd-umd-header.txt")}},
         dists=[pm.torch("2.9.0+cu130", "cp312-cp312-linux_x86_64", cuda="13.0")]),
    dict(name="vllm-openai-image-started-without-gpus", healthy=False, sources=("VLLM", "CTK"),
         ids={"container-without-gpu-devices"}, severity="error",
         note="`docker run vllm/vllm-openai` without --gpus: NVIDIA_VISIBLE_DEVICES=all from the image, "
              "no /dev/nvidia*, no nvidia-smi (image env composed from the nvidia/cuda base)",
         machine=p25.container(SHM_8G, gpus=False),
         env={"NVIDIA_VISIBLE_DEVICES": "all", "NVIDIA_DRIVER_CAPABILITIES": "compute,utility",
              "CUDA_VERSION": "12.8.1"},
         dists=[pm.torch("2.7.0+cu128", "cp312-cp312-linux_x86_64", cuda="12.8")]),
    dict(name="container-t4-cuda-visible-devices-empty", healthy=False, sources=("CVDX",),
         ids={"cuda-visible-devices-hides-all"}, severity="error",
         note="a T4 container (--gpus all) whose entrypoint exports CUDA_VISIBLE_DEVICES= (empty)",
         machine=p25.container(SHM_8G, gpus=True),
         env={"NVIDIA_VISIBLE_DEVICES": "all", "CUDA_VISIBLE_DEVICES": ""},
         tools={"nvidia-smi": {"": rec(DATA / "nvidia-smi/17-t4-580-exclusive-process.txt")}},
         dists=[pm.torch("2.7.1+cu126", "cp311-cp311-linux_x86_64", cuda="12.6")]),
]

# --------------------------------------------------------------------------- Intel XPU
def intel_card(device: str, driver: str, alice_in_render: bool = True) -> dict:
    """A bare Linux box with one Intel discrete card (PCI 8086:<device>, display class) bound to
    <driver> (i915 or xe, the sysfs driver link), its render and card nodes 0660 in group render,
    alice in render or not; composed around XPU's / XPERM's stated requirements."""
    files = dict(p25.BARE["files"])
    dev = "sys/bus/pci/devices/0000:03:00.0"
    files.update({f"{dev}/vendor": "0x8086\n", f"{dev}/device": f"0x{device}\n",
                  f"{dev}/class": "0x030000\n", f"sys/module/{driver}/initstate": "live\n",
                  "etc/group": "root:x:0:\nvideo:x:44:alice\nrender:x:{gid}:"
                               + ("alice" if alice_in_render else "") + "\nalice:x:1000:\n",
                  "etc/passwd": "root:x:0:0:root:/root:/bin/bash\n"
                                "alice:x:1000:1000:Alice:/home/alice:/bin/bash\n"})
    return {"files": files, "links": {f"{dev}/driver": f"../../../bus/pci/drivers/{driver}"},
            "nodes": {"dev/dri/renderD128": "0660", "dev/dri/card0": "0660"}}


INTEL = [
    dict(name="arc-b580-xe-torch280-xpu-healthy", healthy=True, sources=("BMG", "XPU"),
         note="an Arc B580 (8086:e20b) under xe with torch 2.8.0+xpu",
         machine=intel_card("e20b", "xe"), dists=[pm.torch("2.8.0+xpu", "cp312-cp312-linux_x86_64")]),
    dict(name="arc-a580-i915-torch260-xpu-healthy", healthy=True, sources=("XPU",),
         note="an Arc A580 (8086:56a2) under i915 with torch 2.6.0+xpu",
         machine=intel_card("56a2", "i915"), dists=[pm.torch("2.6.0+xpu", "cp311-cp311-linux_x86_64")]),
    dict(name="arc-b580-xe-torch270-cpu-wheel", healthy=False, sources=("XPUW", "CPUW"),
         ids={"torch-cuda-wheel-on-intel-gpu", "gpu-expected-but-cpu-only-builds"}, severity="error",
         note="torch 2.7.0+cpu on the B580 box: the XPU wheel is the fix",
         machine=intel_card("e20b", "xe"), dists=[pm.torch("2.7.0+cpu", "cp312-cp312-linux_x86_64")]),
    dict(name="arc-a750-i915-rocm-torch", healthy=False, sources=("XPUW",),
         ids={"torch-cuda-wheel-on-intel-gpu"}, severity="error",
         note="torch 2.5.1+rocm6.2 (the wrong vendor's index) on an Arc A750 (8086:56a1) box",
         machine=intel_card("56a1", "i915"),
         dists=[pm.torch("2.5.1+rocm6.2", "cp311-cp311-linux_x86_64", hip="6.2.41133-dd7f95766")]),
    dict(name="arc-b580-xe-user-not-in-render", healthy=False, sources=("XPERM", "XPU"),
         ids={"intel-gpu-device-access"}, severity="error",
         note="the B580 with torch 2.8.0+xpu, /dev/dri/renderD128 0660 root:render and alice not in "
              "render. No check names Intel device access (unlabelled-check: counts as a miss)",
         machine=intel_card("e20b", "xe", alice_in_render=False),
         dists=[pm.torch("2.8.0+xpu", "cp312-cp312-linux_x86_64")]),
]

# platform -> (builder, machines)
PLATFORMS: dict[str, tuple[str, list[dict]]] = {
    "rocm": ("rocm", ROCM), "rocm-container": ("platform", ROCM_CONTAINERS), "apple": ("apple", APPLE),
    "jetson": ("jetson", JETSON), "wsl": ("platform", WSL), "container": ("platform", CONTAINERS),
    "intel": ("platform", INTEL),
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
