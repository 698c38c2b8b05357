"""Readings of a platform's state stated in prose: the macOS release a binary needs against the
one running (envdoctor.explain.mactext), and the AMD iGPU names and ollama context the ROCm
reading takes (envdoctor.explain.amdtext). Texts are short forms of the signatures' examples;
their sources are in rules/signatures/mps/EMPS041.toml and rules/signatures/rocm/EROCM039.toml."""
import pytest

from envdoctor.explain import amdtext, mactext


@pytest.mark.parametrize("text", [
    "v0.8.4 DMG built for macOS 26.0 — cannot launch on macOS 15.7.1",
    "- **macOS Version**: 14.7.6 (Sonoma)\nLSMinimumSystemVersion = 15.0",
    "`v0.14.0b1` is built for macOS 15.0\nsupporting macOS Sonoma (14.8.2)",
    "  minos 14.0\nProductVersion:\t13.6.1",
])
def test_built_newer_read(text: str) -> None:
    assert mactext.built_newer_reason(text) is not None


@pytest.mark.parametrize("text", [
    "requires macOS 13.0 or later; I'm on macOS 14.2",
    "requires macOS 15, running macOS 15.0.1",
    "requires macOS 14.0, running macOS 14",
    "built for macOS 15.0",  # nothing else stated
    "macOS 14.5 (Sonoma), Python 3.12",  # nothing needed
    "The release notes say the deployment target has been lowered to 13.5.\nmacOS 14.7.6",
])
def test_built_newer_not_read(text: str) -> None:
    assert mactext.built_newer_reason(text) is None


def test_apu_radeon_names_are_read() -> None:
    assert ("AMD Radeon 780M", "gfx1103") in amdtext.gpu_targets(
        "AMD Ryzen 7 8700G w/ Radeon 780M Graphics")
    assert ("AMD Radeon 890M", "gfx1150") in amdtext.gpu_targets("AMD Radeon(TM) 890M")
    assert amdtext.gpu_targets("Radeon 680M") == ()  # not in the GPU matrix: nothing claimed


def test_ollama_is_rocm_context_on_linux_only() -> None:
    linux = "ollama on Ubuntu falls back to CPU on my Radeon 780M"
    assert amdtext.rocm_context(linux)
    assert amdtext.unlisted_reason(linux) is not None
    windows = "ollama on Windows 11 falls back to CPU on my Radeon 780M"
    assert amdtext.unlisted_reason(windows) is None
    # the override that runs the family as a listed target is already set
    assert amdtext.unlisted_reason(linux + "\nHSA_OVERRIDE_GFX_VERSION=11.0.0") is None


# ROCm support questions (rules/signatures/rocm/EROCM043.toml holds the threads): the GPU named
# by a Radeon Pro board, a bare workstation number beside Navi / ROCm, or a Ryzen APU's iGPU
def test_radeon_pro_and_ryzen_apu_names_are_read() -> None:
    assert amdtext.gpu_targets("If ROCm can support AMD Radeon PRO W6600?") == (
        ("Radeon Pro W6600", "gfx1032"),)
    assert amdtext.gpu_targets("the W6600 (Navi 23) GPUs") == (("Radeon Pro W6600", "gfx1032"),)
    assert amdtext.gpu_targets("Is 5900HX iGPU supported by ROCm?") == (
        ("the integrated GPU of a Ryzen 5900HX", "gfx90c"),)
    # no iGPU words: a laptop CPU's name in a collect_env is not its GPU
    assert amdtext.gpu_targets("CPU: AMD Ryzen 7 5800H with Radeon Graphics") == ()
    # an Intel part's number, a desktop Ryzen without graphics
    assert amdtext.gpu_targets("Intel Core i5 4200U iGPU") == ()
    assert amdtext.gpu_targets("Ryzen 9 5900X, integrated GPU none") == ()
    # a tool printed the device's target: an issue form's other board name is not read
    assert amdtext.gpu_targets("  Name:  gfx803\n### GPU\nAMD Radeon Pro W7900") == (
        ("gfx803", "gfx803"),)


def test_support_answer_names_the_release_or_the_override() -> None:
    later = amdtext.support_answer("Does the coming ROCm 4.3 support the RX6800XT?")
    assert later is not None and "from ROCm 5.0" in later
    dropped = amdtext.support_answer("  Name:  gfx803\nAny chance to get ROCm working?\nROCm 6.1.0")
    assert dropped is not None and "3.10" in dropped
    override = amdtext.support_answer("ROCm support for AMD Radeon PRO W6600")
    assert override is not None and "HSA_OVERRIDE_GFX_VERSION=10.3.0" in override
    # listed GPUs, Windows, no ROCm named: no answer
    assert amdtext.support_answer("Does ROCm support the Radeon RX 6950 XT?") is None
    assert amdtext.support_answer("Does ROCm support the RX 5700 XT on Windows 11?") is None
    assert amdtext.support_answer("Is the Radeon PRO W6600 any good?") is None
