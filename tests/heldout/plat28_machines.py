"""Held-out batch plat28: 46 simulated machines, most of them bare-Linux NVIDIA boxes (26), plus
WSL 2, NVIDIA containers, AMD ROCm, Apple silicon, Jetson and Intel XPU, run as a user runs them:
``check --static --root DIR --format json --expect gpu`` (tests/heldout/test_plat28_matrix.py).

Every machine below was written with its verdict (healthy, or the check ids that name its
problem and the severity they must reach) from the documentation and the threads named, BEFORE
envdoctor was run on any of them; envdoctor had not been run on them when this file was
committed (only the structure tests were). None of these machines is in the earlier sets
(machines, machines2, plat24..plat27, platform_machines, rocm/apple/wsl machines,
tests/probes/jetson_machines, tests/fixtures/machines): new GPU tables (Tesla K80 on 430.50, a
12 GB GeForce on 525.147.05, RTX 4070 on 550.40.07, TITAN Xp on 450.57, an NVML mismatch between
a 550.107.02 user space and a 550.90.07 kernel module) or new combinations of recorded ones. The
builders of the earlier batches lay the machines out (this file only describes them, plus small
helpers for the nvidia-* wheels, jax, TensorFlow and torchvision distributions and for system
libraries). New recordings are in tests/heldout/platform_tools28/<tool>/*.txt with their source
on line 1.

As in every batch, the site-packages are text files: a framework's shared libraries are empty
files, not ELF objects, so nothing here can be read from their dynamic sections; a system library
is a file with the real name and soname links, listed by ``ldconfig -p`` where the row says so.

A label whose check does not exist (no rules/checks/** id for the problem) carries the id one
would expect and ``unlabelled_check=True``: such a row counts as a miss.

Sources for the verdicts (besides each recording's thread; SR, CM, PERM, PT, MPS14, TFM, MPS, JP,
PTJ, AIL, SBSA, WSL, CTK, SHM, CG, DRV, ARCH as in plat25_machines; XPU, JM as in plat26_machines;
CVDX, XPUW, BMG as in plat27_machines):
 K80   the Tesla K80 is Kepler (sm_37); CUDA 12.0 removed Kepler (no sm_35/sm_37 target), so no
       cu12x torch wheel has code for it, and a CUDA 12.x wheel needs driver >= 525.60.13 (DRV);
       430.50 is CUDA 10.1's driver:
       https://docs.nvidia.com/cuda/archive/12.0.0/cuda-toolkit-release-notes/index.html
       (deprecated or dropped architectures), https://docs.nvidia.com/deploy/cuda-compatibility/
 PASCAL torch 2.8's CUDA 12.8 / 12.9 builds dropped Maxwell and Pascal ("support for sm50 - sm70
       architectures with CUDA 12.8 and 12.9 has been dropped for the 2.8.0 release ... please
       utilize CUDA 12.6", the v2.8.0 release notes as quoted in
       https://github.com/easydiffusion/torchruntime/issues/22); the 2.8 cu128 arch list is
       sm_70 .. sm_120 (https://github.com/pytorch/pytorch/pull/158700)
 PT171 torch 1.7.1 from PyPI is the CUDA 10.2 build, arch list sm_37 sm_50 sm_60 sm_70 sm_75
       (https://github.com/pytorch/pytorch/issues/52736); sm_60 cubins run on sm_61 (binary
       compatibility within a major); CUDA 10.2 needs driver >= 440.33 (DRV, Table 3)
 COMPAT the CUDA forward-compatibility package (cuda-compat-<major>-<minor>, its libcuda under
       /usr/local/cuda-X.Y/compat put first on LD_LIBRARY_PATH) is for data-center GPUs, select NGC
       Server Ready RTX SKUs and Jetson only; on a GeForce CUDA fails with error 804
       cudaErrorCompatNotSupportedOnDevice "forward compatibility was attempted on non supported
       HW": https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html ,
       https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html ,
       https://github.com/DeepVAC/TorchPod/issues/43 (GTX 1650, torch: Error 804); a CUDA 12.8
       wheel on 525.147.05 needs no compat package at all (minor-version compatibility, DRV)
 NP2TF TensorFlow before 2.18 is built against NumPy 1.x: "A module that was compiled using NumPy
       1.x cannot be run in NumPy 2" (https://github.com/tensorflow/tensorflow/issues/102743 ,
       TF 2.14 with numpy 2.3.4); NumPy 2 support came with 2.18
       (https://github.com/tensorflow/tensorflow/releases/tag/v2.18.0)
 NP2PT torch supports NumPy 2 from 2.3.0; a torch built against NumPy 1 (2.2 and older) fails
       the same way under NumPy 2: https://github.com/pytorch/pytorch/issues/107302
 NVMLM "Failed to initialize NVML: Driver/library version mismatch" (nvidia-smi exit 18): the
       driver's user-space libraries were upgraded (550.107.02) while the loaded kernel module is
       older (550.90.07); nothing reaches the GPU until a reboot (or module reload):
       https://github.com/oddmario/NVIDIA-Ubuntu-Driver-Guide/issues/4 ,
       https://github.com/canonical/ubuntu-server-documentation/pull/369
 DNNLD torch checks cuDNN at first use: within one major the runtime minor must be >= the one it
       was built with, else "cuDNN version incompatibility: PyTorch was compiled against ... but
       found runtime version ... Looks like your LD_LIBRARY_PATH contains incompatible version of
       cudnn" (https://github.com/pytorch/pytorch/pull/80877 ,
       https://github.com/pytorch/pytorch/pull/104757); LD_LIBRARY_PATH is searched before
       DT_RUNPATH (ld.so(8)), and the wheels find their nvidia-* libraries through DT_RUNPATH
 DNNSO each cuDNN major has its own soname (libcudnn.so.8, libcudnn.so.9); a system cuDNN 8 in
       the ld.so cache cannot stand in for a cuDNN 9 a wheel asks for, and DT_RUNPATH comes before
       the cache anyway (ld.so(8); https://docs.nvidia.com/deeplearning/cudnn/backend/latest/reference/support-matrix.html)
 DNN9  cuDNN 9.x libraries serve builds of 9.y with y <= x (same support matrix): TF built with
       9.3 runs on the 9.5 that torch 2.7.1+cu126 pins
 NCCLS torch 2.2 and later call ncclCommRegister, added in NCCL 2.19
       (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/api/comms.html); an older
       libnccl.so.2 first on LD_LIBRARY_PATH (before the wheel's DT_RUNPATH) makes `import torch`
       fail with "libtorch_cuda.so: undefined symbol: ncclCommRegister"
       (https://github.com/pytorch/pytorch/issues/119932: "another package that also provides the
       NCCL library, but the versions are incompatible")
 JAXM  the CUDA plugin and PJRT packages must be the version of jaxlib; plugins from 0.4.32 on with
       an older jax/jaxlib segfault as soon as an array is made (earlier: "Mismatched PJRT plugin
       PJRT API version"): https://github.com/jax-ml/jax/issues/24901
 JAXI  `pip install jax` is the CPU build; NVIDIA GPUs need jax[cuda12] (driver >= 525, SM >= 5.2)
       or jax[cuda13] (driver >= 580, SM >= 7.5), the plugin version equal to jaxlib's:
       https://docs.jax.dev/en/latest/installation.html#nvidia-gpu
 MIG   with MIG enabled a CUDA process enumerates one MIG device (R525+: "a single CUDA process can
       only enumerate a single MIG device"), and CUDA runs there:
       https://docs.nvidia.com/datacenter/tesla/mig-user-guide/index.html#cuda-visible-devices
 TV    each torchvision release pairs with one torch release (0.20 <-> 2.5, 0.23 <-> 2.8); a
       torchvision built for another torch fails its C++ ops ("operator torchvision::nms does not
       exist"): https://github.com/pytorch/vision#installation
 BW    Blackwell (B200 sm_100, RTX 50 sm_120) needs CUDA 12.8+ builds; torch's CUDA 12.6 builds
       carry Maxwell(5.0) .. Hopper(9.0) only: https://github.com/pytorch/pytorch/issues/172352
       (support matrix), https://docs.nvidia.com/cuda/blackwell-compatibility-guide/
 TFB   TensorFlow tested builds: 2.16 / 2.17 CUDA 12.3 cuDNN 8.9; 2.19 / 2.20 CUDA 12.5 cuDNN 9.3;
       [and-cuda] brings the libraries; Linux driver >= 525.60.13, WSL 2 on Windows driver >= 528.33:
       https://www.tensorflow.org/install/source#gpu , https://www.tensorflow.org/install/pip
 NODRV an NVIDIA display function on the PCI bus but no nvidia kernel module loaded (a kernel
       update the DKMS module was not built for, or Secure Boot refusing an unsigned module):
       nvidia-smi "couldn't communicate with the NVIDIA driver", no /proc/driver/nvidia, CUDA finds
       no device: https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/index.html
 VOID  NVIDIA_VISIBLE_DEVICES=void (or empty) makes the NVIDIA runtime behave as runc: no GPU and
       no driver capability in the container:
       https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html
 NVUNK "Failed to initialize NVML: Unknown Error" inside a running GPU container once systemd
       re-evaluated the cgroup device rules (daemon-reload): the container has lost the GPU until
       restarted: https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/troubleshooting.html
 MI325 Instinct MI325X is gfx942, supported from ROCm 6.3 (SR)
 W7800 Radeon PRO W7800 is gfx1100, on ROCm's Radeon PRO support list (SR)
 G1031 RX 6700 XT (gfx1031) is in no ROCm 6.x support list and no PyTorch ROCm wheel's arch list;
       HSA_OVERRIDE_GFX_VERSION=10.3.0 is the documented way to run gfx1030 code on it
       (https://github.com/ollama/ollama/blob/main/docs/gpu.md , overrides), without it "HIP error:
       invalid device function" (SR)
 TFMOS tensorflow-metal needs macOS 12.0 or later (Apple's requirements,
       https://developer.apple.com/metal/tensorflow-plugin/); 1.1.0 pairs with TF 2.14 (TFM)
 ORINJ5 the Jetson AI Lab jp6/cu126 wheels are built for JetPack 6 (L4T R36, CUDA 12.6, Ubuntu
       22.04); JetPack 5.1.2 is L4T R35.4.1 with CUDA 11.4 (JP, AIL)
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
TOOLS28 = HERE / "platform_tools28"
TOOLS26 = HERE / "platform_tools26"
TOOLS25 = HERE / "platform_tools25"
PLATFORM_TOOLS = HERE / "platform_tools"
DATA = HERE.parents[0] / "data" / "tools"
rec = p25.rec


def t28(rel: str) -> str:
    return rec(TOOLS28 / rel)


def smi(path: Path) -> dict:
    return {"nvidia-smi": {"": rec(path)}}


# --------------------------------------------------------------------------- distributions
CP312 = "cp312-cp312-linux_x86_64"
MANY = "cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64"


def nvw(name: str, version: str, folder: str, lib: str) -> dict:
    """An nvidia-* wheel as PyPI lays it out (nvidia/<folder>/lib/<soname>)."""
    return pm.dist(name, version, "py3-none-manylinux2014_x86_64", {f"nvidia/{folder}/lib/{lib}": ""},
                   "nvidia")


def cu12(cudnn: str, runtime: str, cublas: str, nccl: str) -> list[dict]:
    return [nvw("nvidia-cudnn-cu12", cudnn, "cudnn", f"libcudnn.so.{cudnn.split('.')[0]}"),
            nvw("nvidia-cuda-runtime-cu12", runtime, "cuda_runtime", "libcudart.so.12"),
            nvw("nvidia-cublas-cu12", cublas, "cublas", "libcublas.so.12"),
            nvw("nvidia-nccl-cu12", nccl, "nccl", "libnccl.so.2")]


def torch_cu(version: str, cuda: str, libs: tuple[str, str, str, str] | None = None) -> list[dict]:
    """A download.pytorch.org CUDA torch (+cuXYZ), with the nvidia-*-cu12 wheels it pins."""
    dists = [pm.torch(version, CP312, cuda=cuda)]
    if libs:
        dists += cu12(*libs)
    return dists


def numpy(version: str) -> dict:
    return pm.numpy(version, "cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64")


def torchvision(version: str, cuda: str) -> dict:
    return pm.dist("torchvision", version, CP312,
                   {"torchvision/__init__.py": "",
                    "torchvision/version.py": f"__version__ = '{version}'\ngit_version = "
                                              f"'0123456789abcdef0123456789abcdef01234567'\ncuda = '{cuda}'\n",
                    "torchvision/_C.so": ""}, "torchvision")


TF_CAPS = ["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"]


def tensorflow(version: str, cuda: str, cudnn: str) -> dict:
    info = ("import collections\n\nbuild_info = collections.OrderedDict([('cpu_compiler', "
            "'/usr/lib/llvm-18/bin/clang'), "
            f"('cuda_compute_capabilities', {TF_CAPS!r}), ('cuda_version', '{cuda}'), "
            f"('cudnn_version', '{cudnn}'), ('is_cuda_build', True), ('is_rocm_build', False), "
            "('is_tensorrt_build', False)])\n")
    return pm.dist("tensorflow", version, MANY,
                   {"tensorflow/__init__.py": f"__version__ = '{version}'\n",
                    "tensorflow/python/platform/build_info.py": info}, "tensorflow")


def tf_and_cuda(version: str, keras: str, numpy_version: str) -> list[dict]:
    """tensorflow[and-cuda] as pip installs it: TF, its CUDA wheels, Keras, NumPy."""
    if version.startswith(("2.16", "2.17")):
        tf, libs = tensorflow(version, "12.3", "8"), cu12("8.9.7.29", "12.3.101", "12.3.4.1", "2.19.3")
    else:
        tf, libs = tensorflow(version, "12.5.1", "9"), cu12("9.3.0.75", "12.5.82", "12.5.3.2", "2.21.5")
    return [tf, *libs, pm.dist("keras", keras, "py3-none-any", {"keras/__init__.py": ""}, "keras"),
            numpy(numpy_version)]


def jax_cuda(version: str, major: int, plugin: str | None = None, cudnn: str = "9.8.0.87",
             runtime: str = "12.8.90", with_plugin: bool = True) -> list[dict]:
    """jax[cudaNN] as pip installs it (or, with_plugin=False, plain `pip install jax`)."""
    p = plugin or version
    dists = [pm.dist("jax", version, "py3-none-any",
                     {"jax/__init__.py": "", "jax/version.py": f"_version = '{version}'\n"}, "jax"),
             pm.dist("jaxlib", version, MANY,
                     {"jaxlib/__init__.py": "", "jaxlib/version.py": f"_version = '{version}'\n"},
                     "jaxlib"),
             numpy("2.2.6")]
    if not with_plugin:
        return dists
    dists += [pm.dist(f"jax-cuda{major}-plugin", p, MANY, {f"jax_cuda{major}_plugin/__init__.py": ""},
                      f"jax_cuda{major}_plugin"),
              pm.dist(f"jax-cuda{major}-pjrt", p, "py3-none-manylinux2014_x86_64",
                      {f"jax_plugins/xla_cuda{major}/__init__.py": ""}, "jax_plugins")]
    if major >= 13:
        dists += [nvw("nvidia-cudnn-cu13", cudnn, "cudnn", "libcudnn.so.9"),
                  nvw("nvidia-cuda-runtime", runtime, "cu13", "libcudart.so.13")]
    else:
        dists += [nvw("nvidia-cudnn-cu12", cudnn, "cudnn", "libcudnn.so.9"),
                  nvw("nvidia-cuda-runtime-cu12", runtime, "cuda_runtime", "libcudart.so.12")]
    return dists


T251_CU124_LIBS = ("9.1.0.70", "12.4.127", "12.4.5.8", "2.21.5")
T260_CU124_LIBS = T251_CU124_LIBS
T271_CU126_LIBS = ("9.5.1.17", "12.6.77", "12.6.4.1", "2.26.2")


# --------------------------------------------------------------------------- machines
BARE = p25.BARE
SMI_K80 = TOOLS28 / "nvidia-smi/01-tesla-k80-430.50-azure.txt"
SMI_GEFORCE_525 = TOOLS28 / "nvidia-smi/02-geforce-12gb-525.147.05.txt"
SMI_RTX4070 = TOOLS28 / "nvidia-smi/03-rtx4070-550.40.07.txt"
SMI_TITANXP = TOOLS28 / "nvidia-smi/04-titan-xp-450.57.txt"
SMI_H100 = DATA / "nvidia-smi/01-h100-590-idle-no-processes.txt"
SMI_H100_MIG = DATA / "nvidia-smi/02-h100-mig-590-idle.txt"
SMI_L40S = DATA / "nvidia-smi/04-l40s-595-load.txt"
SMI_8X_H100 = DATA / "nvidia-smi/12-8x-h100-565-no-processes.txt"
SMI_8X_4090 = DATA / "nvidia-smi/13-8x-rtx4090-550.txt"
SMI_4X_A100 = DATA / "nvidia-smi/14-4x-a100-sxm4-555.txt"
SMI_4090_580 = DATA / "nvidia-smi/15-rtx4090-580-cuda13.txt"
SMI_2X_B200 = DATA / "nvidia-smi/16-2x-b200-610-kmd-umd-header.txt"
SMI_H200 = DATA / "nvidia-smi/19-h200-570.86.15.txt"
SMI_5090D = TOOLS25 / "nvidia-smi/01-rtx5090d-570.124.04-composed.txt"


def bare(files: dict[str, str] | None = None, links: dict[str, str] | None = None,
         nodes: bool = False) -> dict:
    """Bare Ubuntu (plat25's kernel line) with extra system files, symlinks and, where asked,
    the /dev/nvidia* nodes a loaded driver creates (0666, the driver's default)."""
    machine: dict = {"files": {**BARE["files"], **(files or {})}, "links": dict(links or {})}
    if nodes:
        machine["nodes"] = {"dev/nvidia0": "0666", "dev/nvidiactl": "0666", "dev/nvidia-uvm": "0666"}
    return machine


def system_lib(folder: str, real: str, soname: str) -> tuple[dict[str, str], dict[str, str]]:
    """A system library file under ``folder`` and its soname link (as the package installs it)."""
    return {f"{folder}/{real}": ""}, {f"{folder}/{soname}": real}


# cuDNN 9.0.0 copied into the CUDA 12.4 toolkit's lib64 (the tarball way), on LD_LIBRARY_PATH
_DNN90_FILES, _DNN90_LINKS = system_lib("usr/local/cuda-12.4/lib64", "libcudnn.so.9.0.0", "libcudnn.so.9")
CUDNN90_ON_LDPATH = bare({**_DNN90_FILES, "usr/local/cuda-12.4/lib64/libcudart.so.12.4.127": "",
                          "usr/local/cuda-12.4/version.json": '{"cuda" : {"name" : "CUDA SDK", '
                                                              '"version" : "12.4.1"}}\n'},
                         _DNN90_LINKS)
# libcudnn8 8.9.7 from the CUDA apt repository, in the ld.so cache, no LD_LIBRARY_PATH
_DNN8_FILES, _DNN8_LINKS = system_lib("usr/lib/x86_64-linux-gnu", "libcudnn.so.8.9.7", "libcudnn.so.8")
CUDNN8_IN_CACHE = bare(_DNN8_FILES, _DNN8_LINKS)
LDCONFIG_CUDNN8 = ["libcudnn.so.8 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.8"]
# NCCL 2.18.3 from NVIDIA's tarball under /opt, its lib folder exported on LD_LIBRARY_PATH
NCCL_DIR = "opt/nccl_2.18.3-1+cuda12.2_x86_64/lib"
_NCCL_FILES, _NCCL_LINKS = system_lib(NCCL_DIR, "libnccl.so.2.18.3", "libnccl.so.2")
NCCL218_ON_LDPATH = bare(_NCCL_FILES, _NCCL_LINKS)
# cuda-compat-12-8 (the 12.8 Update 1 driver's libcuda, 570.124.06) on a GeForce box
COMPAT = "usr/local/cuda-12.8/compat"
CUDA_COMPAT_ON_GEFORCE = bare(
    {f"{COMPAT}/libcuda.so.570.124.06": "", f"{COMPAT}/libnvidia-ptxjitcompiler.so.570.124.06": "",
     "usr/lib/x86_64-linux-gnu/libcuda.so.525.147.05": ""},
    {f"{COMPAT}/libcuda.so.1": "libcuda.so.570.124.06", f"{COMPAT}/libcuda.so": "libcuda.so.1",
     f"{COMPAT}/libnvidia-ptxjitcompiler.so.1": "libnvidia-ptxjitcompiler.so.570.124.06",
     "usr/lib/x86_64-linux-gnu/libcuda.so.1": "libcuda.so.525.147.05"})
LDCONFIG_DRIVER_525 = ["libcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1"]
# the 550 driver whose user space was upgraded under a loaded 550.90.07 module
NVML_MISMATCH = bare({"proc/driver/nvidia/version": t28("proc-driver-version/01-kernel-module-550.90.07.txt")},
                     nodes=True)
# an RTX 4090 (10de:2684) on the PCI bus, no nvidia module loaded
NO_MODULE = bare({"sys/bus/pci/devices/0000:01:00.0/vendor": "0x10de\n",
                  "sys/bus/pci/devices/0000:01:00.0/device": "0x2684\n",
                  "sys/bus/pci/devices/0000:01:00.0/class": "0x030000\n",
                  "sys/module/nouveau/initstate": "live\n"})

NVIDIA = [
    # ---- healthy
    dict(name="h100-590-tf220-and-cuda-with-torch271-cu126-cudnn95-healthy", healthy=True,
         sources=("TFB", "DNN9", "DRV", "ARCH"),
         note="TF 2.20 [and-cuda] (built with cuDNN 9.3) beside torch 2.7.1+cu126, whose pin left "
              "nvidia-cudnn-cu12 9.5.1.17: a newer 9.x serves the 9.3 build; driver 590 (CUDA 13.1)",
         machine=BARE, tools=smi(SMI_H100),
         dists=[tensorflow("2.20.0", "12.5.1", "9"), *torch_cu("2.7.1+cu126", "12.6", T271_CU126_LIBS),
                pm.dist("keras", "3.11.3", "py3-none-any", {"keras/__init__.py": ""}, "keras"),
                numpy("2.1.3")]),
    dict(name="8x-h100-565-torch271-cu128-minor-compat-healthy", healthy=True, sources=("DRV", "ARCH"),
         note="driver 565.57.01 (CUDA 12.7) under a cu128 wheel: minor-version compatibility (>= 525.60.13)",
         machine=BARE, tools=smi(SMI_8X_H100), dists=torch_cu("2.7.1+cu128", "12.8")),
    dict(name="8x-h100-565-cuda-visible-devices-4-7-healthy", healthy=True, sources=("CVDX", "DRV"),
         note="CUDA_VISIBLE_DEVICES=4,5,6,7 on the eight-GPU box: the upper half, all present",
         machine=BARE, env={"CUDA_VISIBLE_DEVICES": "4,5,6,7"}, tools=smi(SMI_8X_H100),
         dists=torch_cu("2.6.0+cu126", "12.6")),
    dict(name="h200-570-jax053-cuda12-healthy", healthy=True, sources=("JAXI", "DRV"),
         note="jax/jaxlib 0.5.3 with jax-cuda12-plugin/pjrt 0.5.3 on an H200, driver 570.86.15",
         machine=BARE, tools=smi(SMI_H200), dists=jax_cuda("0.5.3", 12)),
    dict(name="l40s-595-tf219-and-cuda-healthy", healthy=True, sources=("TFB", "DRV"),
         note="TF 2.19.0 [and-cuda] (CUDA 12.5, cuDNN 9.3 wheels) with NumPy 2.1 on an L40S, driver 595",
         machine=BARE, tools=smi(SMI_L40S), dists=tf_and_cuda("2.19.0", "3.9.2", "2.1.3")),
    dict(name="2x-b200-610-torch280-cu129-torchvision023-healthy", healthy=True, sources=("BW", "TV", "DRV"),
         note="torch 2.8.0+cu129 (sm_100 in its arch list) with its torchvision 0.23.0 on 2x B200",
         machine=BARE, tools=smi(SMI_2X_B200),
         dists=[*torch_cu("2.8.0+cu129", "12.9"), torchvision("0.23.0+cu129", "12.9")]),
    dict(name="4x-a100-555-torch280-cu128-minor-compat-healthy", healthy=True, sources=("DRV", "ARCH"),
         note="driver 555 (CUDA 12.5) under a cu128 wheel: minor-version compatibility; A100 sm_80",
         machine=BARE, tools=smi(SMI_4X_A100), dists=torch_cu("2.8.0+cu128", "12.8")),
    dict(name="rtx5090d-570-torch270-cu128-healthy", healthy=True, sources=("BW", "DRV"),
         note="pytorch#150733's RTX 5090 D (table composed in plat25) with the cu128 wheel its thread "
              "moved to",
         machine=BARE, tools=smi(SMI_5090D), dists=torch_cu("2.7.0+cu128", "12.8")),
    dict(name="titan-xp-450.57-torch171-pypi-cu102-healthy", healthy=True, sources=("PT171", "DRV"),
         note="a TITAN Xp (sm_61) on 450.57 (CUDA 11.0) with PyPI's torch 1.7.1 (CUDA 10.2 build, sm_60 "
              "cubins): an old box, nothing wrong with it",
         machine=BARE, tools=smi(SMI_TITANXP),
         dists=[pm.torch("1.7.1", "cp38-cp38-manylinux1_x86_64", cuda="10.2"),
                pm.numpy("1.19.5", "cp38-cp38-manylinux2010_x86_64")]),
    dict(name="geforce-12gb-525.147-torch251-cu124-minor-compat-healthy", healthy=True, sources=("DRV",),
         note="a 12 GB GeForce (170 W, RTX 3060 class) on 525.147.05 (CUDA 12.0) with torch "
              "2.5.1+cu124: minor-version compatibility, no compat package",
         machine=BARE, tools=smi(SMI_GEFORCE_525), dists=torch_cu("2.5.1+cu124", "12.4")),
    dict(name="rtx4070-550.40-torch260-cu124-numpy2-healthy", healthy=True, sources=("NP2PT", "DRV"),
         note="torch 2.6.0+cu124 with NumPy 2.2.6 on an RTX 4070, driver 550.40.07 (CUDA 12.4)",
         machine=BARE, tools=smi(SMI_RTX4070),
         dists=[*torch_cu("2.6.0+cu124", "12.4", T260_CU124_LIBS), numpy("2.2.6")]),
    dict(name="rtx4090-580-system-cudnn8-in-cache-torch260-cu124-healthy", healthy=True,
         sources=("DNNSO", "DRV"),
         note="libcudnn8 8.9.7 from the CUDA apt repository in the ld.so cache (no LD_LIBRARY_PATH) "
              "beside torch 2.6.0+cu124 with nvidia-cudnn-cu12 9.1: another soname, never loaded",
         machine=CUDNN8_IN_CACHE, tools=smi(SMI_4090_580), ldconfig=LDCONFIG_CUDNN8,
         dists=torch_cu("2.6.0+cu124", "12.4", T260_CU124_LIBS)),
    dict(name="h100-mig-590-four-instances-jax072-cuda13-healthy", healthy=True, sources=("MIG", "JAXI"),
         note="an H100 in MIG mode with four GPU instances (recorded); jax 0.7.2 [cuda13] runs on the "
              "MIG device CUDA enumerates; driver 590 >= 580, SM 9.0 >= 7.5",
         machine=BARE, tools=smi(SMI_H100_MIG),
         dists=jax_cuda("0.7.2", 13, cudnn="9.13.0.50", runtime="13.0.96")),
    # ---- broken
    dict(name="tesla-k80-430.50-torch212-cu121", healthy=False, sources=("K80", "DRV"),
         ids={"driver-too-old-for-framework-cuda", "gpu-arch-missing-from-torch-wheel"}, severity="error",
         note="an Azure K80 (sm_37) on driver 430.50 (CUDA 10.1) with torch 2.1.2+cu121: below the 12.x "
              "floor, and no CUDA 12 build has Kepler code",
         machine=BARE, tools=smi(SMI_K80), dists=torch_cu("2.1.2+cu121", "12.1")),
    dict(name="titan-xp-450.57-torch280-cu128", healthy=False, sources=("PASCAL", "DRV"),
         ids={"driver-too-old-for-framework-cuda", "gpu-arch-missing-from-torch-wheel"}, severity="error",
         note="the TITAN Xp box with torch 2.8.0+cu128: driver 450.57 is below 525.60.13 and the 2.8 "
              "cu128 build has no Pascal code",
         machine=BARE, tools=smi(SMI_TITANXP), dists=torch_cu("2.8.0+cu128", "12.8")),
    dict(name="geforce-525.147-cuda-compat-12-8-on-ld-library-path", healthy=False, sources=("COMPAT",),
         ids={"cuda-forward-compat-on-unsupported-gpu"}, severity="error",
         note="cuda-compat-12-8 installed and /usr/local/cuda-12.8/compat exported first on "
              "LD_LIBRARY_PATH (the forward-compatibility recipe) on the GeForce box with torch "
              "2.7.0+cu128: CUDA error 804. No check names forward compatibility on an unsupported "
              "GPU (unlabelled-check: counts as a miss)",
         machine=CUDA_COMPAT_ON_GEFORCE, env={"LD_LIBRARY_PATH": "/usr/local/cuda-12.8/compat"},
         tools=smi(SMI_GEFORCE_525), ldconfig=LDCONFIG_DRIVER_525, dists=torch_cu("2.7.0+cu128", "12.8")),
    dict(name="rtx4070-550.40-tf216-and-cuda-numpy2", healthy=False, sources=("NP2TF", "TFB"),
         ids={"numpy2-with-numpy1-builds"}, severity="error",
         note="TF 2.16.2 [and-cuda] (built against NumPy 1) with NumPy 2.1.3 installed over it",
         machine=BARE, tools=smi(SMI_RTX4070), dists=tf_and_cuda("2.16.2", "3.3.3", "2.1.3")),
    dict(name="nvml-mismatch-550.107-userspace-550.90-module", healthy=False, sources=("NVMLM",),
         ids={"nvml-driver-library-mismatch"}, severity="error",
         note="nvidia-driver-550 upgraded to 550.107.02 while 550.90.07 stays loaded (recorded "
              "/proc/driver/nvidia/version); nvidia-smi exits 18",
         machine=NVML_MISMATCH,
         tools={"nvidia-smi": {"*": (t28("nvidia-smi/05-nvml-mismatch-550.107.02-userspace.txt"), 18)}},
         dists=torch_cu("2.6.0+cu124", "12.4")),
    dict(name="4x-a100-555-cuda-visible-devices-4-7", healthy=False, sources=("CVDX",),
         ids={"cuda-visible-devices-names-missing-gpus", "cuda-visible-devices-hides-all"}, severity="error",
         note="CUDA_VISIBLE_DEVICES=4,5,6,7 copied from an eight-GPU node's job script to a four-GPU "
              "A100 box: index 4 is invalid, so it and all after it are dropped; none visible",
         machine=BARE, env={"CUDA_VISIBLE_DEVICES": "4,5,6,7"}, tools=smi(SMI_4X_A100),
         dists=torch_cu("2.8.0+cu128", "12.8")),
    dict(name="rtx4090-580-system-cudnn90-on-ld-library-path-torch271-cu126", healthy=False,
         sources=("DNNLD",), ids={"system-cudnn-shadows-wheel", "system-library-will-shadow-wheel"},
         severity="warning",
         note="cuDNN 9.0.0 copied into /usr/local/cuda-12.4/lib64, exported on LD_LIBRARY_PATH; torch "
              "2.7.1+cu126 was built with 9.5 and its wheel brings 9.5.1.17: the system 9.0 is found "
              "first and cuDNN calls fail ('compiled against (9, 5, 1) but found runtime version (9, "
              "0, 0)'); torch itself and non-cuDNN kernels still run, hence a warning",
         machine=CUDNN90_ON_LDPATH, env={"LD_LIBRARY_PATH": "/usr/local/cuda-12.4/lib64"},
         tools=smi(SMI_4090_580), dists=torch_cu("2.7.1+cu126", "12.6", T271_CU126_LIBS)),
    dict(name="8x-rtx4090-550-nccl-2.18-on-ld-library-path-torch251-cu124", healthy=False,
         sources=("NCCLS",), ids={"system-library-will-shadow-wheel"}, severity="error",
         note="NVIDIA's NCCL 2.18.3 tarball under /opt, its lib on LD_LIBRARY_PATH (for nccl-tests); "
              "torch 2.5.1+cu124's wheel brings NCCL 2.21.5; the 2.18 libnccl.so.2 is found first "
              "and `import torch` fails on ncclCommRegister",
         machine=NCCL218_ON_LDPATH, env={"LD_LIBRARY_PATH": "/" + NCCL_DIR},
         tools=smi(SMI_8X_4090), dists=torch_cu("2.5.1+cu124", "12.4", T251_CU124_LIBS)),
    dict(name="h200-570-jax0431-with-cuda12-plugin-0435", healthy=False, sources=("JAXM", "JAXI"),
         ids={"jax-jaxlib-plugin-version-mismatch"}, severity="error",
         note="jax/jaxlib 0.4.31 (pinned by a later install) under jax-cuda12-plugin/pjrt 0.4.35",
         machine=BARE, tools=smi(SMI_H200), dists=jax_cuda("0.4.31", 12, plugin="0.4.35", cudnn="9.5.1.17",
                                                            runtime="12.6.77")),
    dict(name="2x-b200-610-plain-pip-install-jax-no-cuda-plugin", healthy=False, sources=("JAXI",),
         ids={"jaxlib-without-cuda-plugin-on-gpu-host"}, severity="error",
         note="`pip install jax` (0.6.2, no [cuda12]/[cuda13] extra) on a 2x B200 box under --expect gpu",
         machine=BARE, tools=smi(SMI_2X_B200), dists=jax_cuda("0.6.2", 12, with_plugin=False)),
    dict(name="2x-b200-610-torch280-cu128-torchvision020", healthy=False, sources=("TV",),
         ids={"torch-torchvision-torchaudio-mismatch"}, severity="error",
         note="torch upgraded to 2.8.0+cu128 while torchvision 0.20.1+cu124 (built for torch 2.5) stayed",
         machine=BARE, tools=smi(SMI_2X_B200),
         dists=[*torch_cu("2.8.0+cu128", "12.8"), torchvision("0.20.1+cu124", "12.4")]),
    dict(name="2x-b200-610-torch271-cu126", healthy=False, sources=("BW",),
         ids={"gpu-arch-missing-from-torch-wheel"}, severity="error",
         note="torch 2.7.1+cu126 (Maxwell .. Hopper) on B200s (sm_100)",
         machine=BARE, tools=smi(SMI_2X_B200), dists=torch_cu("2.7.1+cu126", "12.6", T271_CU126_LIBS)),
    dict(name="rtx4090-on-pci-nvidia-module-not-loaded", healthy=False, sources=("NODRV",),
         ids={"gpu-on-pci-without-driver", "cuda-torch-without-nvidia-driver",
              "probe-failure-names-known-state"}, severity="error",
         note="an RTX 4090 (10de:2684) on the PCI bus, nouveau live, no nvidia module and no "
              "/proc/driver/nvidia; nvidia-smi cannot reach a driver (exit 9); torch 2.6.0+cu124 "
              "(PCI layout composed)",
         machine=NO_MODULE, tools={"nvidia-smi": {"*": (rec(DATA / "nvidia-smi/09-failed-communicate-driver.txt"), 9)}},
         dists=torch_cu("2.6.0+cu124", "12.4")),
]

# --------------------------------------------------------------------------- WSL 2
SMI_WSL_2060 = PLATFORM_TOOLS / "nvidia-smi/01-wsl2-rtx2060-laptop-535-driver-537.txt"
SMI_WSL_1650 = TOOLS26 / "nvidia-smi/01-wsl2-gtx1650-535.103-driver-537.13.txt"
SMI_WSL_3070 = DATA / "nvidia-smi/08-rtx3070-wsl-530-driver-531.txt"
WSL_LDCONFIG = p27.WSL_LDCONFIG


def wsl2() -> dict:
    return pm.wsl(windows_libs=True, linux_driver=False)


WSL = [
    dict(name="wsl2-rtx2060-laptop-537-tf2171-and-cuda-healthy", healthy=True, sources=("TFB", "WSL"),
         note="TF 2.17.1 [and-cuda] in WSL 2 on the Windows 537.42 driver (CUDA 12.2, >= 528.33)",
         machine=wsl2(), tools=smi(SMI_WSL_2060), ldconfig=WSL_LDCONFIG,
         dists=tf_and_cuda("2.17.1", "3.6.0", "1.26.4")),
    dict(name="wsl2-gtx1650-537.13-torch271-cu126-healthy", healthy=True, sources=("WSL", "DRV"),
         note="a GTX 1650 (sm_75) in WSL 2 on Windows driver 537.13 (CUDA 12.2) with torch 2.7.1+cu126",
         machine=wsl2(), tools=smi(SMI_WSL_1650), ldconfig=WSL_LDCONFIG,
         dists=torch_cu("2.7.1+cu126", "12.6", T271_CU126_LIBS)),
    dict(name="wsl2-rtx2060-laptop-537-torch251-cpu-wheel", healthy=False, sources=("PT", "WSL"),
         ids={"gpu-expected-but-cpu-only-builds", "torch-cpu-build-on-gpu-host"}, severity="error",
         note="torch 2.5.1+cpu (the CPU index) in the WSL 2 distribution whose GPU works",
         machine=wsl2(), tools=smi(SMI_WSL_2060), ldconfig=WSL_LDCONFIG,
         dists=[pm.torch("2.5.1+cpu", CP312)]),
    dict(name="wsl2-rtx3070-531-jax072-cuda13", healthy=False, sources=("JAXI", "WSL"),
         ids={"driver-too-old-for-framework-cuda"}, severity="error",
         note="jax 0.7.2 [cuda13] in WSL 2 on the Windows 531.68 driver (CUDA 12.1): CUDA 13 needs 580+",
         machine=wsl2(), tools=smi(SMI_WSL_3070), ldconfig=WSL_LDCONFIG,
         dists=jax_cuda("0.7.2", 13, cudnn="9.13.0.50", runtime="13.0.96")),
]

# --------------------------------------------------------------------------- NVIDIA containers
SHM_16G = 16777216
SHM_HOST_64G = 65945616

CONTAINERS = [
    dict(name="container-4x-a100-555-shm-16g-torch260-cu126-healthy", healthy=True, sources=("CTK", "SHM", "DRV"),
         note="--gpus all --shm-size 16g, torch 2.6.0+cu126 on driver 555 (minor-version compatibility)",
         machine=p25.container(SHM_16G, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools=smi(SMI_4X_A100), dists=torch_cu("2.6.0+cu126", "12.6")),
    dict(name="container-l40s-595-ipc-host-jax053-cuda12-healthy", healthy=True, sources=("CTK", "SHM", "JAXI"),
         note="--gpus all --ipc=host (the host's 64 GiB /dev/shm), jax 0.5.3 [cuda12]",
         machine=p25.container(SHM_HOST_64G, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools=smi(SMI_L40S), dists=jax_cuda("0.5.3", 12)),
    dict(name="container-runtime-nvidia-visible-devices-void", healthy=False, sources=("VOID", "CTK"),
         ids={"container-without-gpu-devices"}, severity="error",
         note="--runtime=nvidia with -e NVIDIA_VISIBLE_DEVICES=void (left from a CPU-only compose "
              "profile): no /dev/nvidia*, no nvidia-smi",
         machine=p25.container(SHM_16G, gpus=False),
         env={"NVIDIA_VISIBLE_DEVICES": "void", "NVIDIA_DRIVER_CAPABILITIES": "compute,utility"},
         dists=torch_cu("2.7.1+cu126", "12.6")),
    dict(name="container-h100-nvml-unknown-error-after-daemon-reload", healthy=False, sources=("NVUNK",),
         ids={"probe-failure-names-known-state", "gpu-expected-but-unusable"}, severity="error",
         note="a long-running --gpus all container after `systemctl daemon-reload` on the host: the "
              "nodes are still there, nvidia-smi says 'Failed to initialize NVML: Unknown Error' (exit 255)",
         machine=p25.container(SHM_16G, gpus=True), env={"NVIDIA_VISIBLE_DEVICES": "all"},
         tools={"nvidia-smi": {"*": (rec(DATA / "nvidia-smi/23-nvml-unknown-error-container.txt"), 255)}},
         dists=torch_cu("2.6.0+cu124", "12.4")),
]

# --------------------------------------------------------------------------- ROCm
ROCM = [
    dict(name="mi325x-rocm641-torch280-rocm64-healthy", healthy=True, sources=("MI325", "SR", "CM"),
         note="an Instinct MI325X (gfx942 in the KFD topology) on ROCm 6.4.1 with torch 2.8.0+rocm6.4",
         system=rm.system(rocm="6.4.1-83", pci=1, topology=(90402,)), dists=[rm.TORCH_280_ROCM64]),
    dict(name="radeon-pro-w7800-rocm702-torch290-rocm70-healthy", healthy=True, sources=("W7800", "CM"),
         note="a Radeon PRO W7800 (gfx1100) on ROCm 7.0.2 with torch 2.9.0+rocm7.0",
         system=rm.system(rocm="7.0.2-56", pci=1, topology=(110000,)), dists=[p25.TORCH_290_ROCM70]),
    dict(name="rx6700xt-gfx1031-rocm633-torch271-rocm63-no-override", healthy=False, sources=("G1031",),
         ids={"rocm-gfx-unsupported", "rocm-rdna-needs-hsa-override"}, severity="error",
         note="an RX 6700 XT (gfx1031) on ROCm 6.3.3 with torch 2.7.1+rocm6.3 and no override",
         system=rm.system(rocm="6.3.3-74", pci=1, topology=(100301,)), dists=[p25.TORCH_271_ROCM63]),
    dict(name="mi210-rocm641-user-outside-render-and-video", healthy=False, sources=("PERM",),
         ids={"rocm-device-access"}, severity="error",
         note="an MI210 (gfx90a) box whose /dev/kfd and render node are 0660 root:render, alice in "
              "neither render nor video",
         system=rm.system(rocm="6.4.1-83", kfd="0660", render="0660", alice_groups=(), pci=1,
                          topology=(90010,)),
         dists=[rm.TORCH_280_ROCM64]),
]

# --------------------------------------------------------------------------- Apple
APPLE = [
    dict(name="m2max-macos12.7.6-tf214-tf-metal-110-healthy", healthy=True, sources=("TFMOS", "TFM"),
         note="TF 2.14.1 with tensorflow-metal 1.1.0 on an M2 Max running macOS 12.7.6 (recorded "
              "sw_vers, taken on an M1 of the same release)",
         system=am.mac("12.7.6", "21H1320", "sysctl/03-m2max-native.txt", "sw_vers/01-12.7.6-m1.txt"),
         dists=[am.numpy("1.26.4"), am.tensorflow("2.14.1"), am.tensorflow_metal("1.1.0")]),
    dict(name="m1pro-macos14.2.1-torch231-numpy2-healthy", healthy=True, sources=("NP2PT", "MPS"),
         note="torch 2.3.1 (the first release built for NumPy 2) with NumPy 2.0.2, macOS 14.2.1",
         system=am.mac("14.2.1", "23C71", "sysctl/02-m1pro-native.txt", "sw_vers/02-14.2.1.txt"),
         dists=[am.numpy("2.0.2"), am.torch("2.3.1")]),
    dict(name="m3max-macos15-torch222-numpy2", healthy=False, sources=("NP2PT",),
         ids={"numpy2-with-numpy1-builds"}, severity="error",
         note="torch 2.2.2 (built against NumPy 1) with NumPy 2.1.3 on an M3 Max, macOS 15.1.1",
         system=am.mac("15.1.1", "24B91", "sysctl/05-m3max-native.txt", "sw_vers/03-15.1.1.txt"),
         dists=[am.numpy("2.1.3"), am.torch("2.2.2")]),
]

# --------------------------------------------------------------------------- Jetson
JETSON = [
    dict(name="agx-orin-jp62-ai-lab-torch-2.8.0-healthy", healthy=True, sources=("AIL", "JP"),
         note="AGX Orin on L4T R36.4.3 / JetPack 6.2 with the Jetson AI Lab jp6/cu126 torch 2.8.0",
         system=jm.board(jm.R36_4_3, jm.AGX_ORIN, **jm.JP62), dists=jm.AIL_JP6),
    dict(name="orin-nano-super-jp62-nv-wheel-healthy", healthy=True, sources=("JP", "PTJ"),
         note="Orin Nano (Super) on L4T R36.4.3 / JetPack 6.2 with NVIDIA's JetPack 6 wheel (nv24.08)",
         system=jm.board(jm.R36_4_3, jm.ORIN_NANO, **jm.JP62), dists=jm.NV_JP61),
    dict(name="agx-orin-jp512-ai-lab-jp6-torch-2.8.0", healthy=False, sources=("ORINJ5", "JP", "AIL"),
         ids={"jetson-torch-wrong-jetpack"}, severity="error",
         note="the Jetson AI Lab jp6/cu126 torch 2.8.0 (installed into a Python 3.10 the user added) on "
              "an AGX Orin still on JetPack 5.1.2 (CUDA 11.4)",
         system=jm.board(jm.R35_4_1, jm.AGX_ORIN, **jm.JP512), dists=jm.AIL_JP6),
]

# --------------------------------------------------------------------------- Intel XPU
INTEL = [
    dict(name="arc-a770-i915-torch271-xpu-healthy", healthy=True, sources=("XPU",),
         note="an Arc A770 (8086:56a0) under i915 with torch 2.7.1+xpu; PCI layout composed",
         machine=p27.intel_card("56a0", "i915"), dists=[pm.torch("2.7.1+xpu", CP312)]),
    dict(name="arc-b570-xe-torch280-cu128", healthy=False, sources=("XPUW", "BMG"),
         ids={"torch-cuda-wheel-on-intel-gpu"}, severity="error",
         note="torch 2.8.0+cu128 (the CUDA index) on an Arc B570 (8086:e20c, xe); PCI id composed",
         machine=p27.intel_card("e20c", "xe"), dists=[pm.torch("2.8.0+cu128", CP312, cuda="12.8")]),
]

# platform -> (builder, machines)
PLATFORMS: dict[str, tuple[str, list[dict]]] = {
    "nvidia": ("platform", NVIDIA), "wsl": ("platform", WSL), "container": ("platform", CONTAINERS),
    "rocm": ("rocm", ROCM), "apple": ("apple", APPLE), "jetson": ("jetson", JETSON),
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
