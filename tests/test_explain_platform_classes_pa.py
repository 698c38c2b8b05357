"""Platform classes read by structure (texts constructed in the forms the cited threads print;
none is a held-out text): a container whose start the text shows, or that the text says it runs
in, with no GPU request and a no-GPU symptom (ECTR005); Podman/crun's nvidia-smi missing
(ECTR021); a rootless runtime refused the device cgroup (EDRV003); an input on MPS with CPU
weights (EMPS004); MIOpen's kernel build failure as terminate prints it (EROCM009); a ROCm build
on a machine whose NVIDIA GPU is written in any case (EROCM011)."""

from __future__ import annotations

import pytest

from envdoctor.explain import diagnose_text, primary


def _code(text: str) -> str | None:
    d = primary(diagnose_text(text))
    return d.code if d else None


def _codes(text: str) -> list[str]:
    return [d.code for d in diagnose_text(text)]


NO_GPU = [
    "RuntimeError: No CUDA GPUs are available\n",
    "cudaGetDeviceCount returned 100 -> no CUDA-capable device is detected\n",
    "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n",
    ">>> print(torch.cuda.is_available())  # returns False\n",
    "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n",
]


@pytest.mark.parametrize("symptom", NO_GPU)
def test_a_container_started_without_a_gpu_request(symptom):
    # floydhub/dockerfiles#3, nvidia-docker#1071 form: the start command shows no GPU flag
    assert _code("$ docker run -it --rm myorg/train:gpu python train.py\n" + symptom) == "ECTR005"
    assert _code("podman run --rm -it localhost/trainer\n" + symptom) == "ECTR005"
    assert _code("I run it inside the docker container\n" + symptom) == "ECTR005"


@pytest.mark.parametrize("start", [
    "docker run --gpus all -it myorg/train:gpu\n",
    "docker run --runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=all myorg/train\n",
    "podman run --device nvidia.com/gpu=all myorg/train\n",
    "singularity exec --nv train.sif python train.py\n",
])
def test_a_container_started_with_a_gpu_request_is_not_that(start):
    for symptom in NO_GPU:
        assert "ECTR005" not in _codes(start + symptom)


def test_the_same_symptom_without_a_container_or_during_a_build():
    for symptom in NO_GPU:
        assert "ECTR005" not in _codes(symptom)
    # nvidia-docker#1734 form: no build step is given a GPU
    text = ("I import torch during the docker build process\n"
            "RuntimeError: Found no NVIDIA driver on your system.\n")
    assert "ECTR005" not in _codes(text)
    # a Mac has no NVIDIA GPU to hand a container
    assert "ECTR005" not in _codes("docker run img on my MacBook\n" + NO_GPU[0])


def test_a_healthy_container_text_gets_no_claim():
    text = ("$ docker run --rm -it pytorch/pytorch python -c 'import torch; print(1)'\n"
            ">>> torch.cuda.is_available() and False\n"
            "1\n")
    d = primary(diagnose_text(text))
    assert d is None or d.category != "environment"


def test_podman_crun_and_escaped_runc_nvidia_smi_missing():
    crun = ("Error: crun: executable file `nvidia-smi` not found in $PATH: No such file or "
            "directory: OCI runtime attempted to invoke a command that was not found\n")
    assert _code(crun) == "ECTR021"
    runc = ('caused "exec: \\"nvidia-smi\\": executable file not found in $PATH": unknown\n')
    assert _code(runc) == "ECTR021"
    # another program missing from the image is not the GPU's matter
    assert _code(crun.replace("nvidia-smi", "bash")) != "ECTR021"


def test_a_rootless_runtime_refused_the_device_cgroup():
    text = ("stderr: nvidia-container-cli: mount error: open failed: "
            "/sys/fs/cgroup/devices/user.slice/devices.allow: permission denied: unknown.\n")
    assert _code(text) == "EDRV003"
    other = ("nvidia-container-cli: mount error: mount operation failed: "
             "/var/lib/docker/overlay2/x/merged/proc/driver/nvidia: permission denied\n")
    assert _code(other) != "EDRV003"


@pytest.mark.parametrize(("text", "expected"), [
    ("RuntimeError: Input type (MPSFloatType) and weight type (torch.FloatTensor) should be the same",
     "EMPS004"),
    ("RuntimeError: Input type (torch.FloatTensor) and weight type (MPSFloatType) should be the same",
     "EMPS004"),
    ("RuntimeError: Input type (MPSHalfType) and weight type (CPUHalfType) should be the same",
     "EMPS004"),
])
def test_an_mps_input_with_cpu_weights(text, expected):
    assert _code(text + "\n") == expected


def test_mps_on_both_sides_is_a_dtype_matter():
    text = "RuntimeError: Input type (MPSFloatType) and weight type (MPSHalfType) should be the same\n"
    assert _code(text) != "EMPS004"


def test_miopen_kernel_build_as_terminate_prints_it():
    text = ("terminate called after throwing an instance of 'miopen::Exception'\n"
            "  what():  /MIOpen/src/hipoc/hipoc_program.cpp:299: Code object build failed. "
            "Source: MIOpenConvDirUni.cl\n")
    assert _code(text) == "EROCM009"
    assert _code("[ 40%] Building CXX object src/CMakeFiles/MIOpen.dir/hipoc/hipoc_program.cpp.o\n") is None


@pytest.mark.parametrize("gpu", ["Nvidia GeForce RTX 3050 Laptop GPU", "nvidia geforce gtx 1660",
                                 "an RTX3090", "Quadro P4000"])
def test_a_rocm_build_on_an_nvidia_gpu_written_in_any_case(gpu):
    text = f"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\nGPU: {gpu}\n"
    assert _code(text) == "EROCM011"


def test_a_rocm_build_on_an_amd_gpu_keeps_the_rocm_answer():
    text = ("hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n"
            "GPU: AMD Radeon RX 6700 XT\n")
    assert _code(text) == "EROCM001"


def test_a_toolkit_older_than_cgroup_v2_support():
    text = ("stderr: nvidia-container-cli: container error: cgroup subsystem devices not found: "
            "unknown.\n")
    assert _code(text) == "ECTR030"
    # 1.8.0's own cgroup v2 fault is not the missing support
    assert _code("nvidia-container-cli: container error: failed to get device cgroup mount path: "
                 "unable to create cgroupv0 interface: invalid version: unknown.\n") != "ECTR030"


def test_a_toolkit_configured_with_another_distributions_ldconfig():
    assert _code("stderr: nvidia-container-cli: ldcache error: open failed: /sbin/ldconfig.real: "
                 "no such file or directory: unknown.\n") == "ECTR031"
    assert _code("nvidia-container-cli: ldcache error: process /sbin/ldconfig.real failed with "
                 "error code: 1: unknown.\n") != "ECTR031"


@pytest.mark.parametrize("said", ["I run it on my Mac", "installed torch in my Mac laptop",
                                  "  File \"/Library/Frameworks/Python.framework/Versions/3.9/lib/"
                                  "python3.9/site-packages/torch/cuda/__init__.py\", line 211"])
def test_cuda_asked_for_on_a_mac_as_people_write_mac(said):
    text = said + "\nAssertionError: Torch not compiled with CUDA enabled\n"
    assert _code(text) == "EMPS021"


def test_a_mac_address_is_no_mac():
    text = "using mac address 02:42:ac:11:00:02\nAssertionError: Torch not compiled with CUDA enabled\n"
    assert _code(text) == "ETORCH006"
