"""An extension's own environment report names the CUDA that compiled its ops (detectron2's
collect_env "Detectron2 CUDA Compiler" / "CUDA compiler", mmcv's "MMCV CUDA Compiler"). When
that compiler is the nvcc the report shows and its CUDA major differs from torch's, the ops
were built against another CUDA than the torch they run with: CUDA005 rises from a remark to a
warning. The same report with matching CUDAs stays clean."""

from __future__ import annotations

from envdoctor import pipeline
from envdoctor.parsers import parse_pasted
from envdoctor.facts import EXTENSION_BUILD

LOUD = ("error", "warning")


def findings(text: str) -> dict[str, str]:
    facts = parse_pasted(text)
    assert facts is not None
    return {f.code: f.severity.value for f in pipeline.diagnose(facts).findings}


# facebookresearch/detectron2#4958 (excerpt): the compiler line is nvcc's own release line
D2_4958 = """\
sys.platform                     linux
Python                           3.11.3 (main, Apr 19 2023, 23:54:32) [GCC 11.2.0]
numpy                            1.24.3
Compiler ($CXX)                  c++ (Ubuntu 9.4.0-1ubuntu1~20.04.1) 9.4.0
CUDA compiler                    Cuda compilation tools, release 10.1, V10.1.243
DETECTRON2_ENV_MODULE            <not set>
PyTorch                          2.0.1+cu117 @/home/user/anaconda3/envs/semseg/lib/python3.11/site-packages/torch
"""

# facebookresearch/detectron2#693 (excerpt): compiler, nvcc and torch's runtime all CUDA 10.0
D2_693 = """\
sys.platform              linux
Python                    3.7.6 (default, Jan  8 2020, 19:59:22) [GCC 7.3.0]
Numpy                     1.17.4
Detectron2 Compiler       GCC 5.4
Detectron2 CUDA Compiler  10.0
DETECTRON2_ENV_MODULE     <not set>
PyTorch                   1.3.1
PyTorch Debug Build       False
torchvision               0.4.2
CUDA available            True
GPU 0,1,2,3,4,5,6,7       GeForce RTX 2080 Ti
CUDA_HOME                 /usr/local/cuda
NVCC                      Cuda compilation tools, release 10.0, V10.0.130
Pillow                    6.2.2
cv2                       4.1.2
------------------------  --------------------------------------------------
PyTorch built with:
  - GCC 7.3
  - CUDA Runtime 10.0
"""

# facebookresearch/detectron2#251 (excerpt): "CUDA compiler  CUDA 10.0" beside a cu100 torch
D2_251 = """\
sys.platform            linux
detectron2              0.1.3 @/running_package/PanopticSeg/detectron2
Compiler                GCC 7.3
CUDA compiler           CUDA 10.0
detectron2 arch flags   sm_70
DETECTRON2_ENV_MODULE   <not set>
PyTorch                 1.4.0+cu100 @/running_package/py3.6-env/lib64/python3.6/site-packages/torch
PyTorch debug build     False
GPU available           True
GPU 0,1,2,3,4,5,6,7     Tesla P40
CUDA_HOME               /usr/local/cuda
"""


def test_compiler_line_of_another_cuda_major_is_a_warning():
    facts = parse_pasted(D2_4958)
    assert facts is not None
    assert [t.source for t in facts.cuda.toolkits] == [EXTENSION_BUILD]
    assert findings(D2_4958).get("CUDA005") == "warning"


def test_old_layout_compiler_line_is_read():
    facts = parse_pasted(D2_693)
    assert facts is not None and str(facts.cuda.nvcc_version) == "10.0.130"
    assert [t.source for t in facts.cuda.toolkits] == [EXTENSION_BUILD]


def test_matching_compiler_and_torch_cuda_stay_clean():
    for text in (D2_693, D2_251):
        got = findings(text)
        assert "CUDA005" not in got, got


def test_compiler_line_alone_reads_the_cuda_not_the_gcc():
    facts = parse_pasted(D2_251)
    assert facts is not None and str(facts.cuda.nvcc_version) == "10.0"


def test_a_plain_nvcc_mismatch_without_an_extension_report_stays_info():
    # nvcc 11.8 beside a cu121 torch (deepspeedai/DeepSpeed#5312's pair, CUDA005's own example)
    text = ("nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 11.8, V11.8.89\n"
            ">>> torch.__version__\n'2.2.1+cu121'\n>>> torch.version.cuda\n'12.1'\n")
    assert findings(text).get("CUDA005") == "info"


