"""AMD GPUs and ROCm releases a text states (``explain.amdtext``), the readings built on them
(a crash on a GPU AMD's list for that release does not name; an HSA_OVERRIDE_GFX_VERSION that
does not fit the GPU), the carriers that trigger them, near-misses of the signatures'
identifiers (``explain.identifiers``), and the matrix look-ups behind them.

Lines are from public threads (URLs in the comments) unless marked as constructed.
"""

from __future__ import annotations

import re
import time

import pytest
from packaging.version import Version

from envdoctor.engine import redos
from envdoctor.explain import amdtext, diagnose_text, identifiers, primary
from envdoctor.explain.identifiers import correct_identifiers
from envdoctor.matrices import rocm as rocm_matrix

if hasattr(re, "_parser"):
    from re import _parser as sre_parse
else:  # pragma: no cover - Python 3.10
    import sre_parse


def _code(text: str) -> str | None:
    d = primary(diagnose_text(text))
    return d.code if d else None


@pytest.mark.parametrize("pattern", amdtext.PATTERNS + identifiers.PATTERNS,
                         ids=lambda p: p.pattern[:30])
def test_every_pattern_is_linear(pattern):
    assert redos.problem_in(sre_parse.parse(pattern.pattern)) is None


# ---------------------------------------------------------------- the matrix
def test_amd_lists_per_release_before_and_after_the_table():
    # ROCm 3.x READMEs list GFX8 (Polaris 10) and GFX9; 4.0 dropped GFX8; gfx1100 came with 5.7
    assert rocm_matrix.listed_in("gfx803", Version("3.5")) is True
    assert rocm_matrix.listed_in("gfx803", Version("4.0")) is False
    assert rocm_matrix.listed_in("gfx1010", Version("3.5")) is False
    assert rocm_matrix.listed_in("gfx1100", Version("5.5")) is False
    assert rocm_matrix.listed_in("gfx1100", Version("5.7.1")) is True
    assert rocm_matrix.listed_in("gfx803", Version("4.5")) is None  # 4.5's README is stale
    assert rocm_matrix.listed_by_any("gfx803") and not rocm_matrix.listed_by_any("gfx1010")
    # "no code" checks keep reading the gfx table alone: 4.x builds still carried gfx803
    assert rocm_matrix.support("gfx803", Version("4.2")) is None


@pytest.mark.parametrize(("name", "target"), [
    ("RX 5600XT", "gfx1010"), ("Radeon RX 580", "gfx803"), ("AMD Radeon RX 6700 XT", "gfx1031"),
    ("Radeon RX 7900 XTX", "gfx1100"), ("AMD Instinct MI210", "gfx90a"), ("RX Vega 64", "gfx900"),
    ("Radeon RX 6600", "gfx1032"), ("Radeon RX 9999", None)])
def test_product_names_read_as_targets(name, target):
    assert rocm_matrix.target_of_name(name) == target


# ---------------------------------------------------------------- what the text states
def test_gpus_read_where_a_tool_prints_the_device_not_in_a_supported_list():
    # ollama (ollama/ollama#4099 form): the list after the path is the build's, not the GPU
    line = ('msg="amdgpu [0] gfx1103 is not supported by /tmp/ollama/rocm [gfx1030 gfx1100 '
            'gfx1101 gfx900 gfx906]"')
    assert amdtext.gpu_targets(line) == ()
    assert amdtext.gpu_targets('level=WARN msg="amdgpu is not supported (supported types:'
                               '[gfx1103])" gpu_type=gfx1150 gpu=0') == (("gfx1150", "gfx1150"),)
    # rocminfo, TF, a product name in an issue form, a bare "7900 XTX (gfx1100)" title
    assert amdtext.gpu_targets("      Name:                    amdgcn-amd-amdhsa--gfx803") \
        == (("gfx803", "gfx803"),)
    assert amdtext.gpu_targets("- GPU model and memory: RX 5600XT") \
        == (("Radeon RX 5600 XT", "gfx1010"),)
    assert amdtext.gpu_targets("Tensorflow Throwing a Segfault on a 7900 XTX (gfx1100)") \
        == (("Radeon RX 7900 XTX", "gfx1100"),)
    # file names of a library folder are not GPUs
    assert amdtext.gpu_targets("missing TensileLibrary_lazy_gfx1031.dat Kernels.so-000-gfx1031") \
        == ()


