"""MindSpore worker (child process only): the shared smoke plan in MindSpore's idioms.

Run as ``python -m envdoctor.workers.mindspore [--suite quick|full] [--no-smoke]``. Compile is
graph mode (``mindspore.jit``: the source is parsed into a static graph); save/load is
``save_checkpoint``/``load_checkpoint`` (protobuf ``.ckpt``, no pickle); the self-check is
``mindspore.run_check()``, which catches its own exceptions and returns None either way, so the
step is judged by the lines it prints.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from envdoctor.workers import _common as c
from envdoctor.workers._common import StepFailed

RUN_CHECK_OK = "MindSpore has been installed on platform"
RUN_CHECK_FAILED = "MindSpore running check failed"


def judge_run_check(text: str) -> str:
    """The step's detail from what ``mindspore.run_check()`` printed; StepFailed when it printed
    its failure line (and the exception text after it) or no success line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for i, line in enumerate(lines):
        if RUN_CHECK_FAILED in line:
            why = f": {lines[i + 1]}" if i + 1 < len(lines) else ""
            raise StepFailed(f"mindspore.run_check(): {RUN_CHECK_FAILED}{why}")
    ok = next((ln for ln in lines if RUN_CHECK_OK in ln), None)
    if ok is None:
        raise StepFailed("mindspore.run_check() printed no success line (last: "
                         f"{lines[-1] if lines else 'nothing'})")
    return f"mindspore.run_check(): {ok}"


def collect(ms: Any, facts: dict[str, Any]) -> str:
    target = str(ms.get_context("device_target") or "CPU")
    facts.update(version=ms.__version__, build={"GPU": "cuda", "CPU": "cpu"}.get(
        target.upper(), target.lower()), devices=[{"kind": "cpu", "index": 0, "name": "cpu"}])
    if target.upper() == "GPU":
        facts["devices"].append({"kind": "cuda", "index": 0, "name": "GPU"})
        facts["cuda_available"] = True
        facts.update(bf16=None, fp16=True, tf32=None)
        return "GPU"
    facts["cuda_available"] = False
    facts["gpu_error"] = f"MindSpore's device_target is {target}"
    # the CPU MatMul kernel takes float16 but not bfloat16 ("Unsupported data type")
    facts.update(bf16=False, fp16=target.upper() == "CPU", tf32=False)
    return target


def smoke(ms: Any, suite: c.Suite, device: str, facts: dict[str, Any]) -> None:
    a64, b64 = c.operands()
    ref = c.matmul(a64, b64)
    data = c.mlp_data()
    nn, ops = ms.nn, ms.ops

    def tensor() -> str:
        total = float(ops.arange(10).astype(ms.float32).sum().asnumpy())
        if total != 45.0:
            raise StepFailed(f"sum(arange(10)) = {total}, expected 45")
        return f"arange(10) on {device}: sum 45"

    def matmul(name: str, dtype: Any) -> Any:
        def step() -> str:
            a = ms.Tensor(a64, ms.float32).astype(dtype)
            b = ms.Tensor(b64, ms.float32).astype(dtype)
            return c.compare(ops.matmul(a, b).astype(ms.float32).tolist(), ref, name)
        return step

    def precision(name: str, dtype: Any) -> Any:
        return matmul(name, dtype) if facts.get(name) else c.Skip(
            f"{name} is not supported on {device}")

    def gradient() -> str:
        return c.check_gradient(float(ms.grad(lambda x: x * x + 2 * x)(
            ms.Tensor(3.0, ms.float32)).asnumpy()))

    def mlp() -> Any:
        model = nn.SequentialCell(nn.Dense(8, 16), nn.Tanh(), nn.Dense(16, 1))
        # nn.Dense keeps its weight as (out, in)
        model[0].weight.set_data(ms.Tensor(c.transpose(data["w1"]), ms.float32))
        model[0].bias.set_data(ms.Tensor(data["b1"], ms.float32))
        model[2].weight.set_data(ms.Tensor(c.transpose(data["w2"]), ms.float32))
        model[2].bias.set_data(ms.Tensor(data["b2"], ms.float32))
        return model

    x = ms.Tensor(data["x"], ms.float32)
    y = ms.Tensor(data["y"], ms.float32)

    def train() -> str:
        model = mlp()
        opt = nn.SGD(model.trainable_params(), learning_rate=data["lr"])
        loss_fn = nn.MSELoss()

        def forward(inputs: Any, target: Any) -> Any:
            return loss_fn(model(inputs), target)

        step = ms.value_and_grad(forward, None, opt.parameters)
        losses = []
        for _ in range(c.MLP_STEPS + 1):
            loss, grads = step(x, y)
            losses.append(float(loss.asnumpy()))
            opt(grads)
        return c.check_losses(losses)

    def compiled() -> str:
        model = mlp()

        def forward(inputs: Any) -> Any:
            return model(inputs)

        graph = ms.jit(forward)  # graph mode: the source is parsed and compiled, then run
        return c.check_same(graph(x).tolist(), model(x).tolist(),
                            "mindspore.jit (graph mode) vs PyNative", 1e-5)

    def save_load() -> str:
        model = mlp()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "model.ckpt")
            ms.save_checkpoint(model, path)
            again = nn.SequentialCell(nn.Dense(8, 16), nn.Tanh(), nn.Dense(16, 1))
            ms.load_param_into_net(again, ms.load_checkpoint(path))
        return c.check_same(again(x).tolist(), model(x).tolist(),
                            "save_checkpoint -> load_checkpoint (.ckpt)", 0.0)

    def run_check() -> str:
        _, text = c.printed_by(ms.run_check)
        return judge_run_check(text)

    suite.plan({
        "tensor": tensor,
        "matmul_fp32": matmul("fp32", ms.float32),
        "matmul_bf16": precision("bf16", ms.bfloat16),
        "matmul_fp16": precision("fp16", ms.float16),
        "gradient": gradient,
        "mlp_train": train,
        "compile": compiled,
        "save_load": save_load,
        "self_check": run_check,
    })


def main(argv: list[str] | None = None) -> None:
    c.common_main("mindspore", "mindspore", collect, smoke, argv)


if __name__ == "__main__":
    main()
