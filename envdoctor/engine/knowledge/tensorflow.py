"""TensorFlow: tested build configurations, Windows GPU cut-off, CPU-only packages
(tensorflow.toml)."""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from envdoctor.engine.knowledge._reads import Read, Undetermined, optional, reads
from envdoctor.facts import CudaFacts, Distribution, LibraryFacts, PackageFacts, TensorflowBuild
from envdoctor.matrices import with_confirmed
from envdoctor.matrices.cuda import FIRST_MINOR_COMPAT_MAJOR, cuda_fits
from envdoctor.matrices.tensorflow import (
    base_package_assumed,
    base_package_cpu_only,
    has_and_cuda,
    last_windows_gpu,
    lookup_tf_release,
    no_cuda_distributions,
)
from envdoctor.versions import series, ver


# ---------------------------------------------------------------------------- rule functions
@reads()
def tf_release(version: Any) -> dict[str, Any] | None:
    """``tf_release(version)`` -> python range, tested CUDA and cuDNN, confirmed; or None."""
    return with_confirmed(lookup_tf_release(version))


@reads()
def tf_last_windows_gpu() -> Version | None:
    """The last TensorFlow with GPU support on native Windows (2.10)."""
    return last_windows_gpu()


@reads(tf=optional("frameworks.tensorflow"), cuda=optional("cuda"))
def tf_windows_cuda_beyond_native(*, tf: TensorflowBuild | None,
                                  cuda: CudaFacts | None) -> str | None:
    """``tf_windows_cuda_beyond_native()``: for a TensorFlow whose release the report does not
    state, the installed CUDA toolkit when its major is newer than the CUDA of the last
    TensorFlow with GPU support on native Windows (2.10, CUDA 11.2): "12.1". Then no release
    can use the GPU natively (2.11+ wheels are CPU-only, 2.10 and older load CUDA 11 or older
    libraries by name). None when TF's release is stated (WIN001/TF004 judge it) or no toolkit
    that new is stated."""
    if (tf is not None and tf.version is not None) or cuda is None:
        return None
    last = last_windows_gpu()
    row = lookup_tf_release(last) if last is not None else None
    built = ver((row or {}).get("cuda"))
    if built is None:
        return None
    newer = [v for v in cuda.versions if v.major > built.major]
    if not newer or len(newer) != len(cuda.versions):
        return None
    return str(newer[0])


@reads(tf="frameworks.tensorflow", os=optional("host.os", ""),
       dists=optional("packages.distributions"), cuda="cuda",
       # a pasted report's cuDNN is a list seen in part: the cuDNN it states is compared
       libraries=Read("libraries", None, partial_ok=True))
def tf_cuda_mismatch(*, tf: TensorflowBuild | None, os: str,
                     dists: tuple[Distribution, ...] | None, cuda: CudaFacts,
                     libraries: LibraryFacts | None) -> list[str]:
    """Why a CUDA TensorFlow cannot load the installed CUDA/cuDNN, as readable strings.

    Only for builds that load the system CUDA (not ``[and-cuda]`` pip wheels): the CUDA and
    cuDNN TensorFlow was built with (build_info, else the tested-configuration row) against
    every installed toolkit and cuDNN library. [] when nothing to compare or all fits. Decides
    without the package list for TF < 2.14 (no ``[and-cuda]`` then); undetermined for newer
    TF when it is unknown. Without the library facts only CUDA is compared.
    """
    if tf is None or tf.version is None or tf.is_cuda_build is False \
            or tf.distribution in no_cuda_distributions():
        return []
    last_win = last_windows_gpu()
    if os == "Darwin" or (os == "Windows" and last_win is not None
                          and (tf_series := series(tf.version)) is not None
                          and tf_series > last_win):
        return []
    row = lookup_tf_release(tf.version) or {}
    want_cuda = tf.cuda or ver(row.get("cuda"))
    want_cudnn = tf.cudnn or ver(row.get("cudnn"))
    if want_cuda is None:
        return []
    if dists is not None:
        if any(d.name.startswith(("nvidia-cuda-runtime", "nvidia-cudnn")) for d in dists):
            return []  # tensorflow[and-cuda]: TF loads the pip wheels (TF002 covers gaps)
    elif has_and_cuda(tf.version):
        raise Undetermined("may be an [and-cuda] install: cannot tell without the packages")
    out = []
    have = cuda.versions
    if have and not any(cuda_fits(h, want_cuda) for h in have):
        need = f"{want_cuda.major}.x" if want_cuda.major >= FIRST_MINOR_COMPAT_MAJOR \
            else f"{want_cuda.major}.{want_cuda.minor}"
        out.append(f"CUDA {need} needed, installed: " + ", ".join(str(h) for h in have))
    if want_cudnn is not None and libraries is not None:
        cudnn = [lib.version for lib in libraries.named("cudnn") if lib.version]
        if cudnn and not any(v.major == want_cudnn.major for v in cudnn):
            out.append(f"cuDNN {want_cudnn.major}.x needed, installed: "
                       + ", ".join(str(v) for v in cudnn))
    return out


