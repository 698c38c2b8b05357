"""Classes built from the misses of the pasted-report sets (issue 21), in the forms the cited threads
print (none is a held-out text): xFormers' 'built for ... (you have ...)' line without its header
(EBUILD005), select_device's report under a cut Ultralytics refusal (ETORCH015, a +cpu torch
ETORCH006), and a torch/JAX cuDNN mismatch whose other cuDNN the text puts on LD_LIBRARY_PATH
(ETF005 -> ECUDA017, reading ``cudnn_on_ld_library_path``)."""

from __future__ import annotations

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.stated import cudnn_on_ld_library_path_reason


def _code(text: str) -> str | None:
    d = primary(diagnose_text(text))
    return d.code if d else None


# torch 1.12's wording (pytorch/pytorch#80877 changed it) and 2.0's
OLD = "RuntimeError: cuDNN version incompatibility: PyTorch was compiled against (8, 2, 0) but " \
      "linked against (8, 0, 5)\n"
NEW = ("RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 7, 0) but "
       "found runtime version (8, 5, 0). PyTorch already comes bundled with cuDNN. One option to "
       "resolving this error is to ensure PyTorch can find the bundled cuDNN.one possibility is "
       "that there is a conflicting cuDNN in LD_LIBRARY_PATH.\n")


def test_xformers_built_for_line_without_its_header_is_an_extension_for_another_torch():
    text = ("    PyTorch 2.3.0+cu121 with CUDA 1201 (you have 2.4.1+cu124)\n"
            "    Python  3.11.9 (you have 3.11.9)\n")
    assert _code(text) == "EBUILD005"
    # the header-less form of xFormers before it printed the CUDA part
    assert _code("    PyTorch 2.0.1 (you have 2.1.0+cu121)\n") == "EBUILD005"


def test_xformers_line_naming_one_torch_build_twice_is_no_mismatch():
    assert _code("    PyTorch 2.6.0+cu118 with CUDA 1107 (you have 2.6.0+cu118)\n") != "EBUILD005"


def test_select_device_report_under_a_cut_refusal_names_the_cpu_build():
    report = "torch.cuda.is_available(): False\ntorch.cuda.device_count(): 0\n"
    asked = "C:\\work>yolo detect train data=coco8.yaml device=0\n"
    assert _code(asked + report) == "ETORCH015"
    banner = "Ultralytics YOLOv8.1.34 🚀 Python-3.9.19 torch-2.0.1+cpu\n"
    assert _code(asked + banner + report) == "ETORCH006"


def test_the_two_lines_alone_are_a_printout_not_a_refusal():
    assert _code("torch.cuda.is_available(): False\ntorch.cuda.device_count(): 0\n") is None
    # a device_count line without is_available False: not select_device's report
    assert _code("yolo train device=0\ntorch.cuda.device_count(): 0\n") is None


def test_torch_cudnn_mismatch_with_a_cudnn_folder_on_ld_library_path_is_two_installs():
    echo = "$ echo $LD_LIBRARY_PATH\n/opt/apps/cudnn/v8.0.5-cuda11/lib64:/usr/local/cuda/lib64\n"
    assert _code(OLD + echo) == "ECUDA017"
    assert _code(OLD + "export LD_LIBRARY_PATH=/sw/cudnn-8.0/lib64:$LD_LIBRARY_PATH\n") \
        == "ECUDA017"
    assert _code(NEW) == "ECUDA017"  # torch says where the other cuDNN came from


def test_cudnn_mismatch_stays_a_version_mismatch_without_a_second_install_shown():
    assert _code(OLD) == "ETF005"
    # the framework's own wheel on the path (TensorFlow's documented set-up) is no second install
    wheel = "LD_LIBRARY_PATH=/venv/lib/python3.10/site-packages/nvidia/cudnn/lib:/usr/lib\n"
    assert _code(OLD + wheel) == "ETF005"
    # TensorFlow before 2.14 loads the cuDNN the user installed: an old install, not a shadow
    tf = ("E tensorflow/stream_executor/cuda/cuda_dnn.cc:362] Loaded runtime CuDNN library: 8.0.4 "
          "but source was compiled with: 8.1.0.\n")
    assert _code(tf + "export LD_LIBRARY_PATH=/usr/local/cudnn-8.0/lib64\n") == "ETF005"
    assert cudnn_on_ld_library_path_reason(tf + "LD_LIBRARY_PATH: /opt/cudnn/lib64\n") is None


def test_jax_fallback_warning_retyped_in_lower_case_is_still_read():
    text = ("`an nvidia gpu may be present on this machine, but a cuda-enabled jaxlib is not "
            "installed. falling back to cpu.`\n")
    assert _code(text) == "EJAX005"


