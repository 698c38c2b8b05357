"""Probe parsers on recorded real tool outputs (tests/data/tools/<tool>/*.txt, URL on line 1).

Each expectation is what a person reads in the file: driver, CUDA version, GPU names and count,
memory, MIG. A parser change that misreads any real output fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from envdoctor.probes import cuda, libraries, nvidia

TOOLS = Path(__file__).resolve().parents[1] / "data" / "tools"


def recorded(tool: str, name: str) -> str:
    """The verbatim output of a recorded file, without its ``# source: URL`` line."""
    text = (TOOLS / tool / name).read_text(encoding="utf-8")
    first, _, body = text.partition("\n")
    assert first.startswith("# source: https://"), f"{tool}/{name} lacks its source URL"
    return body


def test_every_recorded_file_is_covered():
    """A new recorded output must get expectations here, not sit unread."""
    covered = {f"{tool}/{name}" for tool, table in COVERAGE.items() for name in table}
    on_disk = {f"{p.parent.name}/{p.name}" for p in TOOLS.glob("*/*.txt")}
    assert on_disk - covered == set()


# --------------------------------------------------------------------------- nvidia-smi table
# file -> (driver, CUDA, GPU count, first GPU name, MIG of GPU 0, used/total MiB of GPU 0,
#          process count of GPU 0)
SMI_TABLE = {
    "01-h100-590-idle-no-processes.txt":
        ("590.48.01", "13.1", 1, "NVIDIA H100 80GB HBM3", False, (0, 81559), 0),
    "02-h100-mig-590-idle.txt":
        ("590.48.01", "13.1", 1, "NVIDIA H100 80GB HBM3", True, (59, 81559), 0),
    "03-rtx2080super-windows-591-load.txt":
        ("591.86", "13.1", 1, "NVIDIA GeForce RTX 2080 ...", None, (1296, 8192), 12),
    "04-l40s-595-load.txt": ("595.80", "13.2", 1, "NVIDIA L40S", None, (1235, 46068), 2),
    "05-rtx-laptop-470-processes.txt":
        ("470.63.01", "11.4", 1, "NVIDIA GeForce ...", None, (393, 16116), 6),
    "06-rtx2070-440-old-process-header.txt":
        ("440.100", "10.2", 1, "GeForce RTX 207...", None, (246, 7973), 4),
    "07-titanv-515-no-processes.txt": ("515.65.01", "11.7", 1, "NVIDIA TITAN V", None,
                                       (0, 12288), 0),
    "08-rtx3070-wsl-530-driver-531.txt":
        ("531.68", "12.1", 1, "NVIDIA GeForce RTX 3070", None, (1029, 8192), 1),
    "12-8x-h100-565-no-processes.txt":
        ("565.57.01", "12.7", 8, "NVIDIA H100 80GB HBM3", False, (1, 81559), 0),
    "13-8x-rtx4090-550.txt": ("550.127.05", "12.4", 8, "NVIDIA GeForce RTX 4090", None,
                              (2, 24564), 0),
    "14-4x-a100-sxm4-555.txt": ("555.42.02", "12.5", 4, "NVIDIA A100-SXM4-80GB", False,
                                (1, 81920), 0),
    "15-rtx4090-580-cuda13.txt": ("580.65.06", "13.0", 1, "NVIDIA GeForce RTX 4090", None,
                                  (232, 24564), 2),
    # R610 header: "KMD Version" / "CUDA UMD Version"
    "16-2x-b200-610-kmd-umd-header.txt": ("610.43.02", "13.3", 2, "NVIDIA B200", False,
                                          (0, 183359), 0),
    "17-t4-580-exclusive-process.txt": ("580.126.09", "13.0", 1, "Tesla T4", None,
                                        (167, 15360), 0),
    "18-l4-570-idle.txt": ("570.133.20", "12.8", 1, "NVIDIA L4", None, (0, 23034), 0),
    "19-h200-570.86.15.txt": ("570.86.15", "12.8", 1, "NVIDIA H200", False, (632, 143771), 0),
    "20-2x-a100-40gb-580-bottlerocket.txt": ("580.126.09", "13.0", 2, "NVIDIA A100-SXM4-40GB",
                                             False, (598, 40960), 0),
}
SMI_FAILURES = {
    "09-failed-communicate-driver.txt": "couldn't communicate with the NVIDIA driver",
    "10-nvml-driver-library-mismatch.txt": "Driver/library version mismatch",
    "11-nvml-mismatch-old-no-version-line.txt": "Driver/library version mismatch",
    "21-device-handle-unknown-error.txt": "Unable to determine the device handle",
    "22-gpu-is-lost.txt": "GPU is lost",
    "23-nvml-unknown-error-container.txt": "Unknown Error",
    "24-couldnt-find-libnvidia-ml.txt": "couldn't find libnvidia-ml.so",
    "25-no-devices-were-found.txt": "No devices were found",
    "26-nvml-insufficient-permissions.txt": "Insufficient Permissions",
}


