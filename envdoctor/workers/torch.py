"""PyTorch worker (child process only): live facts and the smoke suite.

Run as ``python -m envdoctor.workers.torch [--suite quick|full] [--no-smoke]``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import warnings
from typing import Any

from envdoctor.workers import _common as c
from envdoctor.workers._common import StepFailed


def collect(torch: Any, facts: dict[str, Any]) -> str:
    """Fill the live facts; return the device the smoke suite should use."""
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    cuda, hip = torch.version.cuda, getattr(torch.version, "hip", None)
    facts.update(version=torch.__version__, built_cuda=cuda,
                 build="rocm" if hip else "cuda" if cuda else "cpu")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        available = bool(torch.cuda.is_available())
    facts["cuda_available"] = available
    devices: list[dict[str, Any]] = [{"kind": "cpu", "index": 0, "name": "cpu"}]
    if available:
        for i in range(torch.cuda.device_count()):
            p = torch.cuda.get_device_properties(i)
            devices.append({"kind": "rocm" if hip else "cuda", "index": i, "name": p.name,
                            "cc": None if hip else f"{p.major}.{p.minor}",
                            "memory_total_mb": int(p.total_memory // 2**20)})
    elif cuda or hip:
        why = "; ".join(str(w.message) for w in caught) or "torch.cuda.is_available() is False"
        facts["gpu_error"] = why
    else:
        facts["gpu_error"] = f"CPU-only build (torch {torch.__version__}, torch.version.cuda " \
                             "is None)"
    facts.update(mps_state(torch))
    if facts.get("mps_available"):
        devices.append({"kind": "mps", "index": 0, "name": "Apple MPS"})
    xpu = getattr(torch, "xpu", None)
    if xpu is not None and xpu.is_available():
        devices += [{"kind": "xpu", "index": i, "name": xpu.get_device_name(i)}
                    for i in range(xpu.device_count())]
    facts["devices"] = devices
    if cuda or hip:
        c.guarded(facts, lambda: {"arch_list": list(torch.cuda.get_arch_list())})
    if available:
        def cudnn() -> dict[str, Any]:
            # A tiny convolution makes torch load libcudnn, so the maps show the real file.
            x = torch.ones(1, 1, 4, 4, device="cuda")
            torch.nn.functional.conv2d(x, torch.ones(1, 1, 2, 2, device="cuda"))
            return {"cudnn": c.cudnn_from_int(torch.backends.cudnn.version())}

        def built_cudnn() -> dict[str, Any]:
            return {"built_cudnn": c.dotted(torch._C._cudnn.getCompileVersion())}

        def nccl() -> dict[str, Any]:
            return {"nccl": c.dotted(torch.cuda.nccl.version())}

        c.guarded(facts, cudnn)
        c.guarded(facts, built_cudnn)
        c.guarded(facts, nccl)
        cc = torch.cuda.get_device_capability(0)
        facts.update(bf16=bool(torch.cuda.is_bf16_supported()), fp16=True,
                     tf32=bool(not hip and cc >= (8, 0)))
        facts["device_label"] = f"cuda:0 ({torch.cuda.get_device_name(0)})"
        return "cuda"
    for kind in ("mps", "xpu"):
        if any(d["kind"] == kind for d in devices):
            facts.update(bf16=None, fp16=True, tf32=False)
            return kind
    facts.update(bf16=True, fp16=True, tf32=False)  # CPU: bf16/fp16 kernels, no TF32
    return "cpu"


def mps_state(torch: Any) -> dict[str, Any]:
    """torch's own answer about the Apple GPU: ``torch.backends.mps.is_built()`` (compiled with
    MPS) and ``is_available()`` (and the macOS / device allow it); {} where torch has no
    ``backends.mps`` (before 1.12). On a Mac where MPS is built but unavailable, why."""
    mps = getattr(torch.backends, "mps", None)
    if mps is None or sys.platform != "darwin":
        return {}
    built, available = bool(mps.is_built()), bool(mps.is_available())
    out: dict[str, Any] = {"mps_built": built, "mps_available": available}
    if built and not available:
        try:  # torch says why (the macOS floor, no Metal device) only when asked for one
            torch.zeros(1, device="mps")
        except Exception as exc:  # noqa: BLE001 - its message is the fact
            out["gpu_error"] = f"{type(exc).__name__}: {exc}"[:300]
    return out


def extra_steps(facts: dict[str, Any]) -> tuple[str, ...]:
    """Steps beyond the shared plan, from what the worker reported: the MPS step only where
    torch said MPS is available (on any other machine it is never planned)."""
    return ("mps_matmul",) if facts.get("mps_available") else ()


def mps_matmul(torch: Any) -> str:
    """A tiny matmul on ``mps`` against the CPU's answer: the Apple GPU computes."""
    a = torch.arange(16, dtype=torch.float32).reshape(4, 4)
    want = (a @ a.T).tolist()
    got = (a.to("mps") @ a.to("mps").T)
    torch.mps.synchronize()
    if got.cpu().tolist() != want:
        raise StepFailed(f"4x4 matmul on mps differs from the CPU: {got.cpu().tolist()}")
    return "4x4 fp32 matmul on mps equals the CPU result"


