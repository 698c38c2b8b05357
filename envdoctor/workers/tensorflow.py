"""TensorFlow worker (child process only): live facts and the smoke suite.

Run as ``python -m envdoctor.workers.tensorflow [--suite quick|full] [--no-smoke]``.
Keras is never imported here (``tf.keras`` is lazy): the MLP uses variables and GradientTape,
and the quick save/load is a ``tf.train.Checkpoint``, which keeps this worker to TF's own import.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from typing import Any

from envdoctor.workers import _common as c
from envdoctor.workers._common import StepFailed


def collect(tf: Any, facts: dict[str, Any]) -> str:
    threads = max(1, min(2, os.cpu_count() or 1))
    try:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
    except RuntimeError:
        pass
    info = dict(tf.sysconfig.get_build_info())
    cuda_build, rocm_build = bool(info.get("is_cuda_build")), bool(info.get("is_rocm_build"))
    facts.update(version=tf.__version__,
                 build="cuda" if cuda_build else "rocm" if rocm_build else "cpu",
                 built_cuda=info.get("cuda_version") or None,
                 built_cudnn=info.get("cudnn_version") or None,
                 arch_list=[str(a) for a in info.get("cuda_compute_capabilities") or ()])
    gpus = tf.config.list_physical_devices("GPU")
    devices: list[dict[str, Any]] = [{"kind": "cpu", "index": 0, "name": "cpu"}]
    for i, gpu in enumerate(gpus):
        details: dict[str, Any] = {}
        try:
            details = tf.config.experimental.get_device_details(gpu)
        except Exception:  # noqa: BLE001
            pass
        cc = details.get("compute_capability")
        # tensorflow-metal's PluggableDevice lists the Apple GPU as a GPU named METAL
        kind = "rocm" if rocm_build else "mps" if sys.platform == "darwin" else "cuda"
        devices.append({"kind": kind, "index": i,
                        "name": details.get("device_name") or gpu.name,
                        "cc": c.dotted(cc) if cc else None})
    try:
        devices += [{"kind": "tpu", "index": i, "name": t.name}
                    for i, t in enumerate(tf.config.list_physical_devices("TPU"))]
    except Exception:  # noqa: BLE001
        pass
    facts["devices"] = devices
    facts["cuda_available"] = bool(gpus)
    if gpus:
        for gpu in gpus:  # do not grab all memory: other workers share the GPU
            try:
                tf.config.experimental.set_memory_growth(gpu, True)
            except RuntimeError:
                pass
        cc = devices[1].get("cc")
        modern = cc is not None and float(cc) >= 8.0
        facts.update(bf16=modern, fp16=True, tf32=modern and not rocm_build)
        facts["device_label"] = f"/GPU:0 ({devices[1]['name']})"
        return "/GPU:0"
    facts["gpu_error"] = ("CPU-only build (tf.sysconfig.get_build_info() has is_cuda_build "
                          "False)") if not (cuda_build or rocm_build) else \
        "TensorFlow lists no GPU (its GPU libraries did not load: see the stderr of the worker)"
    facts.update(bf16=True, fp16=True, tf32=False)
    return "/CPU:0"


def smoke(tf: Any, suite: c.Suite, device: str, facts: dict[str, Any]) -> None:
    a64, b64 = c.operands()
    ref = c.matmul(a64, b64)
    data = c.mlp_data()

    def tensor() -> str:
        with tf.device(device):
            x = tf.range(10, dtype=tf.float32)
            total = float(tf.reduce_sum(x).numpy())
        if total != 45.0:
            raise StepFailed(f"sum(range(10)) = {total}, expected 45")
        return f"range(10) on {x.device}: sum 45"

    def matmul(name: str, dtype: Any) -> Any:
        def step() -> str:
            with tf.device(device):
                a = tf.cast(tf.constant(a64, tf.float32), dtype)
                b = tf.cast(tf.constant(b64, tf.float32), dtype)
                got = tf.cast(tf.matmul(a, b), tf.float32).numpy()
            return c.compare(got, ref, name)
        return step

    def gradient() -> str:
        with tf.device(device):
            x = tf.Variable(3.0)
            with tf.GradientTape() as tape:
                y = x * x + 2.0 * x
            return c.check_gradient(tape.gradient(y, x).numpy())

    def params() -> dict[str, Any]:
        with tf.device(device):
            return {k: tf.Variable(data[k]) for k in ("w1", "b1", "w2", "b2")}

    def forward(p: dict[str, Any], x: Any) -> Any:
        return tf.matmul(tf.tanh(tf.matmul(x, p["w1"]) + p["b1"]), p["w2"]) + p["b2"]

    x, y = tf.constant(data["x"]), tf.constant(data["y"])

    def train() -> str:
        with tf.device(device):
            p = params()
            losses = []
            for _ in range(c.MLP_STEPS + 1):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(forward(p, x) - y))
                losses.append(float(loss.numpy()))
                grads = tape.gradient(loss, list(p.values()))
                for var, grad in zip(p.values(), grads, strict=True):
                    var.assign_sub(data["lr"] * grad)
        return c.check_losses(losses)

    def compiled() -> str:
        with tf.device(device):
            p = params()
            graph = tf.function(lambda v: forward(p, v))
            return c.check_same(graph(x).numpy(), forward(p, x).numpy(),
                                "tf.function vs eager", 1e-5)

    def checkpoint() -> str:
        with tf.device(device):
            p = params()
            with tempfile.TemporaryDirectory() as tmp:
                path = tf.train.Checkpoint(**p).write(os.path.join(tmp, "ckpt"))
                q = {k: tf.Variable(tf.zeros_like(v)) for k, v in p.items()}
                tf.train.Checkpoint(**q).read(path).assert_consumed()
            return c.check_same(forward(q, x).numpy(), forward(p, x).numpy(),
                                "tf.train.Checkpoint write -> read", 0.0)

    def saved_model() -> str:
        with tf.device(device):
            p = params()
            module = tf.Module()
            module.p = p
            module.f = tf.function(lambda v: forward(module.p, v),
                                   input_signature=[tf.TensorSpec([None, 8], tf.float32)])
            with tempfile.TemporaryDirectory() as tmp:
                tf.saved_model.save(module, tmp)
                loaded = tf.saved_model.load(tmp)
                got = loaded.f(x).numpy()
            return c.check_same(got, forward(p, x).numpy(), "SavedModel save -> load", 1e-6)

    def precision(name: str, dtype: Any) -> Any:
        return matmul(name, dtype) if facts.get(name) else c.Skip(
            f"{name} is not supported on {device}")

    suite.plan({
        "tensor": tensor,
        "matmul_fp32": matmul("fp32", tf.float32),
        "matmul_bf16": precision("bf16", tf.bfloat16),
        "matmul_fp16": precision("fp16", tf.float16),
        "gradient": gradient,
        "mlp_train": train,
        "compile": compiled,
        "save_load": checkpoint,
        "self_check": c.unsupported("TensorFlow has no installation self-check; the steps "
                                    "above are the check"),
    })
    if not suite.full:
        return
    suite.run("saved_model", saved_model)
    suite.run("memory", lambda: memory(tf, device))
    gpus = [d for d in facts.get("devices", []) if d["kind"] in ("cuda", "rocm")]
    if len(gpus) > 1:
        suite.run("multi_gpu", lambda: multi_gpu(tf, len(gpus)))
    else:
        suite.skip("multi_gpu", f"needs 2 or more GPUs ({len(gpus)} visible)")
    if device.startswith("/GPU"):
        suite.run("speed", lambda: speed(tf))
    else:
        suite.skip("speed", "GPU only")


def memory(tf: Any, device: str) -> str:
    size = (1 << 30) if device.startswith("/GPU") else (64 << 20)
    with tf.device(device):
        block = tf.ones([size // 4], tf.float32)
        total = float(tf.reduce_sum(block[:1024]).numpy())
    del block
    if total != 1024.0:
        raise StepFailed(f"a {size >> 20} MiB block read back wrong")
    if device.startswith("/GPU"):
        info = tf.config.experimental.get_memory_info("GPU:0")
        return f"allocated and freed {size >> 20} MiB; peak {info['peak'] >> 20} MiB"
    return f"allocated and freed {size >> 20} MiB on {device}"


def multi_gpu(tf: Any, count: int) -> str:
    with tf.device("/GPU:0"):
        src = tf.range(1 << 20, dtype=tf.float32)
    with tf.device("/GPU:1"):
        copy = tf.identity(src)
    if not bool(tf.reduce_all(tf.equal(copy, src)).numpy()):
        raise StepFailed("/GPU:0 -> /GPU:1 copy differs")
    strategy = tf.distribute.MirroredStrategy([f"/GPU:{i}" for i in range(count)])
    value = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.constant(float(ctx.replica_id_in_sync_group + 1)))
    total = float(strategy.reduce(tf.distribute.ReduceOp.SUM, value, axis=None).numpy())
    want = count * (count + 1) / 2
    if total != want:
        raise StepFailed(f"all-reduce over {count} GPUs = {total}, expected {want}")
    return f"device-to-device copy ok; all-reduce over {count} GPUs = {want:g}"


def speed(tf: Any) -> Any:
    metrics: dict[str, float] = {}

    def timeit(fn: Any, budget: float = 0.3) -> float:
        fn().numpy()
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < budget:
            out = fn()
            n += 1
        out.numpy()  # sync
        return (time.perf_counter() - start) / n

    size = 8192
    with tf.device("/GPU:0"):
        for key, dtype in (("bf16", tf.bfloat16), ("fp16", tf.float16), ("tf32", tf.float32)):
            a = tf.cast(tf.random.normal([size, size]), dtype)
            b = tf.cast(tf.random.normal([size, size]), dtype)
            mm = tf.function(lambda: tf.reduce_sum(tf.matmul(a, b)[:1, :1]))
            metrics[f"tflops_{key}"] = 2 * size ** 3 / timeit(mm) / 1e12
        src = tf.zeros([1 << 26], tf.float32)
        copy = tf.function(lambda: tf.reduce_sum(tf.identity(src + 1.0)[:1]))
        metrics["copy_gbs"] = 2 * 4 * (1 << 26) / timeit(copy) / 1e9
    return ", ".join(f"{k} {v:.1f}" for k, v in metrics.items()), metrics


def main(argv: list[str] | None = None) -> None:
    c.common_main("tensorflow", "tensorflow", collect, smoke, argv)


if __name__ == "__main__":
    main()
