"""Every stated reason is true (issue 22): binary compatibility said as the code a GPU runs,
no invented distribution names, plugin floors as published, an installed build that works is
said to work (and kept with --keep), facts a snapshot does not show are undecided."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from envdoctor.facts import Facts
from envdoctor.suggest import suggest

from .test_heldout3 import MACHINES as PROFILES
from .test_heldout3 import snapshot

ROOT = Path(__file__).resolve().parents[2]


def _profile(name: str) -> dict:
    return next(r for r in PROFILES if r["name"] == name)


def _one(name: str, framework: str, keep: bool = False):
    return suggest(snapshot(_profile(name)), [framework], keep_installed=keep).suggestions[0]


def _texts(s) -> str:
    return "\n".join([r.text for r in s.reasons] + [a.text for a in s.alternatives])


def test_binary_compatibility_is_said_as_the_code_the_gpu_runs():
    ada = _one("rtx4090-ada-driver550-py312", "torch")
    assert "NVIDIA GeForce RTX 4090 (sm_89) runs the cu126 build of torch 2.14.1's sm_86 code " \
        "(binary-compatible within major 8)" in _texts(ada)
    pascal = _one("gtx1080-pascal-driver580-py312", "torch")
    assert "runs the cu126 build of torch 2.14.1's sm_60 code (binary-compatible within " \
        "major 6)" in _texts(pascal)
    hopper = _one("h100-hopper-driver580-py312", "torch")
    assert "the cu132 build of torch 2.15.0 has sm_90 code for" in _texts(hopper)
    for s in (ada, pascal, hopper):
        assert "arch list of torch" not in _texts(s)   # never "is in the … arch list"


def test_no_invented_distribution_names():
    for row in PROFILES:
        for fw in row["expect"]:
            got = suggest(snapshot(row), [fw]).suggestions[0]
            assert "aws" not in (_texts(got) + str(got.command)).lower(), row["name"]


def test_jax_lists_only_the_plugins_published_for_its_release():
    old = _one("a10g-ampere-driver535-py310", "jax")   # Python 3.10: jax 0.6.2
    index = next(r.text for r in old.reasons if r.constraint == "index"
                 and r.text.startswith("jaxlib"))
    assert "cuda12" in index and "cuda13" not in index
    assert "jax[cuda13] starts at jax 0.7.2" in _texts(old)


def test_a_working_install_is_said_to_work_and_kept_with_keep():
    row = "a100-working-torch251-cu121-py311"
    up = _one(row, "torch")
    assert up.reasons[0].constraint == "installed" and "already runs here" in up.reasons[0].text
    kept = _one(row, "torch", keep=True)
    assert (kept.status, kept.version, kept.variant, kept.command) == \
        ("installed", "2.5.1", "cu121", None)


def test_installed_is_never_said_of_a_companion_that_is_not_there():
    s = _one("h200-working-torch213-cu130-no-vision-py312", "torch", keep=True)
    assert s.status == "installed"
    text = s.reasons[0].text
    assert "companions" not in text and "torchvision is not installed" in text


def test_a_broken_install_says_why_it_does_not_run():
    s = _one("gtx1080-broken-cu128-torch-py312", "torch")
    assert "does not run here" in s.reasons[0].text and "sm_61" in s.reasons[0].text


def test_jetson_never_gets_a_server_wheel():
    for name in ("jetson-agx-orin-jetpack6-py310", "jetson-xavier-nx-jetpack5-py38"):
        s = _one(name, "torch")
        assert s.status == "undecided" and s.command is None
        assert "SBSA" in _texts(s) and "install-pytorch-jetson-platform" in _texts(s)
        assert all("cu1" not in (a.command or "") for a in s.alternatives)


def test_flash_attn_without_a_toolkit_fact_is_undecided_not_absent():
    data = {"schema_version": 1, "origin": "report",
            "host": {"probe": {"status": "ok"}, "os": "Linux", "arch": "x86_64",
                     "python_version": "3.12.3"},
            "nvidia": {"probe": {"status": "ok"}, "driver_version": "580.95.05",
                       "gpus": [{"name": "NVIDIA H100 80GB HBM3", "cc": "9.0"}]},
            "packages": {"probe": {"status": "ok"}, "distributions": []},
            "frameworks": {"probe": {"status": "ok"}}}
    s = suggest(Facts.from_dict(data), ["flash-attn"]).suggestions[0]
    assert s.status == "undecided" and "does not say" in _texts(s)
    data["cuda"] = {"probe": {"status": "not_found"}}
    s = suggest(Facts.from_dict(data), ["flash-attn"]).suggestions[0]
    assert s.status == "none" and "none was found" in _texts(s)


def test_cli_keep_flag(tmp_path):
    facts = ROOT / "tests" / "suggest" / "machines" / "h200-torch213-cu130-installed.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [sys.executable, "-m", "envdoctor", "suggest", "--facts", str(facts), "torch",
            "--format", "json"]
    plain = subprocess.run(args, capture_output=True, text=True, env=env, timeout=120)
    kept = subprocess.run([*args, "--keep"], capture_output=True, text=True, env=env,
                          timeout=120)
    assert plain.returncode == kept.returncode == 0, (plain.stderr, kept.stderr)
    top = json.loads(plain.stdout)["suggestions"][0]
    keep = json.loads(kept.stdout)["suggestions"][0]
    assert (top["status"], top["version"]) == ("ok", "2.15.0")
    assert (keep["status"], keep["version"], keep["command"]) == ("installed", "2.13.0", None)


def test_wsl_reads_the_driver_in_windows_numbering():
    """Under WSL2 nvidia-smi shows the Windows driver: 527.41 is below Windows' CUDA 12.x
    floor 528.33 although it is above Linux's 525.60.13."""
    row = {**_profile("wsl2-rtx3080-driver566-py312"), "driver": "527.41"}
    s = suggest(snapshot(row), ["torch"]).suggestions[0]
    assert s.variant != "cu126" and "528.33" in _texts(s)
    native = suggest(snapshot({**row, "wsl": 0}), ["torch"]).suggestions[0]
    assert native.variant == "cu126"