@pytest.mark.parametrize("name", sorted(SMI_TABLE))
def test_smi_table(name):
    driver, cuda_v, count, first, mig, (used, total), nproc = SMI_TABLE[name]
    text = recorded("nvidia-smi", name)
    head = nvidia.parse_smi_table(text)
    assert head == {"driver": Version(driver), "cuda": Version(cuda_v)}
    gpus = nvidia.parse_smi_table_gpus(text)
    assert len(gpus) == count
    assert [g.index for g in gpus] == list(range(count))
    assert gpus[0].name == first
    assert all(g.name == first for g in gpus)
    assert gpus[0].mig_mode is mig
    assert (gpus[0].memory_used_mb, gpus[0].memory_total_mb) == (used, total)
    assert len(gpus[0].processes) == nproc


# JetPack 6's nvidia-smi on a Jetson's iGPU: the header is read; its GPU row has no bus id
# (N/A fields everywhere), so the table lists no NVML GPU and the Jetson probe names the iGPU.
SMI_TEGRA = {"20-orin-jetpack62-540.txt": ("540.4.0", "12.6")}


@pytest.mark.parametrize("name", sorted(SMI_TEGRA))
def test_smi_table_of_a_jetson_reads_the_header_and_no_nvml_gpu(name):
    driver, cuda_v = SMI_TEGRA[name]
    text = recorded("nvidia-smi", name)
    assert nvidia.parse_smi_table(text) == {"driver": Version(driver), "cuda": Version(cuda_v)}
    assert len(nvidia.parse_smi_table_gpus(text)) == 0


def test_smi_table_process_details():
    """Processes come with their PID, name and memory; ``N/A`` memory (WDDM, WSL) stays None."""
    l40s = nvidia.parse_smi_table_gpus(recorded("nvidia-smi", "04-l40s-595-load.txt"))[0]
    assert [(p.pid, p.name, p.used_mb) for p in l40s.processes] == [
        (20037, "ffmpeg", 538), (20038, "ffmpeg", 681)]
    old = nvidia.parse_smi_table_gpus(recorded("nvidia-smi",
                                               "06-rtx2070-440-old-process-header.txt"))[0]
    assert old.processes[0].pid == 1357 and old.processes[0].used_mb == 18
    wsl = nvidia.parse_smi_table_gpus(recorded("nvidia-smi",
                                               "08-rtx3070-wsl-530-driver-531.txt"))[0]
    assert [(p.pid, p.name, p.used_mb) for p in wsl.processes] == [(22, "/Xwayland", None)]


def test_smi_table_power_temperature_persistence():
    h100 = nvidia.parse_smi_table_gpus(recorded("nvidia-smi",
                                                "01-h100-590-idle-no-processes.txt"))[0]
    assert (h100.temperature_c, h100.power_draw_w, h100.power_limit_w) == (41, 69.0, 700.0)
    assert h100.persistence_mode is True
    laptop = nvidia.parse_smi_table_gpus(recorded("nvidia-smi",
                                                  "05-rtx-laptop-470-processes.txt"))[0]
    assert laptop.power_limit_w is None and laptop.persistence_mode is False
    windows = nvidia.parse_smi_table_gpus(recorded("nvidia-smi",
                                                   "03-rtx2080super-windows-591-load.txt"))[0]
    assert windows.persistence_mode is None  # WDDM driver model, no persistence column