def test_no_kernel_image_bears_out_an_older_nvcc_only_where_torch_covers_the_gpu():
    # detectron2's INSTALL.md common issue: "you build detectron2 with one version of CUDA but
    # run it with a different version" (nvcc 9.0 built the ops, torch runs CUDA 10.1)
    env = ("NVCC                      Cuda compilation tools, release 9.0, V9.0.176\n"
           "PyTorch                   1.4.0+cu101\n")
    error = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    assert findings(env + error).get("CUDA005") == "warning"
    # a newer nvcc than torch's CUDA compiles for every GPU torch knows: not borne out
    newer = env.replace("release 9.0, V9.0.176", "release 11.1, V11.1.105")
    assert findings(newer + error).get("CUDA005") == "info"
    # torch's own build lacks the GPU (an RTX 3090, sm_86, under cu101): that is the cause
    gpu = "GPU 0                     GeForce RTX 3090\n"
    got = findings(env + gpu + error)
    assert got.get("CUDA005") == "info" and "GPU001" in got, got


# open-mmlab/mmcv#1055 (excerpt): mmcv's collect_env() printed as a dict, and the reporter
# builds mmcv-full from source with CUDA_HOME=/usr's nvcc 9.1 under a CUDA 10.2 torch
MMCV_1055 = (
    "Tried to create a new environment with mmcv tutorial but failed with both pip install and "
    "build from source.\n\n"
    "{'sys.platform': 'linux', 'Python': '3.8.10 (default, May 19 2021, 18:05:58) [GCC 7.3.0]', "
    "'CUDA available': True, 'GPU 0,1,2,3,4,5,6,7': 'TITAN RTX', 'CUDA_HOME': '/usr', "
    "'NVCC': 'Cuda compilation tools, release 9.1, V9.1.85', 'GCC': 'gcc (Ubuntu "
    "7.5.0-3ubuntu1~18.04) 7.5.0', 'PyTorch': '1.8.1', 'PyTorch compiling details': 'PyTorch "
    "built with:\\n  - GCC 7.3\\n  - C++ Version: 201402\\n  - CUDA Runtime 10.2\\n  - CuDNN "
    "7.6.5\\n'}\n")

# open-mmlab/mmcv#2900 (excerpt): a source build whose nvcc and torch are both CUDA 11.8
MMCV_2900 = (
    "[Build Error With Source Code]\n\n"
    "{'sys.platform': 'linux', 'Python': '3.8.17 (default, Jul  5 2023, 21:04:15) [GCC 11.2.0]', "
    "'CUDA available': True, 'GPU 0': 'NVIDIA GeForce RTX 4070 Ti', 'CUDA_HOME': "
    "'/usr/local/cuda-11.8', 'NVCC': 'Cuda compilation tools, release 11.8, V11.8.89', 'GCC': "
    "'gcc (Debian 12.2.0-14) 12.2.0', 'PyTorch': '2.0.1', 'PyTorch compiling details': 'PyTorch "
    "built with:\\n  - GCC 9.3\\n  - C++ Version: 201703\\n  - CUDA Runtime 11.8\\n'}\n")


def test_mmcv_env_dict_is_read_like_its_text_form():
    facts = parse_pasted(MMCV_1055)
    assert facts is not None and facts.frameworks.torch is not None
    assert str(facts.frameworks.torch.version) == "1.8.1"
    assert str(facts.frameworks.torch.cuda) == "10.2"
    assert facts.nvidia.gpus and facts.nvidia.gpus[0].name == "TITAN RTX"


def test_a_source_build_with_nvcc_of_another_major_is_a_warning():
    assert findings(MMCV_1055).get("CUDA005") == "warning"


def test_a_source_build_with_matching_cuda_stays_clean():
    got = findings(MMCV_2900)
    assert "CUDA005" not in got and not {c for c, s in got.items() if s in LOUD}, got


def test_source_words_without_a_mismatch_or_without_nvcc_raise_nothing():
    # the words alone (no nvcc shown) tag nothing
    facts = parse_pasted("I built it from source\n>>> torch.__version__\n'2.1.0+cu121'\n"
                         ">>> torch.version.cuda\n'12.1'\n")
    assert facts is not None and not facts.cuda.toolkits


def test_a_failed_extension_build_is_building_with_the_nvcc_shown():
    # open-mmlab/mmcv#2102's failure line beside an nvcc of another CUDA major than torch's
    text = ("nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 10.2, V10.2.89\n"
            ">>> torch.__version__\n'1.11.0+cu113'\n"
            "  ERROR: Failed building wheel for mmcv-full\n")
    assert findings(text).get("CUDA005") == "warning"
    # the same failure with nvcc and torch on one CUDA major: CUDA005 does not fire at all
    same = text.replace("release 10.2, V10.2.89", "release 11.3, V11.3.109")
    assert "CUDA005" not in findings(same)
