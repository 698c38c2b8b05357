"""Classes of pasted report that ``check --from`` reads through one engine (issue 21 item 2):
each test names the class, reads a real paste from the report corpora (its thread's URL is in
the file) and checks the finding the class should give, or that a healthy one gives none."""

from __future__ import annotations

from pathlib import Path

import tomllib

from envdoctor import pipeline
from envdoctor.parsers import parse_parts, parse_pasted

REPORTS = Path(__file__).resolve().parent / "corpus" / "reports"
LOUD = ("error", "warning")


def text_of(name: str) -> str:
    return tomllib.loads((REPORTS / name).read_text(encoding="utf-8"))["text"]


def loud(text: str) -> dict[str, str]:
    facts = parse_pasted(text)
    found = [] if facts is None else pipeline.diagnose(facts).findings
    return {f.code: f.severity.value for f in found if f.severity.value in LOUD}


def test_framework_saying_cuda_available_outranks_the_driver_floor():
    # vLLM collect_env: torch 2.6.0+cu126 on driver 470 with two A800s, "Is CUDA available:
    # True": the engine ran (forward compatibility on a data-center GPU); no DRV001
    text = text_of("heldout4/h03-vllm-collect-env-2.6-cu126-2xa800-driver-470-sampling-bug.toml")
    assert "Is CUDA available: True" in text and "470.161.03" in text
    assert "DRV001" not in loud(text)
    # the same class with "False" still says the driver is too old
    flipped = text.replace("Is CUDA available: True", "Is CUDA available: False")
    assert "DRV001" in loud(flipped)


def test_check_finding_confirmed_by_the_texts_error_is_as_loud_as_the_error():
    # torch.utils.cpp_extension's own refusal: CUDA005 (info on a bare report) is the error
    text = text_of("heldout4/p20-ext-build-detected-cuda-11.7-torch-12.4-error-only.toml")
    assert loud(text).get("CUDA005") == "error"


def test_jax_plugin_refused_by_jaxlib_names_the_pair():
    text = text_of("heldout4/p08-jax-plugin-0.9.2-jaxlib-0.9.0.1-runtime-warning.toml")
    assert "JAX002" in loud(text)


def test_conda_list_rows_without_their_header_are_packages():
    text = text_of("heldout4/p09-jaxlib-0.1.69-jax-0.2.26-conda-list.toml")
    part = next(p for p in parse_parts(text) if p.source == "packages")
    assert {"jax", "jaxlib"} <= set(part.packages)
    # jax's own "requires version 0.1.74": JAX002 knows jax 0.2.26's floor (jax/version.py)
    assert "JAX002" in loud(text)


def test_jaxlib_floor_decides_an_older_jaxlib():
    # jax/version.py: jax 0.3.17 imports with jaxlib >= 0.3.14, jax 0.3.18 needs >= 0.3.15
    fits = "jax                0.3.17\njaxlib             0.3.14\n"
    assert not loud(fits)
    assert loud(fits.replace("0.3.17", "0.3.18")) == {"JAX002": "error"}
    # a pair that fits contradicts a version-mismatch reading of an import error
    internals = "ImportError: cannot import name 'xla_extension' from 'jax._src.lib'\n"
    assert "EJAX008" not in loud(fits + internals)
    # a jax past the floor table: JAX002 passes on nothing, jax's own refusal stands
    past = ("jax                0.12.0\njaxlib             0.9.0\nRuntimeError: jaxlib is "
            "version 0.9.0, but this version of jax requires version >= 0.11.2.\n")
    assert "EJAX008" in loud(past)


def test_equal_jax_plugin_and_jaxlib_are_clean():
    text = "jax                0.5.3\njaxlib             0.5.3\njax-cuda12-plugin  0.5.3\n" \
           "jax-cuda12-pjrt    0.5.3\n"
    assert not loud(text)


