"""conda plans and listings pasted into a report: the specs a solve must satisfy are installed
packages, and the build strings say which variant came (pytorch ``py3.8_cpu_0``, conda-forge
jaxlib ``cpu_py311…``). A CPU build resolved beside the CUDA package installed for it is the
solver's fallback: TORCH001 / JAX001 name it where no GPU list was pasted, and stay quiet when
the CUDA build came."""

from __future__ import annotations

import pytest

from envdoctor import pipeline
from envdoctor.parsers import parse_parts, parse_pasted

LOUD = ("error", "warning")


def _loud(text: str) -> set[str]:
    facts = parse_pasted(text)
    assert facts is not None
    return {f.code for f in pipeline.diagnose(facts).findings if f.severity.value in LOUD}


def _installer(text: str):
    return next(p for p in parse_parts(text) if p.source == "installer")


# pytorch/pytorch#92273: the download table and the specs, a CPU pytorch beside cudatoolkit
DOWNLOAD_TABLE = r"""
conda install pytorch==1.12.1 torchvision==0.13.1 torchaudio==0.12.1 cudatoolkit=10.2 -c pytorch

## Package Plan ##

  environment location: D:\anaconda3

  added / updated specs:
    - cudatoolkit=10.2
    - pytorch==1.12.1
    - torchaudio==0.12.1
    - torchvision==0.13.1


The following packages will be downloaded:

    package                    |            build
    ---------------------------|-----------------
    cudatoolkit-10.2.89        |       h74a9793_1       317.2 MB  defaults
    pytorch-1.12.1             |      py3.8_cpu_0       133.8 MB  pytorch
    pytorch-mutex-1.0          |              cpu           3 KB  pytorch
"""

# pytorch/pytorch#23778: a nightly plan whose only pytorch is the CPU upload
NIGHTLY_PLAN = """
conda install pytorch-nightly cudatoolkit=10.0 -c pytorch

## Package Plan ##

  environment location: /miniconda

  added / updated specs:
    - cudatoolkit=10.0
    - pytorch-nightly


The following NEW packages will be INSTALLED:

  cpu-only           pytorch/linux-64::cpu-only-1.0-0
  pytorch-nightly    pytorch/linux-64::pytorch-nightly-1.2.0.dev20190805+cpu-py3.7_cpu_0
"""

# pytorch/pytorch#67108: the command in the steps, the plan lines below it (Windows)
WINDOWS_PLAN = """
1. Run `conda install pytorch torchvision torchaudio cudatoolkit=11.3 -c pytorch` on Windows
2. The output is
    The following NEW packages will be INSTALLED:
    pytorch            pytorch/win-64::pytorch-1.10.0-py3.8_cpu_0
    torchaudio         pytorch/win-64::torchaudio-0.10.0-py38_cpu
    torchvision        pytorch/win-64::torchvision-0.11.1-py38_cpu
"""

# the CUDA build the same issue expected (its "Expected behavior" plan): no finding
CUDA_PLAN = """
conda install pytorch torchvision torchaudio cudatoolkit=11.3 -c pytorch
    pytorch-1.10.0             |       py3.8_cuda11.3_cudnn8.2.0_0        1.21 GB  pytorch
    torchvision-0.11.1        |       py38_cu113        30.4 MB  pytorch
"""


def test_download_table_rows_and_specs_are_packages():
    part = _installer(DOWNLOAD_TABLE)
    assert str(part.packages["cudatoolkit"]) == "10.2.89"  # the table's row beats the spec
    assert str(part.packages["torch"]) == "1.12.1"
    assert part.values["frameworks.torch.cpu_only"] is True


def test_command_line_specs_stop_where_the_command_ends():
    part = _installer(WINDOWS_PLAN)
    assert str(part.packages["cudatoolkit"]) == "11.3"
    assert "on" not in part.packages and "windows" not in part.packages


@pytest.mark.parametrize("text", [DOWNLOAD_TABLE, NIGHTLY_PLAN, WINDOWS_PLAN],
                         ids=["download-table", "nightly-plan", "windows-plan"])
def test_cpu_pytorch_beside_cudatoolkit_is_torch001(text):
    assert "TORCH001" in _loud(text)


def test_the_cuda_build_beside_cudatoolkit_is_clean():
    facts = parse_pasted(CUDA_PLAN)
    assert facts is not None and facts.frameworks.torch is not None
    assert str(facts.frameworks.torch.cuda) == "11.3"
    assert "TORCH001" not in _loud(CUDA_PLAN)


# conda-forge jaxlib build strings (the variant leads: cpu_py…, cuda120py…)
def test_conda_forge_jaxlib_cpu_build_beside_cuda_nvcc_is_jax001():
    text = """
$ conda install -c conda-forge jax jaxlib cuda-nvcc
The following NEW packages will be INSTALLED:
  cuda-nvcc          nvidia/linux-64::cuda-nvcc-12.3.107-0
  jax                conda-forge/noarch::jax-0.4.23-pyhd8ed1ab_0
  jaxlib             conda-forge/linux-64::jaxlib-0.4.23-cpu_py311h1b2e4b5_0
"""
    assert "JAX001" in _loud(text)
    cuda = text.replace("cpu_py311h1b2e4b5_0", "cuda120py311h1b2e4b5_200")
    facts = parse_pasted(cuda)
    assert facts is not None and facts.frameworks.jax is not None
    assert "cuda" in (facts.frameworks.jax.jaxlib.local or "")
    assert "JAX001" not in _loud(cuda)


def test_conda_list_rows_with_underscored_builds_are_read_without_a_header():
    text = """
$ conda list | grep pytorch
cpuonly                   2.0                           0    pytorch
pytorch                   1.11.0              py3.8_cpu_0    pytorch
"""
    part = next(p for p in parse_parts(text) if p.source == "packages")
    assert str(part.packages["torch"]) == "1.11.0"
    assert part.values["frameworks.torch.cpu_only"] is True
    assert "cpuonly" in part.packages
