"""Whole-process wall time of `envdoctor check --static` against its peers, in one run.

Commands run alternately (round-robin, one warm-up round not counted) so that a machine that
slows down mid-run slows every command alike; we report medians and ratios, never a single
timing. Results go to benchmarks/results/<timestamp>.json (gitignored).

    python benchmarks/bench_check_static.py [--runs 9] [--envdoctor CMD] [--skip NAME]

Peers (each skipped, with a note, when not installed):
- collect_env: `python -m torch.utils.collect_env` in the same interpreter as envdoctor;
- env-doctor:  `env-doctor check --json` from /work/peers/bin (PyPI package `env-doctor`; it
  exits 1 when it has warnings, which is not a failure here).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _timing import run_timed  # noqa: E402


def default_commands(python: str) -> dict[str, list[str]]:
    bindir = Path(python).parent
    envdoctor = bindir / "envdoctor"
    ours = [str(envdoctor)] if envdoctor.exists() else [python, "-m", "envdoctor"]
    peer = shutil.which("env-doctor") or "/work/peers/bin/env-doctor"
    return {
        "envdoctor check --static": [*ours, "check", "--static"],
        "python -m torch.utils.collect_env": [python, "-m", "torch.utils.collect_env"],
        "env-doctor check --json": [peer, "check", "--json"],
    }


def available(argv: list[str]) -> bool:
    exe = argv[0]
    if os.sep in exe:
        return os.access(exe, os.X_OK)
    return shutil.which(exe) is not None


def time_once(argv: list[str], env: dict[str, str]) -> tuple[float, int]:
    return run_timed(argv, env)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=9, help="timed runs per command (>= 7)")
    ap.add_argument("--python", default=sys.executable,
                    help="interpreter whose envdoctor and torch are measured")
    ap.add_argument("--envdoctor", help="override our command, e.g. 'python -m envdoctor'")
    ap.add_argument("--skip", action="append", default=[], help="skip a command by name prefix")
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args(argv)
    if args.runs < 7:
        ap.error("--runs must be at least 7 (medians of fewer runs are noise)")

    commands = default_commands(args.python)
    if args.envdoctor:
        commands["envdoctor check --static"] = [*shlex.split(args.envdoctor), "check", "--static"]
    commands = {k: v for k, v in commands.items()
                if not any(k.startswith(s) for s in args.skip)}
    skipped = {k: "not installed" for k, v in commands.items() if not available(v)}
    commands = {k: v for k, v in commands.items() if k not in skipped}
    env = dict(os.environ, NO_COLOR="1")
    # An installed wheel is byte-compiled by pip; a source checkout under
    # PYTHONDONTWRITEBYTECODE=1 would recompile every module on every run. Measure the former.
    subprocess.run([args.python, "-m", "compileall", "-q", str(HERE.parent / "envdoctor")],
                   check=False, capture_output=True)

    times: dict[str, list[float]] = {k: [] for k in commands}
    codes: dict[str, set[int]] = {k: set() for k in commands}
    for round_no in range(args.runs + 1):           # round 0 warms caches, not counted
        order = list(commands)
        shift = round_no % len(order)
        for name in order[shift:] + order[:shift]:   # rotate who goes first
            seconds, code = time_once(commands[name], env)
            if round_no:
                times[name].append(seconds)
                codes[name].add(code)

    ours = "envdoctor check --static"
    medians = {k: statistics.median(v) for k, v in times.items()}
    print(f"{'command':<38} {'median s':>9} {'min s':>7} {'max s':>7}  runs  exit")
    for name, ts in times.items():
        print(f"{name:<38} {medians[name]:9.3f} {min(ts):7.3f} {max(ts):7.3f}  {len(ts):4d}  "
              f"{','.join(map(str, sorted(codes[name])))}")
    ratios = {}
    if ours in medians:
        for name, m in medians.items():
            if name != ours:
                ratios[name] = m / medians[ours]
                print(f"{name} / envdoctor: {ratios[name]:.1f}x")
    for name, why in skipped.items():
        print(f"skipped {name}: {why}")

    if not args.no_save:
        out = HERE / "results"
        out.mkdir(exist_ok=True)
        path = out / f"bench_check_static-{time.strftime('%Y%m%d-%H%M%S')}.json"
        path.write_text(json.dumps({
            "commands": commands, "runs": args.runs, "times_s": times, "medians_s": medians,
            "ratios_vs_envdoctor": ratios, "exit_codes": {k: sorted(v) for k, v in codes.items()},
            "skipped": skipped, "cpu_count": os.cpu_count(), "python": sys.version.split()[0],
        }, indent=2) + "\n")
        print(f"saved {path.relative_to(HERE.parent)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