@pytest.mark.parametrize(("text", "release"), [
    ("- ROCm/MIOpen version: 3.5.0", "3.5"),            # ROCm/tensorflow-upstream#1001 form
    ("- ROCm version: rocm-4.0.0", "4.0"),
    ("[Ubuntu][6.3.1 kernel][ROCm 5.5.0] Tensorflow", "5.5"),
    ("### rocm Version\n\n5.4.1\n", "5.4"),             # an issue form's heading
    ("torch 2.2.1+rocm5.7 on /opt/rocm-6.0.2", "5.7"),  # the wheel's own ROCm runs
    ("ROCm 5.6 here, ROCm 6.1 there", None),            # two releases: undecided
    ("amdgpu-3.5/32 for kernel", None),                 # a DKMS module version is no release
])
def test_the_rocm_release_the_text_states(text, release):
    got = amdtext.stated_release(text)
    assert (f"{got.major}.{got.minor}" if got else None) == release


def test_override_values_and_their_targets():
    text = 'os.environ["HSA_OVERRIDE_GFX_VERSION"] = "10.3.0"\nHSA_OVERRIDE_GFX_VERSION:11.0.0'
    assert amdtext.override_values(text) == ("10.3.0", "11.0.0")
    assert amdtext.override_values("HSA_OVERRIDE_GFX_VERSION_1=10.3.0") == ()  # one GPU's
    assert amdtext.override_values("# export HSA_OVERRIDE_GFX_VERSION=10.3.0") == ()
    assert amdtext.override_values("unset HSA_OVERRIDE_GFX_VERSION  # was 10.3.0") == ()
    assert amdtext.override_values("HSA_OVERRIDE_GFX_VERSION=9.0.10 ./run") == ("9.0.10",)


def test_a_commented_override_beside_a_native_gpu_is_no_misuse():
    # a rocminfo paste of an RX 7900 XTX (ollama/ollama#3158) under a commented-out override line
    text = ("# export HSA_OVERRIDE_GFX_VERSION=10.3.0\n# source: https://github.com/ollama/"
            "ollama/issues/3158\n  Name:                    gfx1100\n"
            "  Marketing Name:          Radeon RX 7900 XTX\n")
    assert _code(text) is None


# ---------------------------------------------------------------- a crash on an unlisted GPU
def test_a_tf_rocm_segfault_on_an_rx_5600_xt_with_rocm_35_is_no_code_for_the_gpu():
    # ROCm/tensorflow-upstream#1001 (reports heldout9 r10): the maintainer pointed to the list
    text = ("Segmentation Fault\n- TensorFlow 2.2.0\n- ROCm/MIOpen version: 3.5.0\n"
            "- GPU model and memory: RX 5600XT\n"
            "when I try to run tf_cnn_benchmarks.py I get segmentation fault (core dumped)\n")
    d = primary(diagnose_text(text))
    assert d is not None and d.code == "EROCM001"
    assert any("ROCm 3.5 does not name gfx1010" in n for n in d.notes)


def test_no_failure_no_claim_a_healthy_distribution_build_stays_clean():
    # pytorch/pytorch#145670's report form (reports platform_heldout h05): Gentoo, gfx1010
    report = ("PyTorch version: 2.7.0.dev20250123+rocm6.3\nOS: Gentoo Linux (x86_64)\n"
              "GPU models and configuration: AMD Radeon RX 5700 XT (gfx1010:xnack-)\n"
              "Is CUDA available: True\n")
    assert _code(report) is None
    assert _code(report + "Segmentation fault (core dumped)\n") == "EROCM001"


@pytest.mark.parametrize("text", [
    # constructed: a GPU the stated release lists, NVIDIA, no ROCm, Windows, SIGILL
    "ROCm 6.2 on an RX 7900 XTX: Segmentation fault (core dumped)",
    "Segmentation fault (core dumped)\nGPU: RTX 3090, CUDA 12.1",
    "llama.cpp vulkan backend on RX 580 segfault",
    "C:\\Users\\me> ROCm HIP SDK 6.2 on RX 6600: Segmentation fault",
    "ROCm 5.7 on RX 6700 XT: Illegal instruction (core dumped)",
    "Segmentation fault (core dumped)",
])
def test_a_crash_names_no_unlisted_gpu_without_its_facts(text):
    assert _code(text) != "EROCM001"
    assert all(d.code != "EROCM013" for d in diagnose_text(text))  # a carrier never surfaces


