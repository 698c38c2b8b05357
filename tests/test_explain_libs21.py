"""Issue 21, shared libraries that fail to load: read by structure (the symbol version before
"not found" whatever the quotes, a GPU name however it is spaced, the package a CUDA build
belongs to), not by one wording. Real texts name their thread; the others say synthetic."""

from __future__ import annotations

import pytest

from envdoctor.explain import diagnose_text, primary


def _top(text: str):
    return primary(diagnose_text(text))


@pytest.mark.parametrize("text", [
    # https://github.com/numpy/numpy/issues/27133 (title: straight quotes inside backticks)
    "NumPy fails with `version 'GLIBC_2.29' not found` on CentOS 7.9.2009\n",
    # https://github.com/CentOS/sig-cloud-instance-images/issues/196 (title)
    "`GLIBC_2.29` not found\n",
    # synthetic: the loader's message with the opening quote lost
    "ImportError: /lib64/libc.so.6: version GLIBC_2.28' not found\n",
])
def test_glibc_symbol_version_not_found_whatever_the_quotes(text):
    d = _top(text)
    assert d is not None and d.code == "ESYS004"


@pytest.mark.parametrize("text", [
    # https://github.com/RocketChat/Rocket.Chat/issues/31258 (title)
    "GLIBCXX_3.4.29' not found\n",
    # synthetic: the loader's message with the opening backtick lost, in a conda env
    "ImportError: /opt/conda/envs/x/lib/libstdc++.so.6: version GLIBCXX_3.4.31' not found "
    "(required by /opt/x/ext.cpython-311-x86_64-linux-gnu.so)\n",
    # https://github.com/Sinuslabs/Reach/issues/12 (title)
    "'GLIBCXX_3.4.30' not found\n",
])
def test_glibcxx_symbol_version_not_found_whatever_the_quotes(text):
    d = _top(text)
    assert d is not None and d.code == "ESYS010"


def test_glibc_versions_listed_are_no_claim():
    # synthetic: strings output listing the versions a library provides
    assert _top("GLIBC_2.17\nGLIBC_2.28\nGLIBCXX_3.4.29\nCXXABI_1.3.13\n") is None


@pytest.mark.parametrize("text", [
    # https://github.com/yu4u/dnn-watermark/issues/9
    's.ok() could not find cudnnCreate in cudnn DSO; dlerror: cudnnCreate not found\n',
    # https://github.com/tensorflow/tensorflow/issues/722
    "F tensorflow/stream_executor/cuda/cuda_dnn.cc:207] could not find cudnnCreate in cudnn DSO; "
    "dlerror: /usr/local/lib/python2.7/site-packages/tensorflow/python/_pywrap_tensorflow.so: "
    "undefined symbol: cudnnCreate\n",
])
def test_tf1_cudnn_function_missing_from_its_dso(text):
    d = _top(text)
    assert d is not None and d.code == "ETF002" and d.is_environment


CUDART_GPU = """2021-01-10 10:00:00.000000: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found
2021-01-10 10:00:00.000100: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do not have a GPU set up on your machine.
"""


@pytest.mark.parametrize("gpu", ["RTX3070ti", "GTX1080Ti", "RTX 4090", "GeForce GTX 1650"])
def test_lone_cudart_dlerror_next_to_a_named_gpu_is_a_problem(gpu):
    # synthetic: the machine's GPU named in the report, however it is spaced
    d = _top(f"GPU: {gpu}\n" + CUDART_GPU)
    assert d is not None and d.code == "ETF002" and d.is_environment


def test_lone_cudart_dlerror_without_a_gpu_stays_harmless():
    # synthetic: a CPU-only machine's start-up lines, a model number that is not a GPU
    text = "model file resnet3070.h5\n" + CUDART_GPU
    assert _top(text) is None
    assert diagnose_text(text)[0].category == "benign"


@pytest.mark.parametrize("build", ["mxnet101", "mxnet_cu102", "mxnet-cu90", "gluoncv 0.5.0",
                                   "GluonNLP"])
def test_mxnet_named_by_its_build_or_toolkit_gets_the_mxnet_answer(build):
    # synthetic: no frame under mxnet/, MXNet named only by a build word or a toolkit on it
    d = _top("OSError: libcudart.so.10.0: cannot open shared object file: No such file or "
             f"directory\nI installed {build} with pip.\n")
    assert d is not None and d.code == "EMX001"


def test_cuda_runtime_missing_without_mxnet_is_not_mxnet():
    # synthetic: a word that only contains the letters (no build of MXNet)
    d = _top("OSError: libcudart.so.10.0: cannot open shared object file: No such file or "
             "directory\nmy project is called mxnetworks2 and it uses darknet.\n")
    assert d is not None and d.code == "ECUDA014"


@pytest.mark.parametrize(("typed", "read"), [
    ("libcudartso.11.0", "libcudart.so.11.0"),
    ("libcublasso.10", "libcublas.so.10"),
    ("libcusparseso.11", "libcusparse.so.11"),
])
def test_so_run_into_a_known_stem_is_read_as_that_library(typed, read):
    # synthetic: hand-typed names with the dot before "so" lost
    from envdoctor.explain.textfacts import correct_library_names, text_facts
    assert correct_library_names(f"ImportError: {typed}: x") == f"ImportError: {read}: x"
    assert text_facts(f"ImportError: {typed}: x").libraries == (read,)


def test_so_run_into_an_unknown_stem_is_left_alone():
    from envdoctor.explain.textfacts import correct_library_names, text_facts
    text = "see libalso.1 and libresso.2.0 here"
    assert correct_library_names(text) == text and text_facts(text).libraries == ()


def test_run_together_cudart_typo_is_explained_on_the_second_reading():
    # synthetic: a title typed by hand, the dot before "so" lost
    d = _top("ImportError: libcudartso.10.2: cannot open shared object file: No such file or "
             "directory\n")
    assert d is not None and d.code == "ECUDA014"
