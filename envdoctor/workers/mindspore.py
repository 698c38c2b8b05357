"""MindSpore worker (child process only): ``mindspore.run_check()`` plus the core steps.

Run as ``python -m envdoctor.workers.mindspore``. Not installed in CI here: every call is
guarded by the step runner, so an API drift is a failed step naming its error, never a crash.
"""

from __future__ import annotations

from typing import Any

from envdoctor.workers import _common as c
from envdoctor.workers._common import StepFailed


def collect(ms: Any, facts: dict[str, Any]) -> str:
    target = str(ms.get_context("device_target") or "CPU")
    facts.update(version=ms.__version__, build=target.lower(),
                 devices=[{"kind": "cpu", "index": 0, "name": "cpu"}])
    if target.upper() == "GPU":
        facts["devices"].append({"kind": "cuda", "index": 0, "name": "GPU"})
        facts["cuda_available"] = True
        return "GPU"
    facts["cuda_available"] = False
    facts["gpu_error"] = f"device_target is {target}"
    return target


def smoke(ms: Any, suite: c.Suite, device: str, facts: dict[str, Any]) -> None:
    a64, b64 = c.operands()

    def run_check() -> str:
        ms.run_check()
        return "mindspore.run_check() passed"

    def tensor() -> str:
        total = float(ms.ops.arange(10).astype(ms.float32).sum().asnumpy())
        if total != 45.0:
            raise StepFailed(f"sum(arange(10)) = {total}, expected 45")
        return f"arange(10) on {device}: sum 45"

    def matmul() -> str:
        got = ms.ops.matmul(ms.Tensor(a64, ms.float32), ms.Tensor(b64, ms.float32)).asnumpy()
        return c.compare(got, a64 @ b64, "fp32")

    def gradient() -> str:
        return c.check_gradient(float(ms.grad(lambda x: x * x + 2 * x)(
            ms.Tensor(3.0, ms.float32)).asnumpy()))

    suite.run("run_check", run_check)
    suite.run("tensor", tensor)
    suite.run("matmul_fp32", matmul)
    suite.run("gradient", gradient)


def main(argv: list[str] | None = None) -> None:
    c.common_main("mindspore", "mindspore", collect, smoke, argv)


if __name__ == "__main__":
    main()
