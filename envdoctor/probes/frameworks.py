"""Framework build information, read from files without importing any framework.

Importing torch costs a second and TensorFlow several, and either can crash on a broken CUDA
stack; the static probe must do neither. We parse ``torch/version.py`` and TensorFlow's
``build_info.py`` with ``ast`` (never exec) and read versions from dist-info folders.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from envdoctor import astparse
from envdoctor.bounded import decode_json, env
from envdoctor.facts import (
    Distribution,
    FrameworkFacts,
    JaxBuild,
    KerasInfo,
    MindsporeBuild,
    MxnetBuild,
    PaddleBuild,
    Status,
    TensorflowBuild,
    TorchBuild,
)
from envdoctor.facts.states import unobserved_field
from envdoctor.matrices.tensorflow import distributions as tf_distributions
from envdoctor.probes import _dists
from envdoctor.probes._base import Trail
from envdoctor.probes._root import SYSTEM

SECTION = "frameworks"
JAX_PLUGIN_PREFIXES = ("jax-cuda", "jax-rocm", "jax-metal", "libtpu")
BUNDLED_PREFIXES = ("libcudnn", "libnccl", "libcublas", "libcudart", "libnvrtc", "libamdhip")
PADDLE_DISTS = ("paddlepaddle", "paddlepaddle-gpu")
MINDSPORE_DISTS = ("mindspore", "mindspore-gpu", "mindspore-ascend", "mindspore-cpu")
MINDSPORE_TARGET_OF_DIST = {"mindspore-gpu": "GPU", "mindspore-ascend": "Ascend",
                            "mindspore-cpu": "CPU"}
_MX_DIST = re.compile(r"^mxnet(?:-cu(\d{2,3}))?(-?mkl)?$")
_MS_GPU_PLUGIN = re.compile(r"^gpu(\d+\.\d+)$")


def probe(paths: tuple[str, ...] | None = None, *, root: Path = SYSTEM) -> FrameworkFacts:
    """``paths`` (default ``sys.path``) lets tests point at a fake site-packages tree.
    Python packages come from the interpreter's path, never from ``root`` (``--root``)."""
    trail = Trail()
    installed = _dists.installed(paths)
    torch, build_read = torch_build_state(installed, trail)
    facts = FrameworkFacts(
        torch=torch,
        tensorflow=tensorflow_build(installed, trail),
        jax=jax_build(installed),
        keras=keras_info(installed, trail),
        paddle=paddle_build(installed, trail),
        mindspore=mindspore_build(installed),
        mxnet=mxnet_build(installed),
    )
    facts = replace(facts, probe=trail.info(Status.OK, source="files"))
    if torch is not None and not build_read:
        # version.py missing or unparseable: which build this is was not observed
        facts = unobserved_field(facts, "torch.cuda", "torch.hip")
    return facts


def _v(text: Any) -> Version | None:
    if not text or not isinstance(text, str):
        return None
    try:
        return Version(text)
    except InvalidVersion:
        return None


def module_constants(source: str) -> dict[str, Any]:
    """Top-level ``NAME = <literal>`` (and annotated) assignments of a Python file, unexecuted."""
    out: dict[str, Any] = {}
    try:
        tree = astparse.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return out
    for node in tree.body:
        targets: list[ast.expr] = []
        value = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        for target in targets:
            if isinstance(target, ast.Name) and value is not None:
                out[target.id] = _literal(value)
    return out


def _literal(node: ast.expr) -> Any:
    """A literal, or the literal argument of ``collections.OrderedDict([...])``."""
    if isinstance(node, ast.Call) and node.args:
        node = node.args[0]
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        return None
    if isinstance(value, list) and all(isinstance(x, tuple) and len(x) == 2 for x in value):
        return dict(value)
    return value


def torch_build(installed: dict[str, _dists.InstalledDist], trail: Trail) -> TorchBuild | None:
    return torch_build_state(installed, trail)[0]


def torch_build_state(installed: dict[str, _dists.InstalledDist], trail: Trail
                      ) -> tuple[TorchBuild | None, bool]:
    """torch's build from torch/version.py, and whether that file said which build it is (it
    names ``cuda``, None on CPU and ROCm builds); False when missing or unparseable."""
    dist = installed.get("torch")
    if dist is None:
        return None, False
    pkg = dist.location / "torch"
    consts = module_constants(trail.read(pkg / "version.py") or "")
    bundled: tuple[str, ...] = ()
    try:
        bundled = tuple(sorted(n for n in os.listdir(pkg / "lib")
                               if n.startswith(BUNDLED_PREFIXES)))
    except OSError:
        pass
    return TorchBuild(
        version=_v(consts.get("__version__")) or dist.version,
        cuda=_v(consts.get("cuda")),
        hip=_v((consts.get("hip") or "").split("-")[0] if consts.get("hip") else None),
        git_version=str(consts.get("git_version") or ""),
        bundled=bundled,
    ), "cuda" in consts


def tensorflow_build(installed: dict[str, _dists.InstalledDist], trail: Trail
                     ) -> TensorflowBuild | None:
    dist = next((installed[n] for n in tf_distributions() if n in installed), None)
    if dist is None:
        return None
    info_file = dist.location / "tensorflow" / "python" / "platform" / "build_info.py"
    info = module_constants(trail.read(info_file) or "").get("build_info") or {}
    if not isinstance(info, dict):
        info = {}
    caps = info.get("cuda_compute_capabilities") or ()
    return TensorflowBuild(
        version=dist.version,
        distribution=dist.name,
        is_cuda_build=info.get("is_cuda_build"),
        is_rocm_build=info.get("is_rocm_build"),
        cuda=_v(info.get("cuda_version")),
        cudnn=_v(info.get("cudnn_version")),
        compute_capabilities=tuple(str(c) for c in caps) if isinstance(caps, (list, tuple))
        else (),
    )


