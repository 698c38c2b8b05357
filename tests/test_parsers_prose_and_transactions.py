"""Readings of pasted text that state a fact outside any tool block: conda transaction rows
(``old --> new``: the right side is what stays installed, its build string the variant), a
TensorFlow release named in prose, and the CUDA tag of a torch build named in prose."""

from __future__ import annotations

from envdoctor.parsers import installer, parse_pasted
from envdoctor.parsers import informal

# ContinuumIO/anaconda-issues#12302: `conda update --all` supersedes the pytorch channel's CUDA
# build by pkgs/main's CPU build
SUPERSEDED = """The following packages will be SUPERSEDED by a higher-priority channel:
...
  pytorch            pytorch::pytorch-1.7.1-py3.8_cuda10.2~ --> pkgs/main::pytorch-1.7.1-cpu_py38h6a09485_0
...
"""


def test_transaction_row_reads_the_build_that_stays():
    part = installer.parse(SUPERSEDED)
    assert str(part.packages["torch"]) == "1.7.1"
    assert part.values.get("frameworks.torch.cpu_only") is True
    assert "frameworks.torch.cuda" not in part.values


def test_transaction_row_the_other_way_is_a_cuda_build():
    # the same row reversed (a CPU build replaced by the CUDA one): the CUDA build stays
    part = installer.parse("  pytorch            pkgs/main::pytorch-1.7.1-cpu_py38h6a09485_0 --> "
                           "pytorch::pytorch-1.7.1-py3.8_cuda10.2_cudnn7.6.5_0\n")
    assert str(part.values["frameworks.torch.cuda"]) == "10.2"
    assert "frameworks.torch.cpu_only" not in part.values


def test_transaction_row_of_another_package_reads_its_new_version_only():
    part = installer.parse("  numpy              1.21.5-py39h6c91a56_3 --> 1.23.5-py39h14f4228_0\n")
    assert str(part.packages["numpy"]) == "1.23.5" and not part.values


def test_an_arrow_in_prose_is_no_transaction():
    assert not installer.parse("torch 1.7 --> 1.8 fixed it for me\n")


def test_transaction_alone_is_a_report_and_names_the_cpu_build():
    facts = parse_pasted(SUPERSEDED)
    assert facts is not None and facts.frameworks.torch is not None
    assert facts.frameworks.torch.cuda is None


# tensorflow/tensorflow#41909's title states the TensorFlow release and the CUDA it was used with
def test_tensorflow_release_in_prose():
    part = informal.parse("Tensor Flow 2.2/CUDA 10.1 Could not load dynamic library\n")
    assert str(part.values["frameworks.tensorflow.version"]) == "2.2"
    part = informal.parse("I installed tensorflow-gpu 2.0.0 with pip\n")
    assert str(part.values["frameworks.tensorflow.version"]) == "2.0.0"


def test_tensorflow_prose_counter_examples():
    # two releases named: which one is installed is not stated
    assert "frameworks.tensorflow.version" not in informal.parse(
        "works with tensorflow 2.4 but not with tensorflow 2.5\n").values
    # tf.keras / a module path is not TensorFlow's release
    assert "frameworks.tensorflow.version" not in informal.parse("I use tf.keras 2.3\n").values


# mit-han-lab/llm-awq#81's title: "... on Torch 2.0.1 + cu117 and CUDA 11.8.0"
def test_torch_cuda_tag_in_prose():
    part = informal.parse("NVCC Compilation Issue with PyTorch Extension on Torch 2.0.1 + cu117 "
                          "and CUDA 11.8.0\n")
    assert str(part.values["frameworks.torch.cuda"]) == "11.7"
    assert str(informal.parse("my torch is cu101 and nvcc is 9.1\n")
               .values["frameworks.torch.cuda"]) == "10.1"


def test_torch_cuda_tag_counter_examples():
    # two builds named; a tag of another package
    assert "frameworks.torch.cuda" not in informal.parse(
        "torch 2.0.1+cu117 failed, torch 2.1.0+cu121 works\n").values
    assert "frameworks.torch.cuda" not in informal.parse("torchaudio+cu118 wheel\n").values


def test_cuda_build_replaced_by_cpu_leaves_its_cuda_package_and_names_the_cpu_build():
    from envdoctor import pipeline
    facts = parse_pasted(SUPERSEDED)
    assert facts is not None
    assert facts.packages.get("cudatoolkit") is not None  # pytorch 1.7.1's CUDA dependency
    loud = {f.code for f in pipeline.diagnose(facts).findings
            if f.severity.value in ("error", "warning")}
    assert "TORCH001" in loud


def test_cpu_build_asked_for_or_cuda_package_removed_is_no_fallback():
    from envdoctor import pipeline
    asked = "  added / updated specs:\n    - cpuonly\n\n" + SUPERSEDED
    removed = SUPERSEDED + ("\nThe following packages will be REMOVED:\n\n"
                            "  cudatoolkit-10.2.89-hfd86e86_1\n")
    for text in (asked, removed):
        facts = parse_pasted(text)
        assert facts is not None
        assert not any(f.severity.value in ("error", "warning")
                       for f in pipeline.diagnose(facts).findings), text


def test_cuda_to_cuda_update_adds_nothing():
    part = installer.parse("  pytorch            pytorch::pytorch-1.7.1-py3.8_cuda10.2~ --> "
                           "pytorch::pytorch-1.8.0-py3.8_cuda11.1_cudnn8.0.5_0\n")
    assert "cudatoolkit" not in part.packages and "pytorch-cuda" not in part.packages


