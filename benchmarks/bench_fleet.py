"""Fleet costs, measured as ratios and slopes in one run (medians, never one timing).

1. ranks: ``torchrun --standalone --nproc-per-node=N -m envdoctor fleet --static`` against a
   bare torchrun gloo script with the same N (import torch, init_process_group("gloo"),
   barrier, destroy): whole-process wall time, alternating, one uncounted warm-up round.
   Acceptance (issue 13): fleet ≤ 1.5 × bare with 16 ranks. Also the payload sizes per rank
   (from one extra ``--out-dir`` run).
2. compare: ``envdoctor fleet compare DIR`` over 100, 200 and 400 generated snapshots (the H100
   fixture with drift planted every few nodes), as saved ``check --format json`` reports and
   as bare facts (where every check is evaluated again per node): wall time and peak memory of
   the process, and the marginal cost per snapshot between sizes (linear when the slopes
   agree).
   Acceptance: 400 snapshots ≤ 5 s, linear.

    python benchmarks/bench_fleet.py [--ranks 16] [--runs 5] [--sizes 100,200,400]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
FIXTURE = REPO / "tests" / "fixtures" / "diff" / "h100-driver-550.json"
BARRIER = """\
import datetime, torch.distributed as dist
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=120))
dist.barrier()
dist.destroy_process_group()
"""


def env() -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith(("RANK", "WORLD_SIZE",
                                                                     "MASTER_", "LOCAL_RANK"))}
    out.update(OMP_NUM_THREADS="1", GLOO_SOCKET_IFNAME="lo", NO_COLOR="1",
               PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return out


# Runs the command in a fresh parent, so that the peak RSS reported is that command's alone
# (RUSAGE_CHILDREN keeps the maximum over every child a process ever waited for).
MEASURE = """\
import resource, subprocess, sys, time
start = time.perf_counter()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
print(time.perf_counter() - start, rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def timed(argv: list[str], timeout: float = 600) -> tuple[float, int, int]:
    """(seconds, exit code, peak RSS of the command in KiB)."""
    proc = subprocess.run([sys.executable, "-c", MEASURE, *argv], env=env(), cwd=REPO,
                          capture_output=True, text=True, timeout=timeout)
    try:
        seconds, rc, rss = proc.stdout.split()
    except ValueError:
        sys.exit(f"{' '.join(argv[:6])} … failed: {proc.stderr[-800:]!r}")
    if int(rc) not in (0, 1):
        sys.exit(f"{' '.join(argv[:6])} … exited {rc}: {proc.stderr[-800:]!r}")
    return float(seconds), int(rc), int(rss)


def bench_ranks(n: int, runs: int, work: Path) -> dict:
    script = work / "bare_barrier.py"
    script.write_text(BARRIER)
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--standalone",
                f"--nproc-per-node={n}"]
    commands = {
        "bare torchrun gloo barrier": [*torchrun, str(script)],
        "envdoctor fleet --static": [*torchrun, "-m", "envdoctor", "fleet", "--static",
                                     "--timeout", "300", "--format", "json", "--output",
                                     str(work / "fleet.json")],
    }
    names = list(commands)
    times: dict[str, list[float]] = {k: [] for k in names}
    for round_no in range(runs + 1):
        order = names[round_no % 2:] + names[:round_no % 2]
        for name in order:
            seconds, _, _ = timed(commands[name])
            if round_no:  # round 0 warms caches (rule cache, page cache)
                times[name].append(seconds)
    med = {k: statistics.median(v) for k, v in times.items()}
    # payload sizes: one more run whose ranks write their snapshots
    snaps = work / "snaps"
    timed([*commands["envdoctor fleet --static"], "--out-dir", str(snaps)])
    sizes = {}
    for p in sorted(snaps.glob("*.json")):
        data = json.loads(p.read_text())
        data.pop("outcome", None)
        sizes[data["layout"]["rank"]] = len(json.dumps(data, separators=(",", ":")))
    node_payload = max(sizes.values())
    rank_payload = statistics.median(v for r, v in sizes.items() if v != node_payload) \
        if len(sizes) > 1 else node_payload
    return {"ranks": n, "runs": runs, "seconds": times, "median": med,
            "ratio": med["envdoctor fleet --static"] / med["bare torchrun gloo barrier"],
            "payload_bytes": {"with_node_facts": node_payload, "rank_only": rank_payload}}


