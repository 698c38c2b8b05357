"""Platform classes built after batch P18's first run, from other public threads (none is a
held-out text; each text is the short error as the cited thread prints it): an XPU refusal of
one block of 4 GiB or more on an Arc (Alchemist) GPU with room for it is the per-allocation
limit (envdoctor.explain.stated.xpu_alloc_over_4gb_reason, ECUDA001 -> EXPU007); MLX's missing
metallib only where the text names MLX (EMPS034)."""

from __future__ import annotations

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.stated import xpu_alloc_over_4gb_reason


def _code(text: str) -> str | None:
    d = primary(diagnose_text(text))
    return d.code if d else None


# intel/intel-extension-for-pytorch#846: an A770, nothing allocated, 8 and 4 GiB refused
IPEX_846 = """Allocating 4.00 GiB memory on A770 fails although there is memory available.
>>> a = torch.zeros([1024,1024,1024,1], dtype=torch.float32, device='xpu')
torch.OutOfMemoryError: XPU out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 15.11 GiB. Of the allocated memory 0 bytes is allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated. Please use `empty_cache` to release all unoccupied cached memory.
"""
# intel/intel-extension-for-pytorch#863: the title's line, the card named in the prose
IPEX_863 = """Error message: XPU out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 15.11 GiB.
I have a testcode that fills my vram with data. I cannot allocate more then 4gb even if i have 16. (A770)
"""


def test_an_arc_refusing_one_block_over_4gib_with_room_is_the_per_allocation_limit():
    for text in (IPEX_846, IPEX_863):
        assert xpu_alloc_over_4gb_reason(text) is not None
        assert _code(text) == "EXPU007"


def test_a_request_beyond_the_card_is_a_full_gpu():
    # intel/torch-xpu-ops#3157: 32 GiB asked of an 11.59 GiB card (an Arc named here to show
    # that the size, not the card, decides)
    text = ("Arc A770\ntorch.OutOfMemoryError: XPU out of memory. Tried to allocate 32.00 GiB. GPU 0 "
            "has a total capacity of 11.59 GiB of which 9.01 GiB is free. Of the allocated memory 0 "
            "bytes is allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated.\n")
    assert xpu_alloc_over_4gb_reason(text) is None
    assert _code(text) == "ECUDA001"


def test_no_arc_named_or_a_gpu_without_the_limit_keeps_the_oom_answer():
    # intel/torch-xpu-ops#3011: no GPU named
    unnamed = ("torch.OutOfMemoryError: XPU out of memory. Tried to allocate 4.66 GiB. GPU 0 has a "
               "total capacity of 5.65 GiB of which 5.65 GiB is free. Of the allocated memory 195.50 "
               "KiB is allocated by PyTorch, and 1.81 MiB is reserved by PyTorch but unallocated.\n")
    assert xpu_alloc_over_4gb_reason(unnamed) is None
    # intel/torch-xpu-ops#5046: Lunar Lake, Battlemage beside it (no such limit)
    lnl = ("Issue found during 2.14 RC test on Windows LNL. Test skipped in 2.13 version and BMG "
           "Windows 2.14 RC.\ntorch.OutOfMemoryError: XPU out of memory. Tried to allocate 16.00 GiB. "
           "GPU 0 has a total capacity of 16.48 GiB of which 16.07 GiB is free. Of the allocated "
           "memory 0 bytes is allocated by PyTorch, and 0 bytes is reserved by PyTorch but "
           "unallocated.\n")
    assert xpu_alloc_over_4gb_reason(lnl) is None
    assert _code(lnl) != "EXPU007"


def test_a_small_block_refused_on_an_arc_is_not_the_limit():
    # intel/intel-extension-for-pytorch#629 (old IPEX wording, 1.71 GiB on an A770 under WSL2)
    text = ("my a770 desktop\nRuntimeError: XPU out of memory. Tried to allocate 1.71 GiB (GPU 0; "
            "15.56 GiB total capacity; 0 bytes already allocated; 0 bytes reserved in total by PyTorch)\n")
    assert xpu_alloc_over_4gb_reason(text) is None
    assert _code(text) == "ECUDA001"


def test_mlx_metallib_only_where_mlx_is_named():
    # SceneWorks/SceneWorks#1291 (an MLX app's bundle without its metallib)
    mlx = ("MLX error: Failed to load the default metallib. library not found library not found "
           "library not found at /Users/x/target/release/build/pmetal-mlx-sys-32aa5d962c950c7d/out/"
           "mlx-c-staged/mlx/c/array.cpp:232\n")
    assert _code(mlx) == "EMPS034"
    # the same words with no MLX named: another package's metallib, no MLX claim
    assert _code("RuntimeError: Failed to load the default metallib. library not found library "
                 "not found\n") != "EMPS034"


def test_a_polaris_card_asked_about_in_a_rocm_text_is_outside_the_rocm_builds():
    from envdoctor.explain.amdtext import gfx8_dropped_reason
    # ollama/ollama#2453: a request to add the card says it is left out
    text = ("Add support for older AMD GPU gfx803 (e.g. Radeon RX 580)\nI'm currently going "
            "through the Rocm stack and building it from source\n")
    assert gfx8_dropped_reason(text) is not None
    assert _code(text) == "EROCM001"
    # ollama/ollama#6803: a bare question, no failure and no "left out": the facts are read, but
    # no signature speaks (the answer may be a community build that runs the card)
    question = ("Does your project support AMD RX580 or RX480 graphics card?\nBut where can I get "
                "such a ROCm driver that confidently supports the old RX580?\n")
    assert gfx8_dropped_reason(question) is not None
    assert _code(question) != "EROCM001"
    # a stated release is read by that release's list; a newer card or a build that runs is not
    assert gfx8_dropped_reason("ROCm 4.0.0 and an RX 580: is it not supported?\n") is None
    assert gfx8_dropped_reason("RX570 works fine with Ollama on ROCm. Is it not supported "
                               "officially?\n") is None
    assert _code("Does ollama's ROCm build support the RX 7900 XTX?\n") != "EROCM001"
