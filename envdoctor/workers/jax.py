"""JAX worker (child process only): live facts and the smoke suite.

Run as ``python -m envdoctor.workers.jax [--suite quick|full] [--no-smoke]``. JAX falls back to
the CPU silently when its CUDA plugin is missing or fails to start; this worker says so.
Save/load goes through NumPy ``.npy`` files with ``allow_pickle=False``.
"""

from __future__ import annotations

import importlib.metadata
import os
import tempfile
import time
from typing import Any

from envdoctor.workers import _common as c
from envdoctor.workers._common import StepFailed

PLUGINS = {"cuda": ("jax-cuda13-plugin", "jax-cuda12-plugin", "jax-cuda11-plugin"),
           "rocm": ("jax-rocm7-plugin", "jax-rocm60-plugin", "jax-rocm-plugin"),
           "tpu": ("libtpu", "libtpu-nightly")}


def _plugin() -> tuple[str, str]:
    for build, names in PLUGINS.items():
        for name in names:
            try:
                return build, f"{name} {importlib.metadata.version(name)}"
            except importlib.metadata.PackageNotFoundError:
                continue
    return "cpu", ""


def collect(jax: Any, facts: dict[str, Any]) -> str:
    build, plugin = _plugin()
    facts.update(version=jax.__version__, build=build)
    devices: list[dict[str, Any]] = [{"kind": "cpu", "index": 0, "name": "cpu"}]
    accel = []
    try:
        accel = [d for d in jax.devices() if d.platform != "cpu"]
    except RuntimeError as exc:
        facts["gpu_error"] = str(exc)
    for d in accel:
        kind = {"gpu": "cuda", "cuda": "cuda", "rocm": "rocm", "tpu": "tpu",
                "metal": "mps", "METAL": "mps"}.get(d.platform, d.platform)
        entry: dict[str, Any] = {"kind": kind, "index": d.id, "name": d.device_kind,
                                 "cc": getattr(d, "compute_capability", None)}
        try:
            stats = d.memory_stats() or {}
            if stats.get("bytes_limit"):
                entry["memory_total_mb"] = int(stats["bytes_limit"] // 2**20)
        except Exception:  # noqa: BLE001
            pass
        devices.append(entry)
    facts["devices"] = devices
    gpus = [d for d in accel if d.platform in ("gpu", "cuda", "rocm")]
    facts["cuda_available"] = bool(gpus)

    def cudnn() -> dict[str, Any]:
        from jax._src.lib import cuda_versions  # present with the CUDA plugin
        if cuda_versions is None:
            return {}
        return {"cudnn": c.cudnn_from_int(cuda_versions.cudnn_get_version()),
                "built_cudnn": c.cudnn_from_int(cuda_versions.cudnn_build_version()),
                "built_cuda": c.cudnn_from_int(cuda_versions.cuda_runtime_build_version())}

    if build == "cuda":
        c.guarded(facts, cudnn)
    if accel:
        first = accel[0]
        cc = devices[1].get("cc")
        modern = first.platform == "tpu" or (cc is not None and float(cc) >= 8.0)
        facts.update(bf16=modern, fp16=first.platform != "tpu", tf32=bool(gpus) and modern)
        facts["device_label"] = f"{first} ({first.device_kind})"
        return "accel"
    if build == "cpu":
        facts["gpu_error"] = "no JAX GPU/TPU plugin installed (e.g. pip install 'jax[cuda12]')"
    elif not facts.get("gpu_error"):
        facts["gpu_error"] = f"{plugin} is installed but JAX fell back to the CPU"
    facts.update(bf16=True, fp16=True, tf32=False)
    return "cpu"


def smoke(jax: Any, suite: c.Suite, where: str, facts: dict[str, Any]) -> None:
    import numpy as np
    jnp = jax.numpy
    device = jax.devices()[0] if where == "accel" else jax.devices("cpu")[0]
    a64, b64 = c.operands()
    ref = c.matmul(a64, b64)
    data = {k: np.asarray(v, dtype=np.float32) if isinstance(v, list) else v
            for k, v in c.mlp_data().items()}

    def put(x: Any) -> Any:
        return jax.device_put(x, device)

    def tensor() -> str:
        x = put(np.arange(10, dtype=np.float32))
        total = float(np.asarray(x).sum())
        if total != 45.0:
            raise StepFailed(f"sum(arange(10)) = {total}, expected 45")
        return f"arange(10) on {device}: sum 45"

    def matmul(name: str, dtype: Any) -> Any:
        def step() -> str:
            a = put(np.asarray(a64, dtype=np.float32))
            b = put(np.asarray(b64, dtype=np.float32))
            # one jitted program (cast, matmul, cast back): one compilation, not three
            mm = jax.jit(lambda u, v: (u.astype(dtype) @ v.astype(dtype)).astype(jnp.float32))
            return c.compare(np.asarray(mm(a, b)), ref, name)
        return step

    def gradient() -> str:
        grad = jax.jit(jax.grad(lambda x: x * x + 2.0 * x))
        return c.check_gradient(grad(put(np.float32(3.0))))

    params = {k: put(data[k]) for k in ("w1", "b1", "w2", "b2")}
    x, y = put(data["x"]), put(data["y"])

    def forward(p: dict[str, Any], v: Any) -> Any:
        return jnp.tanh(v @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]

    def loss_fn(p: dict[str, Any]) -> Any:
        return jnp.mean((forward(p, x) - y) ** 2)

    def train() -> str:
        @jax.jit
        def update(p: dict[str, Any]) -> tuple[dict[str, Any], Any]:
            loss, grads = jax.value_and_grad(loss_fn)(p)
            return jax.tree_util.tree_map(lambda w, g: w - data["lr"] * g, p, grads), loss

        p, losses = params, []
        for _ in range(c.MLP_STEPS + 1):  # the last call only reports the loss after 10 steps
            p, loss = update(p)
            losses.append(float(loss))
        return c.check_losses(losses)

    def compiled() -> str:
        return c.check_same(np.asarray(jax.jit(forward)(params, x)),
                            np.asarray(forward(params, x)), "jax.jit vs eager", 1e-5)

    def save_load() -> str:
        with tempfile.TemporaryDirectory() as tmp:
            restored = {}
            for k, v in params.items():
                path = os.path.join(tmp, f"{k}.npy")
                np.save(path, np.asarray(v), allow_pickle=False)
                restored[k] = put(np.load(path, allow_pickle=False))
        return c.check_same(np.asarray(forward(restored, x)), np.asarray(forward(params, x)),
                            "np.save/np.load (.npy, no pickle) round trip", 0.0)

    def precision(name: str, dtype: Any) -> Any:
        return matmul(name, dtype) if facts.get(name) else c.Skip(
            f"{name} is not supported on {device}")

    suite.plan({
        "tensor": tensor,
        "matmul_fp32": matmul("fp32", jnp.float32),
        "matmul_bf16": precision("bf16", jnp.bfloat16),
        "matmul_fp16": precision("fp16", jnp.float16),
        "gradient": gradient,
        "mlp_train": train,
        "compile": compiled,
        "save_load": save_load,
        "self_check": c.unsupported("JAX has no installation self-check "
                                    "(jax.print_environment_info() only prints versions)"),
    })
    if not suite.full:
        return
    suite.run("memory", lambda: memory(jax, device))
    gpus = [d for d in jax.devices() if d.platform in ("gpu", "cuda", "rocm")]
    if len(gpus) > 1:
        suite.run("multi_gpu", lambda: multi_gpu(jax, gpus))
    else:
        suite.skip("multi_gpu", f"needs 2 or more GPUs ({len(gpus)} visible)")
    if gpus:
        suite.run("speed", lambda: speed(jax, gpus[0]))
    else:
        suite.skip("speed", "GPU only")


def memory(jax: Any, device: Any) -> str:
    size = (1 << 30) if device.platform != "cpu" else (64 << 20)
    block = jax.device_put(jax.numpy.ones(size // 4, dtype=jax.numpy.float32), device)
    block.block_until_ready()
    if float(block[:1024].sum()) != 1024.0:
        raise StepFailed(f"a {size >> 20} MiB block read back wrong")
    block.delete()
    return f"allocated and freed {size >> 20} MiB on {device}"


def multi_gpu(jax: Any, gpus: list[Any]) -> str:
    jnp = jax.numpy
    src = jax.device_put(jnp.arange(1 << 20, dtype=jnp.float32), gpus[0])
    copy = jax.device_put(src, gpus[1])
    if not bool((copy == jax.device_put(src, gpus[1])).all()) or copy.devices() != {gpus[1]}:
        raise StepFailed("device-to-device copy differs")
    n = len(gpus)
    out = jax.pmap(lambda v: jax.lax.psum(v, "i"), axis_name="i", devices=gpus)(
        jnp.arange(1, n + 1, dtype=jnp.float32))
    want = n * (n + 1) / 2
    if not all(float(v) == want for v in out):
        raise StepFailed(f"psum over {n} GPUs gave {list(map(float, out))}, expected {want}")
    return f"device-to-device copy ok; psum over {n} GPUs = {want:g}"


def speed(jax: Any, gpu: Any) -> Any:
    jnp = jax.numpy
    metrics: dict[str, float] = {}

    def timeit(fn: Any, *args: Any, budget: float = 0.3) -> float:
        fn(*args).block_until_ready()
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < budget:
            out = fn(*args)
            n += 1
        out.block_until_ready()
        return (time.perf_counter() - start) / n

    size = 8192
    for key, dtype, precision in (("bf16", jnp.bfloat16, None), ("fp16", jnp.float16, None),
                                  ("tf32", jnp.float32, "tensorfloat32")):
        a = jax.device_put(jnp.ones((size, size), dtype), gpu)
        mm = jax.jit(lambda u, v, p=precision: jnp.matmul(u, v, precision=p))
        metrics[f"tflops_{key}"] = 2 * size ** 3 / timeit(mm, a, a) / 1e12
        del a
    src = jax.device_put(jnp.zeros(1 << 26, jnp.float32), gpu)
    copy = jax.jit(lambda v: v + 1.0)
    metrics["copy_gbs"] = 2 * 4 * (1 << 26) / timeit(copy, src) / 1e9
    return ", ".join(f"{k} {v:.1f}" for k, v in metrics.items()), metrics


def main(argv: list[str] | None = None) -> None:
    c.common_main("jax", "jax", collect, smoke, argv)


if __name__ == "__main__":
    main()
