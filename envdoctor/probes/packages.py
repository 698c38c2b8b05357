"""Installed Python distributions, read from dist-info folder names.

Every distribution on ``sys.path`` is recorded (name, version, folder), so ``--require`` and
policies can name any package (``tqdm>=4``, ``einops``); the import names a distribution
provides (top_level.txt / RECORD, one file read each) are read only for the ones that matter for
deep learning, which keeps ``check --static`` to one directory listing per path entry.

Also finds two distributions that install the same import name (``tensorflow`` and
``tensorflow-cpu`` both provide ``tensorflow``: whichever was installed last wins, silently).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from envdoctor.facts import Distribution, ModuleConflict, PackageFacts, Status
from envdoctor.matrices.tensorflow import distributions as tf_distributions
from envdoctor.matrices.tensorflow import thin_pairs
from envdoctor.probes import _dists
from envdoctor.probes._base import Trail
from envdoctor.probes._root import SYSTEM

SECTION = "packages"

NAMES = frozenset("""
torch torchvision torchaudio torchtext torchdata pytorch-lightning lightning triton xformers
flash-attn deepspeed apex accelerate transformers bitsandbytes vllm
tf-keras keras keras-nightly tensorrt jax jaxlib jax-metal flax optax orbax-
checkpoint libtpu libtpu-nightly numpy scipy ml-dtypes protobuf paddlepaddle paddlepaddle-
gpu mindspore mindspore-gpu mxnet mxnet-mkl onnx onnxruntime onnxruntime-gpu cupy cuda-
python nvidia-ml-py pynvml nvidia-ml-py3
""".split())
PREFIXES = ("nvidia-", "jax-cuda", "jax-rocm", "mxnet-cu", "cupy-cuda", "cupy-rocm",
            "paddlepaddle-", "onnxruntime-", "tensorflow-", "torch-")
# Import names that two distributions must never both provide. Namespace packages that many
# wheels share (``nvidia``, ``jax_plugins``) are deliberately absent.
EXCLUSIVE_MODULES = frozenset(
    {"tensorflow", "torch", "jaxlib", "keras", "paddle", "mxnet", "mindspore", "onnxruntime",
     "cupy", "pynvml", "triton"})


def matters(name: str) -> bool:
    """Whether the import names a distribution provides are read (TensorFlow's
    distributions: tensorflow.toml ``[distributions]``)."""
    return name in NAMES or name.startswith(PREFIXES) or name in tf_distributions()


def probe(paths: tuple[str, ...] | None = None, *, root: Path = SYSTEM) -> PackageFacts:
    """``paths`` (default ``sys.path``) lets tests point at a fake site-packages tree."""
    trail = Trail()
    trail.ran.append("scan sys.path for *.dist-info")
    installed = _dists.installed(paths)
    dists = tuple(Distribution(name=d.name, version=d.version, location=str(d.location),
                               modules=d.top_level() if matters(d.name) else ())
                  for d in sorted(installed.values(), key=lambda d: d.name))
    return replace(PackageFacts(distributions=dists, conflicts=find_conflicts(dists)),
                   probe=trail.info(Status.OK, source="dist-info"))


# Import names of well-known distributions, for snapshots that list no modules (pasted
# `pip list` output, short rule examples); every TensorFlow distribution provides `tensorflow`.
KNOWN_MODULES = {
    "paddlepaddle": "paddle", "paddlepaddle-gpu": "paddle", "torch": "torch", "pytorch": "torch",
    # PyTorch 1.0's preview builds (2018-2019) were a distribution of their own, torch_nightly,
    # installing the same `torch` package (pip install torch_nightly -f .../nightly/cu90/...)
    "torch-nightly": "torch",
    "onnxruntime": "onnxruntime", "onnxruntime-gpu": "onnxruntime", "keras": "keras",
    "keras-nightly": "keras", "mindspore": "mindspore", "mindspore-gpu": "mindspore",
}


def modules_of(dist: Distribution) -> tuple[str, ...]:
    if dist.modules:
        return dist.modules
    if dist.name in KNOWN_MODULES:
        return (KNOWN_MODULES[dist.name],)
    if dist.name in tf_distributions():
        return ("tensorflow",)
    if dist.name.startswith("mxnet"):
        return ("mxnet",)
    if dist.name.startswith("cupy"):
        return ("cupy",)
    return ()


# Intended pairs: a thin "installer" wheel and the platform build it depends on (TensorFlow's
# collaborator builds; tensorflow.toml ``[distributions] thin``, with the sources).


def _intended_pair(a: Distribution, b: Distribution) -> bool:
    """``a`` is a thin TF installer wheel and ``b`` the platform build it pins.

    Not a pair when ``a`` itself ships the module (a full wheel, e.g. TF 2.10 on Windows, next
    to tensorflow-intel) or when both versions are known and differ (the thin wheel pins
    ``==`` its own version, so a different one was installed by hand).
    """
    if b.name not in thin_pairs().get(a.name, ()):
        return False
    if a.modules:  # modules read from its RECORD/top_level.txt: it is not the thin wheel
        return False
    return a.version is None or b.version is None \
        or a.version.base_version == b.version.base_version


# Conda package name -> the pip distribution name of the same install. conda's `pytorch`
# ships a torch-X.dist-info, so `pip list` / collect_env's "[pip] torch==X" next to
# "[conda] pytorch X" is one install seen twice; different versions mean a pip torch was
# installed over the conda one (two copies share site-packages/torch).
CONDA_TWINS = {"pytorch": "torch"}


def _same_install(a: Distribution, b: Distribution) -> bool:
    """``a`` is the conda package of which ``b`` is the pip view (same or unknown version)."""
    if CONDA_TWINS.get(a.name) != b.name:
        return False
    return a.version is None or b.version is None \
        or a.version.base_version == b.version.base_version


def _drop_intended(names: list[Distribution]) -> list[Distribution]:
    """Remove thin installer wheels whose platform build is also installed, and conda
    packages whose pip view is listed too."""
    return [d for d in names if not any(_intended_pair(d, o) or _same_install(d, o)
                                        for o in names if o is not d)]


def find_conflicts(dists: tuple[Distribution, ...]) -> tuple[ModuleConflict, ...]:
    """Import names that two distributions both install, except the intended TF pairs."""
    providers: dict[str, list[Distribution]] = {}
    for dist in dists:
        for module in modules_of(dist):
            if module in EXCLUSIVE_MODULES:
                providers.setdefault(module, []).append(dist)
    out = []
    for module, found in sorted(providers.items()):
        names = sorted(d.name for d in _drop_intended(found))
        if len(names) > 1:
            out.append(ModuleConflict(module=module, distributions=tuple(names)))
    return tuple(out)


def cuda_family(name: str) -> str:
    """``nvidia-cudnn-cu12`` -> ``cu12``; unsuffixed CUDA 13 wheels answer ''."""
    m = re.search(r"-cu(\d+)$", name)
    return f"cu{m.group(1)}" if m else ""
