"""Linearity on untrusted input: time for 2N bytes / time for N, per command and input shape.

Every command that reads untrusted text is run on hostile inputs of N and 2N bytes (one
single line, whitespace lines, a long token beside a report, deep JSON, …), alternately, and
the ratio of the median times is reported: linear work gives ~2, quadratic ~4. Whole-process
wall time, so start-up (~0.3 s) dilutes the ratio for small N; the 50 MB "budget" column is the
acceptance bound (any 50 MB single-line input to any command under 2 s).

    python benchmarks/bench_linearity.py [--mb 25] [--runs 3] [--patterns]

``--patterns`` also runs the per-pattern audit (benchmarks/regex_audit.py): every regular
expression that sees untrusted text, driven with runs of N and 4N characters.
Results go to benchmarks/results/linearity-<timestamp>.json (gitignored).
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
ROOT = HERE.parent
REPORT = ("nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.1, "
          "V12.1.105\n")


def shapes(size: int) -> dict[str, bytes]:
    """Hostile inputs of about ``size`` bytes."""
    line = b"torch-2.1.0+cu121 " * (size // 18)
    return {
        "one line of tokens": line[:size],
        "one line of spaces": b" " * size,
        "one line of digits": b"7" * size,
        "whitespace lines": (b" " * 4000 + b"\n") * (size // 4001),
        "token beside a report": REPORT.encode() + b"a" * size + b"\n",
        "table rows of spaces": (b"|   0  NVIDIA H100" + b" " * 4000 + b"|\n") * (size // 4020),
    }


COMMANDS = {
    "check --from": lambda f: ["check", "--from", f],
    "explain": lambda f: ["explain", f, "--no-facts"],
    "check --facts": lambda f: ["check", "--facts", f],
    "diff": lambda f: ["diff", f, f],
}


def run_once(argv: list[str]) -> float:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "envdoctor", *argv], env=env, capture_output=True,
                   timeout=600)
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=25.0, help="N in MB (2N is also run)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--patterns", action="store_true")
    args = ap.parse_args()
    n = int(args.mb * (1 << 20))
    rows = []
    with tempfile.TemporaryDirectory(prefix="envdoctor-linearity-") as tmp:
        for shape in shapes(n):
            files = {}
            for mult in (1, 2):
                path = Path(tmp) / f"{shape.replace(' ', '-')}-{mult}.txt"
                path.write_bytes(shapes(n * mult)[shape])
                files[mult] = str(path)
            for cmd, build in COMMANDS.items():
                if cmd in ("check --facts", "diff") and shape != "one line of tokens":
                    continue  # JSON inputs: the size cap answers before parsing; one shape
                times = {1: [], 2: []}
                for _ in range(args.runs):
                    for mult in (1, 2):
                        times[mult].append(run_once(build(files[mult])))
                t1, t2 = statistics.median(times[1]), statistics.median(times[2])
                rows.append({"command": cmd, "shape": shape, "n_mb": args.mb,
                             "t_n": round(t1, 3), "t_2n": round(t2, 3),
                             "ratio": round(t2 / t1, 2)})
                print(f"{cmd:14} {shape:24} N={args.mb:g} MB {t1:6.2f} s  2N {t2:6.2f} s  "
                      f"ratio {t2 / t1:4.2f}", flush=True)
    worst = max(r["ratio"] for r in rows)
    print(f"worst ratio {worst:.2f} (linear ~2, quadratic ~4); slowest 2N run "
          f"{max(r['t_2n'] for r in rows):.2f} s for {2 * args.mb:g} MB")
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / f"linearity-{time.strftime('%Y%m%d-%H%M%S')}.json").write_text(
        json.dumps(rows, indent=1))
    if args.patterns:
        sys.path.insert(0, str(HERE))
        import regex_audit
        return regex_audit.main()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
