"""The L4T release a Jetson text states for an image (its rNN.N tag) and for the host it runs
on (envdoctor.explain.stated.l4t_release_reason), and ETEGRA020's yield to ETEGRA002 when they
differ: an r32 image mounts the host's CUDA 10.2 libraries, which a JetPack 5 host (or an older
r32 one) does not have, so the image was built for another JetPack. The maintainer's own check
in dusty-nv/jetson-containers#159: "Is the JetPack-L4T version of your device L4T R32.6.x?" for
an r32.6.1 image. The texts below are constructed in the forms those threads print."""

from __future__ import annotations

from envdoctor.explain import diagnose_text, primary
from envdoctor.explain.stated import l4t_release_reason

MISSING = "OSError: libcurand.so.10: cannot open shared object file: No such file or directory\n"


def _code(text: str) -> str | None:
    d = primary(diagnose_text(text))
    return d.code if d else None


def test_an_r32_image_on_a_jetpack_5_host_is_another_jetpack():
    text = ("docker run -it --rm --runtime nvidia nvcr.io/nvidia/l4t-pytorch:r32.6.1-pth1.8-py3\n"
            + MISSING + "Package: nvidia-jetpack\nVersion: 5.0.1-b118\n")
    assert "r32.6" in (l4t_release_reason(text) or "")
    assert _code(text) == "ETEGRA002"


def test_an_r32_5_image_on_an_r32_3_host_differs():
    text = ("docker run --runtime nvidia -it dustynv/ros:foxy-pytorch-l4t-r32.5.0\n" + MISSING
            + "# R32 (release), REVISION: 3.1, GCID: 18284527, BOARD: t186ref\n")
    assert l4t_release_reason(text) is not None
    assert _code(text) == "ETEGRA002"


def test_the_same_release_on_both_sides_keeps_the_mount_answer():
    # dusty-nv/jetson-containers#159 form: r32.6.1 image, R32 REVISION 6.1 host
    text = ("FROM dustynv/l4t-ml:r32.6.1-py3\n"
            "# R32 (release), REVISION: 6.1, GCID: 27863751, BOARD: t186ref, EABI: aarch64\n"
            "docker run --gpus=all --rm -it vision /bin/bash\n" + MISSING)
    assert l4t_release_reason(text) is None
    assert _code(text) == "ETEGRA020"


def test_undecided_without_one_image_and_one_host():
    assert l4t_release_reason("docker run nvcr.io/nvidia/l4t-base:r32.4.3\n" + MISSING) is None
    two_images = ("l4t-base:r32.4.3 and l4t-base:r32.7.1\n# R32 (release), REVISION: 5.0\n")
    assert l4t_release_reason(two_images) is None
    # a JetPack 4 host runs r32 images: same major, minor unknown
    assert l4t_release_reason("nvidia-jetpack 4.6-b199\nl4t-pytorch:r32.7.1-pth1.10-py3\n") is None


def test_the_host_release_and_jetpack_as_people_state_them():
    from envdoctor.explain.stated import l4t_release_reason
    # an r34 image on a board "with version r32.6", and an r35 image on a board that "has
    # JetPack 6.2": each image links another release's CUDA than the host's
    assert l4t_release_reason("docker run --gpus all nvcr.io/nvidia/l4t-ml:r34.1.0-py3 bash\n"
                              "on Jetson NX with version r32.6\n")
    assert l4t_release_reason("a Jetson Orin Nano which has Jetpack6.2\n"
                              "docker pull dustynv/l4t-pytorch: r35.4.1\n")
    # an image built on another JetPack is not the host's ("based on the JetPack 5.1.2 image")
    assert l4t_release_reason("based on the JetPack 5.1.2 image\n"
                              "docker pull dustynv/l4t-pytorch:r35.4.1\n") is None
    # the same release on both sides is no mismatch
    assert l4t_release_reason("flashed with JetPack 6.2\nl4t-jetpack:r36.4.0\n") is None
