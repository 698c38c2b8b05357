"""Knowledge functions over rules/matrices: right answers, None when the matrices do not know,
UNKNOWN when the facts are missing, and the `confirmed` downgrade of errors."""

from __future__ import annotations

import pytest
from packaging.version import Version

from envdoctor import engine, matrices
from envdoctor.engine.expr import UNKNOWN
from envdoctor.engine.knowledge.env import alloc_conf_problem
from envdoctor.engine.knowledge.packages import nvidia_wheel_major
from envdoctor.engine.vocabulary import names_for
from envdoctor.matrices.cuda import (
    hard_floor,
    lookup_compat_floor,
    lookup_max_cuda,
    lookup_min_driver,
)
from envdoctor.matrices.cudnn import lookup_cudnn, lookup_cudnn_min_cc
from envdoctor.matrices.gpus import archs_run_on, lookup_arch, lookup_datasheet, lookup_gpu, sm_of
from envdoctor.matrices.jax import jaxlib_floor, lookup_jax_plugin, lookup_jax_release
from envdoctor.matrices.tensorflow import lookup_tf_release
from envdoctor.matrices.torch import lookup_torch_release, lookup_torch_variant


def names(**partial):
    return names_for(engine.example_facts(partial))


RTX5090 = {"name": "NVIDIA GeForce RTX 5090", "cc": "12.0"}


# ---------------------------------------------------------------- CUDA <-> driver
@pytest.mark.parametrize("cuda, os_name, want", [
    ("12.4", "Linux", "550.54.14"), ("12.4.131", "Linux", "550.54.14"),
    ("12.4", "Windows", "551.61"), ("11.8", "Linux", "520.61.05"), ("13.0", "Linux", "580.65.06"),
])
def test_min_driver_is_the_ga_bundled_driver(cuda, os_name, want):
    assert lookup_min_driver(cuda, os_name)[0] == Version(want)


def test_min_driver_is_none_when_the_table_says_na_or_has_no_row():
    assert lookup_min_driver("13.0", "Windows") is None   # N/A from CUDA 13.0
    assert lookup_min_driver("8.0", "Linux") is None      # before the table


def test_pre_cuda_11_bundled_driver_is_a_hard_floor():
    # No minor-version compatibility before CUDA 11: the bundled driver is the floor.
    assert hard_floor("10.1", "Linux") == (Version("418.39"), True)
    assert hard_floor("10.2.89", "Windows") == (Version("441.22"), True)
    assert hard_floor("9.2", "Linux") == (Version("396.26"), False)  # secondary quotes
    assert hard_floor("12.4", "Linux") == (Version("525.60.13"), True)
    assert lookup_max_cuda("418.67") == Version("10.1")


def test_minor_compat_floor_and_unconfirmed_rows():
    assert lookup_compat_floor("12.8") == Version("525.60.13")
    assert lookup_compat_floor("11.2", "Windows") == Version("452.39")
    assert lookup_compat_floor("13.1") == Version("580")
    assert lookup_min_driver("13.3")[1] is False          # secondary quotes only


def test_max_cuda_for_a_driver():
    assert lookup_max_cuda("535.104.05") == Version("12.2")
    assert lookup_max_cuda("470.82.01") == Version("11.4")
    assert lookup_max_cuda("300.0") is None


# ---------------------------------------------------------------- GPUs
@pytest.mark.parametrize("name, cc", [
    ("NVIDIA GeForce RTX 5090", "12.0"), ("NVIDIA A100-SXM4-80GB", "8.0"), ("NVIDIA A10", "8.6"),
    ("NVIDIA A10G", "8.6"), ("NVIDIA L4", "8.9"), ("NVIDIA L40S", "8.9"), ("NVIDIA H200", "9.0"),
    ("NVIDIA GH200 480GB", "9.0"), ("NVIDIA GeForce GTX 1080 Ti", "6.1"), ("Tesla T4", "7.5"),
    ("NVIDIA GeForce RTX 4070 Ti SUPER", "8.9"),
])
def test_gpu_name_to_cc_longest_match_wins(name, cc):
    assert Version(lookup_gpu(name)["cc"]) == Version(cc)


