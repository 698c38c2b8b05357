"""Benchmark: a full `envdoctor check` (static probes + live workers + quick CPU smoke for torch,
TensorFlow and JAX) against the slowest bare framework import, in the same run.

Goal (issue 10): median of the full check ≤ 1.2 × median of `python -c "import tensorflow"`
(the slowest import on the reference 2-core machine). The same work run sequentially is
printed next to it: what running the workers concurrently saves.

Runs alternate (import, check, sequential, import, check, …) so that load from other processes
hits all three alike; each is a whole fresh process, timed from outside, ≥ 5 runs, medians.

    python benchmarks/bench_check_full.py [--runs 5] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import run_timed  # noqa: E402

FRAMEWORKS = ("torch", "tensorflow", "jax")


def timed(argv: list[str], env: dict[str, str]) -> float:
    seconds, code = run_timed(argv, env, cwd=REPO, limit=900)
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed with status {code}")
    return seconds


def sequential(env: dict[str, str]) -> float:
    """The same work without concurrency: static check, then each worker after the other."""
    total = timed([sys.executable, "-m", "envdoctor", "check", "--static", "--format", "json"],
                  env)
    for name in FRAMEWORKS:
        total += timed([sys.executable, "-m", f"envdoctor.workers.{name}", "--suite", "quick"],
                       dict(env, TF_CPP_MIN_LOG_LEVEL="1"))
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(REPO))
    check = [sys.executable, "-m", "envdoctor", "check", "--format", "json",
             "--framework", ",".join(FRAMEWORKS)]
    imports = {name: [sys.executable, "-c", f"import {name}"] for name in FRAMEWORKS}
    times: dict[str, list[float]] = {"check": [], "sequential": [],
                                     **{f"import {n}": [] for n in FRAMEWORKS}}
    timed(check, env)  # warm the file cache once; not counted
    for i in range(args.runs):
        for name, argv in imports.items():
            times[f"import {name}"].append(timed(argv, env))
        times["check"].append(timed(check, env))
        times["sequential"].append(sequential(env))
        print(f"run {i + 1}/{args.runs}: " + ", ".join(f"{k} {v[-1]:.2f}s"
                                                      for k, v in times.items()), flush=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    slowest = max((k for k in med if k.startswith("import")), key=med.__getitem__)
    result = {
        "cpus": os.cpu_count(), "runs": args.runs,
        "medians_s": {k: round(v, 3) for k, v in med.items()},
        "slowest_import": slowest,
        "check_over_slowest_import": round(med["check"] / med[slowest], 3),
        "sequential_over_slowest_import": round(med["sequential"] / med[slowest], 3),
        "goal": "check ≤ 1.2 × slowest import",
    }
    result["met"] = result["check_over_slowest_import"] <= 1.2
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps({**result, "samples_s": times}, indent=2))


if __name__ == "__main__":
    main()
