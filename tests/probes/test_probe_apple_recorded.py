"""The Mac probe's parsers on recorded real outputs of sw_vers and sysctl
(tests/data/tools/<tool>/*.txt, source URL on line 1), and the probe on fake Macs: a fake root
with SystemVersion.plist, fake tools on PATH, a site-packages with wheel tags and Mach-O
headers. Each expectation is what a person reads in the file."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from packaging.version import Version

from envdoctor import runner
from envdoctor.facts import Status
from envdoctor.probes import _macho, apple
from tests import machobuild
from tests.heldout import apple_machines

TOOLS = Path(__file__).resolve().parents[1] / "data" / "tools"


def recorded(tool: str, name: str) -> str:
    first, _, body = (TOOLS / tool / name).read_text(encoding="utf-8").partition("\n")
    assert first.startswith("# source: https://"), f"{tool}/{name} lacks its source URL"
    return body


SW_VERS = {
    "01-12.7.6-m1.txt": ("12.7.6", "21H1320"),
    "02-14.2.1.txt": ("14.2.1", "23C71"),
    "03-15.1.1.txt": ("15.1.1", "24B91"),
}
# file -> (brand, hw.optional.arm64, sysctl.proc_translated)
SYSCTL = {
    "01-m1-native.txt": ("Apple M1", "1", "0"),
    "02-m1pro-native.txt": ("Apple M1 Pro", "1", "0"),
    "03-m2max-native.txt": ("Apple M2 Max", "1", "0"),
    "04-m3max-rosetta.txt": ("Apple M3 Max", "1", "1"),
    "05-m3max-native.txt": ("Apple M3 Max", "1", "0"),
}
COVERAGE = {"sw_vers": SW_VERS, "sysctl": SYSCTL}


@pytest.mark.parametrize("name", sorted(SW_VERS))
def test_sw_vers(name):
    fields = apple.parse_sw_vers(recorded("sw_vers", name))
    assert (fields["ProductVersion"], fields["BuildVersion"]) == SW_VERS[name]
    assert fields["ProductName"] == "macOS"


@pytest.mark.parametrize("name", sorted(SYSCTL))
def test_sysctl(name):
    answers, missing = apple.parse_sysctl(recorded("sysctl", name), "")
    assert (answers["machdep.cpu.brand_string"], answers["hw.optional.arm64"],
            answers["sysctl.proc_translated"]) == SYSCTL[name]
    assert missing == set()


def test_sysctl_unknown_oids_are_answers_not_failures():
    """An Intel Mac's sysctl has no hw.optional.arm64 (spack/spack#30077 shows the message)."""
    answers, missing = apple.parse_sysctl(
        "machdep.cpu.brand_string: Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz\n",
        "sysctl: unknown oid 'hw.optional.arm64'\nsysctl: unknown oid 'sysctl.proc_translated'\n")
    assert answers == {"machdep.cpu.brand_string": "Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz"}
    assert missing == {"hw.optional.arm64", "sysctl.proc_translated"}


@pytest.mark.parametrize("tags, want", [
    (("cp311-none-macosx_11_0_arm64",), ("arm64", Version("11.0"))),
    (("cp311-none-macosx_10_9_x86_64",), ("x86_64", Version("10.9"))),
    (("cp312-cp312-macosx_14_0_arm64",), ("arm64", Version("14.0"))),
    (("cp39-cp39-macosx_10_9_universal2",), ("universal2", Version("10.9"))),
    (("py3-none-any",), ("any", None)),
    (("cp311-cp311-manylinux_2_27_x86_64",), ("", None)),
])
def test_wheel_arch(tags, want):
    assert apple.wheel_arch(tags) == want


# --------------------------------------------------------------------------- Mach-O
def test_macho_thin_dylib_lists_its_load_commands(tmp_path):
    lib = tmp_path / "libtorch_cpu.dylib"
    lib.write_bytes(machobuild.thin("arm64", machobuild.METAL + machobuild.BASE,
                                    install_name="@rpath/libtorch_cpu.dylib"))
    seen = _macho.read(lib)
    assert seen.archs == ("arm64",) and not seen.error
    assert any("MetalPerformanceShaders.framework" in d for d in seen.dylibs)
    assert "@rpath/libtorch_cpu.dylib" not in seen.dylibs  # LC_ID_DYLIB is not a dependency


