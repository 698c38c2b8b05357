"""Structure over wording for four families: an x86 build's CPU-feature failure on a Mac the text
names as Apple silicon (the Python's architecture, not the CPU), a wheel pip refuses for another
CPython than the one stated (the Python, not glibc), the driver's PTX JIT refusing a newer PTX
ISA (the driver, not a DLL), and numba finding no NVVM. Texts are from the signatures' threads
or constructed; none is from a held-out set."""

from __future__ import annotations

import pytest

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.wheeltags import refused_wheel_python, stated_pythons, wheel_python_reason


def code_of(text: str) -> str:
    d = primary(diagnose_text(text))
    return d.code if d else "none"


AVX_GUARD = ("RuntimeError: This version of jaxlib was built using AVX instructions, which your "
             "CPU and/or operating system do not support.")
TF_GUARD = ("The TensorFlow library was compiled to use AVX instructions, but these aren't "
            "available on your machine.")


@pytest.mark.parametrize("mac", ["MacBook Pro M2 Max", "Mac Chip: Apple M1", "on my M3 Mac",
                                 "Darwin 23.5.0 root:xnu-10063~1/RELEASE_ARM64_T6000 x86_64",
                                 "MacBook Air M1芯片", "terminal opened with Rosetta"])
@pytest.mark.parametrize("failure", [AVX_GUARD, TF_GUARD, "zsh: illegal hardware instruction  python",
                                     "Illegal instruction: 4"])
def test_cpu_feature_failure_on_apple_silicon_is_the_x86_python(mac, failure):
    assert code_of(f"{mac}\n{failure}\n") == "EMPS022"


@pytest.mark.parametrize("failure", [AVX_GUARD, TF_GUARD, "Illegal instruction (core dumped)"])
def test_cpu_feature_failure_without_a_mac_stays_the_cpu(failure):
    assert code_of(f"Ubuntu 20.04 on a Xeon E5-2670 in a VM\n{failure}\n") in ("ESYS006",
                                                                               "ESYS020")


def test_amd64_container_on_apple_silicon_gets_the_container_fix():
    d = primary(diagnose_text(f"docker run --platform=linux/amd64 python:3.8 on an M1 Mac\n"
                              f"{TF_GUARD}\nqemu: uncaught target signal 6 (Aborted)\n"))
    assert d is not None and d.code == "EMPS022"
    assert "linux/arm64" in d.fix and any("container" in n for n in d.notes)


WHEEL = "ERROR: mypkg-1.0.0-cp311-cp311-manylinux_2_31_x86_64.whl is not a supported wheel on this platform."


@pytest.mark.parametrize(("said", "code"), [("pip3.9 install mypkg-*.whl", "EPIP001"),
                                            ("Python 3.12.1 on Ubuntu 18.04", "EPIP001"),
                                            ("python3.11 -m pip install mypkg-*.whl", "ESYS004"),
                                            ("", "ESYS004")])
def test_manylinux_wheel_for_another_python_is_the_python(said, code):
    assert code_of(f"{said}\n{WHEEL}\n") == code


def test_plain_linux_wheel_refused_is_no_wheel_for_this_python():
    text = "ERROR: torch-1.8.0-cp36-cp36m-linux_aarch64.whl is not a supported wheel on this platform."
    assert code_of(text) == "EPIP001"


def test_wheel_tags_read_from_the_text():
    assert refused_wheel_python(WHEEL) == ("3.11", False)
    assert refused_wheel_python("x-1-cp38-abi3-win_amd64.whl is not a supported wheel on this "
                                "platform") == ("3.8", True)
    assert refused_wheel_python("Processing ./x-1-cp38-cp38-linux_x86_64.whl") is None
    assert stated_pythons("pip3.10 install; Python 3.8.8; python3.10") == ("3.10", "3.8")


def test_abi3_wheel_serves_later_pythons():
    abi3 = "ERROR: x-1.0-cp38-abi3-manylinux_2_35_x86_64.whl is not a supported wheel on this platform."
    assert wheel_python_reason(f"Python 3.11\n{abi3}") is None
    assert wheel_python_reason(f"Python 3.7\n{abi3}") is not None
    assert wheel_python_reason(f"python3.11 and python3.8\n{WHEEL}") is None  # names the wheel's own


def test_driver_jit_refusing_newer_ptx_is_the_driver_and_not_a_dll():
    text = ("numba.cuda.cudadrv.error.NvvmSupportError: libNVVM cannot be found. Do `conda install "
            "cudatoolkit`:\nCould not find module 'nvvm.dll' (or one of its dependencies). Try "
            "using the full path with constructor syntax.\n"
            "numba.cuda.cudadrv.driver.LinkerError: [222] Call to cuLinkAddData results in "
            "UNKNOWN_CUDA_ERROR ptxas application ptx input, line 9; fatal : Unsupported .version "
            "8.4; current version is '8.2'\n")
    assert code_of(text) == "ECUDA006"


def test_toolkit_ptxas_on_a_file_is_not_the_driver():
    text = "ptxas /tmp/k.ptx, line 5; fatal   : Unsupported .version 8.6; current version is '8.4'"
    assert code_of(text) != "ECUDA006"


@pytest.mark.parametrize("text", [
    "NvvmSupportError: libNVVM cannot be found. Do `conda install cudatoolkit`:\n"
    "Could not find module 'nvvm.dll' (or one of its dependencies).",
    "numba.cuda.cudadrv.error.NvvmSupportError: libNVVM cannot be found. Do `conda install "
    "cudatoolkit`:\nlibnvvm.so: cannot open shared object file: No such file or directory",
])
def test_numba_without_nvvm_is_its_own_cause(text):
    assert code_of(text) == "ENUMBA001"


@pytest.mark.parametrize(("text", "code"), [
    ("ImportError: it says GLIBC 2.29 was not found on our CentOS 7 server", "ESYS004"),
    ("PyTorch only sees the GPU when run as root, as my user it is not available", "EDRV003"),
    ("CUDA is not usable unless run with sudo", "EDRV003"),
    ("Stable Diffusion on my Mac: MPS Backend Out Of Memory", "EMPS003"),
    ("pip install tensorflow: No Space Left, although df shows 7 GB free", "ESYS014"),
])
def test_causes_stated_in_prose(text, code):
    assert code_of(text) == code


def test_misspelt_watermark_variable_is_named():
    d = primary(diagnose_text("MPS backend out of memory\nexport PYTORCH_MPS_WATERMARK_RATIO=0.0\n"))
    assert d is not None and d.code == "EMPS003"
    assert any("PYTORCH_MPS_HIGH_WATERMARK_RATIO" in n for n in d.notes)


@pytest.mark.parametrize("text", ["Cannot run nvidia-docker without sudo",
                                  "I run the GPU benchmark as root on the cluster",
                                  "export PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.7",
                                  "df -h: plenty of space left on /home"])
def test_healthy_wordings_claim_nothing(text):
    assert code_of(text) == "none"
