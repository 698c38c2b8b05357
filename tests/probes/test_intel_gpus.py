"""Intel GPUs as /sys shows them (probes.host.intel_gpus): a display controller of vendor 0x8086
and the kernel driver its ``driver`` link names; a card with no such link is not bound, even
when the i915 module is loaded for another device."""

from __future__ import annotations

from pathlib import Path

from envdoctor.probes.host import intel_gpus


def _device(root: Path, address: str, vendor: str, klass: str, device: str,
            driver: str | None = None) -> None:
    dev = root / "sys/bus/pci/devices" / address
    dev.mkdir(parents=True)
    (dev / "vendor").write_text(f"{vendor}\n")
    (dev / "class").write_text(f"{klass}\n")
    (dev / "device").write_text(f"{device}\n")
    if driver:
        target = root / "sys/bus/pci/drivers" / driver
        target.mkdir(parents=True, exist_ok=True)
        (dev / "driver").symlink_to(target)


def test_a_bound_arc_and_an_unbound_one_beside_a_loaded_i915(tmp_path):
    (tmp_path / "sys/module/i915").mkdir(parents=True)
    _device(tmp_path, "0000:00:02.0", "0x8086", "0x030000", "0x4680", driver="i915")  # iGPU
    _device(tmp_path, "0000:03:00.0", "0x8086", "0x030000", "0x56a0")                  # Arc, unbound
    _device(tmp_path, "0000:04:00.0", "0x10de", "0x030000", "0x2684", driver="nvidia")
    _device(tmp_path, "0000:00:1f.3", "0x8086", "0x040300", "0x7ad0", driver="snd_hda_intel")
    found = {g.pci_address: g.driver for g in intel_gpus(tmp_path)}
    assert found == {"0000:00:02.0": "i915", "0000:03:00.0": ""}


def test_no_pci_bus_is_no_intel_gpu(tmp_path):
    assert intel_gpus(tmp_path) == ()