def test_gfx803_without_a_release_is_undecided():
    # AUTOMATIC1111/stable-diffusion-webui#4870's paste (reports heldout9 r11): gfx803 was on
    # AMD's list up to ROCm 3.10, and the paste states no release
    text = ("[Bug]: Segmentation fault when running ROCm with RX 580 8GB\n"
            "      Name:                    amdgcn-amd-amdhsa--gfx803\n")
    assert _code(text) is None


def test_the_hip_runtimes_soname_states_the_release():
    # constructed: a backtrace frame names the HIP runtime the process loaded
    full = "#0  0x00007fffa6ed9cd8 in  () at /opt/rocm/hip/lib/libamdhip64.so.5.4.22804\n"
    assert amdtext.stated_release(full) == Version("5.4")
    bare = "0x00007fb4d0e534c5 in ?? () from /opt/rocm/lib/libamdhip64.so.5\n"
    assert amdtext.stated_release(bare) is None and amdtext.stated_major(bare) == 5
    assert amdtext.stated_major(bare + bare.replace(".so.5", ".so.6")) is None  # two: undecided


def test_gfx803_under_a_rocm_5_hip_runtime_is_unlisted():
    # constructed: an RX 580 (gfx803, on AMD's lists only up to ROCm 3.10) crashing inside the
    # HIP runtime of ROCm 5; the same crash with no runtime named stays undecided (above)
    text = ("My RX 580 crashes: Segmentation fault (core dumped)\n"
            "#0  0x00007fb4d0e534c5 in ?? () from /opt/rocm/lib/libamdhip64.so.5\n")
    assert _code(text) == "EROCM001"
    assert "ROCm 5" in (amdtext.unlisted_reason(text) or "")


def test_an_apu_named_by_lspci_is_its_integrated_gpu():
    # constructed from an lspci line: Ryzen 5000 APUs' Vega iGPU (gfx90c), on no ROCm list
    line = "VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Barcelo (rev c1)"
    assert amdtext.gpu_targets(line) == (("Barcelo", "gfx90c"),)
    crash = line + "\nrocm-hip-libraries 5.4.3-2\nSegmentation fault in libamdhip64.so.5.4.22804\n"
    assert _code(crash) == "EROCM001"
    assert _code(line + "\nrocm 5.4.3 installed\n") is None  # no failure, no claim


# ---------------------------------------------------------------- HSA_OVERRIDE_GFX_VERSION
@pytest.mark.parametrize(("text", "code"), [
    # constructed from ROCm/legacy-rocm-build#5238 (an MI210 under a forgotten 10.3.0)
    ("export HSA_OVERRIDE_GFX_VERSION=10.3.0\nMemory access fault by GPU node-2 on address "
     "(nil). Reason: unknown\nMarketing Name: AMD Instinct MI210", "EROCM025"),
    # an RDNA3 card given RDNA2's value (constructed)
    ("export HSA_OVERRIDE_GFX_VERSION=10.3.0\nMy RX 7800 XT crashes with segmentation fault",
     "EROCM025"),
    # the family's own value is the fix, not a fault (ollama/ollama#8473 form)
    ("--env HSA_OVERRIDE_GFX_VERSION=\"10.3.0\" on an RX 6600 (gfx1032), error: model too big",
     None),
    # the GPU's own target spelled out (ROCm/legacy-rocm-build#887's Manjaro RX 5700)
    ("export HSA_OVERRIDE_GFX_VERSION=10.1.0 on gfx1010: works, no issue", None),
])
def test_an_override_read_against_the_gpu(text, code):
    got = _code(text)
    assert (got if got in ("EROCM025", "EROCM001") else None) == code


def test_ollama_printing_an_unset_override_is_no_override():
    # likelovewant/ollama-for-amd#56: the server config prints every variable, set or not
    line = ('INFO server config env="map[CUDA_VISIBLE_DEVICES: HIP_VISIBLE_DEVICES: '
            'HSA_OVERRIDE_GFX_VERSION: HTTPS_PROXY: OLLAMA_DEBUG:false]"')
    assert amdtext.override_values(line) == ()
    assert _code(line) is None


