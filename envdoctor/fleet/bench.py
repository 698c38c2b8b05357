"""``fleet --bench``: collectives checked exactly, bus bandwidth, matmul speed, NCCL transport.

* exact all-reduce: every rank contributes ``rank + 1`` in every element; the sum is
  n(n+1)/2, exact in float32 for any realistic n, so any other value is corruption;
* an all-reduce size sweep (and one all-gather) reporting bus bandwidth as nccl-tests defines
  it: busbw = algbw · 2(n−1)/n for all-reduce, algbw · (n−1)/n for all-gather, with
  algbw = bytes / time (all-gather: the gathered bytes). Run over all ranks, within each node
  and over one rank per node, so a slow link shows where it is;
* matmul TFLOP/s on the rank's device, judged against the fleet median by a rule;
* on GPUs, NCCL's own log (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,NET into a file) read for
  the transport it chose (``NET/IB`` or ``NET/Socket``).

GPU parts need every rank to have a GPU (agreed by an all-reduce first); on CPU everything
runs on the gloo group, which is how it is tested.
"""

from __future__ import annotations

import os
import re
import statistics
import tempfile
import time
from typing import Any

from envdoctor.fleet.layout import Layout

CPU_SIZES = (1 << 12, 1 << 16, 1 << 20, 1 << 22)           # bytes
GPU_SIZES = (1 << 20, 1 << 24, 1 << 26, 1 << 28)
ITERS = 5
MAX_LOG = 4 << 20
# "NCCL INFO Using network IB" (2.12+), "via NET/Socket/0", "NET/IB : Using [0]mlx5_0:1/IB"
_USING = re.compile(r"NCCL INFO Using network ([A-Za-z][A-Za-z0-9_ -]{0,40})")
_VIA = re.compile(r"via NET/([A-Za-z][A-Za-z0-9_]{0,30})")
_NET_USING = re.compile(r"NET/(IB|Socket) : Using ")


def bus_factor(op: str, n: int) -> float:
    """nccl-tests' busbw / algbw ratio for a collective over n ranks."""
    if n <= 1:
        return 0.0
    return 2 * (n - 1) / n if op == "all_reduce" else (n - 1) / n


def nccl_transport(text: str) -> str | None:
    """The network transport NCCL reports in its INFO log: IB, Socket, a plugin's name, or
    None when the log says nothing about it (a single-node job uses no network)."""
    text = text[:MAX_LOG]
    found = _USING.findall(text)
    if found:
        names = {f.strip() for f in found}
        return "Socket" if names == {"Socket"} else sorted(names - {"Socket"})[0]
    via = set(_VIA.findall(text))
    if via:
        return "Socket" if via == {"Socket"} else sorted(via - {"Socket"})[0]
    using = set(_NET_USING.findall(text))
    if using:
        return "IB" if "IB" in using else "Socket"
    return None


def prepare_nccl_log(layout: Layout) -> str:
    """Point NCCL's INFO log at a file of this rank's (before the first NCCL communicator)."""
    folder = tempfile.mkdtemp(prefix="envdoctor-nccl-")
    path = os.path.join(folder, f"rank{layout.rank}.log")
    os.environ.setdefault("NCCL_DEBUG", "INFO")
    os.environ.setdefault("NCCL_DEBUG_SUBSYS", "INIT,NET")
    os.environ["NCCL_DEBUG_FILE"] = path
    return path


def _sig(value: float) -> float:
    """Four significant digits: CPU bandwidths are tiny, GPU ones large, both stay exact
    enough that busbw / algbw is the nccl-tests factor to 1e-3."""
    return float(f"{value:.4g}")


