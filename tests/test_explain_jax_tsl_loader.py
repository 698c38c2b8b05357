"""TSL's loader line ("Could not load dynamic library 'libX.so.N'"), which TensorFlow and the CUDA
builds of jaxlib before 0.4 share, read by the framework the text names: in a text that names JAX
and never TensorFlow (an old jaxlib's external/org_tensorflow source paths are XLA's, not
TensorFlow), a library other than the CUDA runtime is JAX's CUDA library (ECUDNN008 with JAX's
fix, ETF002's yield narrowed by ``evidence``); TensorFlow's texts keep ETF002. The texts follow
the form jaxlib prints (jax-ml/jax#2315 for jaxlib's own import); none is a held-out text."""

from __future__ import annotations

import pytest

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.stated import check_yields
from envdoctor.rulefiles import RuleFileError

TSL = ("W external/org_tensorflow/tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
       "Could not load dynamic library '{lib}'; dlerror: {lib}: cannot open shared object file: "
       "No such file or directory\n")


def _primary(text: str):
    d = primary(diagnose_text(text))
    assert d is not None
    return d


def test_tsl_loader_line_in_a_jax_text_is_jax_cuda_library():
    text = ">>> import jax.numpy as jnp\n>>> jnp.linalg.svd(x)\n" + TSL.format(lib="libcublas.so.11")
    d = _primary(text)
    assert d.code == "ECUDNN008"
    assert "jax[cuda12]" in d.fix and "tensorflow" not in d.fix.lower()
    d = _primary("jaxlib 0.1.69+cuda111\n" + TSL.format(lib="libcufft.so.10"))
    assert d.code == "ECUDNN008"


def test_tsl_loader_line_stays_tensorflow_where_tensorflow_is_named():
    for head in ("import tensorflow as tf\nimport jax\n", "import jax\ntf.config.list_physical_devices()\n"):
        assert _primary(head + TSL.format(lib="libcusolver.so.11")).code == "ETF002"
    plain = TSL.format(lib="libcusolver.so.11").replace("external/org_tensorflow/", "")
    assert _primary("import jax\n" + plain).code == "ETF002"


def test_a_lone_cudart_line_in_a_jax_text_keeps_tensorflows_reading():
    # the CUDA runtime lookup is printed on machines without a GPU set up: not yielded
    found = diagnose_text("import jax\n" + TSL.format(lib="libcudart.so.11.0"))
    assert [d.code for d in found] == ["ETF002"]
    assert not any(d.category == "environment" for d in found)


def test_jax_loader_failure_by_the_loader_itself_gets_jax_fix():
    # jax-ml/jax#2315: jaxlib's import cannot open CUDA 10.0's cuSOLVER
    text = ("pip install --upgrade $BASE_URL/cuda101/jaxlib-0.1.39-cp38-none-linux_x86_64.whl\n"
            "pip install --upgrade jax\n"
            "ImportError: libcusolver.so.10.0: cannot open shared object file: "
            "No such file or directory\n")
    d = _primary(text)
    assert d.code == "ECUDNN008" and "jax[cuda12]" in d.fix


def test_yield_evidence_must_be_a_safe_regex():
    ok = [{"code": "ECUDNN008", "stated": "jax_not_tensorflow", "evidence": "libcu(?:blas|fft)"}]
    assert check_yields(ok, "x.toml") == tuple(ok)
    for bad in ("(", "(a+)+$", ""):
        with pytest.raises(RuleFileError):
            check_yields([{"code": "X", "stated": "jax_not_tensorflow", "evidence": bad}], "x.toml")
