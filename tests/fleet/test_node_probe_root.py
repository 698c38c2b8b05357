"""The fleet node probe under `--root DIR`: InfiniBand sysfs and the NCCL plugin folders are
read under DIR and named as the tree names them; a bad --root is exit 2 before any rendezvous."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from envdoctor.fleet import node_probe

REPO = Path(__file__).resolve().parents[2]


def _tree(root: Path) -> None:
    port = root / "sys/class/infiniband/mlx5_0/ports/1"
    port.mkdir(parents=True)
    (port / "state").write_text("4: ACTIVE\n")
    (port / "rate").write_text("400 Gb/sec (4X NDR)\n")
    (port / "link_layer").write_text("InfiniBand\n")
    plugins = root / "opt/amazon/ofi-nccl/lib"
    plugins.mkdir(parents=True)
    (plugins / "libnccl-net.so").write_text("")


def test_node_probe_reads_the_tree_and_names_files_as_the_tree_does(tmp_path):
    root = tmp_path / "img"
    _tree(root)
    out = node_probe.probe({}, has_gpus=False, root=root)
    assert out["ib_ports"] == {"mlx5_0/1": {"state": "ACTIVE", "rate": "400 Gb/sec (4X NDR)",
                                            "link_layer": "InfiniBand"}}
    assert out["nccl_net_plugins"] == ["/opt/amazon/ofi-nccl/lib/libnccl-net.so"]
    assert "nvml_gpus" not in out and "xids" not in out  # no GPU in the tree's facts


def test_ld_library_path_folders_are_read_under_the_root(tmp_path):
    root = tmp_path / "img"
    (root / "usr/local/nccl/lib").mkdir(parents=True)
    (root / "usr/local/nccl/lib/libnccl-net-ofi.so").write_text("")
    found = node_probe.nccl_net_plugins({"LD_LIBRARY_PATH": "/usr/local/nccl/lib"}, root=root)
    assert found == ["/usr/local/nccl/lib/libnccl-net-ofi.so"]


def test_an_empty_tree_has_no_ports_and_no_plugins(tmp_path):
    out = node_probe.probe({}, has_gpus=False, root=tmp_path)
    assert out["ib_ports"] == {} and out["nccl_net_plugins"] == []


def _fleet(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "envdoctor", "fleet", *args],
                          capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin",
                               "LANG": "C.UTF-8"})


def test_bad_root_is_exit_2_in_one_line_before_any_rendezvous(tmp_path):
    for args, says in ((("--static", "--root", str(tmp_path / "none")), "no such folder"),
                       (("--root", str(tmp_path)), "needs --static")):
        done = _fleet(*args)
        assert done.returncode == 2, done.stderr
        assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