def _pasted(nvidia: dict) -> Facts:
    return Facts.from_dict({
        "schema_version": 1, "origin": "report",
        "host": {"probe": {"status": "ok"}, "os": "Linux", "arch": "x86_64",
                 "python_version": "3.12.3"},
        "nvidia": {"probe": {"status": "ok"}, **nvidia},
        "packages": {"probe": {"status": "ok"}, "distributions": []},
        "frameworks": {"probe": {"status": "ok"}}})


def test_a_driver_the_paste_does_not_show_is_undecided_never_assumed():
    facts = _pasted({"gpus": [{"name": "NVIDIA H100 80GB HBM3", "cc": "9.0"}]})
    torch, jax = suggest(facts, ["torch", "jax"]).suggestions
    for s in (torch, jax):
        assert s.status == "undecided" and s.command is None, s.framework
        assert "does not state the NVIDIA driver" in _texts(s)
        assert "meets its floor" not in _texts(s)
    assert [a.price for a in torch.alternatives[:2]] == ["driver >= 580", "driver >= 525.60.13"]
    assert [a.variant for a in torch.alternatives[:2]] == ["cu132", "cu126"]
    assert [a.variant for a in jax.alternatives[:2]] == ["jax[cuda13]", "jax[cuda12]"]


def test_a_gpu_model_the_paste_does_not_show_is_undecided():
    s = suggest(_pasted({"driver_version": "580.95.05", "gpus": []}), ["torch"]).suggestions[0]
    assert s.status == "undecided" and s.command is None
    assert [a.variant for a in s.alternatives[:2]] == ["cu132", "cu126"]