def test_bare_driver_reply_to_an_nvidia_smi_question_is_the_driver():
    # pytorch/pytorch#31243: "What's the output of nvidia-smi?" answered "410.48,,"; torch
    # 1.3.0 from PyPI is a CUDA 10.1 build (pytorch.org's previous-versions commands)
    text = text_of("paste1/p15-torch-1.3-driver-410.48-prose-comment.toml")
    assert "DRV001" in loud(text)
    # the same number with no question about the driver is not read as one
    asked = "Would you please update the gpu driver? What's the output of nvidia-smi?"
    assert asked in text and "DRV001" not in loud(text.replace(asked, "Any idea?"))


def test_torch_release_above_the_macs_mps_floor():
    # a title naming "PyTorch 2.5.1" and sw_vers's 12.7.6; a collect_env's OS line 13.7.4 with
    # a 2.10 nightly (tuning 038); a release the Mac supports is clean
    # (one finding for the cause: the text's own MPS error, EMPS005, or the check, APPLE002)
    assert {"APPLE002", "EMPS005"} & set(loud(text_of(
        "paste1/p16-mps-torch-2.5.1-macos-12.7.6-sw-vers.toml")))
    assert "APPLE002" in loud(text_of("038-collect-env-2.10-nightly-macos13-arm64-mps.toml"))
    healthy = text_of("038-collect-env-2.10-nightly-macos13-arm64-mps.toml").replace(
        "OS: macOS 13.7.4 (arm64)", "OS: macOS 14.6 (arm64)")
    assert "APPLE002" not in loud(healthy)


def test_x86_python_under_rosetta_on_apple_silicon():
    text = text_of("paste2/b15-rosetta-x86-python-on-m2-pro-collect-env.toml")
    assert "APPLE001" in loud(text)
    assert "APPLE001" not in loud(text.replace("OS: macOS 15.3 (x86_64)", "OS: macOS 15.3 (arm64)"))


def test_collect_env_rewrapped_onto_one_line_is_read():
    # the line breaks of a collect_env lost (pasted outside a code block, or through a mail
    # client): the fields are collect_env's own words, one after another
    text = text_of("017-collect-env-1.6-cu102-driver-418-v100.toml")
    joined = " ".join(line.strip() for line in text.split("\n") if line.strip())
    assert "DRV001" in loud(text) and "DRV001" in loud(joined)


def test_lsb_release_and_systeminfo_name_the_os():
    lsb = "Distributor ID:\tUbuntu\nDescription:\tUbuntu 22.04.3 LTS\nRelease:\t22.04\n"
    part = next(p for p in parse_parts(lsb) if p.source == "shell")
    assert part.values["host.os"] == "Linux"
    assert part.values["host.distro"] == "Ubuntu 22.04.3 LTS"
    systeminfo = ("OS Name:                   Microsoft Windows 11 Pro\n"
                  "OS Version:                10.0.22631 N/A Build 22631\n"
                  "tensorflow                2.15.0\ntensorflow-intel          2.15.0\n"
                  "GPU: NVIDIA GeForce RTX 3070, driver 546.33\n")
    assert "WIN001" in loud(systeminfo)
    # a description line without lsb_release's Distributor ID is not an OS
    assert not [p for p in parse_parts("Description: Ubuntu 22.04 box for tests\n")
                if p.source == "shell"]


def test_a_template_naming_torch_says_nothing_of_what_it_saw():
    # an issue template's "PyTorch Version" line is not torch reporting no GPU (LIVE004 needs
    # "Is CUDA available: False" or the framework's own words); GPU001 still reads the pair
    text = ("> **Environment**\n> - PyTorch Version: 2.6.0+cu118\n> - OS: Ubuntu 22.04\n"
            "> - GPU models and configuration: NVIDIA GeForce RTX 5090\n"
            "> - Nvidia driver version: 570.124.04\n")
    found = loud(text)
    assert "GPU001" in found and "LIVE004" not in found


def test_driver_named_in_non_english_prose():
    for line in ("显卡 RTX 4090，驱动 550.54.14", "Grafikkarte RTX 4090, Treiber 550.54.14",
                 "ドライバー 550.54.14 です"):
        part = next(p for p in parse_parts(line) if p.source == "informal")
        assert str(part.values["nvidia.driver_version"]) == "550.54.14", line


