"""Keras 3 worker (child process only): the smoke suite through Keras's configured backend.

Run as ``python -m envdoctor.workers.keras [--suite quick|full] [--no-smoke]``. The backend is
whatever KERAS_BACKEND or ~/.keras/keras.json say (TensorFlow by default), so this worker
imports that framework too; that is why it runs by default only with ``--smoke full``.
Save/load uses the ``.keras`` format (zip of JSON config + weights; ``safe_mode`` on).
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from envdoctor.workers import _common as c
from envdoctor.workers._common import StepFailed


def collect(keras: Any, facts: dict[str, Any]) -> str:
    backend = keras.backend.backend()
    facts.update(version=keras.__version__, backend=backend, build="unknown",
                 devices=[{"kind": "cpu", "index": 0, "name": "cpu"}], bf16=None, fp16=None,
                 tf32=None)
    if backend == "tensorflow":
        import tensorflow as tf
        gpus = tf.config.list_physical_devices("GPU")
        for gpu in gpus:
            try:
                tf.config.experimental.set_memory_growth(gpu, True)
            except RuntimeError:
                pass
        facts["devices"] += [{"kind": "cuda", "index": i, "name": g.name}
                             for i, g in enumerate(gpus)]
        facts["cuda_available"] = bool(gpus)
    elif backend == "torch":
        import torch
        facts["cuda_available"] = bool(torch.cuda.is_available())
        facts["devices"] += [{"kind": "cuda", "index": i, "name": torch.cuda.get_device_name(i)}
                             for i in range(torch.cuda.device_count())]
    elif backend == "jax":
        import jax
        accel = [d for d in jax.devices() if d.platform != "cpu"]
        facts["cuda_available"] = bool(accel)
        facts["devices"] += [{"kind": "cuda", "index": d.id, "name": d.device_kind}
                             for d in accel]
    else:
        facts["cuda_available"] = False
    if not facts.get("cuda_available"):
        facts["gpu_error"] = f"the {backend} backend sees no GPU"
    return f"{backend} backend, " + ("gpu" if facts.get("cuda_available") else "cpu")


def gradient_on_backend(keras: Any) -> Any:
    """d/dx (x² + 2x) at 3 through the backend's own autodiff (Keras 3 has no portable
    gradient API); None when the backend has none (numpy, openvino)."""
    backend = keras.backend.backend()
    ops = keras.ops
    if backend == "tensorflow":
        import tensorflow as tf

        def tf_grad() -> float:
            x = keras.Variable(3.0)
            with tf.GradientTape() as tape:
                y = x * x + 2.0 * x
            return float(tape.gradient(y, x))
        return tf_grad
    if backend == "torch":
        import torch

        def torch_grad() -> float:
            x = torch.tensor(3.0, requires_grad=True)
            ops.add(ops.multiply(x, x), ops.multiply(2.0, x)).backward()
            return float(x.grad)
        return torch_grad
    if backend == "jax":
        import jax
        return lambda: float(jax.grad(lambda x: ops.add(ops.multiply(x, x),
                                                        ops.multiply(2.0, x)))(3.0))
    return None


def smoke(keras: Any, suite: c.Suite, device: str, facts: dict[str, Any]) -> None:
    import numpy as np  # Keras itself requires NumPy
    ops = keras.ops
    backend = keras.backend.backend()
    a64, b64 = c.operands()
    data = {k: np.asarray(v, dtype=np.float32) if isinstance(v, list) else v
            for k, v in c.mlp_data().items()}
    keras.utils.set_random_seed(0)

    def tensor() -> str:
        total = float(ops.convert_to_numpy(ops.sum(ops.arange(10, dtype="float32"))))
        if total != 45.0:
            raise StepFailed(f"sum(arange(10)) = {total}, expected 45")
        return f"keras.ops.arange(10) on the {backend} backend: sum 45"

    def matmul() -> str:
        got = ops.convert_to_numpy(ops.matmul(ops.convert_to_tensor(a64, "float32"),
                                              ops.convert_to_tensor(b64, "float32")))
        return c.compare(got, c.matmul(a64, b64), "fp32")

    def model() -> Any:
        m = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="tanh"),
                              keras.layers.Dense(1)])
        m.set_weights([data["w1"], data["b1"], data["w2"], data["b2"]])
        return m

    def train() -> str:
        m = model()
        m.compile(optimizer=keras.optimizers.SGD(data["lr"]), loss="mse")
        before = float(m.evaluate(data["x"], data["y"], verbose=0))
        history = m.fit(data["x"], data["y"], batch_size=64, epochs=c.MLP_STEPS, verbose=0,
                        shuffle=False)
        after = float(m.evaluate(data["x"], data["y"], verbose=0))
        return c.check_losses([before, *history.history["loss"][1:], after])

    def compiled() -> str:
        eager, jit = model(), model()
        eager.compile(loss="mse", jit_compile=False)
        jit.compile(loss="mse", jit_compile=True)
        return c.check_same(jit.predict(data["x"], verbose=0), eager.predict(data["x"], verbose=0),
                            f"jit_compile=True vs eager on the {backend} backend", 1e-5)

    def save_load() -> str:
        m = model()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "model.keras")
            m.save(path)
            again = keras.saving.load_model(path, safe_mode=True)
        return c.check_same(np.asarray(again.predict(data["x"], verbose=0)),
                            np.asarray(m.predict(data["x"], verbose=0)), ".keras save -> load",
                            1e-6)

    grad = gradient_on_backend(keras)
    if backend == "torch" and not suite.full:
        compile_step: Any = c.Skip("jit_compile on the torch backend is torch.compile: runs "
                                   "with --smoke full")
    elif backend in ("tensorflow", "jax", "torch"):
        compile_step = compiled
    else:
        compile_step = c.unsupported(f"the {backend} backend has no jit_compile")
    suite.plan({
        "tensor": tensor,
        "matmul_fp32": matmul,
        "matmul_bf16": c.Skip("reduced precision is run by the backend's own worker"),
        "matmul_fp16": c.Skip("reduced precision is run by the backend's own worker"),
        "gradient": (lambda: c.check_gradient(grad())) if grad else c.unsupported(
            f"the {backend} backend has no autodiff"),
        "mlp_train": train,
        "compile": compile_step,
        "save_load": save_load,
        "self_check": c.unsupported("Keras has no installation self-check"),
    })


def main(argv: list[str] | None = None) -> None:
    c.common_main("keras", "keras", collect, smoke, argv)


if __name__ == "__main__":
    main()
