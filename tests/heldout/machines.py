"""Held-out simulated GPU machines whose right answer follows from the official matrices.

Held out from tuning: written with their expected verdicts (and the sources below) before the
verdict fixes of issue 10; tests/heldout/test_machines.py runs each through the real probes.

Each scenario: a GPU table (from the recorded RTX 4090 / driver 580 table in
tests/data/tools/nvidia-smi/15-rtx4090-580-cuda13.txt, with driver, CUDA and GPU cells substituted),
a site-packages tree laid out as the real wheels lay it out, and patches for what this host cannot
fake (arch, OS, Python, the host's own CUDA 13 toolkit and its libraries).

Sources for the expected verdicts (each scenario names the ones it rests on):
 DRV  CUDA Toolkit release notes, Table 3 (driver per toolkit, minor-version floors):
      https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html#id5
 MVC  CUDA 12.x apps run on >= 525.60.13 (Linux) / 528.33 (Windows); 13.x on >= 580:
      https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html
 PT   PyTorch previous versions / RELEASE.md (CUDA variants per release, Python wheels):
      https://pytorch.org/get-started/previous-versions/  https://github.com/pytorch/pytorch/blob/main/RELEASE.md
 PYPI torch wheels: cp312 since 2.2.0, cp313 since 2.5.0: https://pypi.org/project/torch/#files
 SM   sm_120 needs CUDA 12.8+: https://docs.nvidia.com/cuda/blackwell-compatibility-guide/
 C13  CUDA 13.0 drops offline compilation for sm_50..sm_72 (Maxwell, Pascal, Volta):
      https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html#deprecated-or-dropped-architectures
 TF   TensorFlow tested build configurations: https://www.tensorflow.org/install/source#gpu
      and pip extras [and-cuda] since 2.14: https://www.tensorflow.org/install/pip
 NP   torch supports NumPy 2 since 2.3.0: https://github.com/pytorch/pytorch/issues/107302
 JAX  https://docs.jax.dev/en/latest/installation.html#nvidia-gpu
"""
from __future__ import annotations

import stat
from pathlib import Path

RECORDED = Path(__file__).resolve().parents[1] / "data" / "tools" / "nvidia-smi" / "15-rtx4090-580-cuda13.txt"


# --------------------------------------------------------------------------- site-packages
def dist(name, version, files=None, top=None):
    return {"name": name, "version": version, "files": files or {}, "top": top}


def torch(version, cuda=None, with_version_py=True, broken_version_py=False):
    body = (f"from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
            f"__version__ = '{version}'\ndebug = False\ncuda: Optional[str] = {cuda!r}\n"
            "git_version = '0123456789abcdef0123456789abcdef01234567'\nhip: Optional[str] = None\n")
    files = {"torch/__init__.py": "", "torch/lib/libtorch_cpu.so": ""}
    if with_version_py:
        files["torch/version.py"] = "cuda = '12.4\n (((" if broken_version_py else body
    if cuda:
        files["torch/lib/libtorch_cuda.so"] = ""
    return dist("torch", version, files, "torch")


def nv(name, version, lib=None):
    files = {}
    if lib:
        sub = name.split("-")[1]
        files[f"nvidia/{sub}/lib/{lib}"] = ""
    return dist(name, version, files, "nvidia")


def cu12_for_torch(cudnn, runtime, cublas, nccl):
    return [nv("nvidia-cudnn-cu12", cudnn, f"libcudnn.so.{cudnn.split('.')[0]}"),
            nv("nvidia-cuda-runtime-cu12", runtime, "libcudart.so.12"),
            nv("nvidia-cublas-cu12", cublas, "libcublas.so.12"),
            nv("nvidia-nccl-cu12", nccl, "libnccl.so.2")]


