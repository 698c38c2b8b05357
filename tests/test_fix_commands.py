"""Fix commands computed from the machine: the wheel for THIS GPU, driver, OS and CPU
architecture, never one the driver cannot run or a GPU it cannot drive, never a downgrade of
the installed release when a variant of it fits (issue 10, point 5)."""

from __future__ import annotations

import pytest

from envdoctor.engine.knowledge import compat
from envdoctor.engine.knowledge.compat import driver_supports_arch, torch_wheel_for


@pytest.mark.parametrize(("targets", "installed", "driver", "want"), [
    # RTX 5090 with torch 2.7.0+cu126: the same release's cu128 wheel (driver 570 runs 12.8)
    (["sm_120"], "2.7.0+cu126", "570.133.07", ("torch==2.7.0", "cu128")),
    # H100 with a CPU wheel on driver 560: the newest CUDA the driver fully supports (cu124)
    (["sm_90"], "2.5.1+cpu", "560.35.03", ("torch==2.5.1", "cu124")),
    # V100 with torch 2.9.0+cu130: CUDA 13 cannot target sm_70, cu128 of 2.9 can
    (["sm_70"], "2.9.0+cu130", "580.65.06", ("torch==2.9.0", "cu128")),
    # RTX 5090 with torch 2.6 (no sm_120 variant) on driver 570: the newest release with a
    # variant the driver runs (cu130 needs 580), not whl/cu128 of a torch cu128 never had
    (["sm_120"], "2.6.0+cu124", "570.133.07", ("torch==2.11.*", "cu128")),
])
def test_wheel_for_these_gpus_and_driver(targets, installed, driver, want):
    assert torch_wheel_for(targets, installed, "default", "linux", driver) == want


def test_no_wheel_for_a_gpu_the_driver_cannot_drive():
    """Driver 470 predates Ada (sm_89 arrived with CUDA 11.8 / driver 520): no cu118 advice."""
    assert driver_supports_arch("470.256.02", "sm_89") is False
    assert torch_wheel_for(["sm_89"], "2.3.1+cu121", "default", "linux", "470.256.02") is None
    assert driver_supports_arch("535.183.01", "sm_89") is True


def test_aarch64_uses_the_aarch64_arch_lists():
    """Jetson Thor (sm_110) exists only in the aarch64 cu130 wheels."""
    assert torch_wheel_for(["sm_110"], "2.9.0+cu130", "linux-aarch64", "linux", "580.00") == \
        ("torch==2.9.0", "cu130")
    assert torch_wheel_for(["sm_110"], "2.9.0+cu130", "default", "linux", "580.00") != \
        ("torch==2.9.0", "cu130")


def test_windows_cuda13_floor_and_older_variant():
    """CUDA 13.x needs a 580 driver on Windows too; 566 still runs cu126 (Table 3: 560.94)."""
    assert str(compat.lookup_compat_floor("13.0", "windows")) == "580"
    assert torch_wheel_for(["sm_89"], "2.9.0+cu130", "default", "windows", "566.36") == \
        ("torch==2.9.0", "cu126")


def test_driver_versions_print_as_nvidia_writes_them():
    assert str(compat.lookup_min_driver("12.6")[0]) == "560.28.03"
    assert str(compat.lookup_compat_floor("11.8")) == "450.80.02"


def test_cuda_predating_the_gpu_is_an_impossibility_without_a_row():
    from envdoctor.facts import Gpu, NvidiaFacts
    nv = NvidiaFacts(gpus=(Gpu(index=0, name="NVIDIA GeForce RTX 5090"),))
    assert compat.gpus_newer_than_build_cuda(nv, "12.4") == [
        "NVIDIA GeForce RTX 5090 (sm_120, needs CUDA >= 12.8)"]
    assert compat.gpus_newer_than_build_cuda(nv, "12.8") == []


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
