"""Installed GPU companions that cannot work on the machine are named, with the line that
removes them, and an answer never says "nothing to change" while one is there (a JAX CUDA
plugin without an NVIDIA GPU, a ROCm plugin without an AMD GPU, a CUDA plugin other than the
answer's, nvidia-* CUDA wheels on a CPU-only box or a Mac). Machines of our own, not the
held-out profiles; where the snapshot does not say whether there is a GPU, nothing is stray."""

from __future__ import annotations

import json
from typing import Any

from envdoctor.suggest import suggest
from envdoctor.suggest.lines import line_of
from envdoctor.suggest.render import to_json, to_text

from .test_heldout11 import snapshot

_JAX12 = ["jax==0.12.0.1", "jaxlib==0.12.0.1", "jax-cuda12-plugin==0.12.0.1",
          "jax-cuda12-pjrt==0.12.0.1"]
_LIBS = ["nvidia-cublas-cu12==12.8.4.1", "nvidia-cudnn-cu12==9.10.2.21", "nvidia-ml-py==12.575.51"]


def _cpu(**kw: Any) -> dict[str, Any]:
    return {"name": "own", "os": "Linux", "arch": "x86_64", "python": "3.12.3", **kw}


def _one(row: dict[str, Any], fw: str, **kw: Any) -> Any:
    return suggest(snapshot(row), [fw], **kw).suggestions[0]


def _text(s: Any) -> str:
    return " ".join(r.text for r in s.reasons)


def test_a_cuda_plugin_on_a_cpu_only_box_is_named_and_nothing_to_change_is_withdrawn():
    s = _one(_cpu(installed=_JAX12), "jax")
    assert (s.status, s.variant) == ("installed", "cpu")
    assert s.remove == ("jax-cuda12-plugin", "jax-cuda12-pjrt")
    assert s.remove_command == "pip uninstall -y jax-cuda12-plugin jax-cuda12-pjrt"
    assert "no NVIDIA GPU was observed" in _text(s)
    assert not any(r.text.endswith("nothing to change") for r in s.reasons)
    out = to_text(suggest(snapshot(_cpu(installed=_JAX12)), ["jax"]))
    assert "nothing to change" not in out and "$ pip uninstall -y jax-cuda12-plugin" in out
    got = json.loads(to_json(suggest(snapshot(_cpu(installed=_JAX12)), ["jax"])))
    assert got["suggestions"][0]["remove"] == ["jax-cuda12-plugin", "jax-cuda12-pjrt"]


def test_the_check_fix_line_removes_them_too():
    line = line_of(snapshot(_cpu(installed=_JAX12)), "jax")
    assert line.endswith("pip uninstall -y jax-cuda12-plugin jax-cuda12-pjrt")
    assert "nothing to change" not in line


def test_keep_mode_does_not_claim_to_realign_a_plugin_the_command_leaves():
    row = _cpu(python="3.11.9", installed=["jax==0.10.2", "jaxlib==0.10.2",
                                           "jax-cuda12-plugin==0.10.1", "jax-cuda12-pjrt==0.10.1"])
    s = _one(row, "jax", keep_installed=True)
    assert (s.version, s.variant) == ("0.10.2", "cpu")
    assert "realigns jax-cuda12" not in _text(s)
    assert s.remove == ("jax-cuda12-plugin", "jax-cuda12-pjrt")


def test_an_upgrade_answer_names_the_stray_plugin_beside_its_command():
    s = _one(_cpu(installed=["jax==0.11.0", "jaxlib==0.11.0", "jax-cuda13-plugin==0.11.0"]),
             "jax", installer="uv")
    assert s.status == "ok" and s.command.startswith("uv pip install")
    assert s.remove_command == "uv pip uninstall jax-cuda13-plugin"


def test_a_plugin_of_another_cuda_major_than_the_answer_is_named_on_a_gpu_box():
    # a GTX 1080 (sm_61) runs jax[cuda12] only: the cuda13 plugin installed cannot work
    row = _cpu(gpu=["NVIDIA GeForce GTX 1080", "6.1"], driver="590.44.01",
               installed=["jax==0.12.0.1", "jaxlib==0.12.0.1", "jax-cuda13-plugin==0.12.0.1",
                          "jax-cuda13-pjrt==0.12.0.1"])
    s = _one(row, "jax")
    assert (s.status, s.variant) == ("ok", "jax[cuda12]")
    assert s.remove == ("jax-cuda13-plugin", "jax-cuda13-pjrt")


def test_the_answers_own_plugin_on_a_gpu_box_is_never_stray():
    row = _cpu(gpu=["NVIDIA GeForce RTX 4090", "8.9"], driver="560.35.03", installed=_JAX12)
    s = _one(row, "jax")
    assert (s.status, s.variant, s.remove) == ("installed", "jax[cuda12]", ())
    assert s.reasons[0].text.endswith("nothing to change")


def test_a_rocm_plugin_on_a_mac_is_named():
    row = {"name": "own", "os": "Darwin", "arch": "arm64", "macos": "15.1", "python": "3.12.3",
           "installed": ["jax==0.12.0.1", "jaxlib==0.12.0.1", "jax-rocm7-plugin==0.12.0.1"]}
    s = _one(row, "jax")
    assert s.status == "installed" and s.remove == ("jax-rocm7-plugin",)
    assert "macOS runs no ROCm" in _text(s)


def test_nvidia_cuda_wheels_beside_a_cpu_torch_on_a_cpu_only_box_are_named():
    s = _one(_cpu(installed=["torch==2.15.0+cpu", "torchvision==0.29.2+cpu", *_LIBS]), "torch")
    assert s.status == "installed"
    assert s.remove == ("nvidia-cublas-cu12", "nvidia-cudnn-cu12")   # not nvidia-ml-py
    assert "nothing to change" not in to_text(suggest(snapshot(_cpu(
        installed=["torch==2.15.0+cpu", "torchvision==0.29.2+cpu", *_LIBS])), ["torch"]))


def test_nvidia_cuda_wheels_stay_while_a_cuda_torch_loads_them():
    s = _one(_cpu(installed=["torch==2.15.0+cu130", *_LIBS], torch_cuda="13.0"), "jax")
    assert s.remove == ()


def test_nothing_is_stray_where_the_snapshot_does_not_say_whether_there_is_a_gpu():
    facts = snapshot(_cpu(installed=_JAX12)).to_dict()
    facts["nvidia"] = {"probe": {"status": "unknown"}}
    from envdoctor.facts import Facts
    s = suggest(Facts.from_dict(facts), ["jax"]).suggestions[0]
    assert s.remove == ()
    # nor is "nothing to change" said: with a GPU the plugin is the install, without it is not
    assert s.status == "undecided"
    assert not any(r.text.endswith("nothing to change") for r in s.reasons)
    assert "does not say whether there is an NVIDIA GPU" in s.reasons[0].text
