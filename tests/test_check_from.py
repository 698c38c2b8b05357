"""`envdoctor check --from FILE|-`: a pasted report through the rules and every renderer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomllib

from envdoctor.outputs.renderers import formats

REPORTS = Path(__file__).resolve().parent / "corpus" / "reports"


def text_of(prefix: str) -> str:
    path = next(REPORTS.glob(prefix + "-*.toml"))
    return tomllib.loads(path.read_text(encoding="utf-8"))["text"]


def test_collect_env_rtx5090_from_stdin(cli):
    result = cli("check", "--from", "-", stdin=text_of("014"))
    assert result.returncode in (0, 1), result.stderr
    assert "report" in result.stdout.splitlines()[0]
    assert "gpu-arch-missing-from-torch-wheel" in result.stdout or "GPU001" in result.stdout


def test_json_from_file(cli, tmp_path):
    path = tmp_path / "issue.md"
    path.write_text(text_of("022"), encoding="utf-8")
    result = cli("check", "--from", str(path), "--format", "json")
    data = json.loads(result.stdout)
    assert data["facts"]["origin"] == "report"
    assert data["facts"]["cuda"]["probe"]["status"] in ("ok", "unknown", "not_found")
    assert "torch-cpu-build-on-gpu-host" in {f["id"] for f in data["findings"]}
    unknown = [c for c in data["checks"] if c["state"] == "unknown"]
    assert unknown  # sections the report does not state stay unknown


@pytest.mark.parametrize("fmt", formats("check"))
def test_every_format(cli, tmp_path, fmt):
    path = tmp_path / "smi.txt"
    path.write_text(text_of("056"), encoding="utf-8")
    result = cli("check", "--from", str(path), "--format", fmt)
    assert result.returncode == 1, result.stderr  # the NVML mismatch is an error
    assert result.stdout.strip()


def test_no_report_is_exit_2_one_line(cli, tmp_path):
    path = tmp_path / "prose.txt"
    path.write_text("My model does not train. Any idea?\n", encoding="utf-8")
    result = cli("check", "--from", str(path))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "no environment report" in result.stderr
    missing = cli("check", "--from", str(tmp_path / "nope.txt"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


MIXED = ("OSError: /opt/venv/lib/python3.10/site-packages/nvidia/cublas/lib/libcublas.so.11: "
         "symbol cublasLtHSHMatmulAlgoInit version libcublasLt.so.11 not defined in file "
         "libcublasLt.so.11 with link time reference\n")


def test_error_only_paste_is_explained_not_refused(cli, tmp_path):
    path = tmp_path / "error.txt"
    path.write_text("import torch fails:\n" + MIXED, encoding="utf-8")
    result = cli("check", "--from", str(path), "--format", "json")
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    found = [f for f in data["findings"] if f["id"] == "mixed-cuda-runtimes"]
    assert found and found[0]["severity"] == "error"
    assert any("libcublasLt.so.11" in line for line in found[0]["evidence"]["stated in the text"])
    # nothing else was shown: every section stays unknown, no check fired on a guess
    assert {s: data["facts"][s]["probe"]["status"] for s in ("host", "nvidia", "cuda")} == \
        {"host": "unknown", "nvidia": "unknown", "cuda": "unknown"}
    assert [f["id"] for f in data["findings"]] == ["mixed-cuda-runtimes"]


def test_a_user_code_error_alone_is_still_no_report(cli, tmp_path):
    path = tmp_path / "shape.txt"
    path.write_text("RuntimeError: mat1 and mat2 shapes cannot be multiplied (1x2 and 6x64)\n",
                    encoding="utf-8")
    result = cli("check", "--from", str(path))
    assert result.returncode == 2 and "no environment report found" in result.stderr


def test_check_and_signature_naming_one_cause_give_one_finding():
    from envdoctor import pipeline
    from envdoctor.parsers import parse_pasted
    text = text_of("042") + "\nRuntimeError: CUDA error: no kernel image is available for " \
        "execution on the device\n"
    facts = parse_pasted(text)
    assert facts is not None and [d.code for d in facts.diagnoses]
    found = pipeline.diagnose(facts).findings
    ids = [f.id for f in found]
    assert "gpu-arch-missing-from-torch-wheel" in ids
    assert "no-kernel-image-for-gpu" not in ids and "torch-build-lacks-gpu-arch" not in ids
    gpu001 = next(f for f in found if f.id == "gpu-arch-missing-from-torch-wheel")
    assert "the text says" in gpu001.evidence


def test_a_missing_version_never_reads_none_in_a_title():
    from envdoctor import pipeline
    from envdoctor.parsers import parse_pasted
    # TensorFlow's own cuDNN line, with no TensorFlow version anywhere in the paste
    text = ("2022-10-11 10:00:00.000000: E tensorflow/stream_executor/cuda/cuda_dnn.cc:377] "
            "Loaded runtime CuDNN library: 8.5.0 but source was compiled with: 8.6.0.\n")
    facts = parse_pasted(text)
    assert facts is not None
    titles = [f.title for f in pipeline.diagnose(facts).findings]
    assert titles and not any("None" in t for t in titles), titles


def test_pip_no_wheel_names_the_python(cli, tmp_path):
    # tensorflow/tensorflow#91776's situation with a pinned release: TF 2.12 has no cp313 wheel
    path = tmp_path / "pip.txt"
    path.write_text("Python 3.13.3 (main, Apr  8 2025, 19:55:40) [GCC 14.2.0] on linux\n"
                    "$ pip install tensorflow==2.12.0\n"
                    "ERROR: Could not find a version that satisfies the requirement "
                    "tensorflow==2.12.0 (from versions: none)\n"
                    "ERROR: No matching distribution found for tensorflow==2.12.0\n",
                    encoding="utf-8")
    data = json.loads(cli("check", "--from", str(path), "--format", "json").stdout)
    titles = {f["id"]: f["title"] for f in data["findings"]}
    assert "pip-no-wheel-for-python" in titles, titles
    assert "Python 3.13" in titles["pip-no-wheel-for-python"]
    assert "pip-no-matching-distribution" not in titles  # one cause, the specific finding


def test_a_signature_the_pastes_own_facts_contradict_yields_to_them():
    from envdoctor import pipeline
    from envdoctor.parsers import parse_pasted
    facts = parse_pasted(text_of("081"))  # "torchvision::nms does not exist", 1.4.0/0.5.0 match
    assert facts is not None and "ETORCH008" in {d.code for d in facts.diagnoses}
    report = pipeline.diagnose(facts)
    assert "TORCH003" in {r.code for r in report.results if r.state == "passed"}
    assert "torchvision-torch-mismatch" not in {f.id for f in report.findings}


# A collect_env of a ROCm torch on an NVIDIA box (synthetic, in collect_env's own layout): the
# report states the GPU but not every NVIDIA field. One cause, one finding: TORCH005, and
# neither "ROCm torch sees no GPU" (ROCM008), "the framework does not see the GPU" (LIVE004)
# nor the text's EROCM011 beside it.
ROCM_WHEEL_ON_NVIDIA = """\
Collecting environment information...
PyTorch version: 2.5.1+rocm6.2
Is debug build: False
CUDA used to build PyTorch: N/A
ROCM used to build PyTorch: 6.2.41133-dd7f95766