# ---------------------------------------------------------------- near-miss identifiers
@pytest.mark.parametrize(("typed", "read"), [
    ("[Issue]: miOpenStatusUknownError", "[Issue]: miopenStatusUnknownError"),  # TheRock#749
    ("miopen status unknown error", "miopenStatusUnknownError"),  # patientx-cfz/comfyui-rocm#57
    ("HIPERRORNOBINARYFORGPU", "hipErrorNoBinaryForGpu"),
    ("CUBLAS_STATUS_NOT_SUPORTED", "CUBLAS_STATUS_NOT_SUPPORTED"),
])
def test_near_misses_are_read_as_the_identifier(typed, read):
    assert correct_identifiers(typed) == read


@pytest.mark.parametrize("text", [
    "miopenStatusUnknownError",            # already right
    "hipErrorInvalidValue at launch",      # another identifier, far from the known ones
    "unknown error in miopen status page",  # the words in another order
])
def test_what_is_not_a_near_miss_stays(text):
    assert correct_identifiers(text) == text


def test_a_misspelt_title_is_explained_by_the_second_reading():
    assert _code("[Issue]: miOpenStatusUknownError") == "EROCM009"
    assert _code("miopen status unknown error") == "EROCM009"


def test_identifier_correction_is_fast_on_a_big_text():
    text = ("Epoch 1/10 loss 0.23 accuracy of the model on the validation set is improving "
            "slowly\n") * 20_000
    start = time.process_time()
    correct_identifiers(text)
    assert time.process_time() - start < 20.0  # a hang guard


# ------------------------------------- torch's CUDA device named as an AMD Radeon (a HIP build)
def test_a_ui_start_line_naming_a_radeon_as_the_cuda_device_is_rocm():
    # the "Device: cuda:0 <name> : native" line ComfyUI and Fooocus print (Comfy-Org/ComfyUI#1142
    # and #5756 form): only a HIP (ROCm) build of torch names an AMD GPU as a CUDA device
    text = ("Total VRAM 8176 MB, total RAM 31951 MB\nSet vram state to: NORMAL_VRAM\n"
            "Device: cuda:0 AMD Radeon RX 6600 : native\nSegmentation fault (core dumped)\n")
    assert amdtext.rocm_context(text)
    assert _code(text) == "EROCM001"
    # ZLUDA on Windows prints the same line with [ZLUDA]: no ROCm list applies
    zluda = text.replace(": native", "[ZLUDA] : native")
    assert not amdtext.rocm_context(zluda)
    assert _code(zluda) is None
    # a listed target (RX 6800 XT, gfx1030) crashing says nothing about missing code
    assert _code(text.replace("RX 6600", "RX 6800 XT")) is None


def test_a_crash_with_the_family_override_already_set_is_not_missing_code():
    # Comfy-Org/ComfyUI#2359: RX 6600 (gfx1032) started with HSA_OVERRIDE_GFX_VERSION=10.3.0,
    # the value that runs RDNA2 as gfx1030; it still segfaults: the override is not the cause
    text = ("GPU: AMD Radeon RX 6600\n$ HSA_OVERRIDE_GFX_VERSION=10.3.0 python main.py\n"
            "Device: cuda:0 AMD Radeon Graphics : \nLoading 1 new model\n"
            "Segmentation fault (core dumped)\n")
    assert amdtext.unlisted_reason(text) is None
    assert _code(text) != "EROCM001"


def test_the_torch_wheel_index_states_the_rocm_release():
    # constructed: pip's index option as install scripts write it
    from envdoctor.explain.amdtext import stated_release
    assert str(stated_release(
        "pip install torch --extra-index-url https://download.pytorch.org/whl/rocm5.1.1\n")) == "5.1"
    assert str(stated_release("--index-url https://download.pytorch.org/whl/nightly/rocm6.2\n")) == "6.2"
    # two indexes, or an index and another +rocm wheel: undecided
    assert stated_release("download.pytorch.org/whl/rocm5.1.1\ntorch 2.0.1+rocm5.4.2\n") is None


