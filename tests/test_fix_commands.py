"""Fix commands computed from the machine: the wheel for THIS GPU, driver, OS and CPU
architecture, never one the driver cannot run or a GPU it cannot drive, never a downgrade of
the installed release when a variant of it fits (issue 10, point 5)."""

from __future__ import annotations

import pytest

from envdoctor.engine.checks import example_facts
from envdoctor.engine.knowledge.torch import driver_supports_arch, gpus_newer_than_build_cuda
from envdoctor.matrices.cuda import lookup_compat_floor, lookup_min_driver
from envdoctor.suggest import suggest


def fix_plan(gpu: str, cc: str, torch: str | None, driver: str, os: str = "Linux",
             arch: str = "x86_64", python: str = "3.11") -> tuple[str, str | None, str | None]:
    """(status, torch version, variant) of the torch wheel a check fix proposes here: the one
    planner in the keep-the-installed-release mode check fixes use."""
    cuda = None
    if torch and "+cu" in torch:
        tag = torch.split("+cu")[1]
        cuda = f"{tag[:-1]}.{tag[-1]}"
    facts = example_facts({
        "nvidia": {"driver_version": driver, "gpus": [{"name": gpu, "cc": cc}]},
        "host": {"os": os, "arch": arch, "python_version": python},
        "frameworks": {"torch": {"version": torch, "cuda": cuda}} if torch else {},
        "packages": {"distributions": {"torch": torch} if torch else {}}})
    s = suggest(facts, ["torch"], keep_installed=True).suggestions[0]
    return s.status, s.version, s.variant


@pytest.mark.parametrize(("gpu", "cc", "installed", "driver", "want"), [
    # RTX 5090 with torch 2.7.0+cu126: the same release's cu128 wheel (driver 570 runs 12.8)
    ("NVIDIA GeForce RTX 5090", "12.0", "2.7.0+cu126", "570.133.07", ("ok", "2.7.1", "cu128")),
    # H100 with a CPU wheel on driver 560: the same release's CUDA wheel (cu124)
    ("NVIDIA H100 80GB HBM3", "9.0", "2.5.1+cpu", "560.35.03", ("ok", "2.5.1", "cu124")),
    # V100 with torch 2.9.0+cu130: CUDA 13 cannot target sm_70, cu128 of 2.9 can
    ("Tesla V100-SXM2-32GB", "7.0", "2.9.0+cu130", "580.65.06", ("ok", "2.9.1", "cu128")),
])
def test_wheel_for_these_gpus_and_driver(gpu, cc, installed, driver, want):
    assert fix_plan(gpu, cc, installed, driver) == want


def test_no_wheel_for_a_gpu_the_driver_cannot_drive():
    """Driver 470 predates Ada (sm_89 arrived with CUDA 11.8 / driver 520): no cu118 advice."""
    assert driver_supports_arch("470.256.02", "sm_89") is False
    assert fix_plan("NVIDIA GeForce RTX 4090", "8.9", "2.3.1+cu121", "470.256.02")[0] == "none"
    assert driver_supports_arch("535.183.01", "sm_89") is True


def test_aarch64_uses_the_aarch64_arch_lists():
    """Jetson Thor (sm_110) exists only in the aarch64 cu130 wheels: never judged by the
    x86_64 arch list of the same variant. On aarch64 the installed 2.9.0+cu130 runs (2.9.1's
    row, the line's newest patch, has sm_110 in that build), so keep-installed keeps it."""
    assert fix_plan("NVIDIA Jetson AGX Thor", "11.0", "2.9.0+cu130", "580.65.06",
                    arch="aarch64", python="3.12") == ("installed", "2.9.0", "cu130")
    assert fix_plan("NVIDIA Jetson AGX Thor", "11.0", "2.9.0+cu130", "580.65.06",
                    python="3.12")[0] == "none"


def test_windows_cuda13_floor():
    """CUDA 13.x needs a 580 driver on Windows too: 566 keeps the release on a cu12 wheel."""
    assert str(lookup_compat_floor("13.0", "windows")) == "580"
    status, version, variant = fix_plan("NVIDIA GeForce RTX 4090", "8.9", "2.9.0+cu130",
                                        "566.36", os="Windows")
    assert (status, version) == ("ok", "2.9.1") and variant.startswith("cu12")


def test_driver_versions_print_as_nvidia_writes_them():
    assert str(lookup_min_driver("12.6")[0]) == "560.28.03"
    assert str(lookup_compat_floor("11.8")) == "450.80.02"


def test_cuda_predating_the_gpu_is_an_impossibility_without_a_row():
    from envdoctor.facts import Gpu, NvidiaFacts
    nv = NvidiaFacts(gpus=(Gpu(index=0, name="NVIDIA GeForce RTX 5090"),))
    assert gpus_newer_than_build_cuda(nv, "12.4") == [
        "NVIDIA GeForce RTX 5090 (sm_120, needs CUDA >= 12.8)"]
    assert gpus_newer_than_build_cuda(nv, "12.8") == []


@pytest.mark.parametrize(("code", "tf", "want"), [
    ("KERAS003", "2.15.1", 'pip install "keras~=2.15.0"'),   # keras 2.15.1 does not exist
    ("KERAS002", "2.16.2", 'pip install "tf-keras~=2.16.0"'),  # nor does tf-keras 2.16.2
])
def test_keras_pins_name_a_release_series_that_exists(code, tf, want):
    from envdoctor import engine
    check = next(c for c in engine.load_checks() if c.code == code)
    facts = engine.example_facts({
        "frameworks": {"tensorflow": {"version": tf, "distribution": "tensorflow"}},
        "packages": {"distributions": {"tensorflow": tf, "keras": "3.3.3"}},
        "env": {"TF_USE_LEGACY_KERAS": "1"}})
    finding = next(f for f in engine.findings_of(engine.evaluate(facts, [check]))
                   if f.code == code)
    assert want in finding.fix


def test_no_wheel_for_a_python_the_release_does_not_support():
    """Python 3.8: torch 2.5+ has no cp38 wheel; 2.4.1 is the last release that has one."""
    assert fix_plan("NVIDIA GeForce RTX 4090", "8.9", None, "560.35.03", python="3.8") == \
        ("ok", "2.4.1", "cu121")
    assert fix_plan("NVIDIA GeForce RTX 4090", "8.9", None, "560.35.03", python="3.6")[0] == "none"