@reads(tf="frameworks.tensorflow", pk=optional("packages"))
def tf_cpu_only_package(*, tf: TensorflowBuild | None, pk: PackageFacts | None) -> str | None:
    """``"tensorflow 1.15.2"`` when the installed `tensorflow` pip package is a CPU-only one;
    None when it is not (or another distribution provides TF). Without the package list (an
    issue template) the answer says which package name it assumes."""
    if tf is None or tf.version is None or tf.distribution != "tensorflow" \
            or tf.is_cuda_build is True:
        return None
    if not base_package_cpu_only(tf.version):  # tensorflow.toml [base_package]
        return None
    if pk is None:  # e.g. an issue template: the package name is not stated
        if not base_package_assumed(tf.version):  # tensorflow.toml [base_package]
            return None  # before 1.15 a GPU setup was `tensorflow-gpu`: not assumed either way
        return f"tensorflow {tf.version} (if installed as `tensorflow`, not `tensorflow-gpu`)"
    if pk.get("tensorflow-gpu") is not None or pk.get("tensorflow") is None and pk.distributions:
        return None  # tensorflow-gpu provides it, or the list shows no `tensorflow` package
    return f"tensorflow {tf.version}"


@reads(tf="frameworks.tensorflow")
def tf_cuda_libs_fix(*, tf: TensorflowBuild | None) -> str | None:
    """The command that gives the installed TensorFlow the CUDA libraries it was built for.

    2.14+ wheels take them from the ``[and-cuda]`` extra (pinned nvidia-*-cu12 wheels);
    older GPU wheels dlopen a system CUDA/cuDNN of the tested configuration, which conda-forge
    provides (any cuDNN of the same major with a minor >= the build's loads).
    """
    if tf is None or tf.version is None:
        return None
    release = f"{tf.version.major}.{tf.version.minor}"
    if has_and_cuda(tf.version):
        return f'pip install "tensorflow[and-cuda]=={release}.*"'
    row = lookup_tf_release(tf.version) or {}
    cuda, cudnn = ver(row.get("cuda")), ver(row.get("cudnn"))
    if cuda is None or cudnn is None:
        return None
    cudnn_range = f"cudnn>={cudnn},<{cudnn.major + 1}"
    return (f'conda install -c conda-forge cudatoolkit={cuda} "{cudnn_range}"'
            "   # then put $CONDA_PREFIX/lib on LD_LIBRARY_PATH; or move to TensorFlow 2.14+"
            " with pip install \"tensorflow[and-cuda]\"")


@reads(tf="frameworks.tensorflow", pk=optional("packages"), arch=optional("host.arch", ""))
def tf_gpu_install(*, tf: TensorflowBuild | None, pk: PackageFacts | None,
                   arch: str) -> str | None:
    """The GPU build of the installed TensorFlow series on Linux, replacing the CPU-only
    distributions installed (TF001's fix): ``tensorflow[and-cuda]==2.18.*`` from 2.14 (the
    extra brings the CUDA wheels), plain ``tensorflow==2.13.*`` before (it loads the system
    CUDA/cuDNN of the tested configuration). None on Linux aarch64 (PyPI's tensorflow there is
    the CPU-only tensorflow-cpu-aws; wheel_index [[tensorflow_platform]]) or without a
    version: the caller then falls back to `envdoctor suggest`'s line."""
    if tf is None or tf.version is None or str(arch).lower() in ("aarch64", "arm64"):
        return None
    release = f"{tf.version.major}.{tf.version.minor}"
    installed = [d.name for d in (pk.distributions if pk is not None else ())
                 if d.name in no_cuda_distributions() or d.name == "tensorflow"]
    remove = f"pip uninstall -y {' '.join(installed)} && " if installed else ""
    if has_and_cuda(tf.version):
        return f'{remove}pip install "tensorflow[and-cuda]=={release}.*"'
    row = lookup_tf_release(tf.version) or {}
    needs = f"   # it loads a system CUDA {row['cuda']} / cuDNN {row['cudnn']}" \
        if row.get("cuda") and row.get("cudnn") else ""
    return f'{remove}pip install "tensorflow=={release}.*"{needs}'


@reads(tf="frameworks.tensorflow", pk="packages", libs=optional("libraries"))
def tf_cudnn_wheel_gap(*, tf: TensorflowBuild | None, pk: PackageFacts,
                       libs: LibraryFacts | None) -> dict[str, Any] | None:
    """The pip cuDNN this TensorFlow would load, when it cannot serve the build: another major
    (TF 2.16 built for cuDNN 8.9 next to torch's nvidia-cudnn-cu12 9.x: libcudnn.so.8 is not
    there) or an older minor (TF 2.18 built for 9.3 next to 9.1: TF refuses "CuDNN library
    needs to have matching major version and equal or higher minor version"). The build's
    cuDNN is its build_info's major with the tested configuration's minor (tensorflow.toml),
    build_info alone where the two disagree; a system cuDNN of the right major
    and minor is a way out, so no gap then. ``{"need", "wheel", "dist", "older_minor"}``."""
    if tf is None or tf.version is None:
        return None
    row = lookup_tf_release(tf.version) or {}
    need, cuda = ver(row.get("cudnn")), ver(row.get("cuda"))
    # build_info (observed) outranks the tested configuration (inferred): a TF built for
    # cuDNN 9 (NGC, a distro) is judged by 9 even where the table says 8.9
    if tf.cudnn is not None and (need is None or tf.cudnn.major != need.major):
        need = tf.cudnn
    if tf.cuda is not None and (cuda is None or tf.cuda.major != cuda.major):
        cuda = tf.cuda
    if need is None or cuda is None:
        return None
    dist = pk.get(f"nvidia-cudnn-cu{cuda.major}")
    if dist is None or dist.version is None:
        return None

    def serves(v: Version) -> bool:
        return v.major == need.major and v.release[:2] >= need.release[:2]

    if serves(dist.version):
        return None
    if any(lib.version is not None and serves(lib.version) and "site-packages" not in lib.path
           for lib in (libs.named("cudnn") if libs is not None else ())):
        return None
    return {"need": str(need), "wheel": str(dist.version), "dist": dist.name,
            "older_minor": dist.version.major == need.major}
