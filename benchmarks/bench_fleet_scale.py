"""``envdoctor fleet compare`` at scale: wall time, peak RSS and text lines over generated fleets.

The snapshots are ``envdoctor facts`` files made by ``fleet_snapshots.py`` (the H100 fixture,
each node with its own host name, GPU UUIDs, sensors and free space, and a drift pattern
planted). Each command runs in a fresh parent that reports the command's own peak RSS
(``resource.getrusage(RUSAGE_CHILDREN)`` after it was waited for); the text goes to a file
whose lines are counted. One uncounted warm-up run per size, then the median of ``--runs``.

Acceptance (issue 20): 10 000 snapshots ≤ 15 s, ≤ 600 MB peak RSS, ≤ 80 lines of text,
whatever the drift pattern.

    python benchmarks/bench_fleet_scale.py [--sizes 1000,10000] [--runs 3]
        [--patterns few,scattered,wrong-majority] [--keep DIR]
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
sys.path.insert(0, str(HERE))

import fleet_snapshots  # noqa: E402

# The command in a fresh parent: its stdout to a file, then (seconds, exit code, peak RSS KiB,
# CPU seconds): the child's own figures (RUSAGE_CHILDREN of a parent that ran nothing else).
MEASURE = """\
import resource, subprocess, sys, time
start = time.perf_counter()
with open(sys.argv[1], "w") as out:
    rc = subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.PIPE).returncode
seconds = time.perf_counter() - start
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(seconds, rc, use.ru_maxrss, use.ru_utime + use.ru_stime)
"""


def env() -> dict[str, str]:
    out = dict(os.environ)
    out.update(NO_COLOR="1", PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return out


def timed(argv: list[str], text: Path, timeout: float) -> tuple[float, int, int, float]:
    """(wall seconds, exit code, peak RSS in KiB, CPU seconds) of ``argv``; its stdout is
    left in ``text``. CPU time is reported beside wall time: on a shared 2-core machine the
    wall time says as much about the neighbours' load as about the command."""
    try:
        proc = subprocess.run([sys.executable, "-c", MEASURE, str(text), *argv], env=env(),
                              cwd=REPO, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return float("inf"), -1, 0, float("inf")
    seconds, rc, rss, cpu = proc.stdout.split()
    return float(seconds), int(rc), int(rss), float(cpu)


def bench(count: int, pattern: str, runs: int, work: Path, timeout: float,
          extra: list[str]) -> dict:
    folder = work / f"{pattern}-{count}"
    if not folder.is_dir():
        fleet_snapshots.write(folder, count, pattern)
    text = work / f"{pattern}-{count}.txt"
    argv = [sys.executable, "-m", "envdoctor", "fleet", "compare", str(folder), *extra]
    first = timed(argv, text, timeout)  # warm-up (page cache, rule cache)
    if first[1] not in (0, 1):
        return {"count": count, "pattern": pattern, "failed": "timed out" if first[1] == -1
                else f"exit {first[1]}"}
    results = [timed(argv, text, timeout) for _ in range(runs)]
    lines = text.read_text().count("\n")
    return {"count": count, "pattern": pattern, "exit": results[-1][1],
            "median_s": statistics.median(r[0] for r in results),
            "seconds": [r[0] for r in results],
            "median_cpu_s": statistics.median(r[3] for r in results),
            "load_average": os.getloadavg()[0],
            "peak_rss_mib": max(r[2] for r in results) / 1024, "lines": lines}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--patterns", default="few,scattered,wrong-majority")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--keep", metavar="DIR", help="generate into (and reuse) DIR")
    ap.add_argument("args", nargs="*", help="more arguments for fleet compare (after --)")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        work = Path(args.keep) if args.keep else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for pattern in args.patterns.split(","):
            for count in (int(x) for x in args.sizes.split(",")):
                row = bench(count, pattern, args.runs, work, args.timeout, args.args)
                rows.append(row)
                if "failed" in row:
                    print(f"{pattern:15s} {count:6d}: {row['failed']}")
                    continue
                print(f"{pattern:15s} {count:6d}: median {row['median_s']:.2f} s "
                      f"({', '.join(f'{s:.2f}' for s in row['seconds'])}; CPU "
                      f"{row['median_cpu_s']:.2f} s; load {row['load_average']:.1f}), peak RSS "
                      f"{row['peak_rss_mib']:.0f} MiB, {row['lines']} lines, exit {row['exit']}",
                      flush=True)
    results = HERE / "results"
    results.mkdir(exist_ok=True)
    path = results / f"bench_fleet_scale-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps({"python": sys.executable, "cpus": os.cpu_count(),
                                "rows": rows}, indent=2))
    print(f"saved {path}")


if __name__ == "__main__":
    main()
