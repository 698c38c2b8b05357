"""PaddlePaddle worker (child process only): the shared smoke plan in Paddle's idioms.

Run as ``python -m envdoctor.workers.paddle [--suite quick|full] [--no-smoke]``. Compile is
``paddle.jit.to_static``; save/load is ``paddle.jit.save``/``paddle.jit.load`` (a JSON program
and a raw ``.pdiparams`` tensor file: no pickle, unlike ``paddle.save``); the self-check is
``paddle.utils.run_check()``, judged by the success line it prints (it raises on most failures,
but prints a partial success before re-raising a multi-GPU one).
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from envdoctor.workers import _common as c
from envdoctor.workers._common import StepFailed

RUN_CHECK_OK = "PaddlePaddle is installed successfully!"


def judge_run_check(text: str) -> str:
    """The step's detail from what ``paddle.utils.run_check()`` printed; StepFailed without
    its success line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not any(ln.startswith(RUN_CHECK_OK) for ln in lines):
        raise StepFailed("paddle.utils.run_check() printed no success line (last: "
                         f"{lines[-1] if lines else 'nothing'})")
    works = next((ln for ln in lines if "works well on" in ln), RUN_CHECK_OK)
    return f"paddle.utils.run_check(): {works}"


def collect(paddle: Any, facts: dict[str, Any]) -> str:
    cuda_build = bool(paddle.device.is_compiled_with_cuda())
    facts.update(version=paddle.__version__, build="cuda" if cuda_build else "cpu",
                 devices=[{"kind": "cpu", "index": 0, "name": "cpu"}])
    # A CPU build answers paddle.version.cuda() == 'False': not a version, so no built_cuda.
    c.guarded(facts, lambda: {"built_cuda": c.version_text(paddle.version.cuda()),
                              "built_cudnn": c.version_text(paddle.version.cudnn())})
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
        facts["device_label"] = f"gpu:0 ({facts['devices'][1]['name']})"
        return "gpu:0"
    facts["gpu_error"] = (f"CPU-only build (paddle {paddle.__version__}, "
                          "paddle.version.cuda() is 'False')") if not cuda_build \
        else "Paddle sees no GPU (paddle.device.cuda.device_count() is 0)"
    paddle.device.set_device("cpu")
    # Paddle's CPU kernels have no bf16/fp16 matmul ("kernel ... bfloat16 ... not registered")
    facts.update(bf16=False, fp16=False, tf32=False)
    return "cpu"


def smoke(paddle: Any, suite: c.Suite, device: str, facts: dict[str, Any]) -> None:
    a64, b64 = c.operands()
    ref = c.matmul(a64, b64)
    data = c.mlp_data()
    nn = paddle.nn

    def tensor() -> str:
        x = paddle.arange(10, dtype="float32")
        total = float(x.sum().item())
        if total != 45.0:
            raise StepFailed(f"sum(arange(10)) = {total}, expected 45")
        return f"arange(10) on {x.place}: sum 45"

    def matmul(name: str, dtype: str) -> Any:
        def step() -> str:
            a = paddle.to_tensor(a64, dtype="float32").astype(dtype)
            b = paddle.to_tensor(b64, dtype="float32").astype(dtype)
            return c.compare(paddle.matmul(a, b).astype("float32").tolist(), ref, name)
        return step

    def precision(name: str, dtype: str) -> Any:
        return matmul(name, dtype) if facts.get(name) else c.Skip(
            f"{name} is not supported on {device}")

    def gradient() -> str:
        x = paddle.to_tensor(3.0, stop_gradient=False)
        (x * x + 2 * x).backward()
        return c.check_gradient(float(x.grad.item()))

    def mlp() -> Any:
        model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
        # paddle.nn.Linear keeps its weight as (in, out): the data's layout as it is
        model[0].weight.set_value(paddle.to_tensor(data["w1"], dtype="float32"))
        model[0].bias.set_value(paddle.to_tensor(data["b1"], dtype="float32"))
        model[2].weight.set_value(paddle.to_tensor(data["w2"], dtype="float32"))
        model[2].bias.set_value(paddle.to_tensor(data["b2"], dtype="float32"))
        return model

    x = paddle.to_tensor(data["x"], dtype="float32")
    y = paddle.to_tensor(data["y"], dtype="float32")

    def train() -> str:
        model = mlp()
        opt = paddle.optimizer.SGD(learning_rate=data["lr"], parameters=model.parameters())
        losses = []
        for _ in range(c.MLP_STEPS + 1):
            loss = nn.functional.mse_loss(model(x), y)
            losses.append(float(loss.item()))
            loss.backward()
            opt.step()
            opt.clear_grad()
        return c.check_losses(losses)

    def compiled() -> str:
        model = mlp()
        static = paddle.jit.to_static(model, full_graph=True)
        with paddle.no_grad():
            return c.check_same(static(x).tolist(), model(x).tolist(),
                                "paddle.jit.to_static vs eager", 1e-5)

    def save_load() -> str:
        model = mlp()
        spec = [paddle.static.InputSpec([None, 8], "float32")]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "model")
            paddle.jit.save(model, path, input_spec=spec)
            loaded = paddle.jit.load(path)
            with paddle.no_grad():
                return c.check_same(loaded(x).tolist(), model(x).tolist(),
                                    "paddle.jit.save -> paddle.jit.load", 1e-6)

    def run_check() -> str:
        _, text = c.printed_by(paddle.utils.run_check)
        return judge_run_check(text)

    suite.plan({
        "tensor": tensor,
        "matmul_fp32": matmul("fp32", "float32"),
        "matmul_bf16": precision("bf16", "bfloat16"),
        "matmul_fp16": precision("fp16", "float16"),
        "gradient": gradient,
        "mlp_train": train,
        "compile": compiled,
        "save_load": save_load,
        "self_check": run_check,
    })


def main(argv: list[str] | None = None) -> None:
    c.common_main("paddle", "paddle", collect, smoke, argv)


if __name__ == "__main__":
    main()