def tensorflow(version, cuda=None, cudnn=None, caps=None, dist_name="tensorflow"):
    if cuda:
        info = (f"import collections\n\nbuild_info = collections.OrderedDict([('cpu_compiler', '/usr/lib/llvm-17/bin/clang'), "
                f"('cuda_compute_capabilities', {caps or ['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']!r}), "
                f"('cuda_version', '{cuda}'), ('cudnn_version', '{cudnn}'), ('is_cuda_build', True), "
                "('is_rocm_build', False), ('is_tensorrt_build', True)])\n")
    else:
        info = ("import collections\n\nbuild_info = collections.OrderedDict([('is_cuda_build', False), "
                "('is_rocm_build', False), ('is_tensorrt_build', False)])\n")
    return dist(dist_name, version, {"tensorflow/__init__.py": "",
                                     "tensorflow/python/platform/build_info.py": info}, "tensorflow")


def simple(name, version, top=None):
    mod = top or name.replace("-", "_")
    return dist(name, version, {f"{mod}/__init__.py": ""}, mod)


NUMPY_1 = simple("numpy", "1.26.4")
NUMPY_2 = simple("numpy", "2.1.3")

TORCH_251_CU124 = [torch("2.5.1+cu124", "12.4"), *cu12_for_torch("9.1.0.70", "12.4.127", "12.4.5.8", "2.21.5")]
TORCH_231_CU121 = [torch("2.3.1+cu121", "12.1"), *cu12_for_torch("8.9.2.26", "12.1.105", "12.1.3.1", "2.20.5")]
TORCH_260_CU126 = [torch("2.6.0+cu126", "12.6"), *cu12_for_torch("9.5.1.17", "12.6.77", "12.6.4.1", "2.21.5")]
TORCH_260_CU124 = [torch("2.6.0+cu124", "12.4"), *cu12_for_torch("9.1.0.70", "12.4.127", "12.4.5.8", "2.21.5")]
TORCH_270_CU128 = [torch("2.7.0+cu128", "12.8"), *cu12_for_torch("9.7.1.26", "12.8.57", "12.8.3.14", "2.26.2")]
TORCH_270_CU126 = [torch("2.7.0+cu126", "12.6"), *cu12_for_torch("9.5.1.17", "12.6.77", "12.6.4.1", "2.26.2")]
TORCH_222_CU121 = [torch("2.2.2+cu121", "12.1"), *cu12_for_torch("8.9.2.26", "12.1.105", "12.1.3.1", "2.19.3")]
TORCH_212_CU121 = [torch("2.1.2+cu121", "12.1"), *cu12_for_torch("8.9.2.26", "12.1.105", "12.1.3.1", "2.18.1")]
TORCH_290_CU130 = [torch("2.9.0+cu130", "13.0"),
                   nv("nvidia-cudnn-cu13", "9.13.0.50", "libcudnn.so.9"),
                   nv("nvidia-cuda-runtime", "13.0.96"), nv("nvidia-nccl-cu13", "2.27.7", "libnccl.so.2")]
TF_AND_CUDA_216 = [tensorflow("2.16.1", "12.3", "8"),
                   *cu12_for_torch("8.9.7.29", "12.3.101", "12.3.4.1", "2.19.3")]


# --------------------------------------------------------------------------- nvidia-smi
def smi_table(gpus, driver, cuda):
    lines = RECORDED.read_text().splitlines()[1:]  # drop the "# source" line
    head = lines[:8]
    head[2] = (f"| NVIDIA-SMI {driver:<22} Driver Version: {driver:<14} CUDA Version: {cuda:<9}|")
    rows = []
    for i, (name, mib) in enumerate(gpus):
        rows.append("|" + f"   {i}  {name}".ljust(37) + "On  |   00000000:"
                     + f"{i + 1:02X}:00.0 Off |                  Off |")
        rows.append("|  0%   34C    P8             21W /  450W |" + f"{'1MiB / ' + str(mib) + 'MiB':>23} |"
                    + "      0%      Default |")
        rows.append("|                                         |                        |                  N/A |")
        rows.append("+-----------------------------------------+------------------------+----------------------+")
    tail = ["", "+-----------------------------------------------------------------------------------------+",
            "| Processes:                                                                              |",
            "|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |",
            "|        ID   ID                                                               Usage      |",
            "|=========================================================================================|",
            "|  No running processes found                                                             |",
            "+-----------------------------------------------------------------------------------------+"]
    return "\n".join(head + rows + tail) + "\n"


