"""Classes built after batch T's first run (texts in the forms the cited threads print; none is a
held-out text): a small /dev/shm stated in prose beside a tensor-sharing crash (ESYS008), XLA's
DNN-library failure in a text that names JAX and not TensorFlow (ETF006 -> EJAX006, reading
``jax_not_tensorflow``), a new architecture named unsupported where Triton is at work
(ETRITON003), pip's refusal retold in prose (EPIP001), bitsandbytes' Windows DLL that failed to
load (EBNB001), and a binary's glibc stated above the system's (ESYS004, a stated
impossibility, which the ``explain`` command now reads as ``diagnose_text`` does)."""

from __future__ import annotations

import json

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.impossible import glibc_reason
from envdoctor.explain.stated import jax_not_tensorflow_reason

SHARE_FRAMES = (
    '  File "/opt/conda/lib/python3.10/site-packages/torch/multiprocessing/reductions.py", '
    'line 607, in reduce_storage\n    metadata = storage._share_filename_cpu_()\n')


def _code(text: str) -> str | None:
    d = primary(diagnose_text(text))
    return d.code if d else None


def _claim(text: str) -> str | None:
    d = primary(diagnose_text(text))
    return d.code if d is not None and d.category == "environment" else None


def test_a_small_shm_stated_in_prose_beside_a_sharing_crash_is_shm():
    # ostris/ai-toolkit-like prose, replicate/cog#1293's sizes; the frames torch prints
    text = "The container's /dev/shm is only 64MB on this platform.\n" + SHARE_FRAMES
    assert _code(text) == "ESYS008"
    text = "Docker's default 64MB /dev/shm is too small for us.\n" + SHARE_FRAMES
    assert _code(text) == "ESYS008"


def test_a_shm_size_alone_or_beside_another_failure_names_nothing():
    assert _claim("/dev/shm is 64MB in replicate.com but it is 8GB when run with cog\n") is None
    assert _claim("I set shm_size to 2GB (it defaults to 64MB)\n") is None
    oom = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
           "my /dev/shm is only 64MB, could that matter?\n")
    assert _code(oom) != "ESYS008"


DNN = "jaxlib.xla_extension.XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization failed.\n"


def test_xla_dnn_failure_is_jax_where_the_text_names_jax_alone():
    # jax-ml/jax#16082, cloudhan/jax-windows-builder#34 forms
    assert _code(DNN) == "EJAX006"
    framed = ("File d:\\envs\\lib\\site-packages\\jax\\_src\\numpy\\lax_numpy.py:2172, in zeros\n"
              "XlaRuntimeError: FAILED_PRECONDITION: DNN library initialization failed.\n")
    assert _code(framed) == "EJAX006"
    # an old jaxlib logs XLA's sources under org_tensorflow: still JAX's
    old = ("E external/org_tensorflow/tensorflow/compiler/xla/stream_executor/cuda/"
           "cuda_dnn.cc:361] x\n" + DNN)
    assert jax_not_tensorflow_reason(old) is not None
    assert _code(old) == "EJAX006"


def test_xla_dnn_failure_stays_tensorflow_where_tensorflow_is_named():
    tf = ("2023-06-18 11:49:15: W tensorflow/core/framework/op_kernel.cc:1830] UNIMPLEMENTED: "
          "DNN library is not found.\n")
    assert jax_not_tensorflow_reason(tf) is None
    assert _code(tf) == "ETF006"
    both = "import jax, tensorflow as tf\n" + DNN
    assert jax_not_tensorflow_reason(both) is None
    assert _code(both) == "ETF006"
    assert jax_not_tensorflow_reason("AJAX request failed\nDNN library is not found\n") is None


def test_a_new_arch_unsupported_under_triton_or_compile_is_triton_ptxas():
    # pytorch/pytorch#90170 form: a title, then inductor frames
    text = ("torch.compile sm89 error\n"
            '  File "/x/site-packages/torch/_inductor/codecache.py", line 488, in _worker_compile\n')
    assert _code(text) == "ETRITON003"
    assert _claim("My RTX 4090 (sm_89) is not supported? the model runs on CPU\n") is None


def test_pip_refusal_in_prose_is_no_wheel():
    # zeyad-mansour/lunar#204 (a clipped title)
    text = ("ould not find a version that satisfies the requirement torch==1.11.0+cu113 "
            "(from versions: none)\nI have python 3.11\n")
    assert _code(text) == "EPIP001"
    assert _claim("I could not find the version of the docs that matches my install\n") is None


DLL = ("CUDA SETUP: Loading binary C:\\kohya_ss\\venv\\lib\\site-packages\\bitsandbytes\\"
       "libbitsandbytes_cuda116.dll...\n")


def test_bnb_windows_dll_that_failed_to_load_is_bnb_setup():
    # bitsandbytes-foundation/bitsandbytes#248 / #197 forms
    text = DLL + ('Traceback (most recent call last):\n  File "C:\\kohya_ss\\venv\\lib\\site-'
                  'packages\\bitsandbytes\\cextension.py", line 43, in <module>\n')
    assert _code(text) == "EBNB001"
    assert _code("FileNotFoundError: Could not find module\n\n" + DLL) == "EBNB001"


def test_bnb_dll_banner_alone_or_beside_a_user_error_names_nothing():
    assert _claim(DLL + "use 8-bit AdamW optimizer | {}\n") is None
    assert _claim(DLL + "FileNotFoundError: [Errno 2] No such file or directory: "
                  "'D:\\train\\img'\n") is None


def test_a_binary_glibc_stated_above_the_system_glibc_is_glibc_too_old():
    # acquire-project/acquire-zarr#129, rerun-io/rerun#2628 forms
    text = "On our cluster (Rocky Linux 8.10) we have glibc 2.28, but the wheels are for 2.35+.\n"
    assert glibc_reason(text) is not None
    assert _code(text) == "ESYS004"
    text = ("The wheel on PyPI has the platform tag manylinux_2_31, which is incompatible with "
            "my GLIBC version (2.17)\n")
    assert glibc_reason(text) is not None


def test_a_glibc_that_is_new_enough_or_stated_once_names_nothing():
    assert glibc_reason("Our wheels require glibc 2.17; CentOS 7 has glibc 2.17.\n") is None
    assert glibc_reason("This binary requires glibc 2.28 or newer.\n") is None
    assert glibc_reason("My system glibc is 2.35 and the wheel is manylinux_2_28.\n") is None
    assert _claim("Ubuntu 22.04 with glibc 2.35, everything works\n") is None


def test_the_explain_command_reads_the_stated_impossibility_as_diagnose_text(cli, tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("Cannot run on CentOS with glibc 2.17\n"
                    "The glibc version of this wheel is 2.23.\n")
    r = cli("explain", "--no-facts", "--format", "json", str(path))
    assert r.returncode == 0
    assert json.loads(r.stdout)["diagnoses"][0]["code"] == _code(path.read_text()) == "ESYS004"