def test_smi_table_mig_devices_are_not_gpus():
    gpus = nvidia.parse_smi_table_gpus(recorded("nvidia-smi", "02-h100-mig-590-idle.txt"))
    assert len(gpus) == 1 and gpus[0].mig_mode is True


@pytest.mark.parametrize("name", sorted(SMI_FAILURES))
def test_smi_failure_outputs_parse_to_nothing(name):
    text = recorded("nvidia-smi", name)
    assert nvidia.parse_smi_table(text) == {}
    assert nvidia.parse_smi_table_gpus(text) == ()
    assert nvidia.parse_query_csv(text, nvidia.QUERY_FIELDS.split(",")) == ((), None)


# --------------------------------------------------------------------------- --query-gpu CSV
def test_query_csv_h100_with_header_and_units():
    gpus, driver = nvidia.parse_query_csv(
        recorded("nvidia-smi-query", "01-h100-590-all-fields.txt"), ["ignored"])
    assert driver == Version("590.48.01")
    (g,) = gpus
    assert (g.index, g.name, g.cc) == (0, "NVIDIA H100 80GB HBM3", Version("9.0"))
    assert g.uuid == "GPU-00000000-0000-0000-0000-000000000000"
    assert (g.memory_total_mb, g.memory_used_mb) == (81559, 0)
    assert g.mig_mode is False and g.persistence_mode is True
    assert (g.temperature_c, g.power_draw_w, g.power_limit_w) == (41, 69.85, 700.0)
    assert (g.pcie_gen, g.pcie_gen_max, g.pcie_width, g.pcie_width_max) == (5, 5, 16, 16)
    assert g.ecc_uncorrected == 0
    assert g.retired_pages_pending is None  # "[N/A]" on H100 (row remapping instead)
    assert g.throttle_reasons == ()          # 0x…01 = idle only


def test_query_csv_h200_mig_enabled():
    gpus, driver = nvidia.parse_query_csv(
        recorded("nvidia-smi-query", "03-h200-mig-590-all-fields.txt"), [])
    assert driver == Version("590.48.01")
    (g,) = gpus
    assert g.name == "NVIDIA H200" and g.mig_mode is True
    assert (g.memory_total_mb, g.memory_used_mb, g.power_draw_w) == (143771, 55, 78.28)


def test_query_csv_compute_apps():
    rows = nvidia.parse_compute_apps_csv(
        recorded("nvidia-smi-query", "02-rtx2080super-windows-591-compute-apps.txt"))
    assert len(rows) == 12
    assert rows[0][1].pid == 12444 and rows[0][1].name.endswith("TextInputHost.exe")
    assert rows[4][1].name == r"C:\Program Files\NZXT CAM\NZXT CAM.exe"
    assert all(p.used_mb is None for _, p in rows)  # WDDM reports [N/A]
    # Not GPU rows: the GPU parser must not mistake them for GPUs.
    assert nvidia.parse_query_csv(
        recorded("nvidia-smi-query", "02-rtx2080super-windows-591-compute-apps.txt"),
        []) == ((), None)


def test_query_csv_noheader_nounits_as_the_probe_asks():
    """The probe's own format (noheader,nounits): the same H100 row, re-emitted."""
    line = ("0, NVIDIA H100 80GB HBM3, GPU-0, 590.48.01, 9.0, 81559, 0, 41, 69.85, 700.00, "
            "5, 5, 16, 16, Disabled, Enabled, 0, [N/A]")
    gpus, driver = nvidia.parse_query_csv(line, nvidia.QUERY_FIELDS.split(","))
    assert driver == Version("590.48.01")
    assert gpus[0].memory_total_mb == 81559 and gpus[0].mig_mode is False
    assert gpus[0].persistence_mode is True and gpus[0].ecc_uncorrected == 0