def build(sc, box: Path):
    site, bindir = box / "site", box / "bin"
    site.mkdir(parents=True)
    bindir.mkdir()
    for d in sc.get("dists", ()):
        meta = site / f"{d['name'].replace('-', '_')}-{d['version']}.dist-info"
        meta.mkdir()
        (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {d['name']}\nVersion: {d['version']}\n\n")
        if d["top"]:
            (meta / "top_level.txt").write_text(d["top"] + "\n")
        for rel, text in d["files"].items():
            p = site / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    if sc.get("gpus"):
        table = box / "smi.txt"
        table.write_text(smi_table(sc["gpus"], sc["driver"], sc["driver_cuda"]))
        script = bindir / "nvidia-smi"
        script.write_text("#!/bin/sh\ncase \"$1\" in --query*) exit 2;; esac\n"
                          f"cat '{table}'\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    if sc.get("nvcc"):
        script = bindir / "nvcc"
        v = sc["nvcc"]
        script.write_text("#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\n"
                          f"echo 'Cuda compilation tools, release {v.rsplit('.', 1)[0]}, V{v}'\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return site, bindir


def patch(facts, sc):
    host = facts["host"]
    host.update(sc.get("host", {}))
    if not sc.get("keep_host_toolkit"):
        cuda = facts["cuda"]
        cuda["toolkits"] = [t for t in cuda["toolkits"] if not t["path"].startswith("/usr/local/cuda")]
        if not cuda["toolkits"] and not cuda.get("nvcc_path"):
            cuda["probe"]["status"] = "not_found"
            cuda["probe"]["reason"] = "no CUDA toolkit found"
        libs = facts["libraries"]
        libs["libraries"] = [lib for lib in libs["libraries"] if "/usr/local/cuda" not in lib["path"]]


# --------------------------------------------------------------------------- scenarios
H100 = ("NVIDIA H100 80GB HBM3", 81559)
A100 = ("NVIDIA A100-SXM4-80GB", 81920)
RTX4090 = ("NVIDIA GeForce RTX 4090", 24564)
RTX5090 = ("NVIDIA GeForce RTX 5090", 32607)
GH200 = ("NVIDIA GH200 480GB", 97871)
V100 = ("Tesla V100-SXM2-32GB", 32768)
THOR = ("NVIDIA Thor", 125772)
L40S = ("NVIDIA L40S", 46068)
PY311 = {"python_version": "3.11.10"}

SCENARIOS = [
    # ---------------------------------------------------------------- healthy (DRV, PT, MVC)
    dict(name="ok-h100-550-torch251-cu124", healthy=True, gpus=[H100] * 8, driver="550.127.05",
         driver_cuda="12.4", dists=[*TORCH_251_CU124, NUMPY_1], host=PY311,
         why="cu124 needs >= 550.54.14 (DRV); H100 sm_90 is in every cu124 build (PT)"),
    dict(name="ok-a100-535-torch231-cu121", healthy=True, gpus=[A100] * 4, driver="535.183.01",
         driver_cuda="12.2", dists=[*TORCH_231_CU121, NUMPY_1], host=PY311,
         why="cu121 needs >= 530.30.02 (DRV)"),
    dict(name="ok-rtx4090-560-torch260-cu126", healthy=True, gpus=[RTX4090], driver="560.35.03",
         driver_cuda="12.6", dists=[*TORCH_260_CU126, NUMPY_2], host=PY311,
         why="cu126 needs >= 560.28.03 (DRV); numpy 2 fine with torch >= 2.3 (NP)"),
    dict(name="ok-rtx5090-570-torch270-cu128", healthy=True, gpus=[RTX5090], driver="570.133.07",
         driver_cuda="12.8", dists=[*TORCH_270_CU128, NUMPY_2], host=PY311,
         why="cu128 needs >= 570.26 (DRV); 2.7 cu128 has sm_120 (PT, SM)"),
    dict(name="ok-gh200-aarch64-570-torch270-cu128", healthy=True, gpus=[GH200], driver="570.124.06",
         driver_cuda="12.8", dists=[*TORCH_270_CU128, NUMPY_2],
         host={**PY311, "arch": "aarch64", "cpu_flags": []},
         why="linux-aarch64 cu128 wheels of 2.7 include sm_90 (PT)"),
    dict(name="ok-a100-525.60.13-torch251-cu124-minor-compat", healthy=True, gpus=[A100],
         driver="525.60.13", driver_cuda="12.0", dists=[*TORCH_251_CU124, NUMPY_1], host=PY311,
         why="CUDA 12.x runs on >= 525.60.13 under minor-version compatibility; torch ships SASS for sm_80 (MVC)"),
    dict(name="ok-torch222-py312-rtx4090-550", healthy=True, gpus=[RTX4090], driver="550.120",
         driver_cuda="12.4", dists=[*TORCH_222_CU121, NUMPY_1], host={"python_version": "3.12.7"},
         why="torch 2.2.0+ has cp312 wheels (PYPI)"),
    dict(name="ok-torch251-py313-h100-560", healthy=True, gpus=[H100], driver="560.35.03",
         driver_cuda="12.6", dists=[*TORCH_251_CU124, NUMPY_2], host={"python_version": "3.13.1"},
         why="torch 2.5.0+ has cp313 wheels (PYPI)"),
    dict(name="ok-cpu-laptop-torch-cpu", healthy=True, dists=[torch("2.5.1+cpu"), NUMPY_2], host=PY311,
         why="no GPU, CPU wheel"),
    dict(name="ok-tf216-and-cuda-rtx4090-550", healthy=True, gpus=[RTX4090], driver="550.127.05",
         driver_cuda="12.4", dists=[*TF_AND_CUDA_216, NUMPY_1, simple("keras", "3.3.3")], host=PY311,
         why="TF 2.16 tested with CUDA 12.3 / cuDNN 8.9 (TF) from [and-cuda]"),
    dict(name="ok-jax0435-cuda12-plugin-h100-560", healthy=True, gpus=[H100], driver="560.35.03",
         driver_cuda="12.6", host=PY311,
         dists=[simple("jax", "0.4.35"), simple("jaxlib", "0.4.35"),
                dist("jax-cuda12-plugin", "0.4.35", {"jax_cuda12_plugin/__init__.py": ""}, "jax_cuda12_plugin"),
                dist("jax-cuda12-pjrt", "0.4.35", {"jax_plugins/xla_cuda12/__init__.py": ""}, "jax_plugins"),
                *cu12_for_torch("9.5.1.17", "12.6.77", "12.6.4.1", "2.23.4"), NUMPY_2],
         why="jax[cuda12] needs driver >= 525 and cuDNN 9 wheels (JAX)"),
    dict(name="ok-system-nvcc13-driver550-torch-cu124", healthy=True, gpus=[L40S], driver="550.127.05",
         driver_cuda="12.4", dists=[*TORCH_251_CU124, NUMPY_1], host=PY311, keep_host_toolkit=True,
         nvcc="13.0.88", why="frameworks bring their own CUDA runtime; a newer system toolkit is unused by them"),
    dict(name="ok-require-any-distribution", healthy=True, gpus=[H100], driver="560.35.03", driver_cuda="12.6",
         dists=[*TORCH_251_CU124, NUMPY_1, simple("tqdm", "4.66.5"), simple("einops", "0.8.0"),
                simple("rich", "13.9.4"), simple("pytest", "8.3.3", "pytest")],
         host=PY311, require=["tqdm>=4", "einops>=0.1", "rich>=13", "pytest>=8"],
         why="--require on any installed distribution"),
    dict(name="ok-jetson-thor-aarch64-torch290-cu130", healthy=True, gpus=[THOR], driver="580.00",
         driver_cuda="13.0", dists=[*TORCH_290_CU130, NUMPY_2],
         host={"python_version": "3.12.3", "arch": "aarch64", "cpu_flags": []},
         why="aarch64 cu130 wheels include sm_110 for Thor (PT 2.9 release notes)"),
    dict(name="ok-torch-version-py-missing-h100", healthy=True, gpus=[H100], driver="560.35.03",
         driver_cuda="12.6", dists=[torch("2.5.1", with_version_py=False),
                                    *cu12_for_torch("9.1.0.70", "12.4.127", "12.4.5.8", "2.21.5"), NUMPY_1],
         host=PY311, must_not=["torch-cpu-build-on-gpu-host", "intent-cpu-build-on-gpu-host"],
         why="no version.py: the build is unknown, not CPU-only"),
    # ---------------------------------------------------------------- broken
    dict(name="bad-rtx5090-570-torch260-cu124", healthy=False, gpus=[RTX5090], driver="570.133.07",
         driver_cuda="12.8", dists=[*TORCH_260_CU124, NUMPY_1], host=PY311,
         labels=["gpu-arch-missing-from-torch-wheel"],
         why="a CUDA 12.4 build cannot contain sm_120 code (SM)"),
    dict(name="bad-rtx5090-570-torch270-cu126", healthy=False, gpus=[RTX5090], driver="570.133.07",
         driver_cuda="12.8", dists=[*TORCH_270_CU126, NUMPY_1], host=PY311,
         labels=["gpu-arch-missing-from-torch-wheel"],
         why="CUDA 12.6 cannot compile sm_120 (SM); only cu128 builds of 2.7 have it (PT)"),
    dict(name="bad-rtx4090-470-torch231-cu121", healthy=False, gpus=[RTX4090], driver="470.256.02",
         driver_cuda="11.4", dists=[*TORCH_231_CU121, NUMPY_1], host=PY311,
         labels=["driver-too-old-for-cuda-runtime"],
         why="cu121 needs >= 525.60.13 even with MVC; 470 does not support Ada at all (DRV)"),
    dict(name="bad-numpy2-torch212", healthy=False, gpus=[A100], driver="535.183.01", driver_cuda="12.2",
         dists=[*TORCH_212_CU121, NUMPY_2], host=PY311, labels=["numpy2-incompatible-with-torch"],
         why="torch < 2.3 is built against the NumPy 1 ABI (NP)"),
    dict(name="bad-tf216-with-torch251-cudnn9", healthy=False, gpus=[RTX4090], driver="550.127.05",
         driver_cuda="12.4", dists=[tensorflow("2.16.1", "12.3", "8"), *TORCH_251_CU124, NUMPY_1],
         host=PY311, labels=["tf-cudnn9-shared-with-torch"],
         why="TF 2.16 needs cuDNN 8.9 (TF); the one nvidia-cudnn-cu12 is 9.1 from torch"),
    dict(name="bad-tf217-with-torch260-cudnn9", healthy=False, gpus=[H100], driver="560.35.03",
         driver_cuda="12.6", dists=[tensorflow("2.17.0", "12.3", "8"), *TORCH_260_CU126, NUMPY_1],
         host=PY311, labels=["tf-cudnn9-shared-with-torch"],
         why="TF 2.17 needs cuDNN 8.9 (TF)"),
    dict(name="bad-tf213-gpu-host-no-cuda-libs", healthy=False, gpus=[RTX4090], driver="550.127.05",
         driver_cuda="12.4", dists=[tensorflow("2.13.0", "11.8", "8"), NUMPY_1], host=PY311,
         labels=["tf-without-cuda-libs"],
         why="TF < 2.14 loads system CUDA 11.8 / cuDNN 8.6; none present (TF)"),
    dict(name="bad-windows-driver-566-torch-cu130", healthy=False, gpus=[RTX4090], driver="566.36",
         driver_cuda="12.7", dists=[*TORCH_290_CU130, NUMPY_2],
         host={"python_version": "3.12.7", "os": "Windows", "distro": "Windows 11", "glibc": "",
               "kernel": "10.0.22631"},
         labels=["windows-driver-too-old-for-cuda13"], why="CUDA 13 needs a 580+ driver on Windows (DRV, MVC)"),
    dict(name="bad-v100-580-torch290-cu130", healthy=False, gpus=[V100], driver="580.65.06",
         driver_cuda="13.0", dists=[*TORCH_290_CU130, NUMPY_2], host=PY311,
         labels=["cuda13-drops-gpu-arch"], why="CUDA 13 builds have no sm_70 (C13)"),
    dict(name="bad-torch-cpu-on-h100-expect-gpu", healthy=False, gpus=[H100], driver="560.35.03",
         driver_cuda="12.6", dists=[torch("2.5.1+cpu"), NUMPY_1], host=PY311, expect="gpu",
         labels=["torch-cpu-build-on-gpu-host"], why="CPU wheel on a GPU host"),
]

# ---------------------------------------------------------------- second batch
# Written after the verdict fixes, as a generality check (never tuned against).
T4 = ("Tesla T4", 15360)
L4 = ("NVIDIA L4", 23034)
RTX3090 = ("NVIDIA GeForce RTX 3090", 24576)
GTX1080TI = ("NVIDIA GeForce GTX 1080 Ti", 11264)
TORCH_201_CU117 = [torch("2.0.1+cu117", "11.7"), nv("nvidia-cudnn-cu11", "8.5.0.96", "libcudnn.so.8")]
TORCH_1131_CU117 = [torch("1.13.1+cu117", "11.7"), nv("nvidia-cudnn-cu11", "8.5.0.96", "libcudnn.so.8")]
SCENARIOS += [
    dict(name="ok2-rtx3090-535-torch231-cu121", healthy=True, gpus=[RTX3090] * 2, driver="535.216.01",
         driver_cuda="12.2", dists=[*TORCH_231_CU121, NUMPY_1], host=PY311, why="DRV, PT"),
    dict(name="ok2-l4-525.85.12-torch212-cu121-minor-compat", healthy=True, gpus=[L4], driver="525.85.12",
         driver_cuda="12.0", dists=[*TORCH_212_CU121, NUMPY_1], host=PY311, why="MVC"),
    dict(name="ok2-t4-470-torch201-cu117-minor-compat", healthy=True, gpus=[T4], driver="470.182.03",
         driver_cuda="11.4", dists=[*TORCH_201_CU117, NUMPY_1], host=PY311, why="MVC: 11.x on >= 450.80.02"),
    dict(name="bad2-a100-450-torch251-cu124", healthy=False, gpus=[A100], driver="450.80.02",
         driver_cuda="11.0", dists=[*TORCH_251_CU124, NUMPY_1], host=PY311,
         labels=["driver-too-old-for-cuda-runtime"], why="CUDA 12.x needs >= 525.60.13 (MVC)"),
    dict(name="bad2-gtx1080ti-570-torch270-cu128", healthy=False, gpus=[GTX1080TI], driver="570.133.07",
         driver_cuda="12.8", dists=[*TORCH_270_CU128, NUMPY_1], host=PY311,
         labels=["gpu-arch-missing-from-torch-wheel"], why="cu128 wheels dropped Pascal (PT build_cuda.sh)",
         weak="the torch matrix row of 2.7 cu128 is unconfirmed (arch list from package listings), so the verdict is capped at warning"),
    dict(name="bad2-h100-torch1131-cu117", healthy=False, gpus=[H100], driver="550.127.05",
         driver_cuda="12.4", dists=[*TORCH_1131_CU117, NUMPY_1], host=PY311,
         labels=["gpu-arch-missing-from-torch-wheel"], why="CUDA 11.7 predates sm_90 (11.8)"),
]
