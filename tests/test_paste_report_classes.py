"""Readings of pasted reports by class, each on a paste from a public thread that no held-out
set holds: a jaxlib's own CUDA build tag against the driver (XLA links its kernels through the
driver, which minor-version compatibility does not cover), a Python version no release has, a
toolkit's stub libcuda.so shown as the library that loaded, a nightly torch with the nightly
companions of its weeks, and a run the text puts on the CPU."""

from __future__ import annotations

from packaging.version import Version

from envdoctor import pipeline
from envdoctor.engine.knowledge.driver import jaxlib_build_cuda
from envdoctor.engine.knowledge.torch import nightly_pair, torch_companion_mismatch
from envdoctor.explain import diagnose_text
from envdoctor.facts import Distribution, PackageFacts
from envdoctor.parsers import parse_pasted

LOUD = ("error", "warning")


def loud(text: str) -> dict[str, str]:
    facts = parse_pasted(text)
    found = [] if facts is None else pipeline.diagnose(facts).findings
    return {f.code: f.title for f in found if f.severity.value in LOUD}


# jax-ml/jax#5445: nvcc and nvidia-smi of a jaxlib CUDA 11.1 user on driver 450.102.04
SMI_450 = """\
nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2020 NVIDIA Corporation
Built on Tue_Sep_15_19:10:02_PDT_2020
Cuda compilation tools, release 11.1, V11.1.74
Build cuda_11.1.TC455_06.29069683_0

Sat Jan 16 12:08:11 2021
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 450.102.04   Driver Version: 450.102.04   CUDA Version: 11.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  GeForce RTX 2070    Off  | 00000000:42:00.0  On |                  N/A |
|  0%   41C    P8    11W / 175W |    874MiB /  7979MiB |      5%      Default |
+-------------------------------+----------------------+----------------------+
"""
# jax-ml/jax#4481 (a maintainer's install line for the CUDA 11.1 jaxlib of that time)
JAXLIB_111 = ("pip install --upgrade jax jaxlib==0.1.56+cuda111 "
              "-f https://storage.googleapis.com/jax-releases/jax_releases.html\n")


def test_jaxlib_build_tag_names_its_cuda():
    # tags as jaxlib wheels carried them: jax-ml/jax#4481, #6046, #15961, #8731
    assert jaxlib_build_cuda(Version("0.1.56+cuda111")) == Version("11.1")
    assert jaxlib_build_cuda(Version("0.1.64+cuda110")) == Version("11.0")
    assert jaxlib_build_cuda(Version("0.4.9+cuda11.cudnn86")) == Version("11")
    assert jaxlib_build_cuda(Version("0.1.74+cuda11.cudnn82")) == Version("11")
    assert jaxlib_build_cuda(Version("0.4.26")) is None
    assert jaxlib_build_cuda(Version("0.4.26+cuda")) is None  # conda's: no version


def test_jaxlib_for_cuda_11_1_on_a_cuda_11_0_driver_is_the_driver():
    found = loud(JAXLIB_111 + SMI_450 + "\nRuntimeError: Unknown: no kernel image is available "
                 "for execution on the device\n")
    assert "DRV001" in found and "jaxlib 0.1.56+cuda111" in found["DRV001"]
    assert "ECUDA003" not in found  # the driver, not the build's architectures


def test_same_driver_without_a_jaxlib_build_says_nothing_of_jax():
    assert "DRV001" not in loud(SMI_450)


def test_major_only_jaxlib_tag_keeps_the_major_floor():
    # jax-ml/jax#15961: jaxlib 0.4.9+cuda11.cudnn86 on driver 470.182.03 (above CUDA 11's
    # 450.80.02 floor; its failure there was another one)
    text = ("jax==0.4.9 jaxlib==0.4.9+cuda11.cudnn86\n"
            "| NVIDIA-SMI 470.182.03   Driver Version: 470.182.03   CUDA Version: 11.8     |\n")
    assert "DRV001" not in loud(text)


