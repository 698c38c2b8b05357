"""Host facts for WSL2 and containers, read from fake roots laid out as the real systems are."""

from __future__ import annotations

from pathlib import Path

import pytest

from envdoctor.probes import host


def _write(root: Path, rel: str, text: str = "") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize("line,want", [
    ("shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k,inode64 0 0", 0.0625),
    ("tmpfs /dev/shm tmpfs rw,relatime,size=24683584k 0 0", round(24683584 * 1024 / 1024 ** 3, 4)),
    ("shm /dev/shm tmpfs rw,size=16g 0 0", 16.0),
    ("shm /dev/shm tmpfs rw,size=50% 0 0", None),          # a share of RAM: statvfs decides
    ("/dev/sda1 /dev/shm ext4 rw 0 0", None),               # not a tmpfs
])
def test_shm_size_from_its_mount(line, want):
    assert host._shm_from_mounts("overlay / overlay rw 0 0\n" + line + "\n", None) == want


def test_cgroup_v2_limit_and_none(tmp_path):
    _write(tmp_path, "sys/fs/cgroup/cgroup.controllers", "cpu memory\n")
    _write(tmp_path, "sys/fs/cgroup/memory.max", "4294967296\n")
    trail = host.Trail()
    assert host._cgroup_memory(tmp_path, trail) == (2, 4.0)
    _write(tmp_path, "sys/fs/cgroup/memory.max", "max\n")
    assert host._cgroup_memory(tmp_path, trail)[1] is None


def test_cgroup_v2_reads_the_process_own_cgroup(tmp_path):
    _write(tmp_path, "sys/fs/cgroup/cgroup.controllers", "memory\n")
    _write(tmp_path, "sys/fs/cgroup/memory.max", "max\n")
    _write(tmp_path, "proc/self/cgroup", "0::/kubepods/burstable/pod1/abc\n")
    _write(tmp_path, "sys/fs/cgroup/kubepods/burstable/pod1/abc/memory.max", "2147483648\n")
    assert host._cgroup_memory(tmp_path, host.Trail())[1] == 2.0


def test_cgroup_v1_unlimited_is_none(tmp_path):
    _write(tmp_path, "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n")
    assert host._cgroup_memory(tmp_path, host.Trail()) == (1, None)
    _write(tmp_path, "sys/fs/cgroup/memory/memory.limit_in_bytes", "8589934592\n")
    assert host._cgroup_memory(tmp_path, host.Trail())[1] == 8.0


def test_gpu_device_nodes(tmp_path):
    for node in ("dev/nvidia0", "dev/nvidiactl", "dev/null", "dev/dri/renderD128", "dev/dri/card0"):
        _write(tmp_path, node)
    assert host.gpu_device_nodes(tmp_path) == ("/dev/nvidia0", "/dev/nvidiactl",
                                               "/dev/dri/renderD128")
    assert host.gpu_device_nodes(tmp_path / "empty") == ()


def test_tpu_chip_nodes_are_listed_and_the_kernels_accel_class_folder_is_not(tmp_path):
    for node in ("dev/accel0", "dev/accel1", "dev/vfio/0", "dev/vfio/vfio", "dev/accel/accel0"):
        _write(tmp_path, node)
    assert host.gpu_device_nodes(tmp_path) == ("/dev/accel0", "/dev/accel1", "/dev/vfio/0")


def test_wsl_from_kernel_interop_or_driver_folder(tmp_path):
    assert host._wsl("Linux version 5.15.167.4-microsoft-standard-WSL2 (gcc)", tmp_path) == 2
    assert host._wsl("Linux version 4.4.0-19041-Microsoft", tmp_path) == 1
    assert host._wsl("Linux version 6.8.0-49-generic", tmp_path) is None
    _write(tmp_path, "usr/lib/wsl/lib/libcuda.so.1")
    _write(tmp_path, "usr/lib/wsl/lib/libnvidia-ml.so.1")
    _write(tmp_path, "usr/lib/wsl/lib/libd3d12.so")
    assert host._wsl("Linux version 6.6.36-custom", tmp_path) == 2  # a custom WSL kernel
    assert host._wsl_driver_libs(tmp_path) == ("/usr/lib/wsl/lib/libcuda.so.1",
                                               "/usr/lib/wsl/lib/libnvidia-ml.so.1")


def test_whole_probe_on_a_container_root(tmp_path):
    _write(tmp_path, ".dockerenv")
    _write(tmp_path, "proc/mounts", "shm /dev/shm tmpfs rw,size=65536k 0 0\n")
    _write(tmp_path, "sys/fs/cgroup/cgroup.controllers", "memory\n")
    _write(tmp_path, "sys/fs/cgroup/memory.max", "max\n")
    facts = host.probe(tmp_path)
    assert facts.container == "docker"
    assert facts.shm_total_gb == 0.0625
    assert (facts.cgroup_version, facts.cgroup_memory_limit_gb) == (2, None)
    assert facts.gpu_device_nodes == ()
