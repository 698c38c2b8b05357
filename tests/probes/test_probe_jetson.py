"""The Jetson probe on the files L4T writes (first lines of /etc/nv_tegra_release as real
boards print them, dpkg status stanzas, NUL-terminated device-tree strings), under a root."""

from __future__ import annotations

import os

from packaging.version import Version

from envdoctor.facts import Status
from envdoctor.probes import jetson
from tests.probes import jetson_machines as boards


def test_release_lines_of_real_boards():
    assert jetson.parse_release(boards.R36_4_3) == (Version("36.4.3"), "generic")
    assert jetson.parse_release(boards.R35_4_1) == (Version("35.4.1"), "t186ref")
    assert jetson.parse_release(boards.R32_7_1) == (Version("32.7.1"), "t210ref")
    assert jetson.parse_release(boards.R38_2_0) == (Version("38.2.0"), "generic")
    assert jetson.parse_release("# R36 (release), REVISION: 4.0\n") == (Version("36.4.0"), "")
    assert jetson.parse_release("a line nobody wrote\n") == (None, "")
    assert jetson.parse_release("") == (None, "")


def test_dpkg_counts_installed_packages_only():
    status = ("Package: nvidia-l4t-core\nStatus: install ok installed\n"
              "Version: 36.4.3-20250107174145\n\n"
              "Package: nvidia-jetpack\nStatus: deinstall ok config-files\nVersion: 6.2+b77\n\n"
              "Package: libcudnn9-cuda-12\nStatus: install ok installed\nVersion: 9.3.0.75-1\n")
    got = jetson.dpkg_versions(status, jetson.PACKAGES)
    assert got == {"nvidia-l4t-core": "36.4.3-20250107174145"}


def test_package_versions_read_as_releases():
    assert jetson._version("36.4.3-20250107174145") == Version("36.4.3")
    assert jetson._version("6.2+b77") == Version("6.2")
    assert jetson._version("5.1.2-b104") == Version("5.1.2")
    assert jetson._version("b104") is None


def test_a_board_under_a_root(tmp_path, monkeypatch):
    monkeypatch.setenv("USER", "alice")
    sc = next(s for s in boards.SCENARIOS if s["name"] == "agx-xavier-jp512-healthy")
    _, _, root = boards.build(sc, tmp_path / "box")
    facts = jetson.probe(root=root)
    assert facts.probe.status is Status.OK and facts.probe.unobserved == () and facts.dpkg_read
    assert (facts.l4t, facts.l4t_source, facts.board) == (Version("35.4.1"), "nv_tegra_release",
                                                          "t186ref")
    assert facts.jetpack == Version("5.1.2") and facts.soc == "tegra194"
    assert facts.model == "Jetson-AGX" and facts.apt_release == "r35.4"
    assert [n.path for n in facts.device_nodes] == ["/dev/nvmap", "/dev/nvhost-ctrl-gpu"]
    assert all(n.accessible for n in facts.device_nodes) and facts.user == "alice"
    assert all(r.startswith("read " + str(root)) for r in facts.probe.ran)


def test_l4t_from_dpkg_when_the_release_file_is_gone(tmp_path):
    apt = tmp_path / "etc/apt/sources.list.d/nvidia-l4t-apt-source.list"
    apt.parent.mkdir(parents=True)
    apt.write_text("deb https://repo.download.nvidia.com/jetson/common r35.6 main\n")
    status = tmp_path / "var/lib/dpkg/status"
    status.parent.mkdir(parents=True)
    status.write_text("Package: nvidia-l4t-core\nStatus: install ok installed\n"
                      "Version: 35.6.1-20250219152820\n")
    facts = jetson.probe(root=tmp_path)
    assert facts.probe.status is Status.OK and facts.l4t == Version("35.6.1")
    assert facts.l4t_source == "dpkg" and facts.soc == "" and facts.dpkg_read
    assert facts.jetpack is None  # dpkg was read: nvidia-jetpack is not installed


def test_nothing_of_l4t_is_not_a_jetson_and_dpkg_is_not_read(tmp_path):
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/os-release").write_text('PRETTY_NAME="Ubuntu 22.04.5 LTS"\n')
    (tmp_path / "var/lib/dpkg").mkdir(parents=True)
    (tmp_path / "var/lib/dpkg/status").write_text("Package: nvidia-l4t-core\n")
    facts = jetson.probe(root=tmp_path)
    assert facts.probe.status is Status.NOT_FOUND and facts.l4t is None
    assert not any("dpkg" in r for r in facts.probe.ran)


def test_a_fifo_where_the_release_file_should_be_never_blocks(tmp_path):
    (tmp_path / "etc").mkdir()
    os.mkfifo(tmp_path / "etc/nv_tegra_release")
    facts = jetson.probe(root=tmp_path)
    assert facts.probe.status is Status.NOT_FOUND


def test_tegra_device_tree_alone_is_a_jetson(tmp_path):
    dt = tmp_path / "proc/device-tree"
    dt.mkdir(parents=True)
    (dt / "model").write_bytes(b"NVIDIA Jetson Nano Developer Kit\0")
    (dt / "compatible").write_bytes(b"nvidia,p3450-0000\0nvidia,jetson-nano\0nvidia,tegra210\0")
    facts = jetson.probe(root=tmp_path)
    assert facts.probe.status is Status.OK and facts.soc == "tegra210" and facts.l4t is None
    assert facts.model == "NVIDIA Jetson Nano Developer Kit" and not facts.dpkg_read


def test_device_nodes_of_a_tree_without_dev_are_not_observed(tmp_path):
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc/nv_tegra_release").write_text(boards.R36_4_3)
    facts = jetson.probe(root=tmp_path)
    assert facts.device_nodes == () and facts.probe.unobserved == ("device_nodes",)
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev/null").write_text("")
    facts = jetson.probe(root=tmp_path)  # a /dev without the iGPU's nodes: confirmed absent
    assert facts.device_nodes == () and facts.probe.unobserved == ()
