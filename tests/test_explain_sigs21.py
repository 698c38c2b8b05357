"""Issue 21 signature breadth: the answer a text's own words call for (fix wording by setting,
yielding where the cause is the user's tensor). Texts are real, each with its thread."""

from __future__ import annotations

from envdoctor.explain import diagnose_text, primary


def _top(text: str):
    return primary(diagnose_text(text))


# https://github.com/mittagessen/kraken/issues/699 (no container anywhere in the thread's text)
SHM_BUS_HOST = """DataLoader worker (pid 270071) is killed by signal:\x20
Bus error. It is possible that dataloader's workers are out of shared memory.\x20
Please try to raise your shared memory limit.\x20
"""
# https://github.com/MIC-DKFZ/nnUNet/issues/294
SHM_WRITE_HOST = """  File "/raid/zhengsc/anaconda3/lib/python3.7/site-packages/torch/multiprocessing/reductions.py", line 333, in reduce_storage
    fd, size = storage._share_fd_()
RuntimeError: unable to write to file </torch_15769_1517813162>
"""


def test_shm_outside_a_container_is_not_answered_with_docker_only():
    for text, code in ((SHM_BUS_HOST, "ESYS007"), (SHM_WRITE_HOST, "ESYS008")):
        d = _top(text)
        assert d is not None and d.code == code
        head = d.fix.split("In a container")[0]
        assert "mount -o remount,size=" in head and "docker" not in head
        assert "file_system" in d.fix and "num_workers" in d.fix


def test_shm_in_a_container_leads_with_shm_size():
    d = _top("docker run --gpus all -it image\n" + SHM_BUS_HOST)
    assert d is not None and d.code == "ESYS007"
    assert d.fix.startswith("The text runs in a container") and "--shm-size" in d.fix


# https://github.com/rapidsai/docker/issues/353
NCCL_DOCKER = """RuntimeError: NCCL_ERROR: b'unhandled system error'

when running the cuML examples in the container on DASK.
* container start flags: --gpus all --rm -it -p 8888:8888 -p 8787:8787 -p 8786:8786
My guess would be that NCCL can't communicate through the docker container.
"""


def test_nccl_system_error_between_containers_names_host_network_and_ipc():
    d = _top(NCCL_DOCKER)
    assert d is not None and d.code == "ENCCL001"
    assert "--network host" in d.fix and "--ipc host" in d.fix
    assert "NCCL_SOCKET_IFNAME" in d.fix


def test_nccl_misspelt_unhandled_reads_the_same():
    # synthetic: c10d builds of 2019 printed the misspelling "unhanled system error"
    d = _top("RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:272, unhanled system error\n"
             "both ranks run in docker containers on two hosts\n")
    assert d is not None and d.code == "ENCCL001" and "--network host" in d.fix


# https://github.com/vllm-project/vllm/issues/1936 (vLLM named in the title and a service name,
# the GPU in a comment's prose)
VLLM_P100 = """Can't load `vllm-openai/v0.2.3` image
vllm_1   | RuntimeError: CUDA error: no kernel image is available for execution on the device
vllm_1   | CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
me too.  same version,  same issue.  OS: linux. GPU: P100,
"""
NO_KERNEL_IN_VLLM = """  File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/layers/layernorm.py", line 59, in forward
    out = torch.empty_like(x)
RuntimeError: CUDA error: no kernel image is available for execution on the device
"""


def test_no_kernel_image_with_vllm_and_a_gpu_below_its_floor_is_the_floor():
    d = _top(VLLM_P100)
    assert d is not None and d.code == "ECUDA016"
    assert any("compute capability 6.0" in n and "7.0" in n for n in d.notes)


def test_no_kernel_image_stays_generic_without_a_gpu_below_the_floor():
    assert _top(NO_KERNEL_IN_VLLM).code == "ECUDA003"  # no GPU stated
    assert _top("GPU 0: NVIDIA A100-SXM4-80GB\n" + NO_KERNEL_IN_VLLM).code == "ECUDA003"
    # a P100 without vLLM: torch's own arch list is the question, not a package floor
    assert _top("GPU 0: Tesla P100-PCIE-16GB\nRuntimeError: CUDA error: no kernel image is "
                "available for execution on the device\n").code == "ECUDA003"


def test_flash_attn_floor_reads_either_spelling():  # synthetic text
    text = ("pip install flash-attn --no-build-isolation\nGPU 0: Tesla T4\nGPU 0: NVIDIA GeForce "
            "RTX 2080 Ti\nRuntimeError: CUDA error: no kernel image is available for execution "
            "on the device\n")
    assert _top(text).code == "ECUDA016"


def test_vllm_frame_and_p100_list_is_the_floor():
    # https://github.com/vllm-project/vllm/issues/3785
    text = ('(RayWorkerVllm pid=486309) ERROR 04-02 10:16:23 ray_utils.py:44]   File "/home/paas/'
            'miniconda3/envs/naie/lib/python3.10/site-packages/vllm/engine/ray_utils.py", line 37,'
            ' in execute_method [repeated 6x across cluster]\nRuntimeError: CUDA error: no kernel '
            'image is available for execution on the device\nGPU models and configuration: \n'
            'GPU 0: Tesla P100-PCIE-16GB\nGPU 1: Tesla P100-PCIE-16GB\n')
    assert _top(text).code == "ECUDA016"