def test_an_rdna2_override_on_a_polaris_card_under_a_release_without_it_is_another_generation():
    from envdoctor.explain.amdtext import override_reason, unlisted_reason
    # constructed: a Polaris card (RX 560, gfx803) with the RDNA2 override, torch from ROCm 5.1
    text = ("Segmentation fault on an AMD RX560 4GB\n"
            "HSA_OVERRIDE_GFX_VERSION=10.3.0 TORCH_COMMAND='pip install torch --extra-index-url "
            "https://download.pytorch.org/whl/rocm5.1.1' python3.10 launch.py\n")
    assert "another GPU generation" in override_reason(text)
    assert "ROCm 5.1 does not name gfx803" in unlisted_reason(text)
    # ROCm 3.5 listed gfx803 itself: the override only spoofs a listed GPU
    old = text.replace("whl/rocm5.1.1", "whl/rocm3.5")
    assert "lists itself" in (override_reason(old) or "")


def test_an_override_set_on_windows_is_read_as_doing_nothing_there():
    from envdoctor.explain.amdtext import override_reason
    # ollama/ollama#7861 (win11, the value of the right family, still on the CPU)
    text = ("i tried ollama 0.4.7 (on win11) with:\nHSA_OVERRIDE_GFX_VERSION=11.0.1\n"
            "but it still runs 100% on cpu.")
    assert "on Windows" in (override_reason(text) or "")
    # the same value under Linux is the family's usual fix: nothing to say
    assert override_reason(text.replace("on win11", "on Ubuntu 24.04")) is None
    # Windows with the variable set and no sign the GPU went unused: nothing to say
    assert override_reason("PS C:\\> $env:HSA_OVERRIDE_GFX_VERSION=\"11.0.0\"\n"
                           "error: model file not found") is None


def test_ollama_skipping_its_check_then_listing_no_types_is_the_override():
    from envdoctor.explain.amdtext import override_reason
    # ollama/ollama#12071: Windows, the variable set to a gfx name, then an empty list
    text = ('level=INFO msg="skipping rocm gfx compatibility check" HSA_OVERRIDE_GFX_VERSION=gfx1102\n'
            'level=WARN msg="amdgpu is not supported (supported types:[])" gpu_type=gfx1103 gpu=0')
    assert "skipped its gfx check" in (override_reason(text) or "")
    # the empty list alone is the libraries (EROCM024), the skip alone is the override at work
    assert override_reason(text.splitlines()[1]) is None
    assert override_reason(text.splitlines()[0]) is None


# The class of ollama/ollama#2940 (a maintainer: a variable in .bashrc reaches `ollama serve` only
# when it is started from that shell; the Linux install runs it as a systemd service, which never
# reads it) and #8679 (`ollama serve` does not use the service's settings, nor the service the shell's)
_PROFILE_NOT_SERVICE = (
    "synthetic, the class of https://github.com/ollama/ollama/issues/2940:\n"
    "RX 6600 XT (gfx1032), ollama only uses the CPU.\n"
    "I put this in ~/.profile:\n"
    "export HSA_OVERRIDE_GFX_VERSION=10.3.0\n"
    "$ sudo systemctl restart ollama\n"
    "$ journalctl -u ollama --no-pager\n")


def test_an_override_exported_from_a_shell_file_never_reaches_a_systemd_service():
    from envdoctor.explain.amdtext import override_reason
    note = override_reason(_PROFILE_NOT_SERVICE) or ""
    assert "systemd service" in note and "Environment=" in note
    # .bashrc / .zshrc read the same way
    assert override_reason(_PROFILE_NOT_SERVICE.replace("~/.profile", "my .bashrc")) is not None
    assert override_reason(_PROFILE_NOT_SERVICE.replace("~/.profile", ".zshrc")) is not None


