"""Classes of batch AI/AJ's misses, each from other threads: a CUDA 9 build on a Turing GPU
(cuBLAS fails there: pytorch/pytorch#21468, #18620, #20860), a GeForce number written after
"GPU" ("GPU 2080Ti"), TensorFlow's OOM on its CPU allocator (darkflow#873) and nvidia-docker
1.0's "unsupported CUDA version: driver X < image Y" (nvidia-docker#497)."""

from envdoctor.explain import diagnose_text
from envdoctor.explain.gpustated import libraries_predate_gpu_reason
from envdoctor.explain.rank import primary
from envdoctor.explain.textfacts import stated_gpu_cc, text_facts

THC = "RuntimeError: cublas runtime error : the GPU program failed to execute at /x/THCBlas.cu:441\n"


def _top(text: str) -> str | None:
    found = primary(diagnose_text(text))
    return found.code if found is not None else None


def test_gpu_number_after_the_word_gpu() -> None:
    assert text_facts("trained on one GPU 2080Ti")
    assert "RTX 2080 Ti" in text_facts("trained on one GPU 2080Ti").gpus
    assert "GTX 1080" in text_facts("GPU1080 with cuda 9").gpus
    assert text_facts("GPU0 1080 MiB").gpus == ()
    assert stated_gpu_cc("RTX 2080Ti") == "7.5"


def test_cuda9_build_on_turing_reads_as_build_lacking_gpu() -> None:
    said = ("PyTorch version: 1.1.0\nCUDA used to build PyTorch: 9.0.176\nCUDA runtime version: "
            "10.0.130\nGPU models and configuration: GPU 0: GeForce RTX 2080 Ti\n")
    assert libraries_predate_gpu_reason(said) is not None
    assert _top(THC + said) == "ECUDA004"
    assert _top(THC + "Pytorch 1.0.1 and cuda 9.0 with a RTX 2080 Ti GPU\n") == "ECUDA004"


def test_cuda10_or_no_cuda_stays_cublas() -> None:
    assert libraries_predate_gpu_reason("Error while using RTX 2080Ti\ncuda10.0\n") is None
    assert _top(THC + "Error while using RTX 2080Ti\ncuda10.0\n") == "ECUDNN002"
    assert _top(THC + "I use 2080Ti, it works on 1080Ti\n") == "ECUDNN002"
    # nvidia-smi's CUDA Version is the driver's ceiling, not the build
    smi = "| NVIDIA-SMI 410.48       Driver Version: 410.48       CUDA Version: 9.0     |\n"
    assert libraries_predate_gpu_reason(smi + "GeForce RTX 2080\n") is None
    # an Ampere GPU has no libraries_first_cuda row: no reading
    assert libraries_predate_gpu_reason("RTX 3090 with CUDA 9.0\n") is None


def test_tf_cpu_allocator_oom_is_host_ram() -> None:
    line = ("ResourceExhaustedError: OOM when allocating tensor with shape[16,19,19,1024] and type "
            "float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu\n")
    assert _top(line) == "ETF014"
    assert _top(line.replace("CPU:0 by allocator cpu", "GPU:0 by allocator GPU_0_bfc")) == "ETF004"


def test_nvidia_docker_1_wording() -> None:
    assert _top("Error: unsupported CUDA version: driver 7.5 < image 8.0\n") == "ECTR003"
    assert _top("Error: unsupported CUDA version: driver 0.0 < image 8.0\n") != "ECTR003"