def test_torch_old_gpu_verdict_without_a_minimum_names_the_gpu():
    # PyTorch 0.3's warning (peterjc123/pytorch-scripts#13) names the GPU and its capability
    # and says it is too old, with no minimum: torch's own verdict, so GPU001 for that GPU
    text = text_of("paste3/c01-gtx960m-cc-5.0-torch-0.3.1-windows-conda-too-old.toml")
    assert "GPU001" in loud(text)
    assert "GPU001" not in loud(text.replace("PyTorch no longer supports this GPU because it "
                                             "is too old.", ""))


def test_ultralytics_device_refusal_with_a_cpu_build_stated_is_the_cpu_build():
    # ogkalu2/comic-translate#224: Ultralytics' banner says torch-2.6.0+cpu and its
    # select_device refuses device=0: the framework's own build word names the cause
    text = text_of("paste4/d02-comic-translate-ultralytics-8.3.40-torch-2.6.0-cpu-invalid-cuda.toml")
    assert "ETORCH006" in loud(text)
    # the refusal alone says torch sees no GPU, not why
    alone = text.replace("torch-2.6.0+cpu", "torch-2.6.0")
    assert "ETORCH006" not in loud(alone) and "ETORCH015" in loud(alone)
    # a CUDA build stated instead is no CPU build
    assert "ETORCH006" not in loud(text.replace("torch-2.6.0+cpu", "torch-2.6.0+cu124"))


def test_pips_conflict_sentence_states_both_installed_versions():
    # torch/torch7#1249: "torchvision 0.18.0 requires torch==2.3.0, but you have torch 2.2.1"
    text = text_of("paste4/d16-torch7-pip-resolver-torchvision-0.18.0-requires-torch-2.3.0.toml")
    part = next(p for p in parse_parts(text) if p.source == "installer")
    assert str(part.packages["torchvision"]) == "0.18.0" and str(part.packages["torch"]) == "2.2.1"
    assert "TORCH003" in loud(text)
    # a matched pair in the same words is clean
    assert "TORCH003" not in loud(text.replace("torch 2.2.1 which", "torch 2.3.0 which"))


def test_a_template_naming_only_the_release_assumes_the_cpu_package_only_where_it_misled():
    # tensorflow/tensorflow#28608: "TensorFlow version: 1.13.1" and a GTX 1080 in a template:
    # before 1.15 a GPU setup was `tensorflow-gpu`, so which package is unknown: no TF005
    healthy = text_of("paste4/h09-tf-28608-template-1.13.1-cuda-10.0-gtx1080-results.toml")
    assert "TF005" not in loud(healthy)
    # 1.15.2, whose plain package went back to CPU-only (tuning 044), is still named
    assert "TF005" in loud(text_of("044-tf-template-1.15.2-cpu-only-pypi-package.toml"))


def test_a_templates_stated_cudnn_is_compared_with_the_release_it_names():
    # tensorflow/tensorflow#44040: TF 2.3.1 (tested with cuDNN 7.6) and "cuDNN: 8.0.4"
    text = text_of("paste4/d12-tf-44040-2.3.1-cuda-10.1-cudnn-8.0.4-gtx960m-libcudnn7.toml")
    assert "TF004" in loud(text)
    assert "TF004" not in loud(text.replace("cuDNN: 8.0.4", "cuDNN: 7.6.5"))


def test_tensorflows_dlopen_message_quoted_in_markdown_bold_is_read():
    # tensorflow/tensorflow#44753: "'**Could not load dynamic library 'libcusolver.so.10**''"
    text = text_of("paste4/d11-tf-44753-template-2.4.0rc1-cuda-11.1-rtx3090-libcusolver10.toml")
    assert "ETF002" in loud(text)


