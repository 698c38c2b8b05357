"""ROCm parsers on recorded real outputs of rocminfo, rocm-smi and amd-smi
(tests/data/tools/<tool>/*.txt, source URL on line 1). Each expectation is what a person reads
in the file: the GPUs' names and gfx targets, or what the tool said instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from envdoctor.probes import rocm_output as parse

TOOLS = Path(__file__).resolve().parents[1] / "data" / "tools"


def recorded(tool: str, name: str) -> str:
    """The verbatim output of a recorded file, without its ``# source: URL`` line."""
    first, _, body = (TOOLS / tool / name).read_text(encoding="utf-8").partition("\n")
    assert first.startswith("# source: https://"), f"{tool}/{name} lacks its source URL"
    return body

ROCMINFO = {
    "01-rx7900xtx-gfx1100.txt": [("Radeon RX 7900 XTX", "gfx1100")],
    "03-rx6600xt-gfx1032.txt": [("AMD Radeon RX 6600 XT", "gfx1032")],
    "05-kfd-permission-denied.txt": [],
    "06-kfd-cannot-allocate.txt": [],
    "07-header-7800x3d.txt": [],          # the CPU agent only: no GPU
    "08-rx6750xt-gfx1031-plus-gfx1036-igpu.txt": [("AMD Radeon RX 6750 XT", "gfx1031"),
                                                  ("AMD Radeon Graphics", "gfx1036")],
}
ROCMINFO_PROBLEM = {
    "05-kfd-permission-denied.txt": "rocminfo: unable to open /dev/kfd read-write: Permission denied",
    "06-kfd-cannot-allocate.txt": "rocminfo: unable to open /dev/kfd read-write: Cannot allocate memory",
    "07-header-7800x3d.txt": "",
}
ROCM_SMI = {
    "01-showproductname-json-mi250x.txt": [("AMD INSTINCT MI200 (MCM) OAM LC MBA HPE C2", "gfx90a")],
    "02-showproductname-rx7900xtx.txt": [("Navi 31 [Radeon RX 7900 XT/7900 XTX/7900M]", "gfx1100")] * 2
                                        + [("Raphael", "gfx1036")],
    "03-showproductname-csv-mi100.txt": [("Arcturus GL-XL [AMD Instinct MI100]", "")] * 2,
    "05-showallinfo-mi300x-head.txt": [("AMD Instinct MI300X OAM", "")],
}
AMD_SMI_STATIC = {"03-static-mi350.txt": [("AMD Instinct MI350 OAM", "gfx950")]}
AMD_SMI_SAID = {
    "01-version-no-gpu.txt": "Unable to detect any GPU devices, check amdgpu version and module status (sudo modprobe amdgpu)",
    "02-driver-not-initialized.txt": "Unable to get devices, driver not initialized (amdgpu not found in modules)",
}
COVERAGE = {
    "rocminfo": set(ROCMINFO),
    "rocm-smi": {*ROCM_SMI, "04-showdriverversion-csv.txt"},
    "amd-smi": {*AMD_SMI_STATIC, *AMD_SMI_SAID},
}


@pytest.mark.parametrize("name", sorted(ROCMINFO))
def test_rocminfo(name):
    text = recorded("rocminfo", name)
    assert parse.parse_rocminfo(text) == ROCMINFO[name]
    if name in ROCMINFO_PROBLEM:
        assert parse.rocminfo_problem(text) == ROCMINFO_PROBLEM[name]


@pytest.mark.parametrize("name", sorted(ROCM_SMI))
def test_rocm_smi_product(name):
    assert parse.parse_rocm_smi(recorded("rocm-smi", name)) == ROCM_SMI[name]


def test_rocm_smi_driver_versions():
    assert parse.rocm_smi_driver(recorded("rocm-smi", "04-showdriverversion-csv.txt")) == \
        "4.18.0-348.12.2.el8_5.x86_64"
    assert parse.rocm_smi_driver(recorded("rocm-smi", "05-showallinfo-mi300x-head.txt")) == "6.7.0"


def test_amd_smi():
    for name, want in AMD_SMI_STATIC.items():
        assert parse.parse_amd_smi_static(recorded("amd-smi", name)) == want
    for name, want in AMD_SMI_SAID.items():
        text = recorded("amd-smi", name)
        assert parse.parse_amd_smi_static(text) == []
        assert parse.says_no_gpu(text) == want
    assert parse.amd_smi_rocm_version(recorded("amd-smi", "01-version-no-gpu.txt")) == "7.11.0"


@pytest.mark.parametrize("shown,want", [
    ("gfx9010", "gfx90a"), ("gfx90a", "gfx90a"), ("gfx942:sramecc+:xnack-", "gfx942"),
    ("gfx1100", "gfx1100"), ("gfx1030", "gfx1030"), ("gfx906", "gfx906"), ("gfx1151", "gfx1151"),
    ("amdgcn-amd-amdhsa--gfx942", ""), ("AMD Ryzen 7", ""), ("", "")])
def test_gfx_spellings(shown, want):
    assert parse.gfx_of(shown) == want


@pytest.mark.parametrize("number,want", [(90010, "gfx90a"), (90402, "gfx942"),
                                         (110000, "gfx1100"), (100300, "gfx1030"), (0, "")])
def test_kfd_topology_numbers(number, want):
    assert parse.gfx_of_version(number) == want