def test_a_cpu_torch_beside_a_named_gpu_says_what_it_contradicts_without_a_package_list():
    from envdoctor import pipeline
    from envdoctor.parsers import parse_pasted
    facts = parse_pasted("My laptop has an RTX 3060. torch.__version__ is 2.1.0+cpu and cuda "
                         "is not available\n")
    assert facts is not None
    found = [f for f in pipeline.diagnose(facts).findings if f.code == "TORCH001"]
    assert found and found[0].title.endswith("this machine has 1 NVIDIA GPU(s)"), found


# torch's newer capability warning (_warn_unsupported_code, torch/cuda/__init__.py), as
# ttlequals0/MinusPod#624 pasted it
NEW_CC_WARNING = (
    "UserWarning: Found GPU0 Quadro P2000 which is of compute capability (CC) 6.1.\n"
    "The following list shows the CCs this version of PyTorch was built for and the hardware CCs "
    "it supports:\n"
    "- 7.5 which supports hardware CC >=7.5,<8.0\n"
    "- 12.0 which supports hardware CC >=12.0,<13.0\n"
    "Your installed torch==2.13.0+cu129 does not include kernels for this GPU. Reinstall the same "
    "version against a CUDA build that does, e.g.:\n")


def test_torch_newer_capability_warning_names_the_missing_arch():
    from envdoctor import pipeline
    from envdoctor.parsers import parse_pasted
    assert _code(NEW_CC_WARNING) == "ECUDA004"
    facts = parse_pasted(NEW_CC_WARNING)
    assert facts is not None
    found = {f.code: f.title for f in pipeline.diagnose(facts).findings
             if f.severity.value in ("error", "warning")}
    assert "GPU001" in found and "sm_61" in found["GPU001"], found


def test_a_gpu_inside_the_builds_list_is_no_capability_warning():
    # the list of CCs alone (no "Found GPU" verdict, no "does not include kernels") names nothing
    text = "- 8.6 which supports hardware CC >=8.6,<9.0 except {8.7}\n"
    assert _code(text) != "ECUDA004"


def _loud_codes(text: str) -> set[str]:
    from envdoctor import pipeline
    from envdoctor.parsers import parse_pasted
    facts = parse_pasted(text)
    assert facts is not None
    return {f.code for f in pipeline.diagnose(facts).findings
            if f.severity.value in ("error", "warning")}


def test_rapids_refusal_and_old_warning_are_a_package_arch_floor():
    volta = ("cudf.errors.UnsupportedCUDAError: A GPU with NVIDIA Volta™ (Compute Capability 7.0) "
             "or newer architecture is required.\nDetected GPU 0: Tesla P100-PCIE-16GB\n")
    assert _code(volta) == "ECUDA016"
    pascal = ("UserWarning: You will need a GPU with NVIDIA Pascal™ or newer architecture\n"
              "Detected GPU 0: Tesla K80\nDetected Compute Capability: 3.7\n")
    assert _code(pascal) == "ECUDA016"
    assert _code("UserWarning: No NVIDIA GPU detected\n") != "ECUDA016"


def test_a_rapids_release_above_every_gpu_here_is_gpu010():
    listing = "Package Version\n---------- -------\ncudf-cu12 24.4.1\n\n"
    assert "GPU010" in _loud_codes(listing + "GPU 0: NVIDIA GeForce GTX 1080 Ti\n"
                                   "Nvidia driver version: 550.54.14\n")
    assert "GPU010" not in _loud_codes(listing + "GPU 0: NVIDIA GeForce RTX 3090\n"
                                       "Nvidia driver version: 550.54.14\n")
    # 23.12 still supports Pascal
    older = "Package Version\n---------- -------\ncudf-cu12 23.12.1\n\n"
    assert "GPU010" not in _loud_codes(older + "GPU 0: NVIDIA GeForce GTX 1080 Ti\n"
                                       "Nvidia driver version: 550.54.14\n")


def test_only_the_versioned_libcuda_in_words_is_triton_libcuda():
    assert _code("Only libcuda.so.1 exists in /usr/lib/x86_64-linux-gnu; how do I get libcuda.so?\n") \
        == "ETRITON002"
    assert _code("I have a `libcuda.so.1` file, but it is not linked to `libcuda.so`.\n") \
        == "ETRITON002"


def test_ld_skipping_a_32_bit_libcuda_alone_is_no_failure():
    assert _code("/usr/bin/ld: skipping incompatible /usr/lib/libcuda.so when searching for "
                 "-lcuda\n") is None
