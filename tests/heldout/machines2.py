"""Second held-out set of simulated GPU machines (machines2): written, with the expected verdict
and the official source of each, before envdoctor was run on any of them.

Kept apart from tests/heldout/machines.py (which earlier work was tuned on). The GPU tables are
real recorded ``nvidia-smi`` outputs from tests/data/tools/nvidia-smi/ (files 16-20 were added
for this set, each with the public thread it was copied from); where a scenario needs another
driver or GPU, only those cells are substituted, as machines.py does. Site-packages are laid
out as the wheels lay them out (dist-info, torch/version.py, TF build_info.py, nvidia/*/lib).

Sources (each scenario names the ones it rests on):
 DRV   CUDA Toolkit release notes, Table 3 (toolkit driver per CUDA version, Linux and Windows):
       https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html#id5
 MVC   minor-version compatibility: 11.x on >= 450.80.02 (Linux) / 452.39 (Windows); 12.x on
       >= 525.60.13 / 528.33; 13.x on >= 580 (no compatibility across majors):
       https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html
 BIN   cubin for sm_X.y runs on sm_X.z with z >= y; PTX JIT-compiles for newer GPUs:
       https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#binary-compatibility
 PT    PyTorch RELEASE.md (CUDA variants, Python per release) and previous-versions page:
       https://github.com/pytorch/pytorch/blob/main/RELEASE.md
       https://pytorch.org/get-started/previous-versions/
 PTA   .ci/manywheel/build_cuda.sh and .ci/aarch64_linux/aarch64_ci_build.sh arch lists:
       https://github.com/pytorch/pytorch/blob/main/.ci/manywheel/build_cuda.sh
 PYPI  torch wheels per Python: https://pypi.org/project/torch/#files (cp312 from 2.2.0,
       cp313 from 2.5.0, cp39 last in 2.8)
 SM    sm_100/sm_120 need CUDA 12.8+: https://docs.nvidia.com/cuda/blackwell-compatibility-guide/
 C13   CUDA 13.0 drops sm_50..sm_72 (Maxwell, Pascal, Volta):
       https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html#deprecated-or-dropped-architectures
 TF    TensorFlow tested build configurations: https://www.tensorflow.org/install/source#gpu
 TFPIP [and-cuda] from 2.14, driver >= 525.60.13 (Linux) / 528.33 (WSL):
       https://www.tensorflow.org/install/pip
 DNN   cuDNN API/ABI compatibility holds within a major (9.x libraries serve 9.y builds, y <= x):
       https://docs.nvidia.com/deeplearning/cudnn/backend/latest/reference/support-matrix.html
 NP    NumPy 2: torch >= 2.3, TensorFlow >= 2.18:
       https://github.com/pytorch/pytorch/issues/107302  https://github.com/tensorflow/tensorflow/releases/tag/v2.18.0
 JAX   https://docs.jax.dev/en/latest/installation.html#nvidia-gpu (cuda12: driver >= 525,
       SM >= 5.2; cuda13: driver >= 580, SM >= 7.5; plugin == pjrt == jaxlib version)
"""
from __future__ import annotations

import re
import stat
from pathlib import Path

from tests.heldout import machines as m1

SMI = Path(__file__).resolve().parents[1] / "data" / "tools" / "nvidia-smi"

dist, torch, simple, tensorflow = m1.dist, m1.torch, m1.simple, m1.tensorflow

# nvidia wheel -> (folder under site-packages/nvidia, library soname prefix)
_NV_LAYOUT = {"cudnn": ("cudnn", "libcudnn.so"), "cuda-runtime": ("cuda_runtime", "libcudart.so"),
              "cublas": ("cublas", "libcublas.so"), "nccl": ("nccl", "libnccl.so")}


def nv(kind: str, major: int, version: str) -> dict:
    """An nvidia-<kind>-cu<major> wheel laid out as on PyPI (cu13 runtime libs in nvidia/cu13)."""
    folder, lib = _NV_LAYOUT[kind]
    so = {"cudnn": version.split(".")[0], "nccl": "2"}.get(kind, str(major))
    if major >= 13 and kind in ("cuda-runtime", "cublas"):
        name, folder = f"nvidia-{kind}", "cu13"
    else:
        name = f"nvidia-{kind}-cu{major}"
    return dist(name, version, {f"nvidia/{folder}/lib/{lib}.{so}": ""}, "nvidia")


def cuda_wheels(major, cudnn, runtime, cublas, nccl):
    return [nv("cudnn", major, cudnn), nv("cuda-runtime", major, runtime),
            nv("cublas", major, cublas), nv("nccl", major, nccl)]


def torch_cuda(version, tag, cudnn, runtime, cublas, nccl):
    cuda = f"{int(tag[2:-1])}.{tag[-1]}"
    major = int(tag[2:-1])
    return [torch(f"{version}+{tag}", cuda), *cuda_wheels(major, cudnn, runtime, cublas, nccl)]


def jax_gpu(version, major, jaxlib=None, plugin=None, cudnn="9.5.1.17", runtime="12.6.77"):
    p = plugin or version
    return [simple("jax", version), simple("jaxlib", jaxlib or version),
            dist(f"jax-cuda{major}-plugin", p, {f"jax_cuda{major}_plugin/__init__.py": ""},
                 f"jax_cuda{major}_plugin"),
            dist(f"jax-cuda{major}-pjrt", p, {f"jax_plugins/xla_cuda{major}/__init__.py": ""},
                 "jax_plugins"),
            nv("cudnn", major, cudnn), nv("cuda-runtime", major, runtime)]


NUMPY_1 = simple("numpy", "1.26.4")
NUMPY_124 = simple("numpy", "1.24.4")
NUMPY_2 = simple("numpy", "2.1.3")
NUMPY_20 = simple("numpy", "2.0.2")

T290_CU130 = torch_cuda("2.9.0", "cu130", "9.13.0.50", "13.0.96", "13.0.0.19", "2.27.7")
T290_CU128 = torch_cuda("2.9.0", "cu128", "9.10.2.21", "12.8.90", "12.8.4.1", "2.27.5")
T290_CU126 = torch_cuda("2.9.0", "cu126", "9.10.2.21", "12.6.77", "12.6.4.1", "2.27.5")
T280_CU128 = torch_cuda("2.8.0", "cu128", "9.10.2.21", "12.8.90", "12.8.4.1", "2.27.3")
T280_CU129 = torch_cuda("2.8.0", "cu129", "9.10.2.21", "12.9.79", "12.9.1.4", "2.27.3")
T271_CU126 = torch_cuda("2.7.1", "cu126", "9.5.1.17", "12.6.77", "12.6.4.1", "2.26.2")
T271_CU118 = [torch("2.7.1+cu118", "11.8"), *cuda_wheels(11, "9.1.0.70", "11.8.89", "11.11.3.6", "2.21.5")]
T270_CU128 = torch_cuda("2.7.0", "cu128", "9.7.1.26", "12.8.57", "12.8.3.14", "2.26.2")
T260_CU126 = torch_cuda("2.6.0", "cu126", "9.5.1.17", "12.6.77", "12.6.4.1", "2.21.5")
T260_CU124 = torch_cuda("2.6.0", "cu124", "9.1.0.70", "12.4.127", "12.4.5.8", "2.21.5")
T251_CU124 = torch_cuda("2.5.1", "cu124", "9.1.0.70", "12.4.127", "12.4.5.8", "2.21.5")
T241_CU121 = torch_cuda("2.4.1", "cu121", "9.1.0.70", "12.1.105", "12.1.3.1", "2.20.5")
T231_CU121 = torch_cuda("2.3.1", "cu121", "8.9.2.26", "12.1.105", "12.1.3.1", "2.20.5")
T222_CU121 = torch_cuda("2.2.2", "cu121", "8.9.2.26", "12.1.105", "12.1.3.1", "2.19.3")
T212_CU121 = torch_cuda("2.1.2", "cu121", "8.9.2.26", "12.1.105", "12.1.3.1", "2.18.1")
T201_CU118 = [torch("2.0.1+cu118", "11.8")]          # the cu118 index wheel bundles its libraries
T1131_CU117 = [torch("1.13.1+cu117", "11.7"), nv("cudnn", 11, "8.5.0.96"),
               nv("cuda-runtime", 11, "11.7.99"), nv("cublas", 11, "11.10.3.66")]
