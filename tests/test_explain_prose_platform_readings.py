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
