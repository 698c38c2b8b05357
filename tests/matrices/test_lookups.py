"""The facts the code used to hard-code, read from rules/matrices: TensorFlow's
distributions and release floors, the CUDA architecture cut-offs, the JAX extras, NVIDIA's
unsuffixed wheels. Each answer comes from the data (a copy with one cell changed changes it)."""

from __future__ import annotations

import shutil

import pytest
from packaging.version import Version

from envdoctor import matrices
from envdoctor.matrices import gpus, jax, tensorflow
from envdoctor.matrices.cuda import unsuffixed_wheels
from envdoctor.rulefiles import rules_dir


def test_tensorflow_distributions_are_one_list_plain_package_first():
    names = tensorflow.distributions()
    assert names[0] == "tensorflow"
    assert {"tensorflow-cpu", "tensorflow-cpu-aws", "tf-nightly-cpu-aws"} <= set(names)
    assert set(tensorflow.no_cuda_distributions()) <= set(names)
    assert set(tensorflow.cpu_only_distributions()) <= set(names)
    pairs = tensorflow.thin_pairs()
    assert "tensorflow-intel" in pairs["tensorflow"]
    assert all(b in names for builds in pairs.values() for b in builds)


@pytest.mark.parametrize("version, want", [
    ("1.14.0", True), ("1.15.0", False), ("1.15.2", True), ("2.0.1", True), ("2.1.0", False),
    ("2.18.0", False),
])
def test_the_plain_tensorflow_package_was_cpu_only_in_these_releases(version, want):
    assert tensorflow.base_package_cpu_only(version) is want


def test_and_cuda_starts_where_the_wheel_index_says():
    assert tensorflow.and_cuda_from() == Version("2.14")
    assert tensorflow.has_and_cuda("2.14.0") and not tensorflow.has_and_cuda("2.13.1")
    assert not tensorflow.has_and_cuda(None)


@pytest.mark.parametrize("cuda, cc, dropped", [
    ("13.0", "7.0", "sm_70"), ("13.0", "6.1", "sm_61"), ("12.9", "7.0", None),
    ("12.4", "3.7", "sm_37"), ("13.0", "7.5", None), ("13.0", "8.9", None),
])
def test_cuda_dropped_reads_last_cuda(cuda, cc, dropped):
    row = gpus.cuda_dropped(cuda, cc)
    assert (row["sm"] if row else None) == dropped


@pytest.mark.parametrize("cuda, cc, first", [
    ("12.6", "12.0", "12.8"), ("12.8", "12.0", None), ("12.4", "10.0", "12.8"),
    ("11.7", "9.0", "11.8"), ("12.4", "8.9", None),
])
def test_cuda_predates_reads_first_cuda(cuda, cc, first):
    got = gpus.cuda_predates(cuda, cc)
    assert (str(got) if got else None) == first


def test_jax_plugins_by_driver_and_their_first_extra():
    assert [r["cuda_major"] for r in jax.plugins_for_driver("580.65.06")] == [13, 12]
    assert [r["cuda_major"] for r in jax.plugins_for_driver("535.1")] == [12]
    assert jax.plugins_for_driver("470.1") == []
    assert {r["cuda_major"]: r["extra_from"] for r in jax.plugins_for_driver(None)} == \
        {12: "0.4.30", 13: "0.7.2"}   # jax-cuda13-plugin wheels start at 0.7.2


def test_unsuffixed_cuda_wheels():
    names, first = unsuffixed_wheels()
    assert "nvidia-cublas" in names and "nvidia-cudnn" not in names and first == 13


def test_newest_first_puts_unparsable_rows_last():
    rows = [{"v": "2.1"}, {"v": ""}, {"v": "2.10"}, {"v": "2.9"}]
    assert [r["v"] for r in matrices.newest_first(rows, "v")] == ["2.10", "2.9", "2.1", ""]