def test_unknown_gpu_name_has_no_row():
    assert lookup_gpu("Matrox G200eR2") is None


def test_arch_name_and_sm():
    assert lookup_arch("8.6")["name"] == "Ampere"
    assert sm_of("12.0") == "sm_120"
    assert lookup_arch("4.2") is None


def test_any_gpu_cc_uses_nvml_then_name_then_unknown():
    assert names(nvidia={"driver_version": "570.1", "gpus": [RTX5090]})["any_gpu_cc"](">=12.0") is True
    by_name = names(nvidia={"driver_version": "570.1", "gpus": [{"name": "NVIDIA GeForce GTX 1080"}]})
    assert by_name["any_gpu_cc"]("<7.0") is True and by_name["any_gpu_cc"](">=7.0") is False
    unknown_cc = names(nvidia={"driver_version": "570.1", "gpus": [{"name": "Some Future GPU"}]})
    assert unknown_cc["any_gpu_cc"](">=12.0") is UNKNOWN
    assert names()["any_gpu_cc"](">=12.0") is UNKNOWN
    assert names(nvidia={"probe": {"status": "not_found"}})["any_gpu_cc"](">=1.0") is False


# ---------------------------------------------------------------- torch wheels
def test_arch_binary_compatibility_rules():
    assert archs_run_on(["sm_80"], "sm_86")            # same major, newer minor
    assert not archs_run_on(["sm_86"], "sm_80")
    assert not archs_run_on(["sm_90"], "sm_120")       # SASS never crosses majors
    assert archs_run_on(["compute_90"], "sm_120")      # PTX JITs forward
    assert not archs_run_on(["compute_120"], "sm_90")


@pytest.mark.parametrize("torch, cuda, arch, want", [
    ("2.6.0+cu124", "12.4", "sm_120", False), ("2.9.0+cu128", "12.8", "sm_120", True),
    ("2.9.0+cu130", "13.0", "sm_61", False), ("2.9.0+cu126", "12.6", "sm_61", True),
    ("2.9.0+cu130", "13.0", "sm_70", False), ("2.9.0+cu128", "12.8", "sm_70", True),
    ("2.13.0+cpu", None, "sm_80", None), ("1.12.1+cu116", "11.6", "sm_80", True),
    ("1.12.1+cu102", "10.2", "sm_80", False), ("1.11.0+cu115", "11.5", "sm_80", None),
])
def test_torch_has_arch(torch, cuda, arch, want):
    n = names(frameworks={"torch": {"version": torch, "cuda": cuda}})
    assert n["torch_has_arch"](arch) is want


def test_torch_has_arch_unknown_without_framework_facts():
    assert names()["torch_has_arch"]("sm_120") is UNKNOWN


def test_torch_variant_exposes_confirmed():
    assert lookup_torch_variant("2.9.0+cu130", "13.0")["cudnn"].startswith("9.13")
    assert matrices.confirmed(lookup_torch_variant("2.6.0+cu124", "12.4")) is False
    assert matrices.confirmed(lookup_torch_variant("2.9.0+cu130", "13.0")) is True


def test_torch_release_row():
    row = lookup_torch_release("2.6.0+cu124")
    assert (row["torchvision"], row["python"]) == ("0.21", ">=3.9,<3.14")
    assert lookup_torch_release("0.4.1") is None


# ---------------------------------------------------------------- TF, JAX, cuDNN
def test_tf_release_and_windows():
    assert lookup_tf_release("2.18.0")["cuda"] == "12.5"
    assert names()["tf_last_windows_gpu"]() == Version("2.10")


