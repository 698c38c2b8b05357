"""The classes batch 9's first run found wrong, fixed by class (tests/suggest/heldout/README.md,
batch 9): the C library (glibc) against a wheel's manylinux tag, offline from the shipped
[[manylinux]] rows and online from the index's own tags; and ROCm releases past the data's
order. On machines of our own, not the held-out profiles."""

from __future__ import annotations

from typing import Any

from packaging.tags import Tag
from packaging.version import Version

from envdoctor.suggest import suggest
from envdoctor.suggest.index import Online, wheels
from envdoctor.suggest.machine import machine_of

from .test_heldout9 import snapshot


def _row(**kw: Any) -> dict[str, Any]:
    return {"name": "own", "os": "Linux", "arch": "x86_64", "python": "3.12.4", **kw}


def _one(row: dict[str, Any], framework: str, keep: bool = False, online: Any = None) -> Any:
    return suggest(snapshot(row), [framework], keep_installed=keep,
                   online=online).suggestions[0]


def _text(s: Any) -> str:
    return " ".join(r.text for r in s.reasons)


# ------------------------------------------------------------------ glibc: the facts
def test_the_machine_reads_glibc_in_the_probe_and_the_paste_spellings():
    assert machine_of(snapshot(_row(glibc="glibc-2.31"))).glibc == Version("2.31")
    assert machine_of(snapshot(_row(glibc="2.17"))).glibc == Version("2.17")
    assert machine_of(snapshot(_row())).glibc is None


def test_supported_tags_stop_at_the_profiles_glibc_not_this_interpreters():
    tag = {Tag("cp312", "cp312", p) for p in ("manylinux_2_28_x86_64",)}
    old = {Tag("cp312", "cp312", "manylinux2014_x86_64")}
    assert wheels.fits(frozenset(tag), "linux_x86_64", (3, 12), (2, 28))
    assert not wheels.fits(frozenset(tag), "linux_x86_64", (3, 12), (2, 27))
    assert wheels.fits(frozenset(tag), "linux_x86_64", (3, 12))      # not stated: current
    assert wheels.fits(frozenset(old), "linux_x86_64", (3, 12), (2, 17))
    assert not wheels.fits(frozenset(old), "linux_x86_64", (3, 12), (2, 12))
    assert wheels.linux_floor(frozenset(old | tag)) == "manylinux_2_17"


# ------------------------------------------------------------------ glibc: jax
def test_jax_on_glibc_217_gets_the_last_manylinux2014_jaxlib_and_says_why():
    s = _one(_row(glibc="2.17"), "jax")
    assert (s.status, s.version, s.variant) == ("ok", "0.7.0", "cpu")
    assert "manylinux_2_27: glibc 2.17 cannot load them; 0.7.0 is the last with " \
           "manylinux2014" in _text(s)


def test_jax_on_aarch64_glibc_217_moves_one_release_later():
    s = _one(_row(arch="aarch64", glibc="2.17"), "jax")
    assert (s.status, s.version) == ("ok", "0.7.1")


def test_jax_on_a_current_glibc_is_not_held_back_and_says_nothing_of_it():
    s = _one(_row(glibc="glibc-2.35"), "jax")
    newest = _one(_row(), "jax")
    assert s.version == newest.version and "glibc" not in _text(s)


def test_jax_without_a_stated_glibc_says_it_assumed_a_current_one():
    s = _one(_row(), "jax")
    assumed = [r for r in s.reasons if "does not state the C library" in r.text]
    assert assumed and not assumed[0].confirmed and "manylinux_2_27" in assumed[0].text


def test_jax_on_glibc_217_does_not_offer_a_newer_python_alone():
    s = _one(_row(python="3.11.2", glibc="2.17"), "jax")
    assert all("glibc >= 2.27" in a.price for a in s.alternatives if "Python" in a.text)


