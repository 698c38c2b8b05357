"""ComfyUI's start-up block read as a report: the torch it runs and the NVIDIA GPU torch opened.

``pytorch version: …`` beside ``Total VRAM … / Set vram state to: …`` and ``Device: cuda:N
<NVIDIA name> : <allocator>``, plain, behind ComfyUI's ISO timestamp, or behind a logging
prefix. Before this reader such a paste gave no report at all ("no environment report found").
Another device (an AMD card, cpu) leaves the block to other readers.
"""

from __future__ import annotations

from envdoctor import pipeline
from envdoctor.parsers import banners, parse_pasted

# https://github.com/Comfy-Org/ComfyUI/issues/8010 (portable build, Windows, RTX 4090)
COMFY_8010 = r"""K:\ComfyUI>.\python_embeded\python.exe -s ComfyUI\main.py --windows-standalone-build
Total VRAM 24564 MB, total RAM 32694 MB
pytorch version: 2.7.0+cu128
Set vram state to: NORMAL_VRAM
Device: cuda:0 NVIDIA GeForce RTX 4090 : native
Checkpoint files will always be loaded safely.
Using pytorch attention
[START] Security scan
[DONE] Security scan
"""

# https://github.com/Comfy-Org/ComfyUI_frontend/issues/3078 (desktop app log, ISO timestamps)
FRONTEND_3078 = """2025-03-15T22:57:26.881281 - Checkpoint files will always be loaded safely.
2025-03-15T22:57:28.208512 - Total VRAM 4096 MB, total RAM 16188 MB
2025-03-15T22:57:28.208512 - pytorch version: 2.6.0+cu126
2025-03-15T22:57:28.208512 - Set vram state to: NORMAL_VRAM
2025-03-15T22:57:28.208512 - Device: cuda:0 NVIDIA GeForce MX130 : cudaMallocAsync
2025-03-15T22:58:24.858306 - Using pytorch attention
2025-03-15T22:59:31.110306 - ComfyUI version: 0.3.26
"""

# https://github.com/Comfy-Org/ComfyUI/issues/5278 (Python logging prefix, RTX 2060)
COMFY_5278 = """2024-10-19 01:10:47,703 - root - INFO - Total VRAM 12288 MB, total RAM 32694 MB
2024-10-19 01:10:47,703 - root - INFO - pytorch version: 2.4.1+cu124
2024-10-19 01:10:47,712 - root - INFO - Set vram state to: NORMAL_VRAM
2024-10-19 01:10:47,712 - root - INFO - Device: cuda:0 NVIDIA GeForce RTX 2060 : cudaMallocAsync
2024-10-19 01:10:48,875 - root - INFO - Using pytorch cross attention
"""


def _alarms(text: str) -> set[str]:
    found = pipeline.diagnose(parse_pasted(text)).findings
    return {f.code for f in found if f.severity.value in ("error", "warning")}


def test_plain_banner_states_torch_and_gpu():
    facts = parse_pasted(COMFY_8010)
    assert str(facts.frameworks.torch.version) == "2.7.0+cu128"
    assert str(facts.frameworks.torch.cuda) == "12.8"
    assert [g.name for g in facts.nvidia.gpus] == ["NVIDIA GeForce RTX 4090"]
    assert _alarms(COMFY_8010) == set()


def test_iso_timestamped_log_is_read():
    facts = parse_pasted(FRONTEND_3078)
    assert str(facts.frameworks.torch.version) == "2.6.0+cu126"
    assert len(facts.nvidia.gpus) == 1 and "MX" in facts.nvidia.gpus[0].name


def test_logging_prefixed_log_is_read_and_clean():
    facts = parse_pasted(COMFY_5278)
    assert str(facts.frameworks.torch.version) == "2.4.1+cu124"
    assert [g.name for g in facts.nvidia.gpus] == ["NVIDIA GeForce RTX 2060"]
    assert _alarms(COMFY_5278) == set()


def test_same_block_on_a_blackwell_gpu_names_the_missing_kernels():
    # the reader feeds the ordinary checks: the 5278 block's torch (cu124, no sm_120) beside a
    # Blackwell card, as the RTX 5070 Ti of Comfy-Org/ComfyUI#7126 ran 2.6.0+cu126
    text = COMFY_5278.replace("NVIDIA GeForce RTX 2060", "NVIDIA GeForce RTX 5070 Ti")
    assert "GPU001" in _alarms(text)


def test_without_the_vram_lines_or_with_another_device_the_reader_says_nothing():
    # the reader itself (other readers may still pick a GPU name out of any line)
    bare = "pytorch version: 2.7.0+cu128\nDevice: cuda:0 NVIDIA GeForce RTX 4090 : native\n"
    assert not banners.parse(bare)
    cpu = COMFY_8010.replace("Device: cuda:0 NVIDIA GeForce RTX 4090 : native", "Device: cpu")
    assert not banners.parse(cpu)
    two = COMFY_8010 + COMFY_8010.replace("2.7.0+cu128", "2.6.0+cu126")
    assert not banners.parse(two)  # two torches across restarts: which one runs is not said
    assert banners.parse(COMFY_8010).values["frameworks.torch.version"] is not None
