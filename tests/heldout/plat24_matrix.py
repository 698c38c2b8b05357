"""The platform matrix of issue 24: every platform's healthy and broken machines, each run as a
user runs it, ``check --static --root DIR --format json --expect gpu`` with fake tools on PATH
printing recorded real outputs, a fake site-packages on PYTHONPATH and fake system files under
DIR (tests/heldout/test_plat24_matrix.py).

Most machines are the ones the platform sets already hold (their builders, recordings and
sources are in the module each row names); this file picks them into one matrix with the
verdict each must get, and adds the cells no set held:

- ``rx6750xt-gfx1031-no-override``: an RX 6750 XT (gfx1031) and the Ryzen 7700X's iGPU (gfx1036)
  on ROCm 6.2.2 with torch's ROCm 6.2 wheel and no HSA_OVERRIDE_GFX_VERSION; rocminfo as
  ROCm/ROCm#3923 posts it (tests/data/tools/rocminfo/08-…), where the reporter's "HIP error:
  invalid device function" went away with ``HSA_OVERRIDE_GFX_VERSION=10.3.0`` and
  ``HIP_VISIBLE_DEVICES=0`` (the thread's last comment) - which is the healthy twin
  ``rx6750xt-gfx1031-override-healthy``. gfx1031 is not on AMD's Linux support list for any
  ROCm 6.x release (https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/
  system-requirements.html; ROCm/legacy-rocm-build#2720: "gfx1031 is not officially
  supported").
- ``m2max-macos15-torch-healthy``: an M2 Max on macOS 15.1.1 (recorded sysctl / sw_vers) with
  an arm64 CPython and torch 2.5.1's macosx_11_0_arm64 wheel (built with MPS).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from tests.heldout import apple_machines, platform_machines, rocm_machines, wsl_machines
from tests.probes import jetson_machines

ROCM_GFX1031 = "rocminfo/08-rx6750xt-gfx1031-plus-gfx1036-igpu.txt"
NEW = {
    "rocm": [
        dict(name="rx6750xt-gfx1031-no-override", healthy=False, sources=("SR", "OVR"),
             labels=["rdna-needs-hsa-override"],
             tools=rocm_machines.rocminfo(ROCM_GFX1031),
             system=rocm_machines.system(rocm="6.2.2-63", pci=2),
             dists=[rocm_machines.TORCH_251_ROCM62]),
        dict(name="rx6750xt-gfx1031-override-healthy", healthy=True, sources=("SR", "OVR"),
             tools=rocm_machines.rocminfo(ROCM_GFX1031),
             env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0", "HIP_VISIBLE_DEVICES": "0"},
             system=rocm_machines.system(rocm="6.2.2-63", pci=2),
             dists=[rocm_machines.TORCH_251_ROCM62]),
    ],
    "apple": [
        dict(name="m2max-macos15-torch-healthy", healthy=True, sources=("MPS", "WHL"),
             system=apple_machines.mac("15.1.1", "24B91", "sysctl/03-m2max-native.txt",
                                       "sw_vers/03-15.1.1.txt"),
             dists=[apple_machines.numpy(), apple_machines.torch("2.5.1")]),
    ],
}

# (platform, module, machine name, check ids that name the cause, severity they must reach);
# a healthy machine has no ids: it must get no warning or error and exit 0.
MATRIX: list[tuple[str, str, str, frozenset[str], str]] = [
    # AMD ROCm
    ("rocm", "rocm", "mi300x-rocm63-healthy", frozenset(), ""),
    ("rocm", "new", "rx6750xt-gfx1031-override-healthy", frozenset(), ""),
    ("rocm", "new", "rx6750xt-gfx1031-no-override",
     frozenset({"rocm-rdna-needs-hsa-override", "rocm-gfx-unsupported"}), "error"),
    ("rocm", "rocm", "rx6600xt-needs-override", frozenset({"rocm-rdna-needs-hsa-override"}), "error"),
    ("rocm", "rocm", "kfd-not-in-render-group", frozenset({"rocm-device-access"}), "error"),
    ("rocm", "rocm", "cuda-wheel-on-amd", frozenset({"torch-cuda-wheel-on-amd"}), "error"),
    ("rocm", "rocm", "rocm-torch-newer-than-installed",
     frozenset({"rocm-torch-newer-than-installed"}), "error"),
    # Apple silicon
    ("apple", "new", "m2max-macos15-torch-healthy", frozenset(), ""),
    ("apple", "apple", "m1-macos13-torch251-healthy", frozenset(), ""),
    ("apple", "apple", "m3max-rosetta-x86-python-torch222",
     frozenset({"apple-x86-python-on-apple-silicon"}), "error"),
    ("apple", "apple", "m1-macos12.2-torch201", frozenset({"apple-macos-too-old-for-mps"}), "error"),
    ("apple", "apple", "m2max-tf218-tf-metal-110-mismatch",
     frozenset({"apple-tensorflow-metal-mismatch"}), "error"),
    # Jetson
    ("jetson", "jetson", "agx-orin-jp62-nvidia-wheel-healthy", frozenset(), ""),
    ("jetson", "jetson", "agx-orin-pypi-cpu-torch", frozenset({"jetson-cpu-only-torch"}), "error"),
    ("jetson", "platform", "jetson-agx-orin-r35.4.1-pypi-cpu-torch",
     frozenset({"jetson-cpu-only-torch"}), "error"),
    # WSL 2
    ("wsl", "wsl", "wsl2-healthy", frozenset(), ""),
    ("wsl", "wsl", "wsl2-linux-driver-shadows-wsl-libcuda",
     frozenset({"linux-driver-inside-wsl"}), "error"),
    ("wsl", "platform", "wsl2-linux-nvidia-driver-inside-distro",
     frozenset({"linux-driver-inside-wsl"}), "error"),
    # containers
    ("container", "wsl", "container-healthy-with-gpus", frozenset(), ""),
    ("container", "wsl", "container-started-without-gpus",
     frozenset({"container-without-gpu-devices"}), "error"),
    ("container", "wsl", "container-64mb-shm-dataloader",
     frozenset({"small-dev-shm-in-container"}), "error"),
    ("container", "platform", "container-gpus-default-64m-shm",
     frozenset({"small-dev-shm-in-container"}), "error"),
]

MODULES: dict[str, ModuleType] = {"rocm": rocm_machines, "apple": apple_machines,
                                  "jetson": jetson_machines, "wsl": wsl_machines,
                                  "platform": platform_machines}


def scenario(module: str, name: str, platform: str) -> dict:
    pool = NEW[platform] if module == "new" else MODULES[module].SCENARIOS
    [sc] = [s for s in pool if s["name"] == name]
    return sc


def build(platform: str, module: str, sc: dict, box: Path) -> tuple[Path, Path, Path, dict[str, str]]:
    """(site-packages, bin, root, extra environment) of one machine, by its module's builder."""
    if module == "new":
        module = platform
    built = MODULES[module].build(sc, box)
    if len(built) == 4:
        return built  # type: ignore[return-value]
    site, bindir, root = built
    return site, bindir, root, dict(sc.get("env", {}))
