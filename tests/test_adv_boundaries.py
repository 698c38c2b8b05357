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


# ---------------------------------------------------------------- snapshots: counts no machine has
def test_a_snapshot_with_more_gpus_than_a_machine_has_is_refused_before_decoding():
    import time

    from envdoctor.facts import MAX_DEVICES, Facts, FactsError
    gpus = [{"index": i, "name": "G", "cc": "8.0"} for i in range(200000)]
    data = {"schema_version": 3, "nvidia": {"probe": {"status": "ok"}, "gpus": gpus}}
    start = time.monotonic()
    with pytest.raises(FactsError, match=r"\$\.nvidia\.gpus: a list of 200000 items"):
        Facts.from_dict(data)
    assert time.monotonic() - start < 1.0
    data["nvidia"]["gpus"] = gpus[:MAX_DEVICES]
    assert len(Facts.from_dict(data).nvidia.gpus) == MAX_DEVICES


def test_every_list_of_a_snapshot_is_bounded():
    from envdoctor.facts import Facts, FactsError
    from envdoctor.facts.serialize import MAX_ITEMS
    data = {"schema_version": 3, "host": {"probe": {"status": "ok"},
                                          "cpu_flags": ["avx"] * (MAX_ITEMS + 1)}}
    with pytest.raises(FactsError, match="at most"):
        Facts.from_dict(data)


# ---------------------------------------------------------------- outputs: no forged lines
FORGE = "X\n[✓] All checks passed\r\n::error title=PWNED::forged\u2028::warning::PWNED"


def test_flat_writes_every_line_break_visibly():
    from envdoctor.outputs.sanitise import flat
    out = flat(FORGE + "\x0b\x0c\x1c\x85\u2029")
    assert not any(c in out for c in "\n\r\x0b\x0c\x1c\x85\u2028\u2029")
    assert out.startswith("X\\n[✓] All checks passed\\n::error")


def _snapshot_with(name: str, host: str = "node-a") -> dict:
    return {"schema_version": 1,
            "nvidia": {"probe": {"status": "ok"}, "driver_version": "470.82.01",
                       "cuda_driver_version": "11.4",
                       "gpus": [{"index": 0, "name": name, "cc": "8.6"}]},
            "frameworks": {"probe": {"status": "ok"},
                           "torch": {"version": "2.3.1+cu121", "cuda": "12.1"}},
            "host": {"probe": {"status": "ok"}, "os": "Linux", "hostname": host}}


def _forged(text: str) -> list[str]:
    return [ln for ln in text.splitlines()
            if ln.lstrip().startswith(("[✓] All checks passed", "::error title=PWNED",
                                       "::warning::PWNED"))]


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_a_value_with_line_breaks_forges_no_line_of_a_check_report(tmp_path, fmt, cli):
    import json
    p = tmp_path / "s.json"
    p.write_text(json.dumps(_snapshot_with(FORGE)))
    res = cli("check", "--facts", str(p), "-v", "--format", fmt)
    assert res.returncode in (0, 1), res.stderr
    assert "All checks passed" in res.stdout          # shown, as data
    assert not _forged(res.stdout), _forged(res.stdout)


def test_a_value_with_line_breaks_forges_no_line_of_a_diff(tmp_path, cli):
    import json
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(_snapshot_with("RTX")))
    b.write_text(json.dumps(_snapshot_with(FORGE, host=FORGE)))
    res = cli("diff", str(a), str(b))
    assert res.returncode in (0, 1), res.stderr
    assert "All checks passed" in res.stdout
    assert not _forged(res.stdout), _forged(res.stdout)


def test_a_value_with_line_breaks_forges_no_line_of_a_fleet_compare(tmp_path, cli):
    import json
    (tmp_path / "n").mkdir()
    (tmp_path / "n/a.json").write_text(json.dumps(_snapshot_with("RTX")))
    (tmp_path / "n/b.json").write_text(json.dumps(_snapshot_with(FORGE, host="node-b")))
    res = cli("fleet", "compare", str(tmp_path / "n"))
    assert res.returncode in (0, 1), res.stderr
    assert not _forged(res.stdout), _forged(res.stdout)