T1131_CU116 = [torch("1.13.1+cu116", "11.6")]
T1121_CU102 = [torch("1.12.1+cu102", "10.2"), nv("cudnn", 11, "8.5.0.96")]

TF_CAPS = ["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"]
TF218_AND_CUDA = [tensorflow("2.18.0", "12.5.1", "9", TF_CAPS),
                  *cuda_wheels(12, "9.3.0.75", "12.5.82", "12.5.3.2", "2.21.5"), simple("keras", "3.6.0")]
TF215_AND_CUDA = [tensorflow("2.15.1", "12.2", "8", TF_CAPS),
                  *cuda_wheels(12, "8.9.4.25", "12.2.140", "12.2.5.6", "2.16.5"), simple("keras", "2.15.0")]
TF214_AND_CUDA = [tensorflow("2.14.1", "11.8", "8", TF_CAPS),
                  *cuda_wheels(11, "8.7.0.84", "11.8.89", "11.11.3.6", "2.16.5"), simple("keras", "2.14.0")]
TF217_AND_CUDA = [tensorflow("2.17.1", "12.3", "8", TF_CAPS),
                  *cuda_wheels(12, "8.9.7.29", "12.3.101", "12.3.4.1", "2.19.3"), simple("keras", "3.5.0")]
TF220_AND_CUDA = [tensorflow("2.20.0", "12.5.1", "9", TF_CAPS),
                  *cuda_wheels(12, "9.3.0.75", "12.5.82", "12.5.3.2", "2.23.4"), simple("keras", "3.10.0")]

# Added after the first run (one cause, one finding): the cuDNN that a CUDA 13 wheel brought is
# not a second fault next to the wheel's missing architecture.
ONE_CAUSE = ["gpu-too-old-for-cudnn"]

# host patches
PY = {v: {"python_version": v} for v in ("3.9.19", "3.10.14", "3.11.10", "3.12.7", "3.13.1")}
LINUX_ARM = {"arch": "aarch64", "cpu_flags": []}
WINDOWS = {"os": "Windows", "distro": "Windows 11", "glibc": "", "kernel": "10.0.22631"}
WSL2 = {"kernel": "5.15.153.1-microsoft-standard-WSL2", "wsl": 2, "distro": "Ubuntu 22.04.4 LTS"}
SYSTEM_CUDA_118 = {"toolkit": ("11.8.89", "/usr/local/cuda-11.8"),
                   "libs": [("cudnn", "8.6.0", "/usr/lib/x86_64-linux-gnu/libcudnn.so.8"),
                            ("cudart", "11.8.89", "/usr/local/cuda-11.8/lib64/libcudart.so.11.0"),
                            ("cublas", "11.11.3.6", "/usr/local/cuda-11.8/lib64/libcublas.so.11")]}


# --------------------------------------------------------------------------- nvidia-smi tables
def _resize(match: re.Match, new: str) -> str:
    """Replace group 2 (a cell value) by ``new``, keeping the column where the next cell starts."""
    width = len(match.group(2)) + len(match.group(3))
    return match.group(1) + new + " " * max(1, width - len(new))


def recorded(file: str, driver: str | None = None, cuda: str | None = None,
             names: list[str] | None = None) -> str:
    """A recorded table with the driver / CUDA / GPU-name cells substituted (None: as recorded)."""
    lines = [ln for ln in (SMI / file).read_text().splitlines() if not ln.startswith("# source")]
    out = []
    for line in lines:
        if driver and ("Driver Version:" in line or "KMD Version:" in line):
            line = re.sub(r"(NVIDIA-SMI )(\S+)(\s+)", lambda mm: _resize(mm, driver), line, count=1)
            line = re.sub(r"((?:Driver|KMD) Version: )(\S+)(\s+)", lambda mm: _resize(mm, driver), line)
        if cuda and "CUDA" in line and "Version:" in line:
            line = re.sub(r"(CUDA (?:UMD )?Version: )(\S+)(\s+)", lambda mm: _resize(mm, cuda), line)
        gm = re.match(r"^(\|\s+(\d+)  )(.+?)(\s+)(On|Off|WDDM|TCC)(\s*\|.*)$", line)
        if names and gm:
            new = names[min(int(gm.group(2)), len(names) - 1)]
            width = len(gm.group(3)) + len(gm.group(4))
            line = gm.group(1) + new + " " * max(1, width - len(new)) + gm.group(5) + gm.group(6)
        out.append(line)
    return "\n".join(out) + "\n"


def generated(gpus, driver, cuda) -> str:
    """machines.py's table (recorded RTX 4090 / 580 layout) for any list of GPUs; names
    longer than the column are cut as nvidia-smi cuts them ("NVIDIA GeForce RTX 2080 ...",
    recorded table 03)."""
    cut = [(name if len(name) <= 27 else name[:24] + "...", mib) for name, mib in gpus]
    return m1.smi_table(cut, driver, cuda)