def test_a_jetson_named_in_prose_is_a_jetson():
    # TJU-Aerial-Robotics/YOPO#79: "我的Xavier是JETPACK5.1.5" and "发现pytorch版本还是cpu":
    # a JetPack release only exists on a Jetson, and the user says torch is a CPU build
    text = text_of("paste4/d04-yopo-jetson-xavier-jetpack-5.1.5-torch-2.4.1-cpu-chinese.toml")
    assert "JET001" in loud(text)
    informal = next(p for p in parse_parts(text) if p.source == "informal")
    assert str(informal.values["jetson.jetpack"]) == "5.1.5"
    # without the user's word on the build, the CPU-only finding needs the build stated
    assert "JET001" not in loud(text.replace("发现pytorch版本还是cpu", "发现还是不行")
                                .replace("发现是cpu版本", "发现不行"))


def test_two_ultralytics_banners_the_newer_run_is_the_state_and_the_older_ones_gpu_the_machines():
    # the shape of Ultralytics' issue threads: an earlier run's banner that opened the GPU,
    # then the newer release's banner on a CPU-only torch (synthetic versions)
    older = "Ultralytics YOLOv8.0.20 🚀 Python-3.9.7 torch-1.13.1+cu117 CUDA:0 (NVIDIA GeForce RTX 3080, 10240MiB)\n"
    newer = "Ultralytics YOLOv8.0.61 🚀 Python-3.10.9 torch-2.0.0+cpu CPU\n"
    assert "TORCH001" in loud(older + newer) and "TORCH001" in loud(newer + older)
    part = next(p for p in parse_parts(older + newer) if p.source == "banner")
    assert str(part.values["frameworks.torch.version"]) == "2.0.0+cpu"
    # the older banner alone, or a CPU banner alone, says nothing is wrong
    assert not loud(older) and "TORCH001" not in loud(newer)
    # the CPU run on Apple's chip is another machine: its GPU is not the Mac's
    mac = "Ultralytics YOLOv8.0.61 🚀 Python-3.10.9 torch-2.0.0 CPU (Apple M1 Pro)\n"
    assert "TORCH001" not in loud(older + mac)


def test_a_gpu_named_with_its_suffix_typed_on_or_under_a_video_card_key():
    # ogkalu2/comic-translate#17: "Video card: 3060ti" under a +cpu banner
    text = text_of("paste4/d01-comic-translate-ultralytics-torch-2.1.0-cpu-invalid-cuda-3060ti.toml")
    assert "TORCH001" in loud(text)
    from envdoctor.parsers.gpus import cc_of
    assert str(cc_of("GTX1080Ti")) == "6.1" and str(cc_of("RTX 4070super")) == "8.9"
    assert not [p for p in parse_parts("Graphics card: Intel UHD 620\n") if p.gpus]


def test_a_torch_torchvision_pair_stated_without_a_build_tag_is_judged():
    # the pair in keyed lines, in a template: torch's release table pairs 2.1 with 0.16, so
    # 0.15.2 beside 2.1.0 is a mismatch and 0.16.0 is not
    for text in ("torch: 2.1.0\ntorchvision: 0.15.2\n",
                 "- PyTorch version: 2.1.0\n- torchvision version: 0.15.2\n"):
        assert "TORCH003" in loud(text), text
        assert "TORCH003" not in loud(text.replace("0.15.2", "0.16.0")), text


def test_wanting_the_gpu_with_a_cpu_only_torch_stated_is_the_cpu_build():
    # ultralytics/ultralytics#8869: the title "using my cpu instead of gpu" and a banner
    # torch-2.2.1+cpu: a +cpu torch never uses an NVIDIA GPU
    text = text_of("paste4/d03-ultralytics-8869-banner-torch-2.2.1-cpu-wants-gpu.toml")
    assert "ETORCH006" in loud(text)
    # the same complaint with a CUDA build stated says nothing of why
    assert not loud(text.replace("torch-2.2.1+cpu", "torch-2.2.1+cu121"))


# googlecolab/colabtools#705: torchvision's own compiled _C names an at:: symbol the loaded
# torch lacks (the pair is mismatched: ETORCH008, not the generic EBUILD005 of any extension)
TORCHVISION_C = ("----> 2 from torchvision import _C\n"
                 "ImportError: /usr/local/lib/python3.6/dist-packages/torchvision/"
                 "_C.cpython-36m-x86_64-linux-gnu.so: undefined symbol: _ZN2at7getTypeERKNS_6TensorE\n")


