"""ZLUDA in a pasted report: a CUDA torch on an AMD GPU is how ZLUDA works, not a wrong wheel.

ZLUDA (Windows, over AMD's HIP SDK) runs CUDA programs on Radeon cards: ComfyUI-Zluda and
SD.Next install a ``+cu118`` torch on purpose and the device prints as ``cuda:0 AMD Radeon …
[ZLUDA]``. A paste that shows it states ``rocm.zluda``; ROCM004 ("a CUDA build on AMD GPUs")
then stays quiet, and the summary says so. The same paste without ZLUDA's marks is still
ROCM004's. The pastes are excerpts of the threads named with each."""

from __future__ import annotations

import pytest

from envdoctor import pipeline
from envdoctor.parsers import parse_pasted

# https://github.com/patientx/ComfyUI-Zluda/issues/161 (ComfyUI's system information)
SYSTEM_INFO = """## System Information
- **ComfyUI Version:** 0.3.39
- **Arguments:** main.py --auto-launch --use-quad-cross-attention --reserve-vram 0.9
- **OS:** nt
- **Python Version:** 3.11.9 (tags/v3.11.9:de54cf5, Apr  2 2024, 10:12:12) [MSC v.1938 64 bit (AMD64)]
- **Embedded Python:** false
- **PyTorch Version:** 2.3.0+cu118
## Devices

- **Name:** cuda:0 AMD Radeon RX 9070 XT [ZLUDA] : native
  - **Type:** cuda
  - **VRAM Total:** 17095983104
  - **VRAM Free:** 16590347264
"""

# https://github.com/CS1o/Stable-Diffusion-Info/issues/31 (ComfyUI's start-up under ZLUDA)
START_UP = """** Platform: Windows
** Python version: 3.10.10 | packaged by Anaconda, Inc. | (main, Mar 21 2023, 18:39:17) [MSC v.1916 64 bit (AMD64)]
Total VRAM 24560 MB, total RAM 130980 MB
pytorch version: 2.3.1+cu118
Set vram state to: NORMAL_VRAM
Detected ZLUDA, support for it is experimental and comfy may not work properly.
Disabling cuDNN because ZLUDA does currently not support it.
Device: cuda:0 AMD Radeon RX 7900 XTX [ZLUDA] : native
"""

# https://github.com/patientx/ComfyUI-Zluda/issues/451 (ComfyUI-Zluda's own banner)
BANNER = """***----------------------ZLUDA-----------------------------***
  ::  Patching ONNX Runtime for ZLUDA — disabling CUDA EP.
  ::  ZLUDA detected, disabling non-supported functions.
  ::  CuDNN, flash_sdp, mem_efficient_sdp disabled.
  ::  Using ZLUDA with device: AMD Radeon(TM) Graphics [ZLUDA]
***--------------------------------------------------------***

Total VRAM 6215 MB, total RAM 15720 MB
pytorch version: 2.2.1+cu118
"""

LOUD = ("error", "warning")


def _loud(text: str) -> list[str]:
    facts = parse_pasted(text)
    assert facts is not None
    return [f.code for f in pipeline.diagnose(facts).findings if f.severity.value in LOUD]


@pytest.mark.parametrize("text", [SYSTEM_INFO, START_UP, BANNER], ids=["system-info", "start-up", "banner"])
def test_zluda_is_read_and_its_cuda_torch_is_no_wrong_wheel(text):
    facts = parse_pasted(text)
    assert facts is not None and facts.rocm.zluda is True
    assert "ROCM004" not in _loud(text)


def test_the_summary_says_zluda_not_a_missing_rocm():
    from envdoctor.outputs.summary import _rocm

    facts = parse_pasted(SYSTEM_INFO)
    assert facts is not None
    assert _rocm(facts).startswith("AMD Radeon RX 9070 XT (gfx1201); CUDA through ZLUDA")


@pytest.mark.parametrize("text", [SYSTEM_INFO, START_UP], ids=["system-info", "start-up"])
def test_without_zluda_the_cuda_torch_on_an_amd_gpu_is_still_rocm004(text):
    plain = text.replace(" [ZLUDA]", "").replace("Detected ZLUDA, support for it is experimental and "
                                                   "comfy may not work properly.\n", "")
    plain = plain.replace("Disabling cuDNN because ZLUDA does currently not support it.\n", "")
    facts = parse_pasted(plain)
    assert facts is not None and facts.rocm.zluda is None
    assert "ROCM004" in _loud(plain)
