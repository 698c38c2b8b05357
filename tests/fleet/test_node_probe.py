"""Node extras (sysfs InfiniBand, NCCL net plugin, XIDs) and NCCL's log, from real text."""

from __future__ import annotations

from pathlib import Path

from envdoctor.fleet import bench, node_probe

# Lines from real NCCL_DEBUG=INFO logs (host names and addresses as posted):
# https://github.com/NVIDIA/nccl/issues/226
SOCKET_LOG = """\
ip-172-31-12-21:45361:45361 [0] NCCL INFO NET/IB : No device found.
ip-172-31-12-210:45305:45305 [0] NCCL INFO NET/Socket : Using [0]ens3:172.31.12.210<0>
ip-172-31-8-153:45343:45343 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).
"""
# https://github.com/NVIDIA/nccl/issues/367
VIA_SOCKET = ("c6ad99331184:117277:117384 [0] NCCL INFO Ring 00 : 15 -> 0 [receive] via "
              "NET/Socket/0\n")
# https://github.com/NVIDIA/nccl/issues/676
IB_LOG = ("gpu01:351578:351578 [0] NCCL INFO NET/IB : Using [0]mlx5_9:1/RoCE [RO]; OOB "
          "enp225s0f1:10.10.10.2<0>\n")
USING_IB = "node1:1:1 [0] NCCL INFO Using network IB\n"


def test_nccl_transport_from_real_log_lines() -> None:
    assert bench.nccl_transport(SOCKET_LOG) == "Socket"
    assert bench.nccl_transport(VIA_SOCKET) == "Socket"
    assert bench.nccl_transport(IB_LOG) == "IB"
    assert bench.nccl_transport(USING_IB + SOCKET_LOG) == "IB"
    assert bench.nccl_transport("NCCL INFO cudaDriverVersion 12010\n") is None
    assert bench.nccl_transport("x" * 5_000_000) is None  # bounded


def test_bus_bandwidth_factors_are_nccl_tests_definitions() -> None:
    assert bench.bus_factor("all_reduce", 8) == 2 * 7 / 8
    assert bench.bus_factor("all_gather", 8) == 7 / 8
    assert bench.bus_factor("all_reduce", 1) == 0.0


def _port(root: Path, dev: str, num: str, state: str, rate: str, layer: str) -> None:
    base = root / dev / "ports" / num
    base.mkdir(parents=True)
    (base / "state").write_text(state + "\n")
    (base / "rate").write_text(rate + "\n")
    (base / "link_layer").write_text(layer + "\n")


def test_ib_ports_from_a_sysfs_tree(tmp_path: Path) -> None:
    # sysfs-class-infiniband: state is "<n>: <NAME>", rate "<speed> Gb/sec (<width> <type>)"
    _port(tmp_path, "mlx5_0", "1", "4: ACTIVE", "200 Gb/sec (4X HDR)", "InfiniBand")
    _port(tmp_path, "mlx5_1", "1", "1: DOWN", "10 Gb/sec (4X SDR)", "InfiniBand")
    _port(tmp_path, "mlx5_2", "1", "4: ACTIVE", "100 Gb/sec (4X EDR)", "Ethernet")
    ports = node_probe.ib_ports(tmp_path)
    assert ports["mlx5_0/1"] == {"state": "ACTIVE", "rate": "200 Gb/sec (4X HDR)",
                                 "link_layer": "InfiniBand"}
    assert ports["mlx5_1/1"]["state"] == "DOWN"
    assert node_probe.ib_ports(tmp_path / "absent") == {}


def test_nccl_net_plugin_on_ld_library_path(tmp_path: Path) -> None:
    (tmp_path / "libnccl-net.so").write_text("")
    (tmp_path / "libother.so").write_text("")
    found = node_probe.nccl_net_plugins({"LD_LIBRARY_PATH": str(tmp_path)})
    assert str(tmp_path / "libnccl-net.so") in found
    assert not any("libother" in f for f in found)


def test_xids_from_kernel_log_lines() -> None:
    # https://github.com/NVIDIA/NVSentinel/issues/155 (both forms of "fallen off the bus")
    log = ("NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus\n"
           "NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus\n"
           "[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
           "               NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
           "               NVRM: fallen off the bus and is not responding to commands.\n"
           "[ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s).\n")
    assert node_probe.parse_xids(log) == {"0000:44:00": [79], "0000:b3:00": [79]}
    assert node_probe.parse_xids("nothing here\n" * 1000) == {}


class FakeNvml:
    """Two GPUs as NVML answers (the calls envdoctor makes, nvidia-ml-py's names); GPU 1 has a
    pending row remap, a lower application clock, one NVLink down and no P2P to GPU 0."""

    NVML_CLOCK_SM = 1
    NVML_P2P_CAPS_INDEX_READ = 0
    NVML_P2P_STATUS_OK = 0
    NVML_NVLINK_MAX_LINKS = 4

    def nvmlInit(self): pass
    def nvmlShutdown(self): pass
    def nvmlDeviceGetCount(self): return 2
    def nvmlDeviceGetHandleByIndex(self, i): return i
    def nvmlDeviceGetRemappedRows(self, h): return (0, 0, h == 1, 0)
    def nvmlDeviceGetClockInfo(self, h, kind): return 345
    def nvmlDeviceGetMaxClockInfo(self, h, kind): return 1980
    def nvmlDeviceGetApplicationsClock(self, h, kind): return 1980 if h == 0 else 1410

    def nvmlDeviceGetPciInfo(self, h):
        return type("Pci", (), {"busId": b"00000000:1%d:00.0" % h})()

    def nvmlDeviceGetNvLinkState(self, h, link):
        if link >= 2:
            raise RuntimeError("NVML_ERROR_INVALID_ARGUMENT")
        return 0 if (h, link) == (1, 1) else 1

    def nvmlDeviceGetP2PStatus(self, a, b, caps): return 0 if {a, b} != {0, 1} else 4


def test_nvml_extras_with_a_fake_nvml(monkeypatch) -> None:
    import sys
    monkeypatch.setitem(sys.modules, "pynvml", FakeNvml())
    gpus, why = node_probe.nvml_gpus()
    assert why == ""
    assert [g["remap_pending"] for g in gpus] == [False, True]
    assert [g["app_clock_mhz"] for g in gpus] == [1980, 1410]
    assert [(g["nvlink_up"], g["nvlink_down"]) for g in gpus] == [(2, 0), (1, 1)]
    assert [g["p2p_unreadable_peers"] for g in gpus] == [1, 1]
    assert gpus[1]["pci_bus_id"] == "00000000:11:00.0"


def test_nvml_missing_is_said_not_guessed(monkeypatch) -> None:
    import sys
    monkeypatch.setitem(sys.modules, "pynvml", None)
    gpus, why = node_probe.nvml_gpus()
    assert gpus == [] and "pynvml" in why