def test_an_edited_matrix_moves_the_answer(tmp_path, monkeypatch):
    """The floor is the data's: a copy of rules/ with another gpu_from answers with it."""
    copy = tmp_path / "rules"
    shutil.copytree(rules_dir(), copy)
    index = copy / "matrices" / "wheel_index.toml"
    index.write_text(index.read_text(encoding="utf-8").replace(
        'gpu_from = "2.14"', 'gpu_from = "2.16"'), encoding="utf-8")
    monkeypatch.setenv("ENVDOCTOR_RULES", str(copy))
    monkeypatch.setenv("ENVDOCTOR_NO_CACHE", "1")
    matrices._matrices.cache_clear()
    try:
        assert tensorflow.and_cuda_from() == Version("2.16")
        assert not tensorflow.has_and_cuda("2.15.0")
    finally:
        matrices._matrices.cache_clear()


def test_the_2026_12_releases_hold_only_what_their_sources_state():
    """torch 2.14.1 / 2.15.0 and jax 0.12 from PyPI (listing and wheel metadata): 2.15.0 has
    no Python 3.10 and no cu126 (removed from CD), its PyPI build is cu132 on Linux, and the
    variants no stored source states (cu130, cu134, ROCm, Windows CUDA) are not listed; CUDA
    13.4 did not ship in 2.14 (release/2.14 dropped it)."""
    rows = {r["torch"]: r for r in matrices.matrix("wheel_index")["torch"]}
    new, patch, old = rows["2.15.0"], rows["2.14.1"], rows["2.14.0"]
    assert new["python"] == ">=3.11,<3.16" and patch["python"] == ">=3.10,<3.15"
    assert new["pypi"]["linux_x86_64"] == new["pypi"]["linux_aarch64"] == "cu132"
    assert patch["pypi"]["linux_x86_64"] == "cu130"
    assert new["linux_x86_64"] == ["cpu", "cu132"] and new["win_amd64"] == ["cpu"]
    assert all("cu134" not in r.get(p, []) for r in (new, patch, old)
               for p in ("linux_x86_64", "linux_aarch64", "win_amd64"))
    assert all(r["source"].startswith("https://") for r in (new, patch))
    last = {r["last"]: r for r in matrices.matrix("jax")["release"]}
    assert last["0.12.0.1"]["python"] == ">=3.12" and last["0.12.0.1"]["numpy_min"] == "2.2"
    assert last["0.11.2"]["first"] == "0.11.0"


def test_rocm_release_older_than_the_gfx_table_is_undecided_not_absent():
    """The gfx table starts at ROCm 5.0: before it a target is supported only where its row's
    ``earlier`` names the release (MI100 on ROCm 4.0), and otherwise undecided (None), never
    "no code" (False); from 5.0 on, a target no row lists is unsupported."""
    from packaging.version import Version

    from envdoctor.matrices import rocm as rocm_matrix

    assert rocm_matrix.coverage_from() == Version("5.0")
    assert rocm_matrix.support("gfx908", Version("4.0.1")) is True
    assert rocm_matrix.support("gfx908", Version("4.5.2")) is None
    assert rocm_matrix.support("gfx803", Version("4.2.0")) is None
    assert rocm_matrix.support("gfx803", Version("6.2.4")) is False
    assert rocm_matrix.support("gfx908", Version("6.2.4")) is True


def test_torch_rocm_wheels_carry_targets_from_the_first_release_after_their_pull_request():
    from packaging.version import Version

    from envdoctor.matrices.rocm import torch_wheel_has
    assert torch_wheel_has("gfx1102", Version("2.7.1+rocm6.3"))
    assert not torch_wheel_has("gfx1102", Version("2.6.0+rocm6.2.4"))
    # a nightly of the release cut after the merge may predate it: only the final counts
    assert not torch_wheel_has("gfx1151", Version("2.10.0.dev20250929+rocm7.0"))
    assert torch_wheel_has("gfx1151", Version("2.10.0+rocm7.0"))
    assert not torch_wheel_has("gfx1036", Version("2.13.0+rocm7.1"))
    assert not torch_wheel_has("gfx1102", None)
