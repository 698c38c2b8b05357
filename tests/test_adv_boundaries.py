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
