"""Platforms a person states in words, read by `check --from` (the informal parser): an AMD
GPU and ROCm release ("RX 7900 XTX on ROCm 6.1"), a Mac ("M2 Mac, macOS 13"), a Jetson and a
WSL version. Each is a fact only when the text states one value; a healthy paste stays clean."""

from __future__ import annotations

from envdoctor import pipeline
from envdoctor.parsers import parse_pasted

CUDA_WHEEL_REPORT = """Collecting environment information...
PyTorch version: 2.3.0+cu121
CUDA used to build PyTorch: 12.1
ROCM used to build PyTorch: N/A
OS: Ubuntu 22.04.4 LTS (x86_64)
Is CUDA available: False
GPU models and configuration: No CUDA
Nvidia driver version: No CUDA
"""


def loud(text: str) -> list[str]:
    facts = parse_pasted(text)
    if facts is None:  # not read as a report at all: nothing said
        return []
    return [f.code for f in pipeline.diagnose(facts).findings
            if f.severity.value in ("error", "warning")]


def test_an_amd_gpu_in_prose_next_to_a_cuda_wheel_is_named():
    assert "ROCM004" in loud(CUDA_WHEEL_REPORT + "\nI have an RX 7900 XTX on ROCm 6.1\n")


def test_the_amd_gpu_and_rocm_release_said_are_read_with_the_tables_gfx():
    facts = parse_pasted("My RX 7900 XTX on ROCm 6.1 gives NaN loss\ntorch: 2.3.0+rocm6.0")
    assert facts is not None
    assert [(g.name, g.gfx) for g in facts.rocm.gpus] == [("AMD Radeon RX 7900 XTX", "gfx1100")]
    assert str(facts.rocm.version) == "6.1"


def test_a_working_rocm_box_said_in_prose_is_clean():
    assert not loud("RX 7900 XTX on ROCm 6.1: training works but the loss is NaN after 100 "
                    "steps\ntorch: 2.3.0+rocm6.0")


def test_a_host_name_is_not_a_gpu():
    facts = parse_pasted("root@dell-gpu-mi300:/work# python collect_env.py\n"
                         "PyTorch version: 2.3.0a0+git2e4abc8\nROCM used to build PyTorch: "
                         "6.1.40093\n")
    assert facts is not None and not facts.rocm.gpus


def test_two_different_amd_gpus_state_none():
    facts = parse_pasted(CUDA_WHEEL_REPORT + "It works on my RX 6800 XT but not on the RX 7600")
    assert facts is not None and not facts.rocm.gpus
    assert "ROCM004" not in loud(CUDA_WHEEL_REPORT + "It works on my RX 6800 XT but not on "
                                 "the RX 7600")


def test_a_mac_said_in_prose_fills_the_apple_facts_and_stays_clean():
    facts = parse_pasted("I'm on an M2 Mac, macOS 13, torch 2.5.1\nthe loss differs from CPU")
    assert facts is not None
    assert facts.apple.apple_silicon is True and str(facts.apple.macos_version) == "13"
    assert not loud("I'm on an M2 Mac, macOS 13, torch 2.5.1\nthe loss differs from CPU")


def test_wsl_1_said_in_prose():
    facts = parse_pasted("I'm using wsl 1 on windows 10.\ntorch 2.1.0+cu121")
    assert facts is not None and facts.host.wsl == 1


def test_a_polaris_card_said_in_prose_is_read_as_gfx803():
    # the RX 4x0/5x0 names carry three digits ("RX 580", "RX580"); their target comes from the
    # names table (LLVM's processor list), not the support table that no longer lists them
    facts = parse_pasted("Segfault with my RX580 8GB on ROCm 5.7\ntorch: 2.1.0+rocm5.6")
    assert facts is not None
    assert [(g.name, g.gfx) for g in facts.rocm.gpus] == [("AMD Radeon RX 580", "gfx803")]
    assert any(c.startswith("EROCM") or c.startswith("ROCM") for c in
               loud("Segfault with my RX 580 8GB on ROCm 5.7\ntorch: 2.1.0+rocm5.6\n"
                    "torch.cuda.is_available() returns False"))
    # a Polaris card with no ROCm release stated: which release runs is unknown, so no claim
    assert not loud("Found GPU0 Ellesmere [Radeon RX 470/480/570/580] which works\n"
                    "torch: 1.6.0a0+93432cf")
