"""Adversarial round 4 (tests/faults/MATRIX4.md): the boundary fixes, one test per class.

Fast in-process tests; the real-process faults are in tests/faults/matrix4.py, run under
``-m boundary`` by tests/faults/test_faults4.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from envdoctor import bounded


# ---------------------------------------------------------------- --root: symlinks stay inside
@pytest.fixture()
def image(tmp_path: Path) -> tuple[Path, Path]:
    """An unpacked image whose symlinks are absolute or climb out with '..', and a host file
    outside it that a chroot-less read would reach instead."""
    root = tmp_path / "img"
    (root / "etc").mkdir(parents=True)
    (root / "usr/lib").mkdir(parents=True)
    (root / "usr/lib/os-release").write_text('PRETTY_NAME="IMAGE-DISTRO"\n')
    host = tmp_path / "host-os-release"
    host.write_text('PRETTY_NAME="HOST-DISTRO"\n')
    return root, host


@pytest.mark.parametrize("target", ["/usr/lib/os-release", "../../../../../../usr/lib/os-release",
                                    "/etc/../../usr/./lib/os-release"])
def test_a_symlink_under_root_resolves_inside_the_root(image, target):
    root, _ = image
    (root / "etc/os-release").symlink_to(target)
    previous = bounded.confine(root)
    try:
        assert bounded.read_text(root / "etc/os-release") == 'PRETTY_NAME="IMAGE-DISTRO"\n'
    finally:
        bounded.unconfine(previous)


def test_a_symlink_to_a_host_file_is_not_read_from_the_host(image):
    root, host = image
    (root / "etc/os-release").symlink_to(host)  # absolute: means <root><host>, which is missing
    previous = bounded.confine(root)
    try:
        assert bounded.read_regular(root / "etc/os-release") is None
        assert bounded.open_capped(root / "etc/os-release") is None
    finally:
        bounded.unconfine(previous)
    # without confinement (this machine's own /) the same link is an ordinary link
    assert bounded.read_regular(root / "etc/os-release") == host.read_bytes()


def test_a_symlink_loop_under_root_is_no_file(image):
    root, _ = image
    (root / "etc/a").symlink_to("b")
    (root / "etc/b").symlink_to("/etc/a")
    (root / "etc/os-release").symlink_to("a")
    previous = bounded.confine(root)
    try:
        assert bounded.read_regular(root / "etc/os-release") is None
        assert bounded.jailed(root / "etc/os-release") is None
    finally:
        bounded.unconfine(previous)


def test_the_host_probe_reads_the_images_distro_through_its_links(image):
    from envdoctor.probes import collect
    root, host = image
    (root / "etc/os-release").symlink_to(host)
    (root / "usr/lib/os-release").write_text('PRETTY_NAME="IMAGE-DISTRO"\n')
    facts = collect(sections=("host",), root=root)
    assert facts.host.distro == ""          # the host's file is not the image's
    (root / "etc/os-release").unlink()
    (root / "etc/os-release").symlink_to("/usr/lib/os-release")
    facts = collect(sections=("host",), root=root)
    assert facts.host.distro == "IMAGE-DISTRO"
    assert bounded._JAILS == ()              # confinement ends with the collection


def test_paths_outside_the_root_are_untouched(image, tmp_path):
    root, host = image
    previous = bounded.confine(root)
    try:
        assert bounded.jailed(host) == os.fspath(host)
        assert bounded.read_regular(host) == host.read_bytes()
    finally:
        bounded.unconfine(previous)


# ---------------------------------------------------------------- children: one owner, one tree
def _alive(pid: int) -> bool:
    from envdoctor.children import _running
    return _running(pid)


def test_a_tool_whose_child_holds_its_pipes_is_read_when_it_exits(tmp_path):
    """``tool & exit 0``: the tool answered; a grandchild holding stdout open is no reason to
    wait for the deadline and call the answer a timeout, nor to leave the grandchild running."""
    import time

    from envdoctor import runner
    pidfile = tmp_path / "pid"
    start = time.monotonic()
    result = runner.run(["sh", "-c", f"sleep 300 & echo $! > {pidfile}; echo answered"], 8.0)
    assert time.monotonic() - start < 4.0
    assert result.ok and result.stdout.strip() == "answered", result
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 3
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def test_one_commands_deadline_does_not_kill_another_commands_process(tmp_path):
    """A hung rocm-smi killed at its deadline took every process with the run's mark with it:
    a slow nvcc started by another probe at the same time ended 'killed by SIGKILL'."""
    import threading
    import time

    from envdoctor import runner
    box: dict[str, object] = {}
    slow = threading.Thread(target=lambda: box.__setitem__(
        "r", runner.run(["sh", "-c", "sleep 2; echo release 12.4"], 10.0)))
    slow.start()
    time.sleep(0.3)
    hung = runner.run(["sh", "-c", "exec sleep 300"], 0.5)
    assert "timed out" in hung.error
    slow.join(15)
    done = box["r"]
    assert done.ok and "release 12.4" in done.stdout, done  # type: ignore[attr-defined]