# --------------------------------------------------------------------------- nvidia-smi -q
SMI_Q = {
    "01-h100-590-idle.txt": ("590.48.01", "13.1", ["NVIDIA H100 80GB HBM3"], False,
                             (0, 81559), (5, 5)),
    "02-rtx4080super-linux-595-idle.txt": ("595.71.05", "13.2", ["NVIDIA GeForce RTX 4080 SUPER"],
                                           None, (596, 16376), (1, 4)),
    "03-4x-a100-sxm4-555.txt": ("555.42.02", "12.5", ["NVIDIA A100-SXM4-80GB"] * 4, False,
                                (1, 81920), (4, 4)),
}


@pytest.mark.parametrize("name", sorted(SMI_Q))
def test_smi_q(name):
    driver, cuda_v, names, mig, (used, total), (gen, gen_max) = SMI_Q[name]
    d, c, gpus = nvidia.parse_smi_q(recorded("nvidia-smi-q", name))
    assert (d, c) == (Version(driver), Version(cuda_v))
    assert [g.name for g in gpus] == names
    assert gpus[0].mig_mode is mig
    assert (gpus[0].memory_used_mb, gpus[0].memory_total_mb) == (used, total)
    assert (gpus[0].pcie_gen, gpus[0].pcie_gen_max, gpus[0].pcie_width) == (gen, gen_max, 16)


def test_smi_q_per_gpu_values_are_not_mixed_up():
    _, _, gpus = nvidia.parse_smi_q(recorded("nvidia-smi-q", "03-4x-a100-sxm4-555.txt"))
    assert [g.temperature_c for g in gpus] == [25, 22, 23, 23]
    assert [g.power_draw_w for g in gpus][:3] == [59.77, 60.31, 58.78]
    assert gpus[0].uuid == "GPU-31515c3d-1414-7c2c-004a-f86a898946ac"
    assert len({g.uuid for g in gpus}) == 4


# --------------------------------------------------------------------------- nvcc --version
NVCC = {
    "01-cuda-10.1.txt": "10.1.243", "02-cuda-10.2.txt": "10.2.89", "03-cuda-11.1.txt": "11.1.105",
    "04-cuda-10.0.txt": "10.0.130", "05-cuda-13.0.txt": "13.0.88", "06-cuda-12.5.txt": "12.5.82",
    "07-cuda-11.5.txt": "11.5.119", "08-cuda-11.7.txt": "11.7.99", "11-cuda-9.0.txt": "9.0.225",
    "09-command-not-found-bash.txt": None, "10-command-not-found-ubuntu-suggestion.txt": None,
}


@pytest.mark.parametrize("name", sorted(NVCC))
def test_nvcc_version(name):
    want = NVCC[name]
    got = cuda.parse_nvcc_version(recorded("nvcc", name))
    assert got == (Version(want) if want else None)
    if want:  # the "release X.Y" a person reads agrees with the full version
        assert f"release {got.major}.{got.minor}," in recorded("nvcc", name)


# --------------------------------------------------------------------------- /proc/driver/nvidia
PROC = {"01-open-kernel-module-565.txt": "565.57.01", "02-proprietary-384.txt": "384.98",
        "03-open-kernel-module-525-arch.txt": "525.60.11"}


@pytest.mark.parametrize("name", sorted(PROC))
def test_proc_driver_version(name):
    assert nvidia.parse_proc_version(recorded("proc-driver-version", name)) == Version(PROC[name])


# --------------------------------------------------------------------------- version.json / .txt
def test_version_json_cut_short_still_names_the_sdk_version():
    text = recorded("cuda-version-json", "01-version-json-11.6-nvhpc-partial.txt")
    assert cuda.parse_version_json(text) == Version("11.6.20220110")
    assert cuda.parse_version_txt(text) is None


def test_version_json_fragment():
    text = recorded("cuda-version-json", "03-version-json-fragment-13.0.2.txt")
    assert cuda.parse_version_json(text) == Version("13.0.2")


def test_version_txt():
    text = recorded("cuda-version-json", "02-version-txt-11.0.txt")
    assert cuda.parse_version_txt(text) == Version("11.0.207")
    assert cuda.parse_version_json(text) is None


