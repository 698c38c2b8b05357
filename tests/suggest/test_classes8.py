"""The classes batch 8's first run found wrong, fixed by class (tests/suggest/heldout/README.md,
batch 8): a Cloud TPU host gets ``jax[tpu]``, and ``--keep`` keeps an installed TensorFlow
whose release runs here. On machines of our own, not the held-out profiles."""

from __future__ import annotations

from typing import Any

from envdoctor.suggest import suggest

from .test_heldout8 import snapshot


def _row(**kw: Any) -> dict[str, Any]:
    return {"name": "own", "os": "Linux", "arch": "x86_64", "python": "3.11.9", **kw}


def _one(row: dict[str, Any], framework: str, keep: bool = False) -> Any:
    return suggest(snapshot(row), [framework], keep_installed=keep).suggestions[0]


def _text(s: Any) -> str:
    return " ".join(r.text for r in s.reasons)


def test_a_tpu_vm_gets_jax_tpu_with_the_evidence_named():
    s = _one(_row(tpu="v4-8"), "jax")
    assert (s.status, s.variant) == ("ok", "jax[tpu]")
    assert f"jax[tpu]=={s.version}" in (s.command or "")
    assert "TPU_ACCELERATOR_TYPE=v4-8" in _text(s)


def test_stray_cuda_plugins_on_a_tpu_vm_are_named_for_removal():
    s = _one(_row(tpu="v5p-8", installed=["jax==0.12.0.1", "jaxlib==0.12.0.1",
                                           "jax-cuda12-plugin==0.12.0.1"]), "jax")
    assert s.variant == "jax[tpu]" and "pip uninstall jax-cuda12-plugin" in _text(s)


def test_a_working_tpu_install_is_left_alone():
    s = _one(_row(tpu="v6e-8", python="3.13.9", installed=["jax==0.12.0.1", "jaxlib==0.12.0.1",
                                           "libtpu==0.0.50.1"]), "jax")
    assert (s.status, s.variant, s.version) == ("installed", "jax[tpu]", "0.12.0.1")
    assert "libtpu 0.0.50.1" in _text(s)


def test_a_vfio_node_alone_is_no_tpu():
    facts = snapshot(_row()).to_dict()
    facts["host"]["gpu_device_nodes"] = ["/dev/vfio/0"]
    from envdoctor.facts import Facts
    s = suggest(Facts.from_dict(facts), ["jax"]).suggestions[0]
    assert s.variant == "cpu" and "TPU" not in _text(s)


def test_tpu_evidence_on_aarch64_gets_cpu_jaxlib_and_says_why():
    s = _one(_row(arch="aarch64", tpu="v5litepod-4"), "jax")
    assert s.variant == "cpu" and "Linux x86_64 only" in _text(s)


def test_keep_keeps_an_installed_tensorflow_that_runs_here():
    mac = {"name": "own-mac", "os": "Darwin", "arch": "arm64", "python": "3.11.9",
           "macos": "15.1", "installed": ["tensorflow==2.19.0"]}
    kept = _one(mac, "tensorflow", keep=True)
    assert kept.version == "2.19.*" and "keeps the installed tensorflow 2.19.0" in _text(kept)
    assert _one(mac, "tensorflow").version != "2.19.*"   # without --keep: the newest


def test_keep_does_not_keep_a_tensorflow_whose_gpu_build_cannot_run_when_a_newer_one_can():
    # TF 2.15 on an RTX 5090 (sm_120): the newest release is the answer with or without --keep
    row = _row(gpu=["NVIDIA GeForce RTX 5090", "12.0"], driver="580.65.06",
               installed=["tensorflow==2.15.1"])
    kept, newest = _one(row, "tensorflow", keep=True), _one(row, "tensorflow")
    assert (kept.version, kept.variant) == (newest.version, newest.variant) != ("2.15.*", "cpu")
    assert "keeps the installed" not in _text(kept)


def test_keep_keeps_a_gpu_tensorflow_that_runs_on_this_gpu():
    row = _row(gpu=["NVIDIA GeForce RTX 3090", "8.6"], driver="580.65.06",
               installed=["tensorflow==2.17.1"])
    kept = _one(row, "tensorflow", keep=True)
    assert (kept.version, kept.variant) == ("2.17.*", "tensorflow[and-cuda]")
    assert "uses this GPU" in _text(kept)
