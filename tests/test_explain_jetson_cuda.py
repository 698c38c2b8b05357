"""A Jetson build that asks for another CUDA release's library than the one the text states is a
build for another JetPack (stated reading ``jetson_cuda_differs``: ETEGRA020 yields to ETEGRA002).
"""

from __future__ import annotations

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.stated import jetson_cuda_reason

# https://github.com/NVIDIA-ISAAC-ROS/isaac_ros_argus_camera/issues/36 (JetPack 6, CUDA 12.2)
ISAAC = ("wrong cudart on jetpack 6\n"
         "docker run --runtime nvidia isaac_ros_dev-aarch64\n"
         "Failed to load library: Could not load library dlopen error: libcudart.so.11.0: cannot "
         "open shared object file: No such file or directory, at ./src/shared_library.c:99\n"
         "why is libcudart.so.11.0 linked even if jetpack 6 comes with cuda12.2 ?\n")


def test_another_cuda_release_on_a_jetson_is_a_wheel_for_another_jetpack():
    assert "CUDA 11.x" in jetson_cuda_reason(ISAAC)
    got = primary(diagnose_text(ISAAC))
    assert got.code == "ETEGRA002" and any("another JetPack" in n for n in got.notes)


def test_cudart_10_minor_and_nvcc_release_are_read():
    text = ("Jetson Nano, Jetpack 4.4 [L4T 32.4.2]\n"
            "Cuda compilation tools, release 10.2, V10.2.89\n"
            "./darknet: error while loading shared libraries: libcudart.so.10.0: cannot open "
            "shared object file: No such file or directory\n")
    assert "CUDA 10.0" in jetson_cuda_reason(text)


def test_same_release_no_jetson_or_two_releases_read_nothing():
    same = ISAAC.replace("cuda12.2", "cuda11.4")
    assert jetson_cuda_reason(same) is None
    # the same library on a desktop: not a JetPack question
    desktop = ISAAC.replace("jetpack 6", "my desktop").replace("wrong cudart on jetpack 6\n", "")
    assert jetson_cuda_reason(desktop) is None
    two = ISAAC + "CUDA 11.4 and CUDA 12.2 are both installed\n"
    assert jetson_cuda_reason(two) is None
    # cuFFT numbers its own releases (libcufft.so.10 ships with CUDA 11): not read
    fft = ISAAC.replace("libcudart.so.11.0", "libcufft.so.10")
    assert jetson_cuda_reason(fft) is None
    # the container with the library its JetPack has: still the container's missing mount
    ok = ISAAC.replace("libcudart.so.11.0", "libcudart.so.12")
    assert primary(diagnose_text(ok)).code == "ETEGRA020"


def test_nvidia_gstreamer_elements_missing_in_an_l4t_container_are_the_runtime_mounts():
    # constructed around the lines of dusty-nv/jetson-inference#1727 (Xavier AGX, docker)
    text = ("detectnet in docker on Xavier AGX (L4T 35.2.1)\n"
            "[gstreamer] gstDecoder -- failed to create pipeline\n"
            '[gstreamer]    (no element "nvv4l2decoder")\n')
    got = primary(diagnose_text(text))
    assert got.code == "ETEGRA020" and "l4t.csv" in got.fix
    # jetson-inference's x86_64 build in a PC container: no Jetson elements exist there
    pc = text.replace("on Xavier AGX (L4T 35.2.1)", "on my PC") + \
        "root@pc:/jetson-inference/build/x86_64/bin# detectnet video.mp4\n"
    got = primary(diagnose_text(pc))
    assert got is None or got.code != "ETEGRA020"