# ------------------------------------------------------------------ glibc: tensorflow
def test_tensorflow_on_glibc_217_is_the_last_manylinux_2_17_series():
    s = _one(_row(glibc="2.17"), "tensorflow")
    assert (s.status, s.version) == ("ok", "2.20.*")
    assert "tensorflow 2.21's Linux wheels are manylinux_2_27: glibc 2.17" in _text(s)
    s = _one(_row(glibc="2.27"), "tensorflow")
    assert s.version == "2.21.*" and "cannot load" not in _text(s)


# ------------------------------------------------------------------ glibc: torch
def test_torch_on_x86_64_glibc_217_is_undecided_with_the_true_reason():
    s = _one(_row(glibc="2.17"), "torch")
    assert s.status == "undecided"
    assert "manylinux_2_28, which glibc 2.17 cannot load" in _text(s)
    unknown = [r for r in s.reasons if not r.confirmed]
    assert unknown and "tagged manylinux1" in unknown[0].text
    assert any(a.price == "glibc >= 2.28" and a.command for a in s.alternatives)


def test_torch_on_aarch64_glibc_227_is_the_last_manylinux2014_release():
    s = _one(_row(arch="aarch64", glibc="2.27"), "torch")
    assert (s.status, s.version) == ("ok", "2.5.1")
    assert "torch 2.15.0's Linux wheels are manylinux_2_28: glibc 2.27" in _text(s) or \
        "manylinux_2_28: glibc 2.27 cannot load them; 2.5.1" in _text(s)


# ------------------------------------------------------------------ glibc: online
def test_online_the_index_tags_decide_against_the_machines_glibc():
    from .heldout9_index import serving
    with serving("json") as index:
        online = Online(index.url, index.torch_root, 10)
        old = _one(_row(python="3.13.1", glibc="2.27"), "jax", online=online)
        new = _one(_row(python="3.13.1", glibc="2.28"), "jax", online=online)
        tf = _one(_row(python="3.12.4", glibc="2.17"), "tensorflow", online=online)
    assert Version(new.version) > Version(old.version)   # one index, two C libraries
    assert "which glibc 2.27 cannot load" in _text(old) and "manylinux_2_28" in _text(old)
    assert "glibc" not in _text(new)
    assert tf.version == "2.20.*" and "which glibc 2.17 cannot load" in _text(tf)


# ------------------------------------------------------------------ ROCm past the data's order
def _amd(rocm: str, gfx: str = "gfx942", gpu: str = "AMD Instinct MI300A",
         **kw: Any) -> dict[str, Any]:
    return _row(rocm={"version": rocm, "gpu": gpu, "gfx": gfx}, **kw)


def test_a_system_rocm_past_the_order_gets_its_own_releases_wheel():
    s = _one(_amd("7.14.2"), "torch")
    assert (s.status, s.variant) == ("ok", "rocm7.14")
    assert "is the release of ROCm 7.14" in _text(s)


def test_a_system_rocm_past_the_order_without_a_wheel_is_undecided_never_none():
    s = _one(_amd("7.30.0"), "torch")
    assert s.status == "undecided"
    assert "ROCm 7.30 is newer than the releases the data places in order" in _text(s)
    assert any(a.variant == "cpu" and a.command for a in s.alternatives)


def test_keep_keeps_a_working_rocm_build_of_a_release_the_data_lists_no_rocm_for():
    s = _one(_amd("7.2.1", python="3.12.4", installed=["torch==2.15.0+rocm7.2",
                                                      "torchvision==0.29.2+rocm7.2"]),
             "torch", keep=True)
    assert (s.version, s.variant) == ("2.15.0", "rocm7.2") and s.status in ("ok", "installed")


def test_keep_does_not_keep_a_rocm_build_whose_release_drops_the_gpu():
    s = _one(_amd("7.2.1", gfx="gfx906", gpu="AMD Instinct MI50", installed=["torch==2.15.0+rocm7.2"]), "torch",
             keep=True)
    assert s.variant != "rocm7.2" or s.version != "2.15.0"