def test_jax_release_ranges_and_plugins():
    # python_requires, narrowed by the newest Python the release has wheels for
    assert lookup_jax_release("0.4.35")["python"] == ">=3.10,<3.14"
    assert lookup_jax_release("0.4.30")["python"] == ">=3.9,<3.13"
    assert lookup_jax_release("0.10.2")["python"] == ">=3.11,<3.15"   # jaxlib cp315 from 0.11.1
    assert lookup_jax_release("0.12.0.1")["python"] == ">=3.12"
    assert lookup_jax_release("9.0") is None
    assert lookup_jax_plugin(13)["min_cc"] == "7.5"
    assert lookup_jax_plugin(12)["pjrt"] == "jax-cuda12-pjrt"


@pytest.mark.parametrize("jax, want", [
    ("0.2.5", "0.1.55"), ("0.2.10", "0.1.60"), ("0.2.26", "0.1.74"), ("0.3.17", "0.3.14"),
    ("0.3.18", "0.3.15"), ("0.4.7", "0.4.6"), ("0.4.37", "0.4.36"), ("0.9.0.1", "0.9.0.1"),
    ("0.10.2", "0.10.1"), ("0.11.0", "0.11.0"), ("0.4.7.post1", "0.4.6"),
])
def test_jaxlib_floor_per_jax_release(jax, want):
    # jax/version.py (jax/lib/__init__.py before 0.2.11) at each jax-vX tag
    assert jaxlib_floor(jax)["jaxlib_min"] == want


@pytest.mark.parametrize("jax", ["0.1.77", "0.11.1", "0.12.0", "0.4.36.dev20241125", "0.4.0rc1",
                                 "not-a-version", None])
def test_jaxlib_floor_is_unknown_outside_the_table_and_for_dev_builds(jax):
    assert jaxlib_floor(jax) is None


def test_jaxlib_floor_rows_are_contiguous_change_points():
    rows = matrices.matrix("jax")["jaxlib_floor"]
    for row, nxt in zip(rows, rows[1:]):
        assert Version(row["jax_from"]) <= Version(row["jax_last"]) < Version(nxt["jax_from"])
        assert row["jaxlib_min"] != nxt["jaxlib_min"]      # only the change points
        assert Version(nxt["jaxlib_min"]) > Version(row["jaxlib_min"])
        assert Version(row["jaxlib_min"]) <= Version(row["jax_from"])
        assert f"/jax-v{row['jax_from']}/" in row["source"]


@pytest.mark.parametrize("jax, jaxlib, want", [
    ("0.3.18", "0.3.14", ["jax 0.3.18 needs jaxlib >= 0.3.15, found 0.3.14"]),
    ("0.4.7", "0.4.4+cuda11.cudnn86",
     ["jax 0.4.7 needs jaxlib >= 0.4.6, found 0.4.4+cuda11.cudnn86"]),
    ("0.9.0.1", "0.9.0", ["jax 0.9.0.1 needs jaxlib >= 0.9.0.1, found 0.9.0"]),
    ("0.3.17", "0.3.14", []),                 # at the floor
    ("0.4.36.dev20241125", "0.4.35", []),     # a dev build is not held to the release's floor
    ("0.12.0", "0.11.2", []),                 # past the table
    ("0.12.0", "0.9.0", []),                  # past the table: not judged
    ("0.4.30", "0.4.31", ["jaxlib 0.4.31 is newer than jax 0.4.30"]),
])
def test_jax_mismatch_knows_the_jaxlib_floor(jax, jaxlib, want):
    n = names(packages={"distributions": {"jax": jax, "jaxlib": jaxlib}})
    assert n["jax_mismatch"]() == want


@pytest.mark.parametrize("version, major, want, confirmed", [
    ("9.13.0.50", 13, "7.5", False), ("9.10.2.21", 12, "5.0", True), ("9.2.1", 12, "5.0", False),
    ("8.2.4", 11, "3.5", True), ("8.2.4", 10, "3.0", True),
])
def test_cudnn_min_cc_handles_text_series(version, major, want, confirmed):
    assert lookup_cudnn_min_cc(version, major) == Version(want)
    assert matrices.confirmed(lookup_cudnn(version)) is confirmed