def smoke(torch: Any, suite: c.Suite, device: str, facts: dict[str, Any]) -> None:
    a64, b64 = c.operands()
    ref = c.matmul(a64, b64)
    data = c.mlp_data()

    def tensor() -> str:
        x = torch.arange(10, dtype=torch.float32, device=device)
        total = float(x.sum().item())
        if total != 45.0:
            raise StepFailed(f"sum(arange(10)) = {total}, expected 45")
        return f"arange(10) on {x.device}: sum 45"

    def matmul(dtype_name: str, dtype: Any) -> Any:
        def step() -> str:
            a = torch.tensor(a64, dtype=dtype, device=device)
            b = torch.tensor(b64, dtype=dtype, device=device)
            return c.compare((a @ b).float().cpu().tolist(), ref, dtype_name)
        return step

    def gradient() -> str:
        x = torch.tensor(3.0, device=device, requires_grad=True)
        (x * x + 2 * x).backward()
        return c.check_gradient(x.grad.item())

    def mlp() -> Any:
        model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(),
                                    torch.nn.Linear(16, 1)).to(device)
        with torch.no_grad():  # torch.tensor from lists: no NumPy needed
            model[0].weight.copy_(torch.tensor(c.transpose(data["w1"])))
            model[0].bias.zero_()
            model[2].weight.copy_(torch.tensor(c.transpose(data["w2"])))
            model[2].bias.zero_()
        return model

    x = torch.tensor(data["x"], dtype=torch.float32, device=device)
    y = torch.tensor(data["y"], dtype=torch.float32, device=device)

    def train() -> str:
        model = mlp()
        losses = []
        for _ in range(c.MLP_STEPS + 1):
            model.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            losses.append(float(loss.item()))
            loss.backward()
            with torch.no_grad():  # plain SGD: torch.optim's first use imports torch._dynamo
                for p in model.parameters():
                    p -= data["lr"] * p.grad
        return c.check_losses(losses)

    def compiled() -> str:
        model = mlp()
        fast = torch.compile(model)
        with torch.no_grad():
            return c.check_same(fast(x).cpu().tolist(), model(x).cpu().tolist(),
                                "torch.compile vs eager", 1e-4)

    def save_load() -> str:
        model = mlp()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "model.pt")
            torch.save(model.state_dict(), path)
            state = torch.load(path, weights_only=True, map_location=device)
        again = mlp()
        with torch.no_grad():
            again[0].weight.zero_()
        again.load_state_dict(state)
        with torch.no_grad():
            return c.check_same(again(x).cpu().tolist(), model(x).cpu().tolist(),
                                "torch.save -> torch.load(weights_only=True)", 0.0)

    def precision(name: str, dtype: Any) -> Any:
        return matmul(name, dtype) if facts.get(name) else c.Skip(
            f"{name} is not supported on {device}")

    suite.plan({
        "tensor": tensor,
        "matmul_fp32": matmul("fp32", torch.float32),
        "matmul_bf16": precision("bf16", torch.bfloat16),
        "matmul_fp16": precision("fp16", torch.float16),
        "gradient": gradient,
        "mlp_train": train,
        # torch.compile builds C++ with the system compiler: about a minute of CPU on 2 cores
        "compile": compiled if suite.full else c.Skip("torch.compile runs with --smoke full"),
        "save_load": save_load,
        "self_check": c.unsupported("PyTorch has no installation self-check; the steps above "
                                    "are the check"),
    })
    for name in extra_steps(facts):
        suite.run(name, lambda: mps_matmul(torch))
    if not suite.full:
        return
    suite.run("memory", lambda: memory(torch, device))
    gpus = [d for d in facts.get("devices", []) if d["kind"] in ("cuda", "rocm")]
    if len(gpus) > 1:
        suite.run("multi_gpu", lambda: multi_gpu(torch, len(gpus)))
    else:
        suite.skip("multi_gpu", f"needs 2 or more GPUs ({len(gpus)} visible)")
    if device == "cuda":
        suite.run("speed", lambda: speed(torch))
    else:
        suite.skip("speed", "GPU only")