def _timed(fn: Any, sync: Any, iters: int = ITERS) -> float:
    fn()
    sync()
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _sweep(torch: Any, dist: Any, group: Any, n: int, device: str, sizes: tuple[int, ...],
           sync: Any) -> dict[str, Any]:
    """All-reduce busbw per size and the largest size's figure as the headline."""
    rows = []
    for size in sizes:
        x = torch.ones(size // 4, dtype=torch.float32, device=device)
        seconds = _timed(lambda: dist.all_reduce(x, group=group), sync)
        algbw = size / seconds / 1e9
        rows.append({"bytes": size, "seconds": _sig(seconds), "algbw_gbs": _sig(algbw),
                     "busbw_gbs": _sig(algbw * bus_factor("all_reduce", n))})
    return {"ranks": n, "sizes": rows, "busbw_gbs": rows[-1]["busbw_gbs"] if rows else None}


def _all_gather(torch: Any, dist: Any, group: Any, n: int, device: str, size: int,
                sync: Any) -> dict[str, Any]:
    x = torch.ones(size // 4 // max(n, 1) or 1, dtype=torch.float32, device=device)
    outs = [torch.empty_like(x) for _ in range(n)]
    seconds = _timed(lambda: dist.all_gather(outs, x, group=group), sync)
    total = x.numel() * 4 * n
    algbw = total / seconds / 1e9
    return {"bytes": total, "seconds": _sig(seconds), "algbw_gbs": _sig(algbw),
            "busbw_gbs": _sig(algbw * bus_factor("all_gather", n))}


def _matmul(torch: Any, device: str, sync: Any) -> float:
    n, dtype = (8192, torch.bfloat16) if device.startswith("cuda") else (384, torch.float32)
    a = torch.randn(n, n, dtype=dtype, device=device)
    b = torch.randn(n, n, dtype=dtype, device=device)
    seconds = _timed(lambda: a @ b, sync, iters=5)
    return _sig(2 * n ** 3 / seconds / 1e12)


def run(layout: Layout, node_key: int, timeout: float = 60.0) -> dict[str, Any]:
    """This rank's bench results (every rank calls it, in the same order: it is collective).

    Every group gets ``timeout`` explicitly: new_group's own default (minutes, for NCCL) would
    let one rank that failed a step hold the others far past --timeout.
    """
    import datetime

    import torch
    import torch.distributed as dist

    n = layout.world_size
    out: dict[str, Any] = {}
    has_cuda = bool(torch.cuda.is_available())
    # who is where, and can everyone use CUDA: one small all_gather on gloo
    mine = torch.tensor([node_key, layout.local_rank, int(has_cuda)], dtype=torch.int64)
    table = [torch.zeros(3, dtype=torch.int64) for _ in range(n)]
    dist.all_gather(table, mine)
    keys = [int(t[0]) for t in table]
    gpu = all(int(t[2]) for t in table)
    device = f"cuda:{torch.cuda.current_device()}" if gpu else "cpu"
    backend = "nccl" if gpu and dist.is_nccl_available() else "gloo"
    out.update(backend=backend, device=device)
    log = prepare_nccl_log(layout) if backend == "nccl" else ""

    def sync() -> None:
        if device.startswith("cuda"):
            torch.cuda.synchronize()

    limit = datetime.timedelta(seconds=max(1.0, timeout))

    def group(ranks: list[int]) -> Any:
        return dist.new_group(ranks, backend=backend, timeout=limit)

    # groups are created collectively, in the same order on every rank
    world = group(list(range(n))) if backend == "nccl" else None
    nodes: dict[int, list[int]] = {}
    for r, k in enumerate(keys):
        nodes.setdefault(k, []).append(r)
    local_group = None
    for _key, members in sorted(nodes.items(), key=lambda kv: kv[1][0]):
        g = group(members)
        if layout.rank in members:
            local_group = g
    leaders = [members[0] for members in nodes.values()]
    cross = group(sorted(leaders)) if len(leaders) > 1 else None

    x = torch.full((1024,), float(layout.rank + 1), dtype=torch.float32, device=device)
    dist.all_reduce(x, group=world)
    sync()
    want = n * (n + 1) / 2
    got = x.cpu()
    wrong = int((got != want).sum())
    out["allreduce_check"] = "exact" if wrong == 0 else \
        f"got {float(got[(got != want).nonzero()[0]].item())}, expected {want} " \
        f"({wrong} of 1024 elements wrong)"
    sizes = GPU_SIZES if gpu else CPU_SIZES
    out["world"] = _sweep(torch, dist, world, n, device, sizes, sync)
    out["world"]["all_gather"] = _all_gather(torch, dist, world, n, device, sizes[-1], sync)
    local_n = len(nodes[node_key])
    out["local"] = _sweep(torch, dist, local_group, local_n, device, sizes, sync) \
        if local_n > 1 else None
    if cross is not None:
        if layout.rank in leaders:
            out["cross"] = _sweep(torch, dist, cross, len(leaders), device, sizes, sync)
    out["matmul_tflops"] = _matmul(torch, device, sync)
    if log:
        from envdoctor.bounded import read_proc
        text = read_proc(log, MAX_LOG)
        out["nccl_net"] = nccl_transport(text) if text is not None else None
    return out