def jax_build(installed: dict[str, _dists.InstalledDist]) -> JaxBuild | None:
    jax, jaxlib = installed.get("jax"), installed.get("jaxlib")
    if jax is None and jaxlib is None:
        return None
    plugins = tuple(Distribution(name=d.name, version=d.version, location=str(d.location))
                    for name, d in sorted(installed.items())
                    if name.startswith(JAX_PLUGIN_PREFIXES))
    return JaxBuild(version=jax.version if jax else None,
                    jaxlib=jaxlib.version if jaxlib else None, plugins=plugins)


def keras_info(installed: dict[str, _dists.InstalledDist], trail: Trail) -> KerasInfo | None:
    dist = installed.get("keras") or installed.get("keras-nightly")
    if dist is None:
        return None
    backend, source = env("KERAS_BACKEND", ""), "KERAS_BACKEND"
    if not backend:
        home = Path(env("KERAS_HOME") or Path.home() / ".keras")
        text = trail.read(home / "keras.json")
        try:
            backend = decode_json(text, "keras.json").get("backend", "") if text else ""
        except (ValueError, AttributeError):
            backend = ""
        source = "keras.json" if backend else "default"
    if not backend and dist.version and dist.version.major >= 3:
        backend = "tensorflow"  # Keras 3's default backend
    return KerasInfo(version=dist.version, backend=backend, backend_source=source)


def _flag(value: Any) -> bool | None:
    """Paddle writes build switches as 'ON'/'OFF' (and booleans as 'True'/'False')."""
    text = str(value).strip().upper() if value is not None else ""
    if text in ("ON", "TRUE", "1"):
        return True
    if text in ("OFF", "FALSE", "0"):
        return False
    return None


def paddle_build(installed: dict[str, _dists.InstalledDist], trail: Trail
                 ) -> PaddleBuild | None:
    """``paddle/version/__init__.py``: ``cuda_version = '12.6'`` on a GPU build, ``'False'`` on
    a CPU build (not a version, so ``cuda`` stays None)."""
    dist = next((installed[n] for n in PADDLE_DISTS if n in installed), None)
    if dist is None:
        return None
    consts = module_constants(trail.read(dist.location / "paddle" / "version" / "__init__.py")
                              or "")
    archs = consts.get("compiled_cuda_archs") or ()
    nccl = consts.get("nccl_version")
    return PaddleBuild(
        version=_v(consts.get("full_version")) or dist.version,
        distribution=dist.name,
        cuda=_v(consts.get("cuda_version")),
        cudnn=_v(consts.get("cudnn_version")),
        nccl=_v(nccl) if nccl not in ("0", 0) else None,
        with_mkl=_flag(consts.get("with_mkl")),
        pip_cuda_libraries=_flag(consts.get("with_pip_cuda_libraries")),
        cuda_archs=tuple(str(a) for a in archs) if isinstance(archs, (list, tuple)) else (),
        commit=str(consts.get("commit") or ""),
    )


def mindspore_build(installed: dict[str, _dists.InstalledDist]) -> MindsporeBuild | None:
    """Device targets from ``mindspore/lib/plugin/`` (``cpu``, ``gpu11.6``, ``ascend``); a
    wheel without that folder (MindSpore 1.x) is known by its distribution name."""
    dist = next((installed[n] for n in MINDSPORE_DISTS if n in installed), None)
    if dist is None:
        return None
    targets: list[str] = []
    cudas: list[Version] = []
    try:
        plugins = sorted(os.listdir(dist.location / "mindspore" / "lib" / "plugin"))
    except OSError:
        plugins = []
    for entry in plugins:
        m = _MS_GPU_PLUGIN.match(entry)
        if m:
            cudas.append(Version(m.group(1)))
        elif entry == "ascend":
            targets.append("Ascend")
        elif entry == "cpu":
            targets.append("CPU")
    if cudas:
        targets.append("GPU")
    if not plugins:
        targets.append(MINDSPORE_TARGET_OF_DIST.get(dist.name, "CPU"))
    order = {"CPU": 0, "GPU": 1, "Ascend": 2}
    return MindsporeBuild(version=dist.version, distribution=dist.name,
                          targets=tuple(sorted(set(targets), key=lambda t: order.get(t, 3))),
                          cuda=tuple(sorted(cudas)))


def _mx_cuda(digits: str | None) -> Version | None:
    """``cu92`` -> 9.2, ``cu102`` -> 10.2, ``cu112`` -> 11.2 (the last digit is the minor)."""
    if not digits:
        return None
    return Version(f"{int(digits[:-1])}.{digits[-1]}")


def mxnet_build(installed: dict[str, _dists.InstalledDist]) -> MxnetBuild | None:
    """MXNet's CUDA build is in its distribution name (mxnet-cu112); the CUDA libraries it
    ships lie next to libmxnet.so."""
    found = [(m, d) for name, d in sorted(installed.items())
             if (m := _MX_DIST.match(name)) is not None]
    if not found:
        return None
    m, dist = found[0]
    try:
        bundled = tuple(sorted(n for n in os.listdir(dist.location / "mxnet")
                               if n.startswith(BUNDLED_PREFIXES)))
    except OSError:
        bundled = ()
    return MxnetBuild(version=dist.version, distribution=dist.name, cuda=_mx_cuda(m.group(1)),
                      mkl=True if m.group(2) else None, bundled=bundled)
