"""Reasons that were false on some machine, fixed by class (an audit of every reason sentence
over the held-out profiles); checked here on machines of our own."""

from __future__ import annotations

from envdoctor.suggest import suggest

from .suggest_support import run
from .test_heldout11 import snapshot


def test_flash_attn_on_a_snapshot_without_the_gpu_probe_is_undecided_not_none():
    # "needs an NVIDIA GPU (none observed)" claimed an absence the snapshot never showed
    s = run("gpu-not-probed", "flash-attn")
    assert s.status == "undecided"
    assert "none observed" not in " ".join(r.text for r in s.reasons)
    assert "does not say whether there is one" in " ".join(r.text for r in s.reasons)


def test_flash_attn_on_a_cpu_only_box_still_says_none():
    s = run("linux-cpu-only", "flash-attn")
    assert s.status == "none"
    assert any("none observed" in r.text for r in s.reasons)


def test_a_jetson_reason_never_prints_a_missing_sm_as_none():
    row = {"name": "own", "gpu": ["NVIDIA Jetson Orin NX Developer Kit", "8.7"],
           "driver": "540.3.0", "os": "Linux", "arch": "aarch64", "python": "3.10.12",
           "kernel": "5.15.136-tegra", "jetpack": "6.0", "l4t": "36.3.0",
           "installed": ["torch==2.4.0a0+3bcc3cddb5.nv24.07"], "torch_cuda": "12.4"}
    for fw in ("torch", "tensorflow", "jax"):
        for keep in (False, True):
            s = suggest(snapshot(row), [fw], keep_installed=keep).suggestions[0]
            assert not any("(None)" in r.text for r in s.reasons), (fw, keep, s.reasons)


def _windows(gpu: list[str], driver: str) -> dict:
    return {"name": "own", "gpu": gpu, "driver": driver, "os": "Windows", "arch": "AMD64",
            "python": "3.12.7"}


def test_the_jax_wsl2_alternative_names_the_plugin_the_gpu_runs_and_its_driver_price():
    # a Pascal card runs no jax[cuda13] (SM >= 7.5): WSL2 offers jax[cuda12], and a Windows
    # 47x driver is below CUDA 12's Windows floor, which the price says
    s = suggest(snapshot(_windows(["NVIDIA GeForce GTX 1070 Ti", "6.1"], "474.44")),
                ["jax"]).suggestions[0]
    wsl = [a for a in s.alternatives if "WSL2" in a.text]
    assert len(wsl) == 1 and wsl[0].variant == "jax[cuda12]"
    assert wsl[0].price == "WSL2 and a driver >= 528.33"
    s = suggest(snapshot(_windows(["NVIDIA GeForce RTX 4070", "8.9"], "591.44")),
                ["jax"]).suggestions[0]
    wsl = [a for a in s.alternatives if "WSL2" in a.text]
    assert len(wsl) == 1 and (wsl[0].variant, wsl[0].price) == ("jax[cuda13]", "WSL2")


def test_no_wsl2_gpu_alternative_for_a_gpu_the_linux_wheels_have_no_code_for():
    # Kepler: below every JAX plugin's SM floor and TF's arch list; WSL2 changes neither
    row = _windows(["NVIDIA GeForce GTX 780", "3.5"], "474.44")
    for fw in ("jax", "tensorflow"):
        s = suggest(snapshot(row), [fw]).suggestions[0]
        assert not [a for a in s.alternatives if "WSL2" in a.text], (fw, s.alternatives)


def test_a_gpu_build_whose_gpu_side_fails_is_not_said_to_not_run_at_all():
    # a cu130 torch on a 535 driver imports and runs on the CPU; its GPU side does not run
    row = {"name": "own", "gpu": ["NVIDIA GeForce RTX 3080", "8.6"], "driver": "535.183.01",
           "os": "Linux", "arch": "x86_64", "python": "3.12.7",
           "installed": ["torch==2.14.0+cu130"], "torch_cuda": "13.0"}
    s = suggest(snapshot(row), ["torch"]).suggestions[0]
    first = s.reasons[0].text
    assert first.startswith("the installed torch 2.14.0+cu130 (cu130) does not run here on the "
                            "GPU: "), first


def test_tf_and_cuda_is_not_already_installed_with_another_cuda_majors_cudnn():
    # TF 2.21 [and-cuda] pins nvidia-cudnn-cu12; a cu11 cuDNN left by an old torch is not it
    row = {"name": "own", "gpu": ["NVIDIA RTX A5000", "8.6"], "driver": "560.35.03",
           "os": "Linux", "arch": "x86_64", "python": "3.12.7",
           "installed": ["tensorflow==2.21.0", "nvidia-cudnn-cu11==8.7.0.84"]}
    s = suggest(snapshot(row), ["tensorflow"]).suggestions[0]
    assert (s.status, s.variant) == ("ok", "tensorflow[and-cuda]")
    row["installed"] = ["tensorflow==2.21.0", "nvidia-cudnn-cu12==9.3.0.75"]
    s = suggest(snapshot(row), ["tensorflow"]).suggestions[0]
    assert (s.status, s.variant) == ("installed", "tensorflow[and-cuda]")