def test_cuda_torch_replaced_by_cpu_said_in_words():
    for text in ("A GPU version of Pytorch shouldn't be replaced with a CPU version\n",
                 "This command replaced the CUDA-enabled pytorch with CPU-enabled-only pytorch\n"):
        assert informal.parse(text).values.get("frameworks.torch.said_no_cuda") is True, text
    for text in ("This replaced the CPU pytorch with the CUDA-enabled one\n",
                 "I switched from the cpu torch to the gpu build\n"):
        assert "frameworks.torch.said_no_cuda" not in informal.parse(text).values, text


def test_torch_left_as_a_cpu_build_said_in_words():
    # zhongpei/Comfyui_image2prompt#79, erew123/alltalk_tts#104, vladmandic/sdnext#1424,
    # Brekel/VisionCaptioner#19: an install or update left a CPU torch behind
    for text in ("Forcing Downgrade to Non-CUDA Torch\n",
                 "the one click installer might have installed the non-CUDA version of torch\n",
                 "after the --upgrade , for some reason, Torch changed to the cpu.\n",
                 "I ran the update bat and after it seemed to go back to using pytorch CPU instead of GPU\n",
                 "the updater switched my torch to no cuda\n"):
        assert informal.parse(text).values.get("frameworks.torch.said_no_cuda") is True, text
    for text in ("I use the cpu torch on my laptop\n", "torch CPU offload is slow\n",
                 "pytorch cpu vs gpu speed\n", "non-CUDA torch ops fall back to the CPU path\n",
                 "we changed torch to 2.1 and it works\n", "I switched torch to the cu121 build\n"):
        assert "frameworks.torch.said_no_cuda" not in informal.parse(text).values, text


def test_replaced_by_cpu_yields_to_a_cuda_build_the_report_states():
    text = ("conda replaced the CUDA pytorch with a CPU one last week; after reinstalling:\n"
            ">>> torch.__version__\n'2.1.0+cu121'\n")
    facts = parse_pasted(text)
    assert facts is not None and facts.frameworks.torch is not None
    assert str(facts.frameworks.torch.cuda) == "12.1"


def test_torch_release_in_prose_wordings():
    # pyg-team/pytorch_geometric#738, jiepengwang/NeuRIS#12, huggingface/sentence-transformers#339
    for text, want in (("I have installed pytorch1.3.0 successfully, but print "
                        "(torch.cuda.is_available) is False\n", "1.3.0"),
                       ("The Pytorch version 1.8.0+cu111.\n", "1.8.0+cu111"),
                       ("I am using CUDA version 10.0 and torch version 1.5.0. However, "
                        "torch.cuda.is_available() returns False.\n", "1.5.0")):
        assert str(informal.parse(text).values["frameworks.torch.version"]) == want, text


def test_torch_prose_counter_examples():
    for text in ("pytorch3d 0.7.2 is installed\n", "torch2trt 0.4\n", "torchvision 0.15.2\n",
                 "torch 1.13 works, torch 2.0 does not\n"):
        assert "frameworks.torch.version" not in informal.parse(text).values, text


def test_cuda_oom_message_numbers_give_memory_held_by_others():
    # junyanz/pytorch-CycleGAN-and-pix2pix#962 (the maintainer: other programs use part of the
    # GPU), erikguo/yolov3#4 (torch < 1.4 wrote "cached"; answered by killing the other process)
    cases = (("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.76 GiB total "
              "capacity; 2.42 GiB already allocated; 26.12 MiB free; 2.75 GiB reserved in total by "
              "PyTorch).\n", 11018, 8176),
             ("RuntimeError: CUDA out of memory. Tried to allocate 338.00 MiB (GPU 0; 3.95 GiB total "
              "capacity; 1.62 GiB already allocated; 23.00 MiB free; 9.10 MiB cached)\n", 4045, 2354),
             ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
              "capacity of 23.65 GiB of which 17.06 MiB is free. Process 4113 has 20.10 GiB memory in "
              "use. Including non-PyTorch memory, this process has 3.50 GiB memory in use. Of the "
              "allocated memory 3.10 GiB is allocated by PyTorch\n", 24218, 20617))
    for text, total, outside in cases:
        gpus = informal.parse(text).gpus
        assert len(gpus) == 1, text
        assert gpus[0].memory_total_mb == total and gpus[0].memory_outside_mb == outside, gpus[0]


def test_cuda_oom_message_of_the_process_itself_is_not_others():
    from envdoctor import pipeline
    own = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB (GPU 0; 23.65 "
           "GiB total capacity; 21.02 GiB already allocated; 310.56 MiB free; 22.75 GiB reserved in "
           "total by PyTorch)\n")
    gpus = informal.parse(own).gpus
    assert gpus and gpus[0].memory_outside_mb is not None and gpus[0].memory_outside_mb < 1024
    facts = parse_pasted(own)
    assert facts is not None
    assert not any(f.id == "gpu-memory-held-by-other-processes"
                   for f in pipeline.diagnose(facts).findings)
    # AMD's (HIP) message and inconsistent numbers are not read
    assert not informal.parse(own.replace("CUDA out of memory", "HIP out of memory")).gpus
    assert not informal.parse("(GPU 0; 2.00 GiB total capacity; 1 GiB already allocated; 3.00 GiB "
                              "free; 1.00 GiB reserved in total by PyTorch)\n").gpus