def memory(torch: Any, device: str) -> str:
    size = (1 << 30) if device == "cuda" else (64 << 20)
    if device != "cuda":
        block = torch.empty(size // 4, dtype=torch.float32, device=device)
        block.fill_(1.0)
        del block
        return f"allocated and freed {size >> 20} MiB on {device}"
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    block = torch.empty(size // 4, dtype=torch.float32, device="cuda")
    block.fill_(1.0)
    torch.cuda.synchronize()
    during = torch.cuda.memory_allocated()
    del block
    torch.cuda.empty_cache()
    after = torch.cuda.memory_allocated()
    if during - before < size or after != before:
        raise StepFailed(f"allocated {(during - before) >> 20} MiB, {(after - before) >> 20} MiB "
                         "still held after free")
    return f"allocated and freed {size >> 20} MiB on cuda:0"


def multi_gpu(torch: Any, count: int) -> str:
    src = torch.arange(1 << 20, dtype=torch.float32, device="cuda:0")
    copy = src.to("cuda:1")
    if not torch.equal(copy.cpu(), src.cpu()):
        raise StepFailed("cuda:0 -> cuda:1 copy differs")
    tensors = [torch.full((1024,), float(i + 1), device=f"cuda:{i}") for i in range(count)]
    torch.cuda.nccl.all_reduce(tensors)
    want = count * (count + 1) / 2
    bad = [i for i, t in enumerate(tensors) if float(t[0].item()) != want]
    if bad:
        raise StepFailed(f"NCCL all-reduce gave wrong sums on GPU(s) {bad}")
    return f"device-to-device copy ok; NCCL all-reduce over {count} GPUs = {want:g}"


def speed(torch: Any) -> Any:
    """Matmul TFLOP/s (bf16, fp16, TF32) and copy GB/s, about 0.3 s each."""
    metrics: dict[str, float] = {}

    def timeit(fn: Any, budget: float = 0.3) -> float:
        fn()
        torch.cuda.synchronize()
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < budget:
            fn()
            n += 1
            torch.cuda.synchronize()
        return (time.perf_counter() - start) / n

    size = 8192
    for key, dtype, tf32 in (("bf16", torch.bfloat16, False), ("fp16", torch.float16, False),
                             ("tf32", torch.float32, True)):
        old = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = tf32
        try:
            a = torch.randn(size, size, device="cuda", dtype=dtype)
            b = torch.randn(size, size, device="cuda", dtype=dtype)
            seconds = timeit(lambda a=a, b=b: a @ b)
            metrics[f"tflops_{key}"] = 2 * size ** 3 / seconds / 1e12
            del a, b
        finally:
            torch.backends.cuda.matmul.allow_tf32 = old
    src = torch.empty(1 << 28, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    seconds = timeit(lambda: dst.copy_(src))
    metrics["copy_gbs"] = 2 * src.numel() / seconds / 1e9  # read + write
    torch.cuda.empty_cache()
    detail = ", ".join(f"{k} {v:.1f}" for k, v in metrics.items())
    return detail, metrics


def main(argv: list[str] | None = None) -> None:
    c.common_main("torch", "torch", collect, smoke, argv)


if __name__ == "__main__":
    main()