def test_torchvision_own_extension_undefined_symbol_is_the_pair_mismatch():
    found = loud(TORCHVISION_C)
    assert "ETORCH008" in found and "EBUILD005" not in found
    # another package's _C with the same symbol stays EBUILD005's
    other = loud(TORCHVISION_C.replace("torchvision/_C", "detectron2/_C"))
    assert "EBUILD005" in other and "ETORCH008" not in other


def test_a_companion_pass_on_versions_the_paste_never_showed_contradicts_nothing():
    # a conda command names torch and torchvision without versions: TORCH003 passes on
    # nothing, so the text's own mismatch stands
    command = "conda install pytorch torchvision cudatoolkit=10.0 -c pytorch\n"
    assert "ETORCH008" in loud(command + TORCHVISION_C)
    # a pip list that shows a matching pair outranks the message (tests/test_check_from.py)
    listed = "torch        1.1.0\ntorchvision  0.3.0\nnumpy        1.16.4\n"
    assert "ETORCH008" not in loud(listed + TORCHVISION_C)


def test_conda_exact_spec_in_prose_names_the_build_variant():
    # conda's name=version=build, quoted in a sentence or a `conda list --export` line, beside
    # the cudatoolkit the same command asked for: the solver's CPU fallback (TORCH001)
    said = ("I ran `conda install -c pytorch pytorch=1.9.0 torchvision cudatoolkit=11.3` and "
            "torch.cuda.is_available() is False; my package list says "
            "pytorch=1.9.0=py3.8_cpu_0.\n")
    assert "TORCH001" in loud(said)
    cuda = said.replace("py3.8_cpu_0", "py3.8_cuda11.1_cudnn8.0.5_0")
    assert "TORCH001" not in loud(cuda)
    facts = parse_pasted(cuda)
    assert facts is not None and facts.frameworks.torch is not None
    assert str(facts.frameworks.torch.cuda) == "11.1"


# An x86_64 Python on Apple silicon, said in words (issue 21: facts stated only in prose feed
# the same checks): "Apple silicon" or an M-series chip, and the interpreter's own machine as
# platform.machine() prints it, `uname -m` in its shell, or "Python 3.x (x86_64 …)"
X86_ON_SILICON = (
    "On Apple Silicon pip picks the x86 wheel:\n"
    "  Downloading jaxlib-0.4.1-cp39-cp39-macosx_10_14_x86_64.whl (71.0 MB)\n"
    ">>> import platform\n>>> print(platform.machine())\n'x86_64'\n")


def test_x86_python_on_apple_silicon_stated_in_prose():
    assert "APPLE001" in loud(X86_ON_SILICON)
    facts = parse_pasted(X86_ON_SILICON)
    assert facts is not None and facts.apple.apple_silicon is True
    # the same machine answering arm64 is the native Python: nothing to say
    native = X86_ON_SILICON.replace("'x86_64'", "'arm64'").replace(
        "macosx_10_14_x86_64", "macosx_11_0_arm64")
    assert "APPLE001" not in loud(native)
    assert "APPLE001" in loud("My M2 Max MacBook: Python 3.9.6 (x86_64, the Intel Anaconda).\n"
                              "pip install tensorflow==2.5.0, then import tensorflow crashes\n")


def test_intel_mac_x86_python_is_not_rosetta():
    # an Intel Mac's Python is x86_64 too: without Apple silicon named, nothing is claimed
    text = X86_ON_SILICON.replace("On Apple Silicon", "On my 2019 Intel MacBook Pro")
    assert "APPLE001" not in loud(text)


def test_a_framework_version_the_paste_never_showed_is_not_printed_as_none(cli):
    # an error-only paste: TensorFlow's own cuDNN line names the framework, not its version
    import tempfile
    line = ("W tensorflow/stream_executor/cuda/cuda_dnn.cc:82] Loaded runtime CuDNN library: "
            "8.5.0 but source was compiled with: 8.6.0.\n")
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(line)
    out = cli("check", "--from", f.name).stdout
    assert "LIVE001" in out and "None" not in out and "version not shown" in out
