"""The ROCm probe's states with real processes: fake AMD tools on PATH (shell scripts that
print, hang or crash), a fake amdsmi module for the child, system files under a root."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from envdoctor.facts import Status
from envdoctor.probes import _amdsmi_child, rocm

CHILD = Path(rocm.__file__).with_name("_amdsmi_child.py")


def tool(bindir: Path, name: str, body: str) -> None:
    path = bindir / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


@pytest.fixture
def machine(tmp_path, monkeypatch):
    root, bindir = tmp_path / "root", tmp_path / "bin"
    (root / "dev").mkdir(parents=True)
    (root / "sys/module/amdgpu").mkdir(parents=True)
    (root / "dev/kfd").write_text("")
    bindir.mkdir()
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    monkeypatch.setattr(rocm, "_amdsmi_spec", lambda: "")  # this venv has no amdsmi anyway
    return root, bindir


def test_nothing_of_amd_is_not_found(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    facts = rocm.probe(tmp_path)
    assert facts.probe.status is Status.NOT_FOUND and facts.gpus == ()


def test_a_hung_tool_is_a_failed_gpu_list_within_the_deadline(machine, monkeypatch):
    root, bindir = machine
    tool(bindir, "rocminfo", "sleep 30")
    monkeypatch.setattr(rocm, "TOOL_TIMEOUT", 1.0)
    start = time.monotonic()
    facts = rocm.probe(root)
    assert time.monotonic() - start < 10  # the deadline held
    assert facts.probe.status is Status.ERROR
    assert "rocminfo" in facts.probe.reason and "timed out" in facts.probe.reason
    assert facts.kfd is not None  # what the files said is kept


def test_a_crashing_tool_does_not_hide_the_next_one(machine):
    root, bindir = machine
    tool(bindir, "amd-smi", "echo 'Segmentation fault' >&2; exit 139")
    tool(bindir, "rocminfo", "printf 'Agent 2\\n  Name:                    gfx90a\\n"
                             "  Marketing Name:          AMD Instinct MI210\\n"
                             "  Device Type:             GPU\\n'")
    facts = rocm.probe(root)
    assert facts.probe.status is Status.OK and facts.probe.source == "rocminfo"
    assert [(g.name, g.gfx) for g in facts.gpus] == [("AMD Instinct MI210", "gfx90a")]
    assert "amd-smi static: exited 139" in facts.probe.reason


def test_garbage_is_a_failure_not_an_absence(machine):
    root, bindir = machine
    tool(bindir, "rocm-smi", "echo '{not json'; exit 0")
    facts = rocm.probe(root)
    assert facts.probe.status is Status.ERROR and "rocm-smi" in facts.probe.reason


def test_a_tool_saying_no_gpu_is_recorded(machine):
    root, bindir = machine
    tool(bindir, "amd-smi", "echo 'ERROR:root:Unable to detect any GPU devices, check amdgpu "
                            "version and module status (sudo modprobe amdgpu)'; exit 0")
    facts = rocm.probe(root)
    assert facts.probe.status is Status.OK and facts.gpus == ()
    assert facts.smi_error.startswith("amd-smi: Unable to detect any GPU devices")


def test_the_kfd_topology_answers_without_tools(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(rocm, "_amdsmi_spec", lambda: "")
    for i, number in enumerate((0, 90402, 90402)):
        node = tmp_path / f"sys/class/kfd/kfd/topology/nodes/{i}"
        node.mkdir(parents=True)
        (node / "properties").write_text(f"gfx_target_version {number}\n")
    facts = rocm.probe(tmp_path)
    assert facts.probe.source == "kfd-topology" and facts.gfx_targets == ("gfx942",)
    assert len(facts.gpus) == 2


class FakeAmdSmi:
    def amdsmi_init(self):
        pass

    def amdsmi_get_processor_handles(self):
        return ["h0", "h1"]

    def amdsmi_get_gpu_asic_info(self, handle):
        if handle == "h1":
            raise RuntimeError("AMDSMI_STATUS_NOT_SUPPORTED")
        return {"market_name": "AMD Instinct MI300X", "target_graphics_version": "gfx942"}

    def amdsmi_shut_down(self):
        pass


def test_amdsmi_child_collects_and_keeps_a_lost_gpu():
    answer = _amdsmi_child.collect(FakeAmdSmi())
    assert answer["gpus"] == [{"index": 0, "name": "AMD Instinct MI300X", "gfx": "gfx942"}]
    assert answer["lost"][0]["index"] == 1


def test_amdsmi_child_as_a_process_answers_json_from_a_fake_module(tmp_path):
    (tmp_path / "amdsmi.py").write_text(
        "def amdsmi_init(): pass\n"
        "def amdsmi_get_processor_handles(): return [1]\n"
        "def amdsmi_get_gpu_asic_info(h): return {'market_name': 'Radeon RX 7900 XTX', "
        "'target_graphics_version': 'gfx1100'}\n"
        "def amdsmi_shut_down(): pass\n")
    done = subprocess.run([sys.executable, "-I", "-S", "-c", CHILD.read_text(), str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    answer = json.loads(done.stdout)
    assert answer["ok"] and answer["gpus"][0]["gfx"] == "gfx1100"
    assert "step amdsmi_init" in done.stderr


def test_access_is_judged_for_the_user_of_the_tree(machine, monkeypatch):
    root, _ = machine
    (root / "etc").mkdir()
    (root / "etc/passwd").write_text("alice:x:1000:1000::/home/alice:/bin/sh\n")
    gid = os.stat(root / "dev/kfd").st_gid
    (root / "etc/group").write_text(f"render:x:{gid}:\n")
    os.chmod(root / "dev/kfd", 0o660)
    monkeypatch.setenv("USER", "alice")
    shut = rocm.probe(root)
    assert shut.kfd is not None and shut.kfd.accessible is False and shut.kfd.group == "render"
    (root / "etc/group").write_text(f"render:x:{gid}:alice\n")
    assert rocm.probe(root).kfd.accessible is True
    monkeypatch.setenv("USER", "nobody-here")
    assert rocm.probe(root).kfd.accessible is None  # a user the tree does not know


def test_the_driver_version_comes_from_rocm_smi_when_sys_has_none(machine):
    root, bindir = machine
    tool(bindir, "rocm-smi", 'case "$1" in --showdriverversion) printf "device,Driver version\\n'
                             'cardsystem,6.7.0\\n";; *) printf \'{"card0": {"Card Series": '
                             '"AMD Instinct MI210", "GFX Version": "gfx9010"}}\';; esac')
    facts = rocm.probe(root)
    assert [(g.name, g.gfx) for g in facts.gpus] == [("AMD Instinct MI210", "gfx90a")]
    assert facts.driver_version == "6.7.0"
