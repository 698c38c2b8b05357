"""Classes read from other public threads (batch AR's fix round).

pip's ResolutionImpossible whose parties are lines of the requirements file the install reads
("Cannot install -r requirements.txt (line 14) and torch==1.10.0"): the file's own pins exclude
each other, so the answer names the file (user_code), not the machine. A conflict with one party
only (a package none of whose versions installs here) or with packages that have no distribution
for this Python stays the environment's."""

from __future__ import annotations

import pytest

from envdoctor.explain import diagnose_text, primary

_TAIL = ("\nTo fix this you could try to:\n1. loosen the range of package versions you've specified\n"
         "2. remove package versions to allow pip attempt to solve the dependency conflict\n")

REQUIREMENTS_FILE_PINS = [
    # LevinRoman/tabular-transfer-learning#1
    ("ERROR: Cannot install -r requirements.txt (line 14) and torch~=1.10.0 because these package "
     "versions have conflicting dependencies.\n\nThe conflict is caused by:\n"
     "    The user requested torch~=1.10.0\n    torchvision 0.8.2 depends on torch==1.7.1\n" + _TAIL,
     "ETORCH008"),
    # YixuanSeanZhou/Quantized_Neural_Nets#14
    ("pip3 install -r requirements.txt\nERROR: Cannot install -r requirements.txt (line 7) and "
     "torch==1.10.0 because these package versions have conflicting dependencies.\n"
     "The conflict is caused by:\n    The user requested torch==1.10.0\n"
     "    torchvision 0.11.2 depends on torch==1.10.1\n" + _TAIL + "My python version is `3.8.15`.\n",
     "ETORCH008"),
    # hacksider/Deep-Live-Cam#916 (fixed by the project's requirements line)
    ("ERROR: Cannot install -r requirements.txt (line 14) and torch==2.5.1 because these package "
     "versions have conflicting dependencies.\n\nThe conflict is caused by:\n"
     "The user requested torch==2.5.1\ntorchvision 0.20.1+cu121 depends on torch==2.5.1+cu121\n",
     "ETORCH008"),
    # InSAI-Lab/MatchFormer#13
    ("ERROR: Cannot install -r requirements.txt (line 8) and torch==1.3.1 because these package "
     "versions have conflicting dependencies.\n\nThe conflict is caused by:\n"
     "    The user requested torch==1.3.1\n    kornia 0.4.1 depends on torch>=1.6.0\n" + _TAIL +
     "\nERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/"
     "dependency-resolution/#dealing-with-dependency-conflicts\n", "EPIP004"),
    # RMSnow/WWW2021#15: two lines of the file, no user pin
    ("ERROR: Cannot install -r requirements.txt (line 2) and -r requirements.txt (line 3) because "
     "these package versions have conflicting dependencies.\n\nThe conflict is caused by:\n"
     "    tensorflow 1.13.1 depends on tensorboard<1.14.0 and >=1.13.0\n"
     "    tensorflow-gpu 1.14.0 depends on tensorboard<1.15.0 and >=1.14.0\n", "EPIP004"),
    # cristinalunaj/MMEmotionRecognition#11
    ("ERROR: Cannot install -r requirements.txt (line 16), -r requirements.txt (line 19), "
     "-r requirements.txt (line 33), -r requirements.txt (line 36), -r requirements.txt (line 40) "
     "and numpy==1.22.0 because these package versions have conflicting dependencies.\n\n"
     "The conflict is caused by:\n    The user requested numpy==1.22.0\n"
     "    datasets 1.17.0 depends on numpy>=1.17\n    numba 0.54.1 depends on numpy<1.21 and >=1.17\n",
     "EPIP004"),
]

STAYS_THE_ENVIRONMENT = [
    # OedoSoldier/chatglm_webui#2: one party, a package with no torchvision for this Python (3.11)
    ("ERROR: Cannot install -r requirements.txt (line 3) because these package versions have "
     "conflicting dependencies.\n\nThe conflict is caused by:\n"
     "    icetk 0.0.5 depends on torchvision\n    icetk 0.0.4 depends on torchvision\n" + _TAIL +
     "\nERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/"
     "dependency-resolution/#dealing-with-dependency-conflicts\n", "EPIP004"),
    # synthetic after pip's resolver: two lines of the file, but part of the conflict has no
    # distribution for this interpreter at all
    ("ERROR: Cannot install -r requirements.txt (line 2) and -r requirements.txt (line 4) because "
     "these package versions have conflicting dependencies.\n\nThe conflict is caused by:\n"
     "    The user requested numpy==1.21.6\n    tensorflow 2.10.0 depends on numpy>=1.20\n"
     "\nAdditionally, some packages in these conflicts have no matching distributions available "
     "for your environment:\n    tensorflow\n", "EPIP004"),
]


