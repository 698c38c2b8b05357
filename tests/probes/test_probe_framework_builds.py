"""Static build facts of PaddlePaddle, MindSpore and MXNet, read from the files their wheels
install (never imported): Paddle's generated version module, MindSpore's plugin folders,
MXNet's distribution name and shipped libraries."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from envdoctor.probes import _dists, frameworks
from envdoctor.probes._base import Trail

DATA = Path(__file__).resolve().parents[1] / "data" / "workers"
PADDLE_CPU = (DATA / "paddle-3.3.1-cpu-version.py").read_text()


@pytest.fixture
def site(tmp_path):
    _dists.installed.cache_clear()
    yield tmp_path
    _dists.installed.cache_clear()


def dist(site, name: str, version: str, files: dict | None = None, dirs: tuple = ()):
    meta = site / f"{name.replace('-', '_')}-{version}.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n")
    for rel, text in (files or {}).items():
        path = site / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for rel in dirs:
        (site / rel).mkdir(parents=True, exist_ok=True)


def installed(site):
    return _dists.installed(paths=(str(site),))


def test_cpu_paddle_says_cuda_false_which_is_no_cuda(site):
    dist(site, "paddlepaddle", "3.3.1", {"paddle/version/__init__.py": PADDLE_CPU})
    build = frameworks.paddle_build(installed(site), Trail())
    assert build.version == Version("3.3.1") and build.distribution == "paddlepaddle"
    assert build.cuda is None and build.cudnn is None and build.nccl is None
    assert build.with_mkl is True and build.pip_cuda_libraries is True
    assert build.commit.startswith("7688495")


def test_gpu_paddle_reads_its_cuda_and_cudnn(site):
    # the CPU file with the values a cu126 build writes (paddle/version/__init__.py layout)
    text = PADDLE_CPU.replace("cuda_version     = 'False'", "cuda_version     = '12.6'") \
        .replace("cudnn_version    = 'False'", "cudnn_version    = '9.5.1'") \
        .replace("compiled_cuda_archs     = []", "compiled_cuda_archs     = [80, 90]")
    dist(site, "paddlepaddle-gpu", "3.3.1", {"paddle/version/__init__.py": text})
    build = frameworks.paddle_build(installed(site), Trail())
    assert build.distribution == "paddlepaddle-gpu"
    assert build.cuda == Version("12.6") and build.cudnn == Version("9.5.1")
    assert build.cuda_archs == ("80", "90")


def test_paddle_with_an_unreadable_version_file_keeps_the_dist_version(site):
    dist(site, "paddlepaddle", "3.0.0", {"paddle/version/__init__.py": "cuda_version = ("})
    build = frameworks.paddle_build(installed(site), Trail())
    assert build.version == Version("3.0.0") and build.cuda is None and build.with_mkl is None


def test_mindspore_targets_come_from_its_plugin_folders(site):
    dist(site, "mindspore", "2.10.0", dirs=(
        "mindspore/lib/plugin/ascend", "mindspore/lib/plugin/cpu", "mindspore/lib/plugin/gpu",
        "mindspore/lib/plugin/gpu11.1", "mindspore/lib/plugin/gpu11.6"))
    build = frameworks.mindspore_build(installed(site))
    assert build.targets == ("CPU", "GPU", "Ascend")
    assert build.cuda == (Version("11.1"), Version("11.6"))


def test_mindspore_without_plugin_folders_is_known_by_its_name(site):
    dist(site, "mindspore-gpu", "1.10.1", dirs=("mindspore/lib",))
    build = frameworks.mindspore_build(installed(site))
    assert build.targets == ("GPU",) and build.cuda == ()


@pytest.mark.parametrize("name, cuda, mkl", [
    ("mxnet", None, None), ("mxnet-mkl", None, True), ("mxnet-cu112", "11.2", None),
    ("mxnet-cu102mkl", "10.2", True), ("mxnet-cu92", "9.2", None)])
def test_mxnet_build_from_its_distribution_name(site, name, cuda, mkl):
    dist(site, name, "1.9.1", {"mxnet/libmxnet.so": "", "mxnet/libcudnn.so.8": ""} if cuda
         else {"mxnet/libmxnet.so": ""})
    build = frameworks.mxnet_build(installed(site))
    assert build.distribution == name and build.mkl is mkl
    assert build.cuda == (Version(cuda) if cuda else None)
    assert build.bundled == (("libcudnn.so.8",) if cuda else ())


def test_no_such_framework_is_none(site):
    dist(site, "numpy", "2.4.6")
    found = installed(site)
    assert frameworks.paddle_build(found, Trail()) is None
    assert frameworks.mindspore_build(found) is None and frameworks.mxnet_build(found) is None
