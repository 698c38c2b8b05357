"""A pasted ``rocminfo`` (recorded real outputs, tests/data/tools/rocminfo/) is read by
``check --from`` as the probe reads it: the GPU agents with their gfx targets, and the gfx
verdicts follow (an RDNA2 chip no release lists needs HSA_OVERRIDE_GFX_VERSION; a listed one
and a CPU-only header are clean)."""

from __future__ import annotations

from pathlib import Path

from envdoctor import pipeline
from envdoctor.parsers import detect, parse_pasted, rocminfo

TOOLS = Path(__file__).parent / "data" / "tools" / "rocminfo"


def _paste(name: str) -> str:
    return (TOOLS / name).read_text(encoding="utf-8")


def _loud(text: str) -> set[str]:
    facts = parse_pasted(text)
    assert facts is not None
    return {f.id for f in pipeline.diagnose(facts).findings
            if f.severity.value in ("error", "warning")}


def test_gpu_agents_and_gfx_targets_are_read():
    facts = parse_pasted(_paste("03-rx6600xt-gfx1032.txt"))
    assert facts is not None and "rocminfo" in detect(_paste("03-rx6600xt-gfx1032.txt"))
    assert [(g.name, g.gfx) for g in facts.rocm.gpus] == [("AMD Radeon RX 6600 XT", "gfx1032")]


def test_rdna2_chip_no_release_lists_needs_the_override():
    assert "rocm-rdna-needs-hsa-override" in _loud(_paste("03-rx6600xt-gfx1032.txt"))


def test_listed_gpu_is_clean():
    text = _paste("01-rx7900xtx-gfx1100.txt")
    assert [g.gfx for g in parse_pasted(text).rocm.gpus] == ["gfx1100"]  # type: ignore[union-attr]
    assert not _loud(text)


def test_cpu_agent_only_header_states_the_module_and_no_gpu():
    part = rocminfo.parse(_paste("07-header-7800x3d.txt"))
    assert part.values.get("rocm.kernel_module") is True
    assert "rocm.gpus" not in part.values


def test_other_text_is_not_rocminfo():
    assert not rocminfo.parse("Name: torch\nVersion: 2.4.0\nMarketing Name is a phrase")
    assert not rocminfo.parse("ROCk module is loaded, said someone")
