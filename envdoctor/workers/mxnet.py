"""MXNet worker (child process only): the core steps through ``mx.nd`` and ``autograd``.

Run as ``python -m envdoctor.workers.mxnet``. MXNet is retired (Apache attic, 2023) but still
found on old machines. Every call is guarded by the step runner.
"""

from __future__ import annotations

from typing import Any

from envdoctor.workers import _common as c
from envdoctor.workers._common import StepFailed


def collect(mx: Any, facts: dict[str, Any]) -> str:
    count = int(mx.context.num_gpus())
    facts.update(version=mx.__version__, build="cuda" if count else "unknown",
                 devices=[{"kind": "cpu", "index": 0, "name": "cpu"}]
                 + [{"kind": "cuda", "index": i, "name": f"gpu({i})"} for i in range(count)],
                 cuda_available=count > 0)
    if count:
        return "gpu"
    facts["gpu_error"] = "mx.context.num_gpus() is 0"
    return "cpu"


def smoke(mx: Any, suite: c.Suite, device: str, facts: dict[str, Any]) -> None:
    ctx = mx.gpu(0) if device == "gpu" else mx.cpu()
    a64, b64 = c.operands()

    def tensor() -> str:
        total = float(mx.nd.arange(10, ctx=ctx).sum().asscalar())
        if total != 45.0:
            raise StepFailed(f"sum(arange(10)) = {total}, expected 45")
        return f"arange(10) on {ctx}: sum 45"

    def matmul() -> str:
        got = mx.nd.dot(mx.nd.array(a64, ctx=ctx), mx.nd.array(b64, ctx=ctx)).asnumpy()
        return c.compare(got, a64 @ b64, "fp32")

    def gradient() -> str:
        x = mx.nd.array([3.0], ctx=ctx)
        x.attach_grad()
        with mx.autograd.record():
            y = x * x + 2 * x
        y.backward()
        return c.check_gradient(float(x.grad.asscalar()))

    suite.run("tensor", tensor)
    suite.run("matmul_fp32", matmul)
    suite.run("gradient", gradient)


def main(argv: list[str] | None = None) -> None:
    c.common_main("mxnet", "mxnet", collect, smoke, argv)


if __name__ == "__main__":
    main()
