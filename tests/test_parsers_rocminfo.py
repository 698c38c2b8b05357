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


# HSA_OVERRIDE_GFX_VERSION shown beside the GPUs: the paste's own setting decides the verdict.
OVERRIDE_ID = "rocm-rdna-needs-hsa-override"


def test_the_override_a_chip_needs_shown_beside_it_is_clean():
    text = "export HSA_OVERRIDE_GFX_VERSION=10.3.0\n" + _paste("03-rx6600xt-gfx1032.txt")
    facts = parse_pasted(text)
    assert facts is not None and facts.env.vars == {"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}
    assert OVERRIDE_ID not in _loud(text)


def test_a_left_over_override_on_a_listed_chip_is_named():
    # https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/14763: a new RX 7900 XT,
    # and the answer to check webui_user.sh for an HSA_OVERRIDE flag the card no longer needs
    text = "HSA_OVERRIDE_GFX_VERSION=10.3.0 ./webui.sh\n" + _paste("01-rx7900xtx-gfx1100.txt")
    facts = parse_pasted(text)
    assert facts is not None
    finding = next(f for f in pipeline.diagnose(facts).findings if f.id == OVERRIDE_ID)
    assert "(gfx1100)" in finding.title and "gfx1030 code" in finding.title
    assert finding.fix.startswith("unset HSA_OVERRIDE_GFX_VERSION")


def test_an_override_naming_the_chips_own_target_is_clean():
    # https://github.com/lemonade-sdk/llamacpp-rocm/pull/115 exports 11.5.1 on a gfx1151 (Strix
    # Halo) iGPU: its own target, so nothing foreign runs
    text = ("export HSA_OVERRIDE_GFX_VERSION=11.5.1\n*******\nAgent 2\n*******\n"
            "  Name:                    gfx1151\n  Marketing Name:          AMD Radeon 8060S Graphics\n"
            "  Device Type:             GPU\n")
    assert OVERRIDE_ID not in _loud(text)


def test_a_commented_or_unset_override_sets_nothing():
    for line in ("# export HSA_OVERRIDE_GFX_VERSION=10.3.0\n",
                 "export HSA_OVERRIDE_GFX_VERSION=10.3.0\nunset HSA_OVERRIDE_GFX_VERSION\n"):
        facts = parse_pasted(line + _paste("01-rx7900xtx-gfx1100.txt"))
        assert facts is not None and "HSA_OVERRIDE_GFX_VERSION" not in facts.env.vars
        assert not _loud(line + _paste("01-rx7900xtx-gfx1100.txt"))


CLINFO = """  Board name:                                    AMD Radeon RX 7900 XTX
  Device Topology:                               PCI[ B#3, D#0, F#0 ]
  Name:                                          gfx1030
  Vendor:                                        Advanced Micro Devices, Inc.
"""


def test_clinfo_board_and_target_are_read_and_a_foreign_target_is_an_override():
    facts = parse_pasted(CLINFO)
    assert facts is not None
    assert [(g.name, g.gfx) for g in facts.rocm.gpus] == [("AMD Radeon RX 7900 XTX", "gfx1030")]
    assert OVERRIDE_ID in _loud(CLINFO)
    assert not _loud(CLINFO.replace("gfx1030", "gfx1100"))  # its own target: clean


# A rocminfo excerpt without its headers: `rocminfo | grep Name`-style lines or one agent's block
# cut out. An agent's Name holding a gfx target is a GPU the runtime enumerated; the Marketing
# Name after it names it; a CPU agent's lines are skipped.
GREP_NAMES = """  Marketing Name:          AMD EPYC 7702 64-Core Processor
  Marketing Name:          AMD EPYC 7702 64-Core Processor
  Name:                    gfx906
  Marketing Name:          Device 66a1
  Name:                    gfx906
  Marketing Name:          Device 66a1
"""  # https://github.com/pytorch/pytorch/pull/36827 (the sample output of the ROCm CI step)

CUT_BLOCK = """rocminfo:

  Name:                    gfx906
  Uuid:                    GPU-d48a706172fd5d11
  Marketing Name:          AMD Radeon VII
  Vendor Name:             AMD
  Feature:                 KERNEL_DISPATCH
  Device Type:             GPU
"""  # https://github.com/ROCm/legacy-rocm-build/issues/6138 (one agent's block, no headers)


def test_a_grepped_excerpt_is_read_as_the_gpus_the_runtime_lists():
    assert rocminfo.excerpt_gpus(GREP_NAMES) == (("Device 66a1", "gfx906"),
                                                 ("Device 66a1", "gfx906"))
    facts = parse_pasted(GREP_NAMES)
    assert facts is not None and "rocminfo" in detect(GREP_NAMES)
    assert [g.gfx for g in facts.rocm.gpus] == ["gfx906", "gfx906"]


def test_an_agent_block_cut_out_without_headers_is_read():
    facts = parse_pasted(CUT_BLOCK)
    assert facts is not None
    assert [(g.name, g.gfx) for g in facts.rocm.gpus] == [("AMD Radeon VII", "gfx906")]


def test_cpu_and_isa_names_are_not_gpus():
    text = ("  Name:                    AMD Ryzen 7 1800X Eight-Core Processor\n"
            "  Marketing Name:          AMD Ryzen 7 1800X Eight-Core Processor\n"
            "  Name:                    gfx1030\n"
            "  Marketing Name:          AMD Radeon RX 6800 XT\n"
            "      Name:                    amdgcn-amd-amdhsa--gfx1030\n")
    assert rocminfo.excerpt_gpus(text) == (("AMD Radeon RX 6800 XT", "gfx1030"),)
    # the CPU agents alone: no GPU is stated, and no empty list either
    cpu_only = "".join(GREP_NAMES.splitlines(keepends=True)[:2])
    assert rocminfo.excerpt_gpus(cpu_only) == ()
    assert "rocm.gpus" not in rocminfo.parse(cpu_only).values


def test_the_excerpt_outranks_the_gpu_an_issue_form_states():
    # the excerpt above under a form's headings that name another card (the form's words are
    # free text; the excerpt is the runtime's own enumeration)
    text = ("### GPU\n\nAMD Radeon Pro W7900\n\n### ROCm Version\n\nROCm 6.1.0\n\n"
            "### Additional Information\n\n" + CUT_BLOCK)
    facts = parse_pasted(text)
    assert facts is not None
    assert [(g.name, g.gfx) for g in facts.rocm.gpus] == [("AMD Radeon VII", "gfx906")]


def test_a_gfx_name_without_any_other_rocminfo_line_is_not_an_excerpt():
    assert rocminfo.excerpt_gpus("Name: gfx1100\nVersion: 2.4.0\n") == ()
