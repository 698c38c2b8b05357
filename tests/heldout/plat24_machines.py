"""Held-out batch plat24: simulated ROCm, WSL 2 and container machines for `check --static --root`.

Written, with each expected verdict and its source, before envdoctor was run on any of them
(first-run figure: tests/heldout/PLATFORMS24.md). ROCm machines are laid out by
tests/heldout/rocm_machines.py (recorded amd tool outputs, fake site-packages, /opt/rocm, /dev/kfd,
the KFD topology); WSL and container machines by tests/heldout/wsl_machines.py (fake root with
/proc/version, /usr/lib/wsl/lib, /proc/mounts, cgroup files, device nodes). What is new here:
the scenarios, an nvidia-smi on PATH beside a ROCm wheel, and WSL without /dev/dxg.

Sources for the expected verdicts:
 OLD   ROCm 4.0.1 builds of torch (1.8) carry gfx908 (MI100) and gfx906 code: pytorch/builder's
       ROCm 4.0.1 / 4.1 wheels embed MIOpen's databases for gfx906_60, gfx906_64 and gfx90878
       (https://github.com/pytorch/builder/pull/685); torch 1.8.1+rocm4.0.1 is on
       https://pytorch.org/get-started/previous-versions/ ; an MI100 on it is a supported setup.
 TV    a +rocmX.Y wheel on an NVIDIA machine cannot use the GPU (HIP finds no AMD device):
       https://pytorch.org/get-started/locally/
 HIPV  ROCR_VISIBLE_DEVICES filters first, HIP_VISIBLE_DEVICES indexes what is left; both set to
       1 on a two-GPU machine leave none: https://github.com/mcmonkeyprojects/SwarmUI/issues/565 ,
       https://rocm.docs.amd.com/en/latest/conceptual/gpu-isolation.html
 DXG   CUDA on WSL 2 reaches the Windows driver through /dev/dxg (dxgkrnl); without it no GPU is
       visible: https://docs.nvidia.com/cuda/wsl-user-guide/index.html ,
       https://github.com/microsoft/WSL/issues/6809
 SHM   Docker's 64 MiB /dev/shm holds few DataLoader workers; a GPU container can still train
       with num_workers=0 (a warning, not an error): https://github.com/pytorch/pytorch#docker-image
 CTK   a container without GPU devices while NVIDIA_VISIBLE_DEVICES=all (started without --gpus):
       https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html
"""

from __future__ import annotations

import stat
from pathlib import Path

from tests.heldout import rocm_machines as rm
from tests.heldout import wsl_machines as wm

SMI = Path(__file__).resolve().parents[1] / "data" / "tools" / "nvidia-smi"

ROCM_SCENARIOS: list[dict] = [
    dict(name="mi100-rocm40-torch181-healthy", healthy=True, sources=("OLD",),
         note="the false alarm of the platform batch: 'ROCm has no code for gfx908'",
         tools=rm.rocm_smi("rocm-smi/03-showproductname-csv-mi100.txt"),
         system=rm.system(rocm="4.0.1-25", pci=2, topology=(90008, 90008)),
         dists=[rm.torch("1.8.1+rocm4.0.1", hip="4.0")]),
    dict(name="mi50-rocm41-torch190-healthy", healthy=True, sources=("OLD",),
         note="gfx906 on a ROCm older than the per-release tables: undecided, not 'no code'",
         tools={}, system=rm.system(rocm="4.1.0-25", pci=1, topology=(90006,)),
         dists=[rm.torch("1.9.0+rocm4.1", hip="4.1")]),
    dict(name="rocm-wheel-on-nvidia-h100", healthy=False, sources=("TV",),
         labels=["rocm-wheel-on-nvidia"], smi="01-h100-590-idle-no-processes.txt",
         tools={}, system=rm.system(rocm=None, kfd=None, render=None, module=False, pci=0),
         dists=[rm.TORCH_251_ROCM62]),
    dict(name="rocr-and-hip-visible-same-index", healthy=False, sources=("HIPV",),
         labels=["hip-visible-hides-all"],
         tools=rm.rocm_smi("rocm-smi/03-showproductname-csv-mi100.txt"),
         env={"ROCR_VISIBLE_DEVICES": "1", "HIP_VISIBLE_DEVICES": "1"},
         system=rm.system(pci=2, topology=(90008, 90008)), dists=[rm.TORCH_251_ROCM62]),
]

WSL_SCENARIOS: list[dict] = [
    {"name": "wsl2-healthy-with-dxg", "healthy": True, "src": "DXG",
     "wsl": {"linux_driver": False}, "dxg": True, "smi": "08-rtx3070-wsl-530-driver-531.txt",
     "ldconfig": ["libcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1"],
     "torch": wm.TORCH_CU124},
    {"name": "wsl2-no-dxg", "healthy": False, "src": "DXG", "labels": ["wsl-no-dxg"],
     "wsl": {"linux_driver": False}, "dxg": False,
     "ldconfig": ["libcuda.so.1 (libc6,x86-64) => /usr/lib/wsl/lib/libcuda.so.1"],
     "torch": wm.TORCH_CU124},
    {"name": "container-64mb-shm-gpu-ok", "healthy": False, "src": "SHM",
     "labels": ["small-dev-shm"],
     "container": {"gpus": True, "shm": wm.MOUNTS_SHM_64M, "memory_max": "max"},
     "env": {"NVIDIA_VISIBLE_DEVICES": "all"}, "smi": "18-l4-570-idle.txt",
     "torch": ("2.6.0+cu124", "12.4")},
    {"name": "container-no-gpus-cuda-image-env", "healthy": False, "src": "CTK",
     "labels": ["container-without-gpu-devices"],
     "container": {"gpus": False, "shm": wm.MOUNTS_SHM_16G, "memory_max": "max"},
     "env": {"NVIDIA_VISIBLE_DEVICES": "all", "NVIDIA_REQUIRE_CUDA": "cuda>=12.4",
             "NV_CUDA_LIB_VERSION": "12.4.1-1"},
     "torch": ("2.6.0+cu124", "12.4")},
]


def _smi(bindir: Path, name: str) -> None:
    script = bindir / "nvidia-smi"
    script.write_text("#!/bin/sh\ncase \"$1\" in --query*) exit 2;; esac\n"
                      f"sed 1d '{SMI / name}'\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


def build_rocm(sc: dict, box: Path) -> tuple[Path, Path, Path]:
    site, bindir, root = rm.build(sc, box)
    if sc.get("smi"):
        _smi(bindir, sc["smi"])
    return site, bindir, root


def build_wsl(sc: dict, box: Path) -> tuple[Path, Path, Path, dict[str, str]]:
    site, bindir, root, env = wm.build(sc, box)
    if not sc.get("dxg", True):  # wsl_machines lays out /dev/dxg, as every WSL 2 with GPU has
        (root / "dev/dxg").unlink()
    return site, bindir, root, env