@pytest.mark.parametrize(("text", "code"), REQUIREMENTS_FILE_PINS)
def test_requirements_file_pins_that_exclude_each_other_are_the_file(text, code):
    d = primary(diagnose_text(text))
    assert d is not None and d.code == code
    assert d.category == "user_code"
    assert not any(x.category == "environment" for x in diagnose_text(text))


@pytest.mark.parametrize(("text", "code"), STAYS_THE_ENVIRONMENT)
def test_resolver_conflict_with_one_party_or_no_distribution_stays_the_environment(text, code):
    d = primary(diagnose_text(text))
    assert d is not None and d.code == code
    assert d.category == "environment"


# DeepSpeed's op builder accepts a toolkit of torch's CUDA major ("... but since the APIs are
# compatible, accepting this combination": OptimalScale/LMFlow#864, deepspeedai/DeepSpeed#1846's
# wording); a missing toolkit header after it (haseongpu#20's curand_kernel.h, DeepSpeed#889's
# cuda_profiler_api.h) is the failure, EBUILD016. Its refusal stays EBUILD002.
ACCEPTED = ("Installed CUDA version 11.2 does not match the version torch was compiled with 11.8 but "
            "since the APIs are compatible, accepting this combination\n"
            "Using usr/torch_extensions/py39_cu118 as PyTorch extensions root...\n")
REFUSED = (">- DeepSpeed Op Builder: Installed CUDA version 10.2 does not match the version torch was "
           "compiled with 11.3, unable to compile cuda/cpp extensions without a matching cuda version.\n")
PROFILER_H = ("deepspeed/ops/csrc/includes/gemm_test.h:6:10: fatal error: cuda_profiler_api.h: "
              "No such file or directory\ncompilation terminated.\nninja: build stopped: subcommand failed.\n")
CURAND_H = ("include/mesh.hpp:33:48: fatal error: curand_kernel.h: No such file or directory\n"
            "compilation terminated.\n")


@pytest.mark.parametrize("header", [PROFILER_H, CURAND_H])
def test_accepted_cuda_pair_then_a_missing_header_is_the_header(header):
    d = primary(diagnose_text(ACCEPTED + header))
    assert d is not None and d.code == "EBUILD016"


def test_accepted_cuda_pair_alone_before_a_build_failure_stays_the_pair():
    d = primary(diagnose_text(ACCEPTED + "RuntimeError: Error building extension 'cpu_adam'\n"))
    assert d is not None and d.code == "EBUILD002"


@pytest.mark.parametrize("header", [PROFILER_H, CURAND_H])
def test_deepspeed_refusing_the_pair_stays_the_pair(header):
    d = primary(diagnose_text(REFUSED + header))
    assert d is not None and d.code == "EBUILD002"



# conda 4.8 prints an empty "incompatible with each other" list and only its __cuda virtual package,
# at the installed version, when the solve fails for a reason it does not name (NVIDIA/cudf#5830:
# "a bug in conda and typically innocuous"; a package missing from the channels, Acellera/htmd#969,
# or the package's recipe): no spec conflict is shown, so no claim. Beside a Python conflict
# (AIM-Harvard/pyradiomics#627) the Python is the cause, ECONDA001.
PML = ("UnsatisfiableError: The following specifications were found to be incompatible with each other:\n\n"
       "Output in format: Requested package -> Available versionsThe following specifications were found "
       "to be incompatible with your CUDA driver:\n\n  - feature:/linux-64::__cuda==10.1=0\n"
       "  - feature:|@/linux-64::__cuda==10.1=0\n\nYour installed CUDA driver is: 10.1\n")
PYRADIOMICS = ("UnsatisfiableError: The following specifications were found\nto be incompatible with the "
               "existing python installation in your environment:\n\nSpecifications:\n\n"
               "  - pyradiomics -> python[version='>=3.8,<3.9.0a0']\n\nYour python: python=3.7\n\n"
               "The following specifications were found to be incompatible with your CUDA driver:\n\n"
               "  - feature:/win-64::__cuda==9.1=0\n  - feature:|@/win-64::__cuda==9.1=0\n\n\n"
               "Your installed CUDA driver is: 9.1\n")


def test_conda_empty_conflict_with_only_the_installed_cuda_feature_gets_no_claim():
    d = primary(diagnose_text(PML))
    assert d is None or d.category != "environment"


def test_conda_cuda_feature_beside_a_python_conflict_is_the_python():
    d = primary(diagnose_text(PYRADIOMICS))
    assert d is not None and d.code == "ECONDA001"