def test_manylinux_2_28_refused_reads_glibc_or_pip_by_the_system_named():
    # https://github.com/tensorflow/tensorflow/issues/25593 (CentOS 7: glibc 2.17)
    d = _top("Using Centos 7.5 which has glibc2.17, tensorflow nightly build fails on import\n"
             "ImportError: /lib64/libm.so.6: version `GLIBC_2.23' not found (required by "
             "/python3.7/site-packages/tensorflow/python/_pywrap_tensorflow_internal.so)\n")
    assert d.code == "ESYS004" and d.confidence == "high"
    # https://github.com/mlc-ai/mlc-llm/issues/1281 (Ubuntu 20.04, glibc 2.31: an old pip)
    d = _top("ERROR: mlc_ai_nightly_rocm56-0.12.dev1832-cp38-cp38-manylinux_2_28_x86_64.whl is not "
             "a supported wheel on this platform.\n - Operating system  ubuntu20\n")
    assert d.code == "ESYS004" and d.confidence == "medium"
    assert d.fix.startswith("Upgrade pip first")
    # synthetic: the refusal on a named CentOS 7 host
    d = _top("CentOS Linux release 7.9.2009 (Core)\nERROR: foo-1.0-cp310-cp310-manylinux_2_28_x86_64"
             ".whl is not a supported wheel on this platform.\n")
    assert d.code == "ESYS004" and d.confidence == "high"
    assert any("glibc 2.17" in n for n in d.notes)
    # a manylinux2014 wheel refused is not glibc
    d = _top("ERROR: numpy-1.26.4-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl is "
             "not a supported wheel on this platform.\n")
    assert d is None or d.code != "ESYS004"


def test_ldd_listing_of_libmxnet_names_the_missing_cuda_runtime():
    # synthetic listing in ldd's own format (ldd prints "NAME => not found" for each unresolved one)
    text = ('$ ldd site-packages/mxnet/libmxnet.so | grep "not found"\n'
            '\tlibcudart.so.10.0 => not found\n\tlibcublas.so.10.0 => not found\n')
    assert _top(text).code == "EMX001"
    other = "$ ldd build/libtorch_cuda.so | grep found\n\tlibcudart.so.11.0 => not found\n"
    assert (_top(other) is None) or _top(other).code != "EMX001"


def test_mxnet_wheel_prose_with_the_loader_error_is_emx001():
    # https://github.com/apache/mxnet/issues/5835
    d = _top("MXNet version:\nversion pip install mxnet-cu80,  0.9.3a3\n"
             "OSError: libcudnn.so.5: cannot open shared object file: No such file or directory\n")
    assert d.code == "EMX001"


# https://github.com/camenduru/DeepCache-colab/issues/2 (a T4: two operators also want sm_80, but
# every one is refused because this xFormers has no CUDA kernels)
XF_NO_CUDA = """NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:
     query       : shape=(1, 2, 1, 40) (torch.float32)
     attn_bias   : <class 'NoneType'>
`decoderF` is not supported because:
    xFormers wasn't build with CUDA support
    attn_bias type is <class 'NoneType'>
    operator wasn't built - see `python -m xformers.info` for more info
`flshattF@0.0.0` is not supported because:
    xFormers wasn't build with CUDA support
    requires device with capability > (8, 0) but your GPU has capability (7, 5) (too old)
    dtype=torch.float32 (supported: {torch.float16, torch.bfloat16})
"""
# synthetic, in xFormers' own format: one operator wants a newer GPU, the one that runs on every
# GPU is refused only for the caller's unaligned attn_bias
XF_BIAS_ONLY = """NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:
     query       : shape=(2, 77, 8, 64) (torch.float16)
     attn_bias   : <class 'torch.Tensor'>
`flshattF@v2.3.6` is not supported because:
    requires device with capability > (8, 0) but your GPU has capability (7, 0) (too old)
    attn_bias type is <class 'torch.Tensor'>
`cutlassF` is not supported because:
    attn_bias.stride(-2) % 8 != 0 (attn_bias.stride() = (47432, 5929, 77, 1))
    HINT: To use an `attn_bias` with a sequence length that is not a multiple of 8, you need to ensure memory is aligned by slicing a bigger tensor. Example: use `attn_bias = torch.zeros([1, 1, 5, 8])[:,:,:,:5]` instead of `torch.zeros([1, 1, 5, 5])`
"""


def test_xformers_without_cuda_kernels_is_the_install():
    d = _top(XF_NO_CUDA)
    assert d.code == "EBUILD010" and d.category == "environment"


def test_xformers_refusing_only_an_unaligned_attn_bias_is_no_environment_claim():
    d = _top(XF_BIAS_ONLY)
    assert d is not None and d.code == "EUSER009" and d.category != "environment"
    codes = [x.code for x in diagnose_text(XF_BIAS_ONLY)]
    assert "ECUDA016" not in codes


def test_xformers_capability_refusal_alone_still_fires_the_floor():
    # https://github.com/mistralai/mistral-finetune/issues/79 shape, no bias line
    d = _top("`flshattF@v2.3.6` is not supported because:\n    requires device with capability > "
             "(8, 0) but your GPU has capability (6, 1) (too old)\n")
    assert d.code == "ECUDA016"