def build(sc, box: Path):
    site, bindir = m1.build({k: v for k, v in sc.items() if k != "gpus"}, box)
    if sc.get("smi"):
        table = box / "smi.txt"
        table.write_text(sc["smi"])
        script = bindir / "nvidia-smi"
        script.write_text("#!/bin/sh\ncase \"$1\" in --query*) exit 2;; esac\n"
                          f"cat '{table}'\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return site, bindir


def patch(facts, sc):
    m1.patch(facts, sc)
    facts["env"]["vars"].update(sc.get("env", {}))
    system = sc.get("system_cuda")
    if system:
        version, path = system["toolkit"]
        facts["cuda"]["toolkits"].append({"version": version, "path": path, "source": "folder",
                                          "how": f"read {path}/version.json"})
        facts["cuda"]["probe"]["status"] = "ok"
        facts["cuda"]["probe"]["reason"] = ""
        for name, v, p in system["libs"]:
            facts["libraries"]["libraries"].append({"name": name, "version": v, "path": p,
                                                    "source": "ldconfig"})


# --------------------------------------------------------------------------- scenarios
def sc(name, healthy, smi=None, dists=(), host=None, why="", **kw):
    return dict(name=name, healthy=healthy, smi=smi, dists=list(dists), host=host or PY["3.11.10"],
                why=why, **kw)


H100_8X = "12-8x-h100-565-no-processes.txt"
RTX4090 = "15-rtx4090-580-cuda13.txt"
SCENARIOS = [
    # ================================================================ healthy
    sc("ok-h100-590-torch290-cu130", True, recorded("01-h100-590-idle-no-processes.txt"),
       [*T290_CU130, NUMPY_2], PY["3.12.7"],
       "cu130 runs on >= 580 (MVC); sm_90 in the cu130 list (PTA)"),
    sc("ok-h100-mig-590-torch280-cu128", True, recorded("02-h100-mig-590-idle.txt"),
       [*T280_CU128, NUMPY_2], PY["3.12.7"],
       "590 >= 570.26 (DRV); sm_90 in cu128 (PTA); MIG enabled is not a fault"),
    sc("ok-windows-rtx2080super-591-torch290-cu130", True,
       recorded("03-rtx2080super-windows-591-load.txt"), [*T290_CU130, NUMPY_2],
       {**PY["3.12.7"], **WINDOWS},
       "Windows cu130 wheels exist for 2.9 (PT); 591 >= 580 (MVC); sm_75 in cu130 (PTA)"),
    sc("ok-titanv-515-torch1131-cu117", True, recorded("07-titanv-515-no-processes.txt"),
       [*T1131_CU117, NUMPY_124], PY["3.10.14"],
       "cu117 needs >= 515.43.04 (DRV); sm_70 in every CUDA 11 build; 1.13 has cp310 (PT)"),
    sc("ok-wsl2-rtx3070-531-torch212-cu121", True, recorded("08-rtx3070-wsl-530-driver-531.txt"),
       [*T212_CU121, NUMPY_1], {**PY["3.11.10"], **WSL2},
       "WSL2 uses the Windows driver 531.68 >= 531.14 for CUDA 12.1 (DRV)"),
    sc("ok-8xh100-565-torch260-cu126", True, recorded(H100_8X), [*T260_CU126, NUMPY_2],
       PY["3.12.7"], "565.57.01 >= 560.28.03 (DRV)"),
    sc("ok-8xrtx4090-550-tf218-and-cuda-minor-compat", True, recorded("13-8x-rtx4090-550.txt"),
       [*TF218_AND_CUDA, NUMPY_2], PY["3.11.10"],
       "TF 2.18 CUDA 12.5 from [and-cuda] on 550 >= 525.60.13 (TFPIP, MVC); NumPy 2 ok (NP)"),
    sc("ok-4xa100-555-jax0435-cuda12", True, recorded("14-4x-a100-sxm4-555.txt"),
       [*jax_gpu("0.4.35", 12), NUMPY_2], PY["3.11.10"],
       "jax[cuda12] needs driver >= 525 and cuDNN >= 9.1 (JAX)"),
    sc("ok-rtx4090-580-torch290-cu130-py313", True, recorded(RTX4090), [*T290_CU130, NUMPY_2],
       PY["3.13.1"], "580.65.06 runs 13.0 (DRV); cp313 (PYPI)"),
    sc("ok-2xb200-580-torch280-cu128", True,
       recorded(H100_8X, driver="580.95.05", cuda="13.0", names=["NVIDIA B200"]),
       [*T280_CU128, NUMPY_2], PY["3.12.7"], "sm_100 in cu128 (SM, PTA); 580 >= 570.26"),
    sc("ok-2xb200-610-kmd-header-torch290-cu130", True,
       recorded("16-2x-b200-610-kmd-umd-header.txt"), [*T290_CU130, NUMPY_2], PY["3.12.7"],
       "R610 writes 'KMD Version' / 'CUDA UMD Version'; 610 >= 580 (MVC); sm_100 in cu130"),
    sc("ok-l4-570-torch241-cu121", True, recorded("18-l4-570-idle.txt"), [*T241_CU121, NUMPY_1],
       PY["3.11.10"], "sm_89 runs the sm_86 SASS of cu121 (BIN); 570 >= 530.30.02 (DRV)"),
    sc("ok-t4-580-tf215-and-cuda", True, recorded("17-t4-580-exclusive-process.txt"),
       [*TF215_AND_CUDA, NUMPY_1], PY["3.11.10"],
       "TF 2.15 CUDA 12.2 / cuDNN 8.9 from [and-cuda] (TF); 580 >= 535.54.03"),
    sc("ok-t4-470-torch1131-cu116-minor-compat", True,
       recorded("17-t4-580-exclusive-process.txt", driver="470.256.02", cuda="11.4"),
       [*T1131_CU116, NUMPY_124], PY["3.10.14"], "CUDA 11.6 on 470 >= 450.80.02 (MVC)"),
    sc("ok-v100-535-torch271-cu126-minor-compat", True,
       generated([("Tesla V100-SXM2-32GB", 32768)] * 4, "535.216.01", "12.2"),
       [*T271_CU126, NUMPY_2], PY["3.11.10"],
       "cu126 keeps sm_70 (PTA); 12.6 on 535 >= 525.60.13 (MVC)"),
    sc("ok-p100-550-torch260-cu124", True, generated([("Tesla P100-PCIE-16GB", 16384)], "550.54.15", "12.4"),
       [*T260_CU124, NUMPY_2], PY["3.11.10"], "sm_60 in cu124 (PTA); 550.54.15 >= 550.54.14 (DRV)"),
    sc("ok-gtx1080ti-560-torch290-cu126", True,
       generated([("NVIDIA GeForce GTX 1080 Ti", 11264)], "560.35.03", "12.6"),
       [*T290_CU126, NUMPY_2], PY["3.12.7"],
       "cu126 still builds sm_60, which runs on sm_61 (PTA, BIN)"),
    sc("ok-gh200-aarch64-580-torch290-cu130", True,
       generated([("NVIDIA GH200 480GB", 97871)], "580.82.07", "13.0"), [*T290_CU130, NUMPY_2],
       {**PY["3.12.7"], **LINUX_ARM}, "aarch64 cu130: 8.0;9.0;10.0;11.0;12.0 (PTA)"),
    sc("ok-gh200-aarch64-560-torch260-cu126", True,
       generated([("NVIDIA GH200 480GB", 97871)], "560.35.03", "12.6"), [*T260_CU126, NUMPY_2],
       {**PY["3.12.7"], **LINUX_ARM}, "aarch64 cu126: 8.0;9.0 (PTA)"),
    sc("ok-rtx5080-575-torch280-cu128", True,
       generated([("NVIDIA GeForce RTX 5080", 16303)], "575.64.03", "12.9"), [*T280_CU128, NUMPY_2],
       PY["3.12.7"], "sm_120 in cu128 (SM, PTA); 575 >= 570.26"),
    sc("ok-rtx5090-580-torch290-cu130-py313", True, recorded(RTX4090, names=["NVIDIA GeForce RTX 5090"]),
       [*T290_CU130, NUMPY_2], PY["3.13.1"], "sm_120 in cu130 (PTA)"),
    sc("ok-mixed-rtx3090-rtx4090-550-torch251-cu124", True,
       generated([("NVIDIA GeForce RTX 3090", 24576), ("NVIDIA GeForce RTX 4090", 24564)],
                 "550.127.05", "12.4"), [*T251_CU124, NUMPY_2], PY["3.11.10"],
       "sm_86 in cu124, sm_89 runs sm_86 SASS (PTA, BIN)"),
    sc("ok-h200-570-torch280-cu129-minor-compat", True, recorded("19-h200-570.86.15.txt"),
       [*T280_CU129, NUMPY_2], PY["3.12.7"], "CUDA 12.9 on 570.86 >= 525.60.13 (MVC)"),
    sc("ok-a100-580-tf214-and-cuda-cu11", True, recorded("20-2x-a100-40gb-580-bottlerocket.txt"),
       [*TF214_AND_CUDA, NUMPY_1], PY["3.11.10"],
       "TF 2.14 [and-cuda] brings CUDA 11.8 / cuDNN 8.7 wheels (TF, TFPIP)"),
    sc("ok-rtx3090-535-tf213-system-cuda118-cudnn86", True,
       generated([("NVIDIA GeForce RTX 3090", 24576)], "535.183.01", "12.2"),
       [tensorflow("2.13.1", "11.8", "8", TF_CAPS), NUMPY_124, simple("keras", "2.13.1")],
       PY["3.11.10"], "TF 2.13 tested with system CUDA 11.8 / cuDNN 8.6 (TF)",
       system_cuda=SYSTEM_CUDA_118),
    sc("ok-h100-580-jax072-cuda13", True, recorded("01-h100-590-idle-no-processes.txt", driver="580.82.07", cuda="13.0"),
       [*jax_gpu("0.7.2", 13, cudnn="9.13.0.50", runtime="13.0.96"), NUMPY_2], PY["3.12.7"],
       "jax[cuda13]: driver >= 580, SM >= 7.5 (JAX)"),
    sc("ok-windows-rtx4090-566-torch271-cu126", True,
       recorded(RTX4090, driver="566.36", cuda="12.7"), [*T271_CU126, NUMPY_2],
       {**PY["3.12.7"], **WINDOWS}, "Windows 12.6 needs >= 560.76 (DRV)"),
    sc("ok-windows-528.33-torch251-cu124-minor-compat", True,
       recorded(RTX4090, driver="528.33", cuda="12.0"), [*T251_CU124, NUMPY_1],
       {**PY["3.11.10"], **WINDOWS}, "CUDA 12.x on Windows >= 528.33 (MVC)"),
    sc("ok-rtx4090-525-torch1131-cu117", True, recorded(RTX4090, driver="525.147.05", cuda="12.0"),
       [*T1131_CU117, NUMPY_124], PY["3.10.14"],
       "sm_89 runs the sm_86 SASS of a CUDA 11.7 build (BIN)"),
    sc("ok-rtx4090-525-torch271-cu118", True, recorded(RTX4090, driver="525.147.05", cuda="12.0"),
       [*T271_CU118, NUMPY_2], PY["3.11.10"], "cu118 needs >= 520.61.05 (DRV)"),
    sc("ok-a100-535-torch231-numpy2", True, recorded("14-4x-a100-sxm4-555.txt", driver="535.183.01", cuda="12.2"),
       [*T231_CU121, NUMPY_20], PY["3.11.10"], "torch 2.3 supports NumPy 2 (NP)"),
    sc("ok-rtx2070-440-torch1121-cu102", True, recorded("06-rtx2070-440-old-process-header.txt"),
       [*T1121_CU102, NUMPY_124], PY["3.10.14"], "cu102 needs >= 440.33 (DRV)"),
    sc("ok-h100-565-tf219-with-torch260-cu126-shared-cudnn9", True, recorded(H100_8X),
       [tensorflow("2.19.0", "12.5.1", "9", TF_CAPS), *T260_CU126, NUMPY_2, simple("keras", "3.9.0")],
       PY["3.12.7"], "TF 2.19 built with cuDNN 9.3; torch's cuDNN 9.5 serves it (TF, DNN)"),
    sc("ok-cpu-tf219-cuda-wheel-no-gpu", True, None,
       [tensorflow("2.19.0", "12.5.1", "9", TF_CAPS), NUMPY_2, simple("keras", "3.9.0")],
       PY["3.12.7"], "no GPU: the CUDA build of TF runs on the CPU"),
    sc("ok-cpu-jax072", True, None, [simple("jax", "0.7.2"), simple("jaxlib", "0.7.2"), NUMPY_2],
       PY["3.12.7"], "CPU jaxlib on a CPU host (JAX)"),
    sc("ok-cpu-torch260-cpu-py313", True, None, [torch("2.6.0+cpu"), NUMPY_2], PY["3.13.1"],
       "cp313 CPU wheels from 2.5 (PYPI)"),
    sc("ok-8xh100-565-tf220-and-cuda-py313", True, recorded(H100_8X), [*TF220_AND_CUDA, NUMPY_2],
       PY["3.13.1"], "TF 2.20 has cp313 (TF); CUDA 12.5 on 565 (DRV)"),
    sc("ok-dgx-spark-gb10-aarch64-580-torch290-cu130", True,
       generated([("NVIDIA GB10", 122502)], "580.95.05", "13.0"), [*T290_CU130, NUMPY_2],
       {**PY["3.12.7"], **LINUX_ARM},
       "sm_121 runs the sm_120 SASS and compute_120 PTX of aarch64 cu130 (PTA, BIN)"),
    # ================================================================ broken
    sc("bad-8xh100-565-torch290-cu130", False, recorded(H100_8X), [*T290_CU130, NUMPY_2],
       PY["3.12.7"], "CUDA 13 needs >= 580; no compatibility across majors (MVC)",
       labels=["driver-too-old-for-cuda-runtime"]),
    sc("bad-rtx5080-575-torch241-cu121", False,
       generated([("NVIDIA GeForce RTX 5080", 16303)], "575.64.03", "12.9"), [*T241_CU121, NUMPY_1],
       PY["3.11.10"], "a CUDA 12.1 build cannot hold sm_120 code (SM)",
       labels=["gpu-arch-missing-from-torch-wheel"]),
    sc("bad-2xb200-580-torch260-cu126", False,
       recorded(H100_8X, driver="580.95.05", cuda="13.0", names=["NVIDIA B200"]),
       [*T260_CU126, NUMPY_2], PY["3.12.7"], "CUDA 12.6 predates sm_100 (SM)",
       labels=["gpu-arch-missing-from-torch-wheel"]),
    sc("bad-p100-580-torch290-cu130", False,
       generated([("Tesla P100-PCIE-16GB", 16384)], "580.65.06", "13.0"), [*T290_CU130, NUMPY_2],
       PY["3.12.7"], "CUDA 13 builds have no sm_60 (C13)", must_not=ONE_CAUSE, labels=["cuda13-drops-gpu-arch"]),
    sc("bad-gtx1080ti-570-torch290-cu128", False,
       generated([("NVIDIA GeForce GTX 1080 Ti", 11264)], "570.133.07", "12.8"), [*T290_CU128, NUMPY_2],
       PY["3.12.7"], "2.9 cu128 = 7.0..9.0;10.0;12.0, no Pascal (PTA)",
       labels=["gpu-arch-missing-from-torch-wheel"]),
    sc("bad-tesla-m60-580-torch290-cu130", False,
       generated([("Tesla M60", 8192)], "580.65.06", "13.0"), [*T290_CU130, NUMPY_2], PY["3.12.7"],
       "CUDA 13 builds have no sm_52 (C13)", must_not=ONE_CAUSE, labels=["cuda13-drops-gpu-arch"]),
    sc("bad-v100-580-torch290-cu130-4x", False,
       generated([("Tesla V100-SXM2-32GB", 32768)] * 4, "580.65.06", "13.0"), [*T290_CU130, NUMPY_2],
       PY["3.12.7"], "CUDA 13 builds have no sm_70 (C13)", must_not=ONE_CAUSE, labels=["cuda13-drops-gpu-arch"]),
    sc("bad-numpy2-torch222", False, recorded("14-4x-a100-sxm4-555.txt"), [*T222_CU121, NUMPY_20],
       PY["3.11.10"], "torch < 2.3 is built against the NumPy 1 ABI (NP)",
       labels=["numpy2-incompatible-with-torch"]),
    sc("bad-numpy2-tf215", False, recorded("17-t4-580-exclusive-process.txt"),
       [*TF215_AND_CUDA, NUMPY_20], PY["3.11.10"], "TF < 2.18 is built against NumPy 1 (NP)",
       labels=["numpy2-incompatible"]),
    sc("bad-python313-torch241", False, recorded(RTX4090), [*T241_CU121, NUMPY_2], PY["3.13.1"],
       "torch 2.4 has no cp313 wheels (PYPI)", labels=["python-outside-torch-range"]),
    sc("bad-python312-torch212", False, recorded(RTX4090), [*T212_CU121, NUMPY_1], PY["3.12.7"],
       "torch 2.1 has no cp312 wheels (PYPI)", labels=["python-outside-torch-range"]),
    sc("bad-python39-torch290", False, recorded(RTX4090), [*T290_CU130, NUMPY_2], PY["3.9.19"],
       "torch 2.9 requires Python >= 3.10 (PT)", labels=["python-outside-torch-range"]),
    sc("bad-python312-tf215", False, recorded("17-t4-580-exclusive-process.txt"),
       [*TF215_AND_CUDA, NUMPY_1], PY["3.12.7"], "TF 2.15 has no cp312 (TF)",
       labels=["python-outside-tf-range"]),
    sc("bad-python313-tf218", False, recorded("13-8x-rtx4090-550.txt"), [*TF218_AND_CUDA, NUMPY_2],
       PY["3.13.1"], "TF 2.18 has no cp313 (TF)", labels=["python-outside-tf-range"]),
    sc("bad-h100-tf220-plain-no-cuda-libs", False, recorded(H100_8X),
       [tensorflow("2.20.0", "12.5.1", "9", TF_CAPS), NUMPY_2, simple("keras", "3.10.0")],
       PY["3.12.7"], "TF >= 2.14 needs [and-cuda] or system CUDA/cuDNN (TFPIP)",
       labels=["tf-without-cuda-libs"]),
    sc("bad-rtx3090-tf212-no-system-cuda", False,
       generated([("NVIDIA GeForce RTX 3090", 24576)], "535.183.01", "12.2"),
       [tensorflow("2.12.1", "11.8", "8", TF_CAPS), NUMPY_124, simple("keras", "2.12.0")],
       PY["3.11.10"], "TF 2.12 loads system CUDA 11.8 / cuDNN 8.6; none present (TF)",
       labels=["tf-without-cuda-libs"]),
    sc("bad-tf215-with-torch251-cudnn9", False, recorded("14-4x-a100-sxm4-555.txt"),
       [tensorflow("2.15.1", "12.2", "8", TF_CAPS), *T251_CU124, NUMPY_1, simple("keras", "2.15.0")],
       PY["3.11.10"], "TF 2.15 needs cuDNN 8.9; the shared nvidia-cudnn-cu12 is 9.1 (TF, DNN)",
       labels=["tf-cudnn9-shared-with-torch"]),
    sc("bad-jax0435-plugin0431-mismatch", False, recorded("14-4x-a100-sxm4-555.txt"),
       [*jax_gpu("0.4.35", 12, plugin="0.4.31"), NUMPY_2], PY["3.11.10"],
       "plugin version must equal jaxlib's (JAX)", labels=["jax-plugin-mismatch"]),
    sc("bad-jax072-cuda13-on-570", False, recorded("18-l4-570-idle.txt"),
       [*jax_gpu("0.7.2", 13, cudnn="9.13.0.50", runtime="13.0.96"), NUMPY_2], PY["3.12.7"],
       "jax[cuda13] needs driver >= 580 (JAX, MVC)", labels=["driver-too-old-for-cuda-runtime"]),
    sc("bad-jax072-cuda13-on-v100", False,
       generated([("Tesla V100-SXM2-32GB", 32768)], "580.65.06", "13.0"),
       [*jax_gpu("0.7.2", 13, cudnn="9.13.0.50", runtime="13.0.96"), NUMPY_2], PY["3.12.7"],
       "jax cuda13 needs SM >= 7.5 (JAX)", must_not=ONE_CAUSE, labels=["gpu-too-old-for-jax-plugin"]),
    sc("bad-python310-jax072", False, None, [simple("jax", "0.7.2"), simple("jaxlib", "0.7.2"), NUMPY_2],
       PY["3.10.14"], "jax 0.7.x requires Python >= 3.11 (JAX setup.py)",
       labels=["python-outside-jax-range"]),
    sc("bad-jaxlib-cpu-on-l4", False, recorded("18-l4-570-idle.txt"),
       [simple("jax", "0.4.35"), simple("jaxlib", "0.4.35"), NUMPY_2], PY["3.11.10"],
       "jaxlib alone is CPU-only (JAX)", labels=["jaxlib-cpu-on-gpu-host"]),
    sc("bad-windows-rtx2080super-561-torch290-cu130", False,
       recorded("03-rtx2080super-windows-591-load.txt", driver="561.09", cuda="12.6"),
       [*T290_CU130, NUMPY_2], {**PY["3.12.7"], **WINDOWS},
       "CUDA 13 needs >= 580 on Windows (MVC, DRV)", labels=["driver-too-old-for-cuda-runtime"]),
    sc("bad-rtx2070-440-torch201-cu118", False, recorded("06-rtx2070-440-old-process-header.txt"),
       [*T201_CU118, NUMPY_124], PY["3.10.14"], "CUDA 11.x needs >= 450.80.02 (MVC)",
       labels=["driver-too-old-for-cuda-runtime"]),
    sc("bad-a100-520-torch260-cu126", False,
       recorded("14-4x-a100-sxm4-555.txt", driver="520.61.05", cuda="11.8"), [*T260_CU126, NUMPY_2],
       PY["3.11.10"], "CUDA 12.x needs >= 525.60.13 (MVC)", labels=["driver-too-old-for-cuda-runtime"]),
    sc("bad-rtx4090-470-tf217-and-cuda", False,
       recorded(RTX4090, driver="470.256.02", cuda="11.4"), [*TF217_AND_CUDA, NUMPY_1],
       PY["3.11.10"], "TF 2.17 CUDA 12.3 needs >= 525.60.13 (TFPIP, MVC)",
       labels=["driver-too-old-for-cuda-runtime"]),
    sc("bad-tf-cpu-on-rtx4090-expect-gpu", False, recorded(RTX4090),
       [dict(tensorflow("2.15.1", dist_name="tensorflow-cpu")), NUMPY_1, simple("keras", "2.15.0")],
       PY["3.11.10"], "tensorflow-cpu cannot use the GPU", expect="gpu",
       labels=["tf-cpu-on-gpu-host"]),
]

# ---------------------------------------------------------------- batch 3
# Written (with the verdicts) after batch 1 was fixed, before envdoctor ran on any of these.
# GPU compute capabilities: https://developer.nvidia.com/cuda-gpus (CC).
T290_PYPI = [torch("2.9.0", "12.8"), *cuda_wheels(12, "9.10.2.21", "12.8.90", "12.8.4.1", "2.27.5")]
T290_PYPI_AARCH64_CPU = [torch("2.9.0")]           # PyPI's linux_aarch64 2.9 wheel is CPU-only
T290_CU128_AARCH64 = T290_CU128
T280_CU126 = torch_cuda("2.8.0", "cu126", "9.10.2.21", "12.6.77", "12.6.4.1", "2.27.3")
T270_CU126 = torch_cuda("2.7.0", "cu126", "9.5.1.17", "12.6.77", "12.6.4.1", "2.26.2")
TF216_AND_CUDA = [tensorflow("2.16.1", "12.3", "8", TF_CAPS),
                  *cuda_wheels(12, "8.9.7.29", "12.3.101", "12.3.4.1", "2.19.3"), simple("keras", "3.3.3")]


def g(*gpus):
    return [(name, mib) for name, mib in gpus]


PRO6000 = ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", 97887)
RTX6000ADA = ("NVIDIA RTX 6000 Ada Generation", 49140)
SCENARIOS += [
    sc("ok3-rtx-pro-6000-blackwell-575-torch271-cu128", True, generated(g(PRO6000), "575.57.08", "12.9"),
       [*torch_cuda("2.7.1", "cu128", "9.7.1.26", "12.8.57", "12.8.3.14", "2.26.2"), NUMPY_2],
       PY["3.12.7"], "RTX PRO 6000 Blackwell is CC 12.0 (CC); cu128 has sm_120 (PTA)"),
    sc("bad3-rtx-pro-6000-blackwell-575-torch270-cu126", False, generated(g(PRO6000), "575.57.08", "12.9"),
       [*T270_CU126, NUMPY_2], PY["3.12.7"], "CUDA 12.6 cannot hold sm_120 code (SM)",
       labels=["gpu-arch-missing-from-torch-wheel"]),
    sc("ok3-rtx6000-ada-550-torch251-cu124", True, generated(g(RTX6000ADA), "550.127.05", "12.4"),
       [*T251_CU124, NUMPY_2], PY["3.11.10"], "RTX 6000 Ada is CC 8.9 (CC): sm_86 SASS runs (BIN)"),
    sc("ok3-mixed-a10g-l40-a40-535-torch280-cu126", True,
       generated(g(("NVIDIA A10G", 23028), ("NVIDIA L40", 46068), ("NVIDIA A40", 46068)),
                 "535.230.02", "12.2"),
       [*T280_CU126, NUMPY_2], PY["3.12.7"], "CC 8.6/8.9/8.6 (CC) in cu126 (PTA); 12.6 on 535 (MVC)"),
    sc("ok3-h800-a800-h20-570-torch270-cu128", True,
       generated(g(("NVIDIA H800", 81559), ("NVIDIA A800 80GB PCIe", 81920), ("NVIDIA H20", 97871)),
                 "570.124.06", "12.8"),
       [*T270_CU128, NUMPY_2], PY["3.12.7"], "CC 9.0/8.0/9.0 (CC); cu128 2.7 has sm_80/sm_90 (PTA)"),
    sc("ok3-rtx5090-570-torch290-pypi-no-local-tag", True,
       generated(g(("NVIDIA GeForce RTX 5090", 32607)), "570.172.08", "12.8"), [*T290_PYPI, NUMPY_2],
       PY["3.12.7"], "plain PyPI torch 2.9.0 is the cu128 build (PT pypi_default) with sm_120"),
    sc("bad3-gh200-aarch64-torch290-pypi-cpu", False,
       generated(g(("NVIDIA GH200 480GB", 97871)), "570.148.08", "12.8"), [*T290_PYPI_AARCH64_CPU, NUMPY_2],
       {**PY["3.12.7"], **LINUX_ARM}, "PyPI's aarch64 torch 2.9 is a CPU build (wheel_index pypi)",
       labels=["torch-cpu-build-on-gpu-host"]),
    sc("ok3-gb200-aarch64-580-torch290-cu128", True,
       generated(g(("NVIDIA GB200", 189471)) * 4, "580.95.05", "13.0"), [*T290_CU128_AARCH64, NUMPY_2],
       {**PY["3.12.7"], **LINUX_ARM}, "aarch64 cu128: 8.0;9.0;10.0;12.0 (PTA); GB200 CC 10.0"),
    sc("bad3-gb200-aarch64-580-torch290-cu126", False,
       generated(g(("NVIDIA GB200", 189471)) * 4, "580.95.05", "13.0"), [*T290_CU126, NUMPY_2],
       {**PY["3.12.7"], **LINUX_ARM}, "CUDA 12.6 predates sm_100 (SM)",
       labels=["gpu-arch-missing-from-torch-wheel"]),
    sc("ok3-mixed-rtx5090-rtx3090-575-torch271-cu128", True,
       generated(g(("NVIDIA GeForce RTX 5090", 32607), ("NVIDIA GeForce RTX 3090", 24576)),
                 "575.64.03", "12.9"),
       [*torch_cuda("2.7.1", "cu128", "9.7.1.26", "12.8.57", "12.8.3.14", "2.26.2"), NUMPY_2],
       PY["3.12.7"], "cu128 2.7 has sm_86 and sm_120 (PTA)"),
    sc("bad3-mixed-rtx5090-rtx3090-575-torch271-cu126", False,
       generated(g(("NVIDIA GeForce RTX 5090", 32607), ("NVIDIA GeForce RTX 3090", 24576)),
                 "575.64.03", "12.9"), [*T271_CU126, NUMPY_2], PY["3.12.7"],
       "the RTX 5090 (sm_120) has no code in a CUDA 12.6 build (SM)",
       labels=["gpu-arch-missing-from-torch-wheel"]),
    sc("bad3-mixed-v100-a100-580-torch290-cu130", False,
       generated(g(("Tesla V100-SXM2-32GB", 32768), ("NVIDIA A100-SXM4-80GB", 81920)), "580.65.06", "13.0"),
       [*T290_CU130, NUMPY_2], PY["3.12.7"], "CUDA 13 builds have no sm_70 (C13)",
       labels=["cuda13-drops-gpu-arch"]),
    sc("ok3-t4-470-torch271-cu118-minor-compat", True,
       recorded("17-t4-580-exclusive-process.txt", driver="470.239.06", cuda="11.4"),
       [*T271_CU118, NUMPY_2], PY["3.11.10"], "CUDA 11.8 on 470 >= 450.80.02 (MVC)"),
    sc("ok3-a100-535-torch290-cu126-minor-compat", True,
       recorded("14-4x-a100-sxm4-555.txt", driver="535.247.01", cuda="12.2"), [*T290_CU126, NUMPY_2],
       PY["3.12.7"], "CUDA 12.6 on 535 >= 525.60.13 (MVC)"),
    sc("ok3-h100-550.54.14-torch260-cu124-at-floor", True,
       recorded(H100_8X, driver="550.54.14", cuda="12.4"), [*T260_CU124, NUMPY_2], PY["3.12.7"],
       "cu124 needs >= 550.54.14 (DRV): exactly at the floor"),
    sc("ok3-l4-525.60.13-torch231-cu121-at-mvc-floor", True,
       recorded("18-l4-570-idle.txt", driver="525.60.13", cuda="12.0"), [*T231_CU121, NUMPY_1],
       PY["3.11.10"], "CUDA 12.x on >= 525.60.13 (MVC): exactly at the floor"),
    sc("ok3-torch290-py314-h100-580", True, recorded(H100_8X, driver="580.82.07", cuda="13.0"),
       [*T290_CU130, NUMPY_2], {"python_version": "3.14.0"}, "torch 2.9 has cp314 (PYPI, PT)"),
    sc("bad3-torch280-py314", False, recorded(H100_8X, driver="580.82.07", cuda="13.0"),
       [*T280_CU128, NUMPY_2], {"python_version": "3.14.0"}, "torch 2.8 has no cp314 (PYPI)",
       labels=["python-outside-torch-range"]),
    sc("ok3-tf217-py312-and-cuda-rtx4090-550", True, recorded("13-8x-rtx4090-550.txt"),
       [*TF217_AND_CUDA, NUMPY_1], PY["3.12.7"], "TF 2.17 has cp312 (TF)"),
    sc("ok3-tf216-and-cuda-wsl2-rtx3070-531", True, recorded("08-rtx3070-wsl-530-driver-531.txt"),
       [*TF216_AND_CUDA, NUMPY_1], {**PY["3.11.10"], **WSL2},
       "[and-cuda] on WSL2 needs Windows driver >= 528.33 (TFPIP)"),
    sc("bad3-windows-527.41-torch222-cu121", False, recorded(RTX4090, driver="527.41", cuda="12.0"),
       [*T222_CU121, NUMPY_1], {**PY["3.11.10"], **WINDOWS},
       "CUDA 12.1 needs 531.14 on Windows, 12.x under MVC >= 528.33 (DRV, MVC)",
       labels=["driver-too-old-for-cuda-runtime"]),
    sc("ok3-gtx1080ti-560-jax0435-cuda12", True,
       generated(g(("NVIDIA GeForce GTX 1080 Ti", 11264)), "560.35.03", "12.6"),
       [*jax_gpu("0.4.35", 12), NUMPY_2], PY["3.11.10"], "jax cuda12: SM >= 5.2 (JAX)"),
    sc("bad3-jax0435-cuda12-on-520", False,
       recorded("14-4x-a100-sxm4-555.txt", driver="520.61.05", cuda="11.8"),
       [*jax_gpu("0.4.35", 12), NUMPY_2], PY["3.11.10"], "jax cuda12 needs driver >= 525 (JAX)",
       labels=["driver-too-old-for-cuda-runtime"]),
    sc("ok3-cpu-host-torch251-cu124-no-driver", True, None, [*T251_CU124, NUMPY_2], PY["3.11.10"],
       "a CUDA wheel on a machine without a GPU runs on the CPU (PT)"),
    sc("bad3-rocm-torch-on-nvidia-host", False, recorded(RTX4090),
       [dist("torch", "2.5.1+rocm6.2", {"torch/__init__.py": "", "torch/version.py":
             "__version__ = '2.5.1+rocm6.2'\ncuda = None\nhip = '6.2.41133-dd7f95766'\n"}, "torch"), NUMPY_2],
       PY["3.11.10"], "a ROCm build cannot use an NVIDIA GPU (PT)", labels=["rocm-torch-on-nvidia"]),
]
for _s in SCENARIOS:
    _s.setdefault("host", PY["3.11.10"])

# ---------------------------------------------------------------- batch 4
# Written (with the verdicts) after batch 3 was fixed, before envdoctor ran on any of these:
# framework pairings (TF + torch sharing wheels, JAX plugin/pjrt/jaxlib, torch companions),
# package conflicts, NumPy 2 with old jaxlib, TF's system-CUDA era.
#  PTV  torch / torchvision / torchaudio pairs: https://github.com/pytorch/vision#installation
#  TFD  tensorflow and tensorflow-cpu install the same `tensorflow` module:
#       https://www.tensorflow.org/install/pip
#  K3   Keras 3 needs TF >= 2.16 (tf.keras of 2.15 is Keras 2): https://keras.io/getting_started/
SYSTEM_CUDA_112 = {"toolkit": ("11.2.152", "/usr/local/cuda-11.2"),
                   "libs": [("cudnn", "8.1.1", "/usr/lib/x86_64-linux-gnu/libcudnn.so.8"),
                            ("cudart", "11.2.152", "/usr/local/cuda-11.2/lib64/libcudart.so.11.0"),
                            ("cublas", "11.4.1.1043", "/usr/local/cuda-11.2/lib64/libcublas.so.11")]}
SCENARIOS += [
    sc("ok4-tf218-and-cuda-with-torch260-cu126-cudnn95", True, recorded("13-8x-rtx4090-550.txt",
       driver="560.35.03", cuda="12.6"),
       [tensorflow("2.18.0", "12.5.1", "9", TF_CAPS), *T260_CU126, NUMPY_2, simple("keras", "3.6.0")],
       PY["3.12.7"], "TF 2.18 built with cuDNN 9.3; torch's 9.5 serves it (TF, DNN)"),
    sc("bad4-jax0431-with-plugin0435-newer", False, recorded("14-4x-a100-sxm4-555.txt"),
       [*jax_gpu("0.4.31", 12, plugin="0.4.35"), NUMPY_2], PY["3.11.10"],
       "plugin must equal jaxlib's version (JAX)", labels=["jax-plugin-mismatch"]),
    sc("bad4-jax0435-pjrt-0434", False, recorded("14-4x-a100-sxm4-555.txt"),
       [simple("jax", "0.4.35"), simple("jaxlib", "0.4.35"),
        dist("jax-cuda12-plugin", "0.4.35", {"jax_cuda12_plugin/__init__.py": ""}, "jax_cuda12_plugin"),
        dist("jax-cuda12-pjrt", "0.4.34", {"jax_plugins/xla_cuda12/__init__.py": ""}, "jax_plugins"),
        nv("cudnn", 12, "9.5.1.17"), NUMPY_2], PY["3.11.10"],
       "jax-cuda12-plugin 0.4.35 requires jax-cuda12-pjrt==0.4.35 (JAX)", labels=["jax-plugin-mismatch"]),
    sc("ok4-jax0430-cuda12-h100-550", True, recorded(H100_8X, driver="550.127.05", cuda="12.4"),
       [*jax_gpu("0.4.30", 12, cudnn="9.1.1.17", runtime="12.4.127"), NUMPY_2], PY["3.11.10"],
       "jax 0.4.30 cuda12 plugin, driver >= 525 (JAX)"),
    sc("bad4-keras3-with-tf215", False, recorded("17-t4-580-exclusive-process.txt"),
       [tensorflow("2.15.1", "12.2", "8", TF_CAPS), *cuda_wheels(12, "8.9.4.25", "12.2.140", "12.2.5.6", "2.16.5"),
        simple("keras", "3.3.3"), NUMPY_1], PY["3.11.10"], "Keras 3 needs TF >= 2.16 (K3)",
       labels=["keras3-with-old-tf"]),
    sc("bad4-cpu-torch-on-gpu-host-auto", False, recorded("18-l4-570-idle.txt"),
       [torch("2.6.0+cpu"), NUMPY_2], PY["3.12.7"], "a CPU wheel on a GPU host (PT)",
       labels=["torch-cpu-build-on-gpu-host"]),
    sc("ok4-cpu-laptop-tf218-cpu-numpy2", True, None,
       [dict(tensorflow("2.18.0", dist_name="tensorflow-cpu")), NUMPY_2, simple("keras", "3.6.0")],
       PY["3.12.7"], "tensorflow-cpu on a CPU machine (TFD)"),
    sc("ok4-tf-gpu-2.10-system-cuda112-rtx3090", True,
       generated(g(("NVIDIA GeForce RTX 3090", 24576)), "515.105.01", "11.7"),
       [tensorflow("2.10.1", "11.2", "8", ["sm_35", "sm_50", "sm_60", "sm_70", "sm_75", "compute_80"],
                   dist_name="tensorflow-gpu"), NUMPY_124, simple("keras", "2.10.0")],
       PY["3.10.14"], "TF 2.10 tested with CUDA 11.2 / cuDNN 8.1 (TF); RTX 3090 runs compute_80 PTX (BIN)",
       system_cuda=SYSTEM_CUDA_112),
    sc("bad4-tensorflow-and-tensorflow-cpu-both", False, recorded(RTX4090),
       [*TF218_AND_CUDA, dict(tensorflow("2.18.0", dist_name="tensorflow-cpu")), NUMPY_2], PY["3.11.10"],
       "both distributions write the tensorflow module (TFD)", labels=["two-distributions-one-module"]),
    sc("bad4-torchvision-of-another-release", False, recorded(RTX4090, driver="560.35.03", cuda="12.6"),
       [*T260_CU124, simple("torchvision", "0.19.1+cu121", "torchvision"), NUMPY_2], PY["3.11.10"],
       "torch 2.6 pairs with torchvision 0.21 (PTV)", labels=["torch-companion-mismatch"]),
    sc("ok4-torch260-torchvision021-torchaudio260", True, recorded(RTX4090, driver="560.35.03", cuda="12.6"),
       [*T260_CU124, simple("torchvision", "0.21.0+cu124", "torchvision"),
        simple("torchaudio", "2.6.0+cu124", "torchaudio"), NUMPY_2], PY["3.11.10"], "PTV"),
    sc("bad4-numpy2-jaxlib0423-cpu", False, None,
       [simple("jax", "0.4.23"), simple("jaxlib", "0.4.23"), NUMPY_20], PY["3.11.10"],
       "jaxlib supports NumPy 2 from 0.4.26 (JAX CHANGELOG)", labels=["numpy2-incompatible"]),
    sc("ok4-numpy2-jaxlib0430-cpu", True, None,
       [simple("jax", "0.4.30"), simple("jaxlib", "0.4.30"), NUMPY_20], PY["3.11.10"],
       "jaxlib 0.4.26+ is built for NumPy 2 (JAX CHANGELOG)"),
    sc("ok4-h100-565-torch260-cu126-and-jax0435-cuda12", True, recorded(H100_8X),
       [*T260_CU126, simple("jax", "0.4.35"), simple("jaxlib", "0.4.35"),
        dist("jax-cuda12-plugin", "0.4.35", {"jax_cuda12_plugin/__init__.py": ""}, "jax_cuda12_plugin"),
        dist("jax-cuda12-pjrt", "0.4.35", {"jax_plugins/xla_cuda12/__init__.py": ""}, "jax_plugins"),
        NUMPY_2], PY["3.11.10"], "torch and jax share nvidia-*-cu12 wheels; cuDNN 9.5 >= 9.1 (JAX)"),
]

# ---------------------------------------------------------------- batch 5
# Written (with the verdicts) after batch 4 was fixed, before envdoctor ran on any of these:
# the environment variables training jobs set, and a Jetson.
#  CVD  CUDA_VISIBLE_DEVICES: "" hides every GPU, an index past the last GPU hides it:
#       https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars
#  ALLOC PYTORCH_CUDA_ALLOC_CONF options: https://docs.pytorch.org/docs/stable/notes/cuda.html
#  LDP  sonames differ per CUDA major (libcudart.so.11.0 / .12, libcudnn.so.8 / .9): a CUDA 11
#       folder on LD_LIBRARY_PATH cannot stand in for a CUDA 12 wheel's libraries:
#       https://docs.nvidia.com/deploy/cuda-compatibility/
#  JP   Jetson: JetPack 6.x (L4T r36, CUDA 12.6 driver) and NVIDIA's torch wheels for it:
#       https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform/index.html
A100_4X = "14-4x-a100-sxm4-555.txt"
SCENARIOS += [
    sc("bad5-cuda-visible-devices-empty", False, recorded(A100_4X), [*T260_CU126, NUMPY_2],
       PY["3.12.7"], "an empty CUDA_VISIBLE_DEVICES hides every GPU (CVD)",
       env={"CUDA_VISIBLE_DEVICES": ""}, labels=["visible-devices-hide-all"]),
    sc("bad5-cuda-visible-devices-past-last-gpu", False, recorded(A100_4X), [*T260_CU126, NUMPY_2],
       PY["3.12.7"], "index 6 on a 4-GPU host names no GPU (CVD)",
       env={"CUDA_VISIBLE_DEVICES": "6"}, labels=["visible-devices-missing"]),
    sc("ok5-cuda-visible-devices-subset", True, recorded(A100_4X), [*T260_CU126, NUMPY_2],
       PY["3.12.7"], "two of four GPUs (CVD)", env={"CUDA_VISIBLE_DEVICES": "1,3"}),
    sc("ok5-alloc-conf-expandable", True, recorded(A100_4X), [*T260_CU126, NUMPY_2], PY["3.12.7"],
       "a valid allocator option (ALLOC)",
       env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True,max_split_size_mb:512"}),
    sc("bad5-alloc-conf-malformed", False, recorded(A100_4X), [*T260_CU126, NUMPY_2], PY["3.12.7"],
       "max_split_size_mb takes a number (ALLOC)",
       env={"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:lots"}, labels=["alloc-conf"]),
    sc("ok5-ld-library-path-cuda118-with-torch-cu126", True, recorded(A100_4X), [*T260_CU126, NUMPY_2],
       PY["3.12.7"], "libcudart.so.11.0 / libcudnn.so.8 cannot shadow .so.12 / .so.9 (LDP)",
       env={"LD_LIBRARY_PATH": "/usr/local/cuda-11.8/lib64"}, system_cuda=SYSTEM_CUDA_118),
    sc("ok5-jetson-orin-jetpack6-torch-nv24", True,
       generated(g(("Orin (nvgpu)", 62841)), "540.4.0", "12.6"),
       [torch("2.5.0a0+872d972e41.nv24.08", "12.6"), NUMPY_124],
       {**PY["3.10.14"], **LINUX_ARM}, "NVIDIA's JetPack 6 torch wheel for Orin (JP)"),
]

# ---------------------------------------------------------------- batch 6
# Written (with the verdicts) after batch 5, before envdoctor ran on any of these: TensorFlow
# on a system CUDA of the tested configuration or not, and native Windows.
#  TFW  "TensorFlow 2.10 was the last TensorFlow release that supported GPU on native
#       Windows": https://www.tensorflow.org/install/pip#windows-native
#  JAXW JAX on Windows: CPU only (NVIDIA GPU: no; WSL2 experimental):
#       https://docs.jax.dev/en/latest/installation.html#supported-platforms
SYSTEM_CUDA_122 = {"toolkit": ("12.2.140", "/usr/local/cuda-12.2"),
                   "libs": [("cudnn", "8.9.4", "/usr/lib/x86_64-linux-gnu/libcudnn.so.8"),
                            ("cudart", "12.2.140", "/usr/local/cuda-12.2/lib64/libcudart.so.12"),
                            ("cublas", "12.2.5.6", "/usr/local/cuda-12.2/lib64/libcublas.so.12")]}
SYSTEM_CUDNN9_ONLY = {"toolkit": ("12.4.131", "/usr/local/cuda-12.4"),
                      "libs": [("cudnn", "9.1.0", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9"),
                               ("cudart", "12.4.127", "/usr/local/cuda-12.4/lib64/libcudart.so.12")]}
WIN_TF = {"toolkit": ("11.2.152", "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2"),
          "libs": [("cudnn", "8.1.1", "C:\\Program Files\\NVIDIA\\CUDNN\\v8.1\\bin\\cudnn64_8.dll"),
                   ("cudart", "11.2.152", "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin\\cudart64_110.dll")]}
SCENARIOS += [
    sc("ok6-tf215-system-cuda122-cudnn89-a100", True, recorded(A100_4X),
       [tensorflow("2.15.1", "12.2", "8", TF_CAPS), NUMPY_1, simple("keras", "2.15.0")], PY["3.11.10"],
       "TF 2.15 tested with CUDA 12.2 / cuDNN 8.9 (TF)", system_cuda=SYSTEM_CUDA_122),
    sc("bad6-tf215-system-cuda118-only", False, recorded(A100_4X),
       [tensorflow("2.15.1", "12.2", "8", TF_CAPS), NUMPY_1, simple("keras", "2.15.0")], PY["3.11.10"],
       "TF 2.15 dlopens libcudart.so.12; only CUDA 11.8 (libcudart.so.11.0) is here (TF)",
       system_cuda=SYSTEM_CUDA_118, labels=["tf-cuda-mismatch"]),
    sc("bad6-tf213-system-cudnn9-only", False, recorded(A100_4X),
       [tensorflow("2.13.1", "11.8", "8", TF_CAPS), NUMPY_124, simple("keras", "2.13.1")], PY["3.11.10"],
       "TF 2.13 dlopens libcudart.so.11.0 and libcudnn.so.8; the system has CUDA 12.4 / cuDNN 9 (TF)",
       system_cuda=SYSTEM_CUDNN9_ONLY, labels=["tf-cuda-mismatch"]),
    sc("ok6-tf219-and-cuda-h200-570", True, recorded("19-h200-570.86.15.txt"),
       [tensorflow("2.19.0", "12.5.1", "9", TF_CAPS), *cuda_wheels(12, "9.3.0.75", "12.5.82", "12.5.3.2", "2.23.4"),
        NUMPY_2, simple("keras", "3.9.0")], PY["3.12.7"], "TF 2.19 CUDA 12.5 on 570 (TF, DRV)"),
    sc("ok6-tf216-and-cuda-l4-570-py312", True, recorded("18-l4-570-idle.txt"),
       [*TF216_AND_CUDA, NUMPY_1], PY["3.12.7"], "TF 2.16 has cp312 (TF)"),
    sc("bad6-windows-tf216-rtx2080super", False, recorded("03-rtx2080super-windows-591-load.txt"),
       [dist("tensorflow", "2.16.1"),   # on Windows the tensorflow wheel is an empty installer
        dict(tensorflow("2.16.1", dist_name="tensorflow-intel")), NUMPY_1,
        simple("keras", "3.3.3")], {**PY["3.11.10"], **WINDOWS},
       "no GPU TensorFlow on native Windows after 2.10 (TFW)", labels=["tf-native-windows"]),
    sc("ok6-windows-tf210-gpu-cuda112-rtx2080super", True,
       recorded("03-rtx2080super-windows-591-load.txt", driver="537.58", cuda="12.2"),
       [tensorflow("2.10.1", "64_112", "64_8", ["sm_35", "sm_50", "sm_60", "sm_70", "sm_75", "compute_80"]),
        NUMPY_124, simple("keras", "2.10.0")], {**PY["3.10.14"], **WINDOWS},
       "TF 2.10 native Windows GPU with CUDA 11.2 / cuDNN 8.1 (TFW, TF)", system_cuda=WIN_TF),
    sc("bad6-windows-jax-on-gpu", False, recorded("03-rtx2080super-windows-591-load.txt"),
       [simple("jax", "0.4.35"), simple("jaxlib", "0.4.35"), NUMPY_2], {**PY["3.12.7"], **WINDOWS},
       "JAX has no NVIDIA GPU wheels on native Windows (JAXW)", labels=["jax-native-windows"]),
]

# ---------------------------------------------------------------- batch 7
# Written after batch 6, before envdoctor ran on them: machines with no framework yet, where
# `envdoctor suggest` proposes torch, TensorFlow and JAX (each command is checked against the
# wheel-index data by the test) and `check` has nothing to say.
MACOS = {"os": "Darwin", "distro": "macOS 15.1", "glibc": "", "kernel": "24.1.0", "arch": "arm64",
         "cpu_flags": []}
SCENARIOS += [
    sc("ok7-bare-linux-8xh100-565", True, recorded(H100_8X), [NUMPY_2], PY["3.12.7"],
       "nothing installed: nothing wrong; suggest names wheels for driver 565 (cu126, jax[cuda12])"),
    sc("ok7-bare-windows-rtx2080super-591", True, recorded("03-rtx2080super-windows-591-load.txt"),
       [NUMPY_2], {**PY["3.12.7"], **WINDOWS}, "Windows: torch cu130 wheels, TF/JAX CPU only"),
    sc("ok7-bare-gh200-aarch64-580", True,
       generated(g(("NVIDIA GH200 480GB", 97871)), "580.82.07", "13.0"), [NUMPY_2],
       {**PY["3.12.7"], **LINUX_ARM}, "aarch64: torch cu130, jax cuda13, TF CPU (tensorflow-cpu-aws)"),
    sc("ok7-bare-macos-arm64", True, None, [NUMPY_2], {**PY["3.12.7"], **MACOS},
       "Apple silicon: CPU/MPS wheels from PyPI"),
    sc("ok7-bare-linux-t4-470-py310", True,
       recorded("17-t4-580-exclusive-process.txt", driver="470.256.02", cuda="11.4"), [NUMPY_124],
       PY["3.10.14"], "driver 470: only CUDA 11 wheels run (torch cu118 <= 2.7; TF 2.14 [and-cuda])"),
]
SCENARIOS += [
    sc("ok7-graviton-aarch64-tf218-cpu-aws", True, None,
       [dist("tensorflow", "2.18.0"), dict(tensorflow("2.18.0", dist_name="tensorflow-cpu-aws")),
        NUMPY_2, simple("keras", "3.6.0")], {**PY["3.12.7"], **LINUX_ARM},
       "pip install tensorflow on Linux aarch64 = thin tensorflow + tensorflow-cpu-aws (TFD)"),
    sc("ok7-windows-cpu-laptop-tf218-intel", True, None,
       [dist("tensorflow", "2.18.0"), dict(tensorflow("2.18.0", dist_name="tensorflow-intel")),
        NUMPY_2, simple("keras", "3.6.0")], {**PY["3.12.7"], **WINDOWS},
       "pip install tensorflow on Windows = thin tensorflow + tensorflow-intel (TFD)"),
]