@pytest.mark.parametrize("text", [
    # the override set in the unit itself (ollama/ollama#8772): whatever else is wrong, not this
    _PROFILE_NOT_SERVICE + 'Environment="HSA_OVERRIDE_GFX_VERSION=10.3.0"\n',
    _PROFILE_NOT_SERVICE.replace("$ sudo systemctl restart ollama\n", "$ sudo systemctl edit ollama.service\n"),
    # the server's own log shows the value arrived (ollama/ollama#6336: an export in zshrc, ollama
    # started from that shell)
    _PROFILE_NOT_SERVICE + 'msg="skipping rocm gfx compatibility check" HSA_OVERRIDE_GFX_VERSION=10.3.0\n',
    # no service: the server is run from the shell that read the file
    _PROFILE_NOT_SERVICE.replace("$ sudo systemctl restart ollama\n$ journalctl -u ollama --no-pager\n",
                                 "$ ollama serve\n"),
    # no shell start-up file named
    _PROFILE_NOT_SERVICE.replace("I put this in ~/.profile:\n", ""),
    # no complaint: the GPU is used
    _PROFILE_NOT_SERVICE.replace("ollama only uses the CPU", "works great"),
])
def test_an_override_that_reaches_the_server_or_no_service_is_not_the_shell_file(text):
    from envdoctor.explain.amdtext import override_reason
    assert "systemd service" not in (override_reason(text) or "")


# --- a CUDA torch build on an AMD machine: the wheel, not ROCm's GPU list (batch AM, class) ---
# Constructed on the class of the AUTOMATIC1111 / InvokeAI / ComfyUI threads where pip (or an
# installer) put PyPI's CUDA wheel on an AMD box: the build the text states is +cuXYZ, the GPU
# is a consumer Radeon that AMD's lists leave out.
_CUDA_ON_RX6600 = '''
Looking in indexes: https://pypi.org/simple, https://download.pytorch.org/whl/rocm5.6
RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this check
My card is an RX 6600 XT on Ubuntu 22.04 with ROCm 5.6 installed.
version: v1.6.0  •  python: 3.10.12  •  torch: 2.1.0+cu121  •  xformers: N/A
'''


@pytest.mark.parametrize(("text", "build"), [
    ("torch: 2.0.0+cu117", ("2.0.0", "11.7")),
    ('  "torch": "2.4.1+cu121",', ("2.4.1", "12.1")),
    ("PyTorch version: 2.0.1+cu117\nCUDA used to build PyTorch: 11.7", ("2.0.1", "11.7")),
    ("Downloading torch-2.1.0%2Bcu121-cp310-cp310-linux_x86_64.whl", ("2.1.0", "12.1")),
    ("torch.version.cuda: 11.8", ("", "11.8")),
    # torchvision's tag is not torch's; collect_env's N/A is no build
    ("torchvision 0.15.2+cu117", None),
    ("CUDA used to build PyTorch: N/A\nROCM used to build PyTorch: 5.7.31921", None),
])
def test_the_cuda_torch_build_the_text_states(text, build):
    assert amdtext.cuda_torch_build(text) == build


def test_a_cuda_build_on_an_amd_gpu_is_the_wheel_not_the_gfx_list():
    assert amdtext.unlisted_reason(_CUDA_ON_RX6600) is None
    note = amdtext.cuda_torch_reason(_CUDA_ON_RX6600)
    assert note is not None and "torch 2.1.0+cu121" in note
    assert "https://download.pytorch.org/whl/rocm5.6" in note and "torch==2.1" in note
    d = primary(diagnose_text(_CUDA_ON_RX6600))
    assert d is not None and d.code == "EROCM029"
    assert any("torch 2.1.0+cu121" in n for n in d.notes)


@pytest.mark.parametrize("text", [
    # a ROCm build stated: AMD's list speaks again (legacy-rocm-build#2754's +rocm5.4.2 install)
    _CUDA_ON_RX6600 + "Successfully installed torch-2.0.1+rocm5.4.2 torchvision-0.15.2+rocm5.4.2\n",
    # an NVIDIA GPU beside the AMD one: the CUDA build may be that GPU's
    _CUDA_ON_RX6600 + "GPU 0: NVIDIA GeForce RTX 3060\n",
    # Windows: no ROCm wheel on download.pytorch.org
    _CUDA_ON_RX6600.replace("Ubuntu 22.04", "Windows 11"),
    # no AMD GPU stated
    "torch: 2.1.0+cu121\nRuntimeError: Torch is not able to use GPU\n",
])
def test_the_cuda_wheel_note_holds_only_for_a_cuda_build_beside_amd_gpus_alone(text):
    assert amdtext.cuda_torch_reason(text) is None