def test_cudnn_unknown_release():
    assert lookup_cudnn("7.6.5") is None


def test_datasheet_bf16_zero_means_none_and_rows_are_unconfirmed():
    row = lookup_datasheet("NVIDIA H200")
    assert row["bf16_tflops"] > 0 and matrices.confirmed(row) is False
    assert lookup_datasheet("NVIDIA GH200 480GB") is None or \
        lookup_datasheet("NVIDIA GH200 480GB")["name"] != "NVIDIA H200"


# ---------------------------------------------------------------- packages and env
def test_nvidia_wheel_majors_ignore_nvidia_ml_py():
    assert nvidia_wheel_major("nvidia-cublas-cu12", Version("12.5.3.2")) == 12
    assert nvidia_wheel_major("nvidia-cublas", Version("13.0.0.19")) == 13
    assert nvidia_wheel_major("nvidia-ml-py", Version("13.580.82")) is None
    assert nvidia_wheel_major("nvidia-cudnn-cu13", Version("9.13.0.50")) == 13


@pytest.mark.parametrize("value, ok", [
    ("expandable_segments:True", True), ("max_split_size_mb:512,garbage_collection_threshold:0.6", True),
    ("backend:cudaMallocAsync", True), ("roundup_power2_divisions:[256:1,512:2,>:4]", True),
    ("expandable_segment:True", False), ("max_split_size_mb=512", False),
    ("expandable_segments:true", False), ("backend:async", False),
])
def test_alloc_conf_grammar(value, ok):
    assert (alloc_conf_problem(value) is None) is ok


def test_visible_devices_missing():
    gpus = [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-aaaa1111"}]
    n = names(nvidia={"driver_version": "565.57.01", "gpus": gpus}, env={"CUDA_VISIBLE_DEVICES": "0,1"})
    assert n["visible_devices_missing"]() == ["1"]
    n = names(nvidia={"driver_version": "565.57.01", "gpus": gpus}, env={"CUDA_VISIBLE_DEVICES": "GPU-aaaa"})
    assert n["visible_devices_missing"]() == []


# ---------------------------------------------------------------- the `confirmed` field
CHECK = {"code": "TEST001", "id": "t", "severity": "error", "title": "t", "when": "True",
         "why": "w", "fix": "f", "references": ["https://example.org"],
         "examples": [{"fires": True, "facts": {}}, {"fires": False, "facts": {}}]}


@pytest.mark.parametrize("confirmed, want", [
    ("True", "error"), ("False", "warning"), ("None", "warning"), ("host.cpu_count > 1", "warning"),
])
def test_unconfirmed_error_becomes_warning(confirmed, want):
    check = engine.parse_check({**CHECK, "confirmed": confirmed}, "x.toml")
    result = engine.evaluate_one(check, names_for(engine.example_facts({})), "auto")
    assert result.finding.severity.value == want    # host unknown -> UNKNOWN -> not confirmed
    assert ("confirmed" in result.finding.evidence) is (want == "warning")


def test_without_confirmed_field_an_error_stays_an_error():
    check = engine.parse_check(CHECK, "x.toml")
    assert engine.evaluate_one(check, names_for(engine.example_facts({})), "auto").finding.severity.value == "error"


def test_bad_confirmed_expression_names_file_and_field():
    with pytest.raises(Exception, match=r"x\.toml: confirmed"):
        engine.parse_check({**CHECK, "confirmed": "__import__('os')"}, "x.toml")


def test_example_severity_is_checked():
    check = engine.parse_check({**CHECK, "confirmed": "False", "examples": [
        {"fires": True, "facts": {}, "severity": "error"}, {"fires": False, "facts": {}}]}, "x.toml")
    problems = engine.run_examples(check)
    assert len(problems) >= 1 and "expected severity error" in problems[0]
