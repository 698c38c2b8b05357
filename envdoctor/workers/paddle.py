"""PaddlePaddle worker (child process only): ``paddle.utils.run_check()`` plus the core steps.

Run as ``python -m envdoctor.workers.paddle``. Not installed in CI here: every call is guarded
by the step runner, so an API drift is a failed step naming its error, never a crash.
"""

from __future__ import annotations

from typing import Any

from envdoctor.workers import _common as c
from envdoctor.workers._common import StepFailed


def collect(paddle: Any, facts: dict[str, Any]) -> str:
    cuda_build = bool(paddle.device.is_compiled_with_cuda())
    facts.update(version=paddle.__version__, build="cuda" if cuda_build else "cpu",
                 devices=[{"kind": "cpu", "index": 0, "name": "cpu"}])
    c.guarded(facts, lambda: {"built_cuda": str(paddle.version.cuda()) or None,
                              "built_cudnn": str(paddle.version.cudnn()) or None})
    count = paddle.device.cuda.device_count() if cuda_build else 0
    for i in range(count):
        cap = paddle.device.cuda.get_device_capability(i)
        facts["devices"].append({"kind": "cuda", "index": i,
                                 "name": paddle.device.cuda.get_device_name(i),
                                 "cc": c.dotted(cap)})
    facts["cuda_available"] = count > 0
    if count:
        paddle.device.set_device("gpu:0")
        cc = facts["devices"][1]["cc"]
        modern = cc is not None and float(cc) >= 8.0
        facts.update(bf16=modern, fp16=True, tf32=modern)
        return "gpu:0"
    facts["gpu_error"] = "CPU-only build" if not cuda_build else "Paddle sees no GPU"
    paddle.device.set_device("cpu")
    facts.update(bf16=None, fp16=None, tf32=False)
    return "cpu"


def smoke(paddle: Any, suite: c.Suite, device: str, facts: dict[str, Any]) -> None:
    a64, b64 = c.operands()

    def run_check() -> str:
        paddle.utils.run_check()
        return "paddle.utils.run_check() passed"

    def tensor() -> str:
        total = float(paddle.arange(10, dtype="float32").sum().item())
        if total != 45.0:
            raise StepFailed(f"sum(arange(10)) = {total}, expected 45")
        return f"arange(10) on {device}: sum 45"

    def matmul() -> str:
        got = paddle.matmul(paddle.to_tensor(a64, dtype="float32"),
                            paddle.to_tensor(b64, dtype="float32")).numpy()
        return c.compare(got, a64 @ b64, "fp32")

    def gradient() -> str:
        x = paddle.to_tensor(3.0, stop_gradient=False)
        (x * x + 2 * x).backward()
        return c.check_gradient(float(x.grad.item()))

    suite.run("run_check", run_check)
    suite.run("tensor", tensor)
    suite.run("matmul_fp32", matmul)
    suite.run("gradient", gradient)


def main(argv: list[str] | None = None) -> None:
    c.common_main("paddle", "paddle", collect, smoke, argv)


if __name__ == "__main__":
    main()
