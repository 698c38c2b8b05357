"""The worker helpers that need no framework: maps parsing, versions, references, the step
runner. (Importing a worker module never imports its framework.)"""

from __future__ import annotations

import importlib
import subprocess
import sys

import numpy as np
import pytest

from envdoctor.workers import WORKERS
from envdoctor.workers import _common as c

# Lines in the format of proc(5) /proc/<pid>/maps, as a torch+cu12 process shows them.
WHEEL_CUDNN = "/venv/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9"
MAPS = f"""\
7f1c2a000000-7f1c2a200000 r--p 00000000 08:01 1234 {WHEEL_CUDNN}
7f1c2a200000-7f1c2a400000 r-xp 00200000 08:01 1234 {WHEEL_CUDNN}
7f1c2b000000-7f1c2b100000 r-xp 00000000 08:01 99 /usr/local/cuda-12.4/lib64/libcudart.so.12.4.127
7f1c2c000000-7f1c2c100000 r-xp 00000000 08:01 77 /opt/conda/lib/libnccl.so.2.21.5
7f1c2d000000-7f1c2d100000 r-xp 00000000 08:01 55 /usr/lib/x86_64-linux-gnu/libcublasLt.so.12
7f1c2e000000-7f1c2e021000 rw-p 00000000 00:00 0 [heap]
7f1c2f000000-7f1c2f100000 r-xp 00000000 08:01 12 /usr/lib/x86_64-linux-gnu/libc.so.6
"""


def test_parse_maps_finds_the_cuda_libraries_once_each(tmp_path):
    libs = {lib["name"]: lib for lib in c.parse_maps(MAPS)}
    assert set(libs) == {"cudnn", "cudart", "nccl"}  # cublasLt is not cuBLAS itself
    assert libs["cudart"]["version"] == "12.4.127" and libs["cudart"]["origin"] == "system"
    assert libs["cudnn"]["origin"] == "wheel" and libs["cudnn"]["version"] == "9"
    assert libs["nccl"]["origin"] == "conda" and libs["nccl"]["version"] == "2.21.5"


def test_a_wheel_library_takes_its_version_from_the_dist_info(tmp_path):
    lib = tmp_path / "site-packages" / "nvidia" / "cudnn" / "lib"
    lib.mkdir(parents=True)
    (lib / "libcudnn.so.9").write_bytes(b"")
    (tmp_path / "site-packages" / "nvidia_cudnn_cu12-9.1.0.70.dist-info").mkdir()
    entry = c.library_entry(str(lib / "libcudnn.so.9"))
    assert entry == {"name": "cudnn", "path": str(lib / "libcudnn.so.9"),
                     "version": "9.1.0.70", "origin": "wheel"}


def test_the_worker_reads_its_own_maps():
    libs = c.loaded_libraries()  # this test process maps no CUDA library on a CPU machine
    assert isinstance(libs, list)
    assert all(lib["name"] in ("cudart", "cudnn", "cublas", "nccl") for lib in libs)


@pytest.mark.parametrize("raw,text", [(8902, "8.9.2"), (90100, "9.1.0"), (91002, "9.10.2"),
                                      (None, None)])
def test_cudnn_integer_versions(raw, text):
    assert c.cudnn_from_int(raw) == text


def test_compare_passes_within_and_fails_beyond_the_tolerance():
    a, b = c.operands()
    ref = c.matmul(a, b)
    assert np.allclose(ref, np.asarray(a) @ np.asarray(b), rtol=0, atol=1e-12)
    assert "max rel err" in c.compare(np.asarray(ref, np.float32), ref, "fp32")
    top = float(np.abs(np.asarray(ref)).max())
    with pytest.raises(c.StepFailed, match="wrong results"):
        c.compare(np.asarray(ref) + 0.05 * top, ref, "fp32")
    with pytest.raises(c.StepFailed, match="NaN"):
        c.compare(np.asarray(ref) * np.nan, ref, "bf16")
    with pytest.raises(c.StepFailed, match="shape"):
        c.compare([row[:-1] for row in ref], ref, "fp32")


def test_gradient_and_loss_checks():
    assert "= 8 " in c.check_gradient(8.0)
    with pytest.raises(c.StepFailed, match="expected 8"):
        c.check_gradient(6.0)
    assert "in 2 steps" in c.check_losses([1.0, 0.8, 0.5])
    with pytest.raises(c.StepFailed, match="did not fall"):
        c.check_losses([1.0, 1.2])


def test_a_step_that_raises_is_failed_and_names_its_error():
    suite = c.Suite("quick")
    suite.run("ok", lambda: "fine")
    suite.run("boom", lambda: 1 / 0)
    suite.skip("speed", "GPU only")
    result = suite.result("cpu")
    assert result["status"] == "failed"
    assert [s["status"] for s in result["steps"]] == ["passed", "failed", "skipped"]
    assert result["steps"][1]["detail"].startswith("ZeroDivisionError")


@pytest.mark.parametrize("module", sorted(WORKERS.values()))
def test_importing_a_worker_module_imports_no_framework(module):
    code = (f"import importlib, sys; importlib.import_module({module!r}); "
            "print(sorted(m for m in ('torch','tensorflow','jax','keras','paddle','mindspore',"
            "'mxnet') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True)
    assert out.stdout.strip() == "[]"


def test_a_missing_framework_answers_json_with_the_import_error():
    out = subprocess.run([sys.executable, "-m", "envdoctor.workers.mxnet"]
                         if importlib.util.find_spec("mxnet") is None else
                         [sys.executable, "-c", "raise SystemExit(0)"],
                         capture_output=True, text=True, timeout=60)
    if importlib.util.find_spec("mxnet") is not None:
        pytest.skip("mxnet is installed here")
    import json
    data = json.loads(out.stdout)
    assert data["import_ok"] is False and "No module named 'mxnet'" in data["import_error"]
    assert data["smoke"]["status"] == "error"
    assert "ModuleNotFoundError" in out.stderr  # the traceback goes to stderr for explain