def test_a_python_version_no_release_has_is_not_read():
    # tensorflow/tensorflow#34723's template, its Python typed as in an issue form that
    # dropped the dot ("3.68" for 3.6.8): not a Python anyone has, so no range is judged
    template = ("**System information**\n- OS Platform: Windows 10\n"
                "- TensorFlow installed from (source or binary): source\n"
                "- TensorFlow version: 2.1.0rc0\n- Python version: {py}\n"
                "- CUDA/cuDNN version: 10.0\n- GPU model and memory: rtx 2060\n")
    typed = parse_pasted(template.format(py="3.68"))
    assert typed is not None and typed.host.python_version is None
    real = parse_pasted(template.format(py="3.7"))
    assert real is not None and str(real.host.python_version) == "3.7"


def test_stub_libcuda_shown_loading_is_the_stub_not_an_unknown_error():
    # tiny-cuda-nn#183's folder (cuda-11.3/lib64/stubs) as the loader's own line shows it,
    # beside numba's cuInit failure
    text = ("Call to cuInit results in UNKNOWN_CUDA_ERROR\n"
            "AttributeError: /usr/local/cuda-11.3/lib64/stubs/libcuda.so: undefined symbol: "
            "cuInit_x\n")
    codes = {d.code for d in diagnose_text(text)}
    assert "ECUDA022" in codes and "ECUDA010" not in codes


def test_stub_folder_in_a_link_flag_is_a_build_step():
    # pytorch/pytorch#148441: the stubs folder in a linker command, not a loaded library
    text = ("Call to cuInit results in UNKNOWN_CUDA_ERROR\n"
            'LIBRARIES= "-L/usr/local/cuda-12/targets/x86_64-linux/lib/stubs/libcuda.so"\n')
    assert "ECUDA022" not in {d.code for d in diagnose_text(text)}


def test_nightly_companions_of_the_same_weeks_are_a_pair():
    # pytorch/pytorch#56034: torch 1.9.0.dev20210217+cu112 from the nightly index
    assert nightly_pair(Version("1.9.0.dev20210217+cu112"), Version("0.10.0.dev20210217"))
    assert nightly_pair(Version("2.1.0.dev20230304"), Version("0.15.0.dev20230227"))
    assert not nightly_pair(Version("2.1.0.dev20230304"), Version("0.15.0.dev20221001"))
    assert not nightly_pair(Version("1.9.0.dev20210217"), Version("0.9.1"))


def test_nightly_torch_with_a_release_companion_is_still_judged():
    # pytorch/pytorch#91710's nightly pair (same day) passes; a released torchvision beside a
    # torch 2.1 nightly is built for another torch, and still named
    def pair(torch: str, vision: str) -> list[str]:
        return torch_companion_mismatch(pk=PackageFacts(distributions=(
            Distribution(name="torch", version=Version(torch)),
            Distribution(name="torchvision", version=Version(vision)))), os_name="Linux")
    assert pair("2.0.0.dev20230102+cu117", "0.15.0.dev20230102+cu117") == []
    assert pair("2.1.0.dev20230304+cu117", "0.15.0.dev20230227+cu117") == []
    assert pair("2.1.0.dev20230304+cu117", "0.15.1+cu117") == [
        "torchvision 0.15.1+cu117 (torch 2.1 needs 0.16.x)"]


# Paper99/SRFBN_CVPR19#38 and XLabs-AI/x-flux-comfyui#98: the run is on the CPU
CPU_RUN = ("When I test my image. Run in cpu But got the error Found no NVIDIA driver on your "
           "system. Please check that you\nhave an NVIDIA GPU and installed a driver from\n"
           "http://www.nvidia.com/Download/index.aspx\n")
ONLY_CPU = ("I work with only the CPU and it is not possible to use xlab Sampler because it "
            "returns this error: !!! Exception during processing !!! Found no NVIDIA driver on "
            "your system. Please check that you have an NVIDIA GPU and installed a driver from "
            "http://www.nvidia.com/Download/index.aspx")


def test_no_driver_on_a_cpu_run_is_the_program_not_the_machine():
    for text in (CPU_RUN, ONLY_CPU):
        (first, *_) = [d for d in diagnose_text(text) if d.code == "ECUDA009"]
        assert first.category == "user_code"
        assert not loud(text + "torch version: 1.13.1+cu117\n")


