"""Two text readings: a package of rules/matrices/arch_floors.toml named beside "no kernel image"
and only GPUs below its floor is the floor (ECUDA016), not a build without the GPU (ECUDA003); and
TensorFlow's lone cudart dlerror is harmless only where nothing says the machine is set up for
the GPU. Texts are short excerpts of the cited threads."""

from __future__ import annotations

import pytest

from envdoctor.explain import diagnose_text, primary

# https://github.com/sgl-project/sglang/issues/831: sglang 0.2.12 on a V100 (7.0; SGLang: sm75+)
SGLANG_V100 = """RuntimeError: RMSNorm failed with error code no kernel image is available for execution on the device
GPU 0: Tesla V100-SXM2-32GB
sglang: 0.2.12
"""
# https://github.com/NVIDIA/cuml/issues/2167: cuML 0.13 on Tesla M60s (5.2; RAPIDS: Pascal+)
CUML_M60 = """  File "cuml/cluster/dbscan.pyx", line 253, in cuml.cluster.dbscan.DBSCAN.fit
RuntimeError: Exception occured! file=/conda/conda-bld/libcuml_1585675090179/work/cpp/src_prims/distance/epsilon_neighborhood.cuh line=179: FAIL: call='cudaGetLastError()'. Reason:no kernel image is available for execution on the device
GPU 0: Tesla M60 (UUID: GPU-a57c5af6-46ff-2642-e855-6815c2af4f0d)
"""
NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"


@pytest.mark.parametrize("text", [
    SGLANG_V100, CUML_M60,
    # a stated release whose row has a floor: bitsandbytes 0.42 carries no Kepler binaries
    NO_KERNEL + "bitsandbytes 0.42.0\nGPU: Tesla K80\n",
    # a frame under triton/ on a GPU below Triton's 7.0
    NO_KERNEL + '  File "/usr/lib/python3.10/site-packages/triton/compiler/compiler.py", line 3\n'
    "GPU: Tesla P100-PCIE-16GB\n",
])
def test_no_kernel_image_with_a_package_floor_above_the_gpu_is_the_floor(text):
    d = primary(diagnose_text(text))
    assert d is not None and d.code == "ECUDA016", d and d.code


@pytest.mark.parametrize("text", [
    # https://github.com/sgl-project/sglang/issues/24224: a T4 (7.5) meets SGLang's stated floor
    NO_KERNEL + 'File ".../sglang/srt/layers/rotary_embedding.py", line 210\nTesla T4 (sm_75)\n',
    # bitsandbytes without its version: releases before 0.39.1 had Kepler binaries
    NO_KERNEL + '  File "/usr/lib/python3/site-packages/bitsandbytes/functional.py", line 10\n'
    "GPU: Tesla K80\n",
    # triton only listed (every torch install carries it), not in the traceback
    NO_KERNEL + "triton 2.1.0\nGPU: Tesla P100-PCIE-16GB\n",
    # https://github.com/pytorch/pytorch/issues/44828: torch itself on a K80, no floor package
    "pytorch 1.4\ncuda 10.1\ntesla K80\nTHCudaCheck FAIL file=/pytorch/aten/src/ATen/native/cuda/"
    "Dropout.cu line=147 error=209 : no kernel image is available for execution on the device\n",
])
def test_no_kernel_image_without_a_floor_above_every_gpu_stays_the_build(text):
    d = primary(diagnose_text(text))
    assert d is not None and d.code == "ECUDA003", d and d.code


DLERROR = ("W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load dynamic "
           "library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n"
           "I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you "
           "do not have a GPU set up on your machine.\n")


@pytest.mark.parametrize("said", [
    "It is working but on CPU instead of GPU.",
    "tf_nightly_gpu-2.4.0.dev20201023",
    "cuda version:  11.1",
    "I installed CUDA and cuDNN from NVIDIA.",
    "Tensorflow can't use my GPU",
    "Local GPU training for image classification fails",
])
def test_a_cudart_dlerror_where_the_text_says_the_gpu_is_set_up_is_the_cause(said):
    d = primary(diagnose_text(said + "\n" + DLERROR))
    assert d is not None and d.code == "ETF002", d and d.code


@pytest.mark.parametrize("said", [
    # https://github.com/google/lightweight_mmm/issues/23: the library then runs
    "Got the following error:",
    "Any thoughts on why this is showing? It runs fine on the CPU.",
    "I don't have a GPU on this laptop, is this warning a problem?",
])
def test_a_lone_cudart_dlerror_stays_harmless(said):
    assert primary(diagnose_text(said + "\n" + DLERROR)) is None


def test_tensorflow_gpu_named_in_prose_is_the_gpu_package():
    from envdoctor.parsers import informal
    part = informal.parse("I installed tensorflow-gpu 2.0.0 with pip\n")
    assert part.values["frameworks.tensorflow.distribution"] == "tensorflow-gpu"
    # the plain package, or both named: not said
    for text in ("I installed tensorflow 2.0.0 with pip\n",
                 "tensorflow-gpu 2.0.0 and tensorflow 2.0.0 are both here\n"):
        assert "frameworks.tensorflow.distribution" not in informal.parse(text).values