OS: Ubuntu 22.04.4 LTS (x86_64)
Python version: 3.10.12 (main, Nov 20 2023, 15:14:05) [GCC 11.4.0] (64-bit runtime)
Is CUDA available: False
GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090
Nvidia driver version: 550.54.15
HIP runtime version: N/A
"""


def test_rocm_wheel_on_nvidia_paste_is_one_finding(cli):
    result = cli("check", "--from", "-", "--format", "json", stdin=ROCM_WHEEL_ON_NVIDIA)
    loud = {f["code"] for f in json.loads(result.stdout)["findings"]
            if f["severity"] in ("error", "warning")}
    assert loud == {"TORCH005"}, loud


ACCELERATE_FP16 = '''\
  File "venv/lib/site-packages/accelerate/accelerator.py", line 355, in __init__
    raise ValueError(err.format(mode="fp16", requirement="a GPU"))
ValueError: fp16 mixed precision requires a GPU
'''


@pytest.mark.parametrize(("tail", "loud"), [
    ("", True),
    (">>> import torch\n>>> torch.cuda.is_available()\nTrue\n>>> torch.cuda.get_device_name(0)\n"
     "'NVIDIA GeForce RTX 3090'\n", False),
])
def test_a_refusal_the_text_contradicts_yields_to_the_text(cli, tmp_path, tail, loud):
    """accelerate's "requires a GPU" claims torch sees none; torch listing its GPU in the same
    paste makes it accelerate's configuration: no environment finding."""
    paste = tmp_path / "paste.txt"
    paste.write_text(ACCELERATE_FP16 + tail)
    out = json.loads(cli("check", "--from", str(paste), "--format", "json").stdout)
    hits = [f for f in out["findings"] if f["code"] == "EHF004"
            and f["severity"] in ("error", "warning")]
    assert bool(hits) is loud


# CUBLAS_STATUS_NOT_INITIALIZED alone: threads put the cause in the workload or the code (QwenLM/Qwen#120: the model
# exceeds the GPU memory; wzk1015/video-bgm-generation#27: CUDA and memory fine, the tokenizer), so explain names it
# as usage and a paste of it raises no environment finding
CUBLAS_ALONE = ("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`\n",
                "E tensorflow/stream_executor/cuda/cuda_blas.cc:366] failed to create cublas handle: "
                "CUBLAS_STATUS_NOT_INITIALIZED\n")


@pytest.mark.parametrize("text", CUBLAS_ALONE)
def test_cublas_not_initialized_alone_is_no_environment_finding(text):
    from envdoctor.explain import diagnose_text, primary
    from envdoctor.live.parse import text_causes
    first = primary(diagnose_text(text))
    assert first is not None and first.code == "ECUDNN003" and first.category == "usage"
    assert text_causes(text) == ()