def test_no_driver_without_a_cpu_run_stays_the_environment():
    # ali-vilab/dreamtalk#12: the bare message after a demo command
    text = ("RuntimeError: Found no NVIDIA driver on your system. Please check that you have "
            "an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx")
    assert [d.category for d in diagnose_text(text) if d.code == "ECUDA009"] == ["environment"]
    # a CPU fallback line beside a named NVIDIA GPU leaves the driver possible
    gpu = text + "\nGPU: GeForce GTX 1080 Ti\nusing CPU\n"
    assert [d.category for d in diagnose_text(gpu) if d.code == "ECUDA009"] == ["environment"]


def test_a_package_saying_the_gpu_is_too_old_is_its_architecture_floor():
    # facebookresearch/xformers#685: xFormers' own words, pasted alone
    text = "RuntimeError: Your device is too old. We require compute capability >= 50\n"
    assert "ECUDA016" in loud(text)
    # a near miss: a driver, not a GPU, called too old is another cause
    assert "ECUDA016" not in loud("The NVIDIA driver on your system is too old (found version "
                                  "10010)\n")


# ROCm/legacy-rocm-build#1113: a ROCm build of torch 1.4 names the AMD card in its CUDA
# capability warning with HIP's hard-coded "3.0" (the thread: meaningless, the GPU runs)
ROCM_WARNING = """\
/home/datakey/.local/lib/python3.7/site-packages/torch/cuda/__init__.py:87: UserWarning:
    Found GPU0 Vega 10 XT [Radeon RX Vega 64] which is of cuda capability 3.0.
    PyTorch no longer supports this GPU because it is too old.
    The minimum cuda capability that we support is 3.5.
"""


def test_an_amd_gpu_in_torchs_cuda_capability_warning_is_no_finding():
    facts = parse_pasted(ROCM_WARNING + "Pytorch : 1.4\nROCm : 3.3\n")
    assert facts is None or not facts.nvidia.gpus
    assert not loud(ROCM_WARNING + "Pytorch : 1.4\nROCm : 3.3\n")
    assert "ECUDA004" not in {d.code for d in diagnose_text(ROCM_WARNING)}


def test_an_nvidia_gpu_in_the_same_warning_is_still_read():
    # https://medium.com/hackernoon/setting-up-your-machine-for-ml-919cfcd4e18d: an NVS 510
    # (Kepler, 3.0) under torch 0.4 on Windows
    text = ("C:\\Users\\nsankaran\\AppData\\Local\\conda\\conda\\envs\\torch2\\lib\\site-packages\\"
            "torch\\cuda\\__init__.py:116: UserWarning:\n"
            "    Found GPU0 NVS 510 which is of cuda capability 3.0.\n"
            "    PyTorch no longer supports this GPU because it is too old.\n")
    assert "ECUDA004" in {d.code for d in diagnose_text(text)}


# Qengineering/PyTorch-Jetson-Nano#2: the answer to torch.cuda.is_available() written after the
# call's closing backtick, on a Jetson Nano whose torch build the text does not show
NANO_WHEEL = ("Hi, just wondering if the wheel for Jetson Nano PyTorch 1.11.0 supports GPU? "
              "After installing the wheel `torch.cuda.is_available()` returns False.\n")


def test_is_available_answer_after_a_backtick_is_torch_saying_false():
    facts = parse_pasted(NANO_WHEEL)
    assert facts is not None and facts.live["torch"].cuda_available is False


# pytorch/pytorch#16936: the answer on the line of the call, no board named
def test_is_available_false_off_a_jetson_is_no_jetson_finding():
    text = ("Hi. After two days installing every nvidia driver possible, pytorch version (from "
            "package and compiling), cuda toolkit version, etc, torch.cuda.is_available() returns "
            "false\n\nI have 2 GTX 1070 GPUs. Linuxmint 18.3.\n")
    facts = parse_pasted(text)
    assert facts is not None and facts.live["torch"].cuda_available is False
    assert not {code for code in loud(text) if code.startswith("JET")}
