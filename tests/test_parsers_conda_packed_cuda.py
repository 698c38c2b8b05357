"""The pytorch channel's older conda builds pack the CUDA version without its dot.

``py3.7_cuda90_cudnn7_1`` is PyTorch 1.0.0 built for CUDA 9.0 (Windows builds, and the 0.3/0.4
``py36_cuda80_cudnn6he774522_2`` family). The dotted form (``py3.7_cuda10.2_cudnn7.6.5_0``) was
already read; the packed one left ``frameworks.torch.cuda`` unknown, so a conda-only listing never
told the driver and GPU checks which CUDA the build needs.
"""

from __future__ import annotations

from envdoctor import pipeline
from envdoctor.parsers import parse_pasted

# https://github.com/pytorch/pytorch/issues/27745 (Windows 10, GTX 1050, driver 398.36): the
# environment lines and the [conda] listing of collect_env, cut before "CUDA used to build"
PT_27745 = """OS: Microsoft Windows 10 Enterprise
Python version: 3.7
GPU models and configuration: GPU 0: GeForce GTX 1050
Nvidia driver version: 398.36

Versions of relevant libraries:
[pip] numpy==1.16.5
[pip] torch==1.0.0
[pip] torchvision==0.2.2
[conda] blas                      1.0                         mkl
[conda] mkl                       2019.4                      245
[conda] mkl-service               2.3.0            py37hb782905_0
[conda] mkl_fft                   1.0.14           py37h14836fe_0
[conda] mkl_random                1.1.0            py37h675688f_0
[conda] pytorch                   1.0.0           py3.7_cuda90_cudnn7_1    pytorch
[conda] torchvision               0.2.2                      py_3    pytorch
"""

# https://github.com/pytorch/pytorch/issues/72957: the dotted form, beside pytorch-mutex's
# "cuda" build (a selector package, not a CUDA version)
PT_72957 = """[conda] cudatoolkit               10.2.89              hfd86e86_1
[conda] pytorch                   1.10.2          py3.7_cuda10.2_cudnn7.6.5_0    pytorch
[conda] pytorch-mutex             1.0                        cuda    pytorch
[conda] torchaudio                0.10.2               py37_cu102    pytorch
[conda] torchvision               0.11.3               py37_cu102    pytorch
"""


def _torch(text: str):
    facts = parse_pasted(text)
    assert facts.frameworks.torch is not None
    return facts


def test_packed_cuda_build_string_is_read():
    facts = _torch(PT_27745)
    assert str(facts.frameworks.torch.version) == "1.0.0"
    assert str(facts.frameworks.torch.cuda) == "9.0"
    assert str(facts.nvidia.driver_version) == "398.36"


def test_packed_cuda_healthy_windows_driver_stays_clean():
    # CUDA 9.0 on a 398.36 Windows driver and a Pascal GTX 1050: nothing to warn about
    findings = pipeline.diagnose(parse_pasted(PT_27745)).findings
    assert [f.code for f in findings if f.severity.value in ("error", "warning")] == []


def test_dotted_build_string_unchanged_and_mutex_not_read():
    facts = _torch(PT_72957)
    assert str(facts.frameworks.torch.cuda) == "10.2"


def test_packed_form_needs_a_pytorch_row_and_a_plausible_cuda():
    # the same build string under another package name, or an implausible packed value, says
    # nothing about torch's CUDA
    other = PT_27745.replace("[conda] pytorch  ", "[conda] pytorchx ")
    assert parse_pasted(other.replace("[pip] torch==1.0.0\n", "")).frameworks.torch is None
    odd = PT_27745.replace("py3.7_cuda90_cudnn7_1", "py3.7_cuda55_cudnn7_1")
    assert _torch(odd).frameworks.torch.cuda is None


def test_conda_forge_pytorch_build_strings_pack_the_cuda_too():
    # conda-forge's pytorch builds as published on https://anaconda.org/conda-forge/pytorch/files
    # (pytorch 2.3.1 cuda118_py311h0047a46_300 / cuda120_py311hf6aebf0_300, 2.4.0
    # cuda120_py310h2c91c31_301): the variant leads the build string
    from envdoctor.parsers._partial import Partial
    from envdoctor.parsers.packages import _conda_cuda

    for build, want in (("cuda118_py311h0047a46_300", "11.8"),
                        ("cuda120_py311hf6aebf0_300", "12.0"),
                        ("cuda120_py310h2c91c31_301", "12.0")):
        part = Partial("t")
        _conda_cuda(part, "pytorch", build)
        assert str(part.values["frameworks.torch.cuda"]) == want
    part = Partial("t")  # the same packing on torchvision (cuda120py310h8d5198f_0) is not torch's
    _conda_cuda(part, "torchvision", "cuda120py310h8d5198f_0")
    assert "frameworks.torch.cuda" not in part.values