def make_snapshots(folder: Path, count: int, kind: str) -> None:
    """``count`` snapshots of the H100 fixture with drift planted every few nodes: bare facts
    (``envdoctor facts``), or ``check --format json`` reports (the documented Slurm workflow,
    ``srun … envdoctor check --format json --output DIR/$(hostname).json``)."""
    base = json.loads(FIXTURE.read_text())
    folder.mkdir(parents=True, exist_ok=True)
    rendered: dict[tuple, str] = {}
    for i in range(count):
        variant = ("535.104.05" if i % 50 == 7 else "", i % 8 if i % 40 == 3 else -1,
                   "2.1.0" if i % 25 == 11 else "")
        if variant not in rendered:
            data = json.loads(json.dumps(base))
            if variant[0]:
                data["nvidia"]["driver_version"] = variant[0]
            if variant[1] >= 0:
                data["nvidia"]["gpus"][variant[1]]["ecc_uncorrected"] = 1
            for d in data["packages"]["distributions"]:
                if d["name"] == "numpy" and variant[2]:
                    d["version"] = variant[2]
            text = json.dumps(data)
            if kind == "check":
                src = folder / "variant.tmp"
                src.write_text(text)
                proc = subprocess.run([sys.executable, "-m", "envdoctor", "check", "--facts",
                                       str(src), "--format", "json", "--no-redact"], env=env(),
                                      cwd=REPO, capture_output=True, text=True, timeout=120)
                src.unlink()
                text = proc.stdout
            rendered[variant] = text
        (folder / f"gpu{i:05d}.json").write_text(rendered[variant])


def bench_compare(sizes: list[int], runs: int, work: Path, kind: str) -> dict:
    out: dict = {"kind": kind, "sizes": {}}
    for count in sizes:
        folder = work / f"{kind}{count}"
        make_snapshots(folder, count, kind)
        argv = [sys.executable, "-m", "envdoctor", "fleet", "compare", str(folder), "--format",
                "json", "--output", str(work / f"compare{count}.json")]
        timed(argv)  # warm-up
        results = [timed(argv) for _ in range(runs)]
        out["sizes"][count] = {"median_s": statistics.median(r[0] for r in results),
                               "peak_rss_mib": max(r[2] for r in results) / 1024}
    s = sorted(out["sizes"])
    if len(s) >= 3:
        t = {k: out["sizes"][k]["median_s"] for k in s}
        low = (t[s[1]] - t[s[0]]) / (s[1] - s[0])
        high = (t[s[2]] - t[s[1]]) / (s[2] - s[1])
        out["per_snapshot_ms"] = {f"{s[0]}-{s[1]}": low * 1000, f"{s[1]}-{s[2]}": high * 1000}
        out["slope_ratio"] = high / low if low > 0 else None
        fixed = t[s[0]] - low * s[0]
        out["estimate_1000_s"] = fixed + 1000 * high
    return out


def _ratio(value: float | None) -> str:
    return "n/a (timing noise larger than the cost)" if value is None else f"{value:.2f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", type=int, default=16)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sizes", default="100,200,400")
    ap.add_argument("--skip", choices=["ranks", "compare"], action="append", default=[])
    args = ap.parse_args()
    result: dict = {"python": sys.executable, "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="bench-fleet-") as tmp:
        work = Path(tmp)
        if "ranks" not in args.skip:
            r = bench_ranks(args.ranks, args.runs, work)
            result["ranks"] = r
            for name, value in r["median"].items():
                print(f"{name:32s} {args.ranks} ranks: median {value:.2f} s "
                      f"({', '.join(f'{x:.2f}' for x in r['seconds'][name])})")
            print(f"ratio fleet/bare: {r['ratio']:.2f} (acceptance ≤ 1.5)")
            print(f"payload per rank: {r['payload_bytes']['with_node_facts']} bytes with the "
                  f"node's facts (local rank 0), {r['payload_bytes']['rank_only']} without")
        if "compare" not in args.skip:
            sizes = [int(x) for x in args.sizes.split(",")]
            for kind in ("check", "facts"):
                c = bench_compare(sizes, max(3, args.runs // 2), work, kind)
                result[f"compare_{kind}"] = c
                what = "check reports" if kind == "check" else "bare facts"
                for count, row in c["sizes"].items():
                    print(f"fleet compare {count:5d} {what}: median {row['median_s']:.2f} s, "
                          f"peak RSS {row['peak_rss_mib']:.0f} MiB")
                if "per_snapshot_ms" in c:
                    print("  marginal cost per snapshot: " + ", ".join(
                        f"{k}: {v:.2f} ms" for k, v in c["per_snapshot_ms"].items())
                        + f" (slope ratio {_ratio(c['slope_ratio'])}; 1.0 = linear); "
                        f"1000 snapshots ≈ {c['estimate_1000_s']:.1f} s")
    results = HERE / "results"
    results.mkdir(exist_ok=True)
    path = results / f"bench_fleet-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(result, indent=2))
    print(f"saved {path}")


if __name__ == "__main__":
    main()
