"""MXNet worker (child process only): the shared smoke plan in MXNet's idioms.

Run as ``python -m envdoctor.workers.mxnet [--suite quick|full] [--no-smoke]``. MXNet is
retired (Apache Attic, 2023) but still found on old machines. The build comes from
``mx.runtime.Features()`` (CUDA, CUDNN, NCCL, MKLDNN … compiled in or not); compile is Gluon's
``hybridize()``; save/load is ``save_parameters``/``load_parameters`` (MXNet's own NDArray
format, no pickle). MXNet has no installation self-check.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from envdoctor.workers import _common as c
from envdoctor.workers._common import StepFailed

FEATURES = ("CUDA", "CUDNN", "NCCL", "TENSORRT", "MKLDNN", "BLAS_MKL", "BLAS_OPEN", "OPENMP")


def collect(mx: Any, facts: dict[str, Any]) -> str:
    features = mx.runtime.Features()
    enabled = [name for name in FEATURES if name in features and features.is_enabled(name)]
    cuda_build = "CUDA" in enabled
    count = int(mx.context.num_gpus()) if cuda_build else 0
    facts.update(version=mx.__version__, build="cuda" if cuda_build else "cpu",
                 features=enabled,
                 devices=[{"kind": "cpu", "index": 0, "name": "cpu"}]
                 + [{"kind": "cuda", "index": i, "name": f"gpu({i})"} for i in range(count)],
                 cuda_available=count > 0)
    if count:
        facts.update(bf16=False, fp16=True, tf32=None)
        facts["device_label"] = "gpu(0)"
        return "gpu"
    facts["gpu_error"] = "CPU-only build (mx.runtime.Features() has no CUDA)" if not cuda_build \
        else "mx.context.num_gpus() is 0"
    # the CPU dot kernel rejects float16; NumPy (MXNet's dtype names) has no bfloat16
    facts.update(bf16=False, fp16=False, tf32=False)
    return "cpu"


def smoke(mx: Any, suite: c.Suite, device: str, facts: dict[str, Any]) -> None:
    ctx = mx.gpu(0) if device == "gpu" else mx.cpu()
    nd, gluon = mx.nd, mx.gluon
    a64, b64 = c.operands()
    ref = c.matmul(a64, b64)
    data = c.mlp_data()

    def tensor() -> str:
        total = float(nd.arange(10, ctx=ctx).sum().asscalar())
        if total != 45.0:
            raise StepFailed(f"sum(arange(10)) = {total}, expected 45")
        return f"arange(10) on {ctx}: sum 45"

    def matmul(name: str, dtype: str) -> Any:
        def step() -> str:
            a = nd.array(a64, ctx=ctx).astype(dtype)
            b = nd.array(b64, ctx=ctx).astype(dtype)
            return c.compare(nd.dot(a, b).astype("float32").asnumpy(), ref, name)
        return step

    def precision(name: str, dtype: str) -> Any:
        return matmul(name, dtype) if facts.get(name) else c.Skip(
            f"{name} is not supported on {device}")

    def gradient() -> str:
        x = nd.array([3.0], ctx=ctx)
        x.attach_grad()
        with mx.autograd.record():
            y = x * x + 2 * x
        y.backward()
        return c.check_gradient(float(x.grad.asscalar()))

    def mlp() -> Any:
        net = gluon.nn.HybridSequential()
        net.add(gluon.nn.Dense(16, in_units=8, activation="tanh"),
                gluon.nn.Dense(1, in_units=16))
        net.initialize(ctx=ctx)
        # gluon Dense keeps its weight as (out, in)
        net[0].weight.set_data(nd.array(c.transpose(data["w1"]), ctx=ctx))
        net[0].bias.set_data(nd.array(data["b1"], ctx=ctx))
        net[1].weight.set_data(nd.array(c.transpose(data["w2"]), ctx=ctx))
        net[1].bias.set_data(nd.array(data["b2"], ctx=ctx))
        return net

    x, y = nd.array(data["x"], ctx=ctx), nd.array(data["y"], ctx=ctx)

    def train() -> str:
        net = mlp()
        # plain SGD on the mean loss: the same update as every other framework's step
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": data["lr"]})
        losses = []
        for _ in range(c.MLP_STEPS + 1):
            with mx.autograd.record():
                loss = ((net(x) - y) ** 2).mean()
            losses.append(float(loss.asscalar()))
            loss.backward()
            trainer.step(1)
        return c.check_losses(losses)

    def compiled() -> str:
        net = mlp()
        eager = net(x).asnumpy()
        net.hybridize()
        return c.check_same(net(x).asnumpy(), eager, "hybridize() vs imperative", 1e-5)

    def save_load() -> str:
        net = mlp()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "model.params")
            net.save_parameters(path)
            again = mlp()
            again[0].weight.set_data(nd.zeros((16, 8), ctx=ctx))
            again.load_parameters(path, ctx=ctx)
        return c.check_same(again(x).asnumpy(), net(x).asnumpy(),
                            "save_parameters -> load_parameters (.params)", 0.0)

    suite.plan({
        "tensor": tensor,
        "matmul_fp32": matmul("fp32", "float32"),
        "matmul_bf16": precision("bf16", "bfloat16"),
        "matmul_fp16": precision("fp16", "float16"),
        "gradient": gradient,
        "mlp_train": train,
        "compile": compiled,
        "save_load": save_load,
        "self_check": c.unsupported("MXNet has no installation self-check; its build features "
                                    "are recorded from mx.runtime.Features()"),
    })


def main(argv: list[str] | None = None) -> None:
    c.common_main("mxnet", "mxnet", collect, smoke, argv)


if __name__ == "__main__":
    main()
