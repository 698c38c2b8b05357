"""Python distributions that matter for deep learning, read from dist-info folder names.

Also finds two distributions that install the same import name (``tensorflow`` and
``tensorflow-cpu`` both provide ``tensorflow``: whichever was installed last wins, silently).
"""

from __future__ import annotations

import re
from dataclasses import replace

from envdoctor.facts import Distribution, ModuleConflict, PackageFacts, Status
from envdoctor.probes import _dists
from envdoctor.probes._base import Trail

SECTION = "packages"

NAMES = frozenset("""
torch torchvision torchaudio torchtext torchdata pytorch-lightning lightning triton xformers
flash-attn deepspeed apex accelerate transformers bitsandbytes vllm
tensorflow tensorflow-cpu tensorflow-gpu tensorflow-intel tensorflow-macos tensorflow-metal
tensorflow-aarch64 tensorflow-rocm tensorflow-io-gcs-filesystem tensorflow-text
tf-nightly tf-nightly-cpu tf-nightly-gpu tf-keras keras keras-nightly tensorrt
jax jaxlib jax-metal flax optax orbax-checkpoint libtpu libtpu-nightly
numpy scipy ml-dtypes protobuf
paddlepaddle paddlepaddle-gpu mindspore mindspore-gpu mxnet mxnet-mkl
onnx onnxruntime onnxruntime-gpu cupy cuda-python nvidia-ml-py pynvml nvidia-ml-py3
""".split())
PREFIXES = ("nvidia-", "jax-cuda", "jax-rocm", "mxnet-cu", "cupy-cuda", "cupy-rocm",
            "paddlepaddle-", "onnxruntime-", "tensorflow-", "torch-")
# Import names that two distributions must never both provide. Namespace packages that many
# wheels share (``nvidia``, ``jax_plugins``) are deliberately absent.
EXCLUSIVE_MODULES = frozenset(
    {"tensorflow", "torch", "jaxlib", "keras", "paddle", "mxnet", "mindspore", "onnxruntime",
     "cupy", "pynvml", "triton"})


def matters(name: str) -> bool:
    return name in NAMES or name.startswith(PREFIXES)


def probe(paths: tuple[str, ...] | None = None) -> PackageFacts:
    """``paths`` (default ``sys.path``) lets tests point at a fake site-packages tree."""
    trail = Trail()
    trail.ran.append("scan sys.path for *.dist-info")
    installed = _dists.installed(paths)
    wanted = sorted((d for d in installed.values() if matters(d.name)), key=lambda d: d.name)
    dists = tuple(Distribution(name=d.name, version=d.version, location=str(d.location),
                               modules=d.top_level()) for d in wanted)
    return replace(PackageFacts(distributions=dists, conflicts=find_conflicts(dists)),
                   probe=trail.info(Status.OK, source="dist-info"))


# Import names of well-known distributions, for snapshots that list no modules (pasted
# `pip list` output, short rule examples).
KNOWN_MODULES = {
    **{n: "tensorflow" for n in ("tensorflow", "tensorflow-cpu", "tensorflow-gpu",
                                 "tensorflow-intel", "tensorflow-macos", "tensorflow-aarch64",
                                 "tensorflow-rocm", "tf-nightly", "tf-nightly-cpu",
                                 "tf-nightly-gpu")},
    "paddlepaddle": "paddle", "paddlepaddle-gpu": "paddle", "torch": "torch",
    "onnxruntime": "onnxruntime", "onnxruntime-gpu": "onnxruntime", "keras": "keras",
    "keras-nightly": "keras", "mindspore": "mindspore", "mindspore-gpu": "mindspore",
}


def modules_of(dist: Distribution) -> tuple[str, ...]:
    if dist.modules:
        return dist.modules
    if dist.name in KNOWN_MODULES:
        return (KNOWN_MODULES[dist.name],)
    if dist.name.startswith("mxnet"):
        return ("mxnet",)
    if dist.name.startswith("cupy"):
        return ("cupy",)
    return ()


def find_conflicts(dists: tuple[Distribution, ...]) -> tuple[ModuleConflict, ...]:
    providers: dict[str, list[str]] = {}
    for dist in dists:
        for module in modules_of(dist):
            if module in EXCLUSIVE_MODULES:
                providers.setdefault(module, []).append(dist.name)
    return tuple(ModuleConflict(module=m, distributions=tuple(sorted(names)))
                 for m, names in sorted(providers.items()) if len(names) > 1)


def cuda_family(name: str) -> str:
    """``nvidia-cudnn-cu12`` -> ``cu12``; unsuffixed CUDA 13 wheels answer ''."""
    m = re.search(r"-cu(\d+)$", name)
    return f"cu{m.group(1)}" if m else ""