def test_macho_universal_binary_names_both_slices(tmp_path):
    exe = tmp_path / "python3"
    exe.write_bytes(machobuild.fat(("x86_64", machobuild.thin("x86_64", filetype=2)),
                                   ("arm64", machobuild.thin("arm64", filetype=2))))
    assert _macho.read(exe).archs == ("x86_64", "arm64")


@pytest.mark.parametrize("data, error", [
    (b"", "not a Mach-O file"), (b"\x7fELF" + b"\0" * 60, "not a 64-bit Mach-O file"),
    (machobuild.thin("arm64")[:40], ""),  # truncated commands: what was read stands
])
def test_macho_bad_input_is_an_error_never_a_crash(tmp_path, data, error):
    path = tmp_path / "x"
    path.write_bytes(data)
    assert _macho.read(path).error == error
    assert _macho.read(tmp_path / "missing").error == "unreadable"


def test_macho_hostile_command_sizes_stop_the_walk(tmp_path):
    data = bytearray(machobuild.thin("arm64", machobuild.METAL))
    data[36:40] = (4).to_bytes(4, "little")  # first command's cmdsize < 8
    path = tmp_path / "x"
    path.write_bytes(bytes(data))
    assert _macho.read(path).error == "a load command runs past the header"


# --------------------------------------------------------------------------- the probe
def _tool(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def _probe(sc: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    site, bindir, root = apple_machines.build(sc, tmp_path / "box")
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    return apple.probe(root=root, paths=(str(site),))


def test_probe_reads_a_rosetta_mac(tmp_path, monkeypatch):
    sc = next(s for s in apple_machines.SCENARIOS if "rosetta-x86-python-torch" in s["name"])
    facts = _probe(sc, tmp_path, monkeypatch)
    assert facts.probe.status is Status.OK
    assert facts.macos_version == Version("15.1.1") and facts.macos_build == "24B91"
    assert (facts.cpu_brand, facts.apple_silicon, facts.translated) == ("Apple M3 Max", True, True)
    torch = facts.wheel("torch")
    assert torch is not None and torch.arch == "x86_64" and torch.macos == Version("10.9")
    assert facts.torch_mps_linked is True and facts.torch_lib_arch == "x86_64"
    # under another root the running interpreter is not that Mac's: not observed, never claimed
    assert {"python_machine", "python_platform", "python_archs"} <= set(facts.probe.unobserved)


def test_probe_reads_a_torch_built_without_mps(tmp_path, monkeypatch):
    sc = next(s for s in apple_machines.SCENARIOS if "without-mps" in s["name"])
    facts = _probe(sc, tmp_path, monkeypatch)
    assert facts.torch_mps_linked is False and facts.torch_lib_arch == "arm64"
    assert facts.translated is False


def test_not_a_mac_is_not_found(tmp_path):
    facts = apple.probe(root=tmp_path)
    assert facts.probe.status is Status.NOT_FOUND and "not macOS" in facts.probe.reason


def test_sysctl_that_hangs_is_a_failed_field_not_a_finding(tmp_path, monkeypatch):
    sc = apple_machines.SCENARIOS[0]
    site, bindir, root = apple_machines.build(sc, tmp_path / "box")
    _tool(bindir / "sysctl", "sleep 30\n")
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    monkeypatch.setattr(apple, "TOOL_TIMEOUT", 0.5)
    facts = apple.probe(root=root)
    assert facts.probe.status is Status.OK and facts.macos_version == Version("13.4.1")
    assert set(facts.probe.failed) == {"cpu_brand", "apple_silicon", "translated"}
    assert "timed out" in facts.probe.failed["translated"]


def test_unreadable_plist_falls_back_to_sw_vers(tmp_path, monkeypatch):
    sc = next(s for s in apple_machines.SCENARIOS if s["system"].get("sw_vers"))
    site, bindir, root = apple_machines.build(sc, tmp_path / "box")
    (root / apple.PLIST).write_text("<plist><dict><key>ProductVersion</key>")  # truncated
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    facts = apple.probe(root=root)
    assert facts.macos_version == Version("14.2.1")
    assert facts.probe.sources["macos_version"] == "sw_vers"


def test_no_version_anywhere_is_a_failed_field(tmp_path, monkeypatch):
    sc = apple_machines.SCENARIOS[0]
    site, bindir, root = apple_machines.build(sc, tmp_path / "box")
    (root / apple.PLIST).write_text("garbage")
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    with runner.use_runner(runner._runner):
        facts = apple.probe(root=root)
    assert "macos_version" in facts.probe.failed and facts.macos_version is None