def test_folder_toolkit_reads_recorded_version_files(tmp_path):
    from envdoctor.probes._base import Trail
    old = tmp_path / "cuda-11.0"
    old.mkdir()
    (old / "version.txt").write_text(recorded("cuda-version-json", "02-version-txt-11.0.txt"))
    new = tmp_path / "cuda-11.6"
    new.mkdir()
    (new / "version.json").write_text(
        recorded("cuda-version-json", "01-version-json-11.6-nvhpc-partial.txt"))
    trail = Trail()
    a = cuda.folder_toolkit(old, "folder", trail)
    b = cuda.folder_toolkit(new, "folder", trail)
    assert (a.version, a.how) == (Version("11.0.207"), "version.txt")
    assert (b.version, b.how) == (Version("11.6.20220110"), "version.json")
    assert f"read {new / 'version.json'}" in trail.ran


# --------------------------------------------------------------------------- ldconfig
def _libs(name: str) -> list[tuple[str, str | None, str]]:
    return sorted((lib.name, str(lib.version) if lib.version else None, lib.path)
                  for lib in libraries.from_ldconfig(recorded("ldconfig", name)))


def test_ldconfig_cudnn4():
    assert _libs("01-cudnn4-docker.txt") == [
        ("cudnn", "4", "/usr/lib/x86_64-linux-gnu/libcudnn.so.4")]


def test_ldconfig_cudnn9_split_libraries():
    libs = _libs("02-cudnn9-partial.txt")
    assert [(n, v) for n, v, _ in libs] == [("cudnn", "9")]
    assert libs[0][2].startswith("/lib/x86_64-linux-gnu/libcudnn_")


def test_ldconfig_cuda_toolkit_without_tracked_libraries():
    """nvrtc, nvjpeg, nvblas are not cuDNN/NCCL/cuBLAS/cudart: nothing to report, no crash."""
    cache = libraries.parse_ldconfig(recorded("ldconfig", "03-cuda12-toolkit-partial.txt"))
    assert cache["libnvrtc.so.12"] == ["/usr/local/cuda/targets/x86_64-linux/lib/libnvrtc.so.12"]
    assert len(cache) == 13
    assert _libs("03-cuda12-toolkit-partial.txt") == []


def test_ldconfig_v_style():
    libs = _libs("04-ldconfig-v-cublas-cuda.txt")
    assert [(n, v) for n, v, _ in libs] == [("cudart", "11.7.99"), ("libcuda", "515.57")]


def test_ldconfig_v_with_folder_headers():
    text = ("/usr/local/cuda/lib64: (from /etc/ld.so.conf.d/cuda.conf:1)\n"
            + recorded("ldconfig", "04-ldconfig-v-cublas-cuda.txt"))
    paths = libraries.parse_ldconfig(text)
    assert paths["libcudart.so.11.0"] == ["/usr/local/cuda/lib64/libcudart.so.11.7.99"]
    assert paths["libcuda.so.1"] == ["/usr/local/cuda/lib64/libcuda.so.515.57"]


COVERAGE = {
    "nvidia-smi": {**SMI_TABLE, **SMI_FAILURES, **SMI_TEGRA},
    "nvidia-smi-query": {"01-h100-590-all-fields.txt",
                         "02-rtx2080super-windows-591-compute-apps.txt",
                         "03-h200-mig-590-all-fields.txt"},
    "nvidia-smi-q": SMI_Q,
    "nvcc": NVCC,
    "proc-driver-version": PROC,
    "cuda-version-json": {"01-version-json-11.6-nvhpc-partial.txt", "02-version-txt-11.0.txt",
                          "03-version-json-fragment-13.0.2.txt"},
    "ldconfig": {"01-cudnn4-docker.txt", "02-cudnn9-partial.txt", "03-cuda12-toolkit-partial.txt",
                 "04-ldconfig-v-cublas-cuda.txt"},
}
# the ROCm tools' expectations live in tests/probes/test_probe_rocm_recorded.py
from tests.probes.test_probe_rocm_recorded import COVERAGE as _ROCM  # noqa: E402

COVERAGE.update(_ROCM)
# the Mac tools' (sw_vers, sysctl) in tests/probes/test_probe_apple_recorded.py
from tests.probes.test_probe_apple_recorded import COVERAGE as _APPLE  # noqa: E402

COVERAGE.update(_APPLE)
