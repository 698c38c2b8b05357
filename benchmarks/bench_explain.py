"""Benchmark `envdoctor explain`: start-up, one traceback, throughput and linearity on big logs.

    python benchmarks/bench_explain.py [--quick] [--runs N] [--baseline TREE] [--skip PART]

Whole-process wall time of each command (start-up included, output to a file, ``NO_COLOR=1``,
with ``.pyc`` files), as medians over interleaved rounds after one uncounted warm-up, with the
CPU seconds (user+sys) beside it: the machine may be shared, and waiting for a core is in the
wall time, not in the CPU time. ``--baseline TREE`` runs every envdoctor command a second time
with ``PYTHONPATH=TREE`` in the same rounds (e.g. ``/work/main`` for before/after figures). The
load average is printed before and after; everything is saved to
``benchmarks/results/bench_explain-<time>.json`` (gitignored).

Parts (``--skip start|traceback|logs|distinct``):

1. start: ``python -c pass``, ``envdoctor --help``, ``envdoctor explain --no-facts`` on a one-line
   input.
2. traceback: a real traceback (corpus 005; ``explain FILE`` probes facts if its signature has
   conditions), one whose signature reads nvcc and torch's CUDA (the static probes run), and
   ``--no-facts``.
   Acceptance (issue 12): <= 0.2 s with facts.
3. logs: synthetic logs of 10/50/100 MiB built from the real corpus texts (tests/corpus/explain)
   buried in filler (training-step lines, TensorFlow ``I`` lines, tqdm ``\\r`` progress), read
   as a user does, ``envdoctor explain < log`` (text, facts probed when a signature needs them),
   and as ``explain --no-facts --format json FILE``. MiB/s whole process; linearity from the
   marginal cost (seconds per MiB between 10 and 50 MiB, and between 50 and 100 MiB; 1.0 =
   linear); peers in the same rounds: ``grep -c -E`` for two words (the floor of any scanner
   that reads every byte). Acceptance: >= 250 MiB/s whole process on 100 MiB, linear.
4. distinct: 50 MiB of lines that never repeat (random words and numbers): no line shape
   repeats, so every block is searched whole; still linear, slower.

Speed is never asserted in unit tests; this script prints numbers for the closing note.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


class Rounds:
    """Commands timed in interleaved rounds (the first of each round rotates)."""

    def __init__(self, env: dict[str, str]):
        self.env = env
        self.jobs: list[tuple[str, list[str], str | None, dict[str, str]]] = []

    def add(self, name: str, argv: list[str], stdin: str | None = None,
            env: dict[str, str] | None = None) -> None:
        self.jobs.append((name, argv, stdin, env or self.env))

    def run(self, runs: int) -> dict[str, dict[str, float]]:
        wall: dict[str, list[float]] = {name: [] for name, *_ in self.jobs}
        cpu: dict[str, list[float]] = {name: [] for name, *_ in self.jobs}
        rss: dict[str, int] = {name: 0 for name, *_ in self.jobs}
        for r in range(runs + 1):
            order = self.jobs[r % len(self.jobs):] + self.jobs[:r % len(self.jobs)]
            for name, argv, stdin, env in order:
                w, c, m = _once(argv, stdin, env)
                if r:  # round 0 warms the caches and is not counted
                    wall[name].append(w)
                    cpu[name].append(c)
                    rss[name] = max(rss[name], m)
        self.jobs = []
        return {name: {"wall": statistics.median(wall[name]), "min": min(wall[name]),
                       "max": max(wall[name]), "cpu": statistics.median(cpu[name]),
                       "rss_mb": rss[name] / 1024, "runs": len(wall[name])} for name in wall}


def _once(argv: list[str], stdin: str | None, env: dict[str, str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user+sys, from the child's rusage) and peak RSS (KB) of
    one run (stdin from ``stdin`` or /dev/null, output to a scratch file)."""
    fd_in = os.open(stdin, os.O_RDONLY) if stdin else os.open(os.devnull, os.O_RDONLY)
    # a real file, not /dev/null: GNU grep stops at the first match when output is /dev/null
    fd_out = os.open(os.path.join(tempfile.gettempdir(), f"bench-explain-out-{os.getpid()}"),
                     os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        start = time.perf_counter()
        pid = _spawn(argv, env, fd_in, fd_out)
        _, _, usage = os.wait4(pid, 0)
        wall = time.perf_counter() - start
    finally:
        os.close(fd_in)
        os.close(fd_out)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def _spawn(argv: list[str], env: dict[str, str], fd_in: int, fd_out: int) -> int:
    pid = os.fork()
    if pid == 0:  # the child: its stdin/stdout; cwd not a source tree, so that PYTHONPATH
        #              decides which envdoctor runs
        try:
            os.chdir(tempfile.gettempdir())
            os.dup2(fd_in, 0)
            os.dup2(fd_out, 1)
            os.dup2(fd_out, 2)
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    return pid


def corpus_texts() -> list[str]:
    from envdoctor.rulefiles import load_toml
    return [load_toml(p)["text"] for p in sorted((REPO / "tests/corpus/explain").glob("*.toml"))]


def build_log(path: Path, size_mb: int, texts: list[str], seed: int = 7) -> None:
    """Filler with a real error text every ~200 KB, written in 1 MB pieces."""
    rng = random.Random(seed)
    target = size_mb << 20
    written = 0
    with open(path, "w", encoding="utf-8") as fh:
        step = 0
        while written < target:
            parts = []
            for _ in range(2000):
                step += 1
                r = rng.random()
                if r < 0.6:
                    parts.append(f"[2025-01-01 12:00:{step % 60:02d}] epoch {step // 5000} step "
                                 f"{step} loss={rng.random():.4f} lr=3.0e-04 grad_norm="
                                 f"{rng.random() * 4:.3f}\n")
                elif r < 0.8:
                    parts.append(f"2025-01-01 12:00:00.{step:06d}: I tensorflow/core/common_"
                                 f"runtime/gpu/gpu_device.cc:2019] Created device /job:localhost/"
                                 f"replica:0/task:0/device:GPU:0 with {step % 40000} MB memory\n")
                else:
                    parts.append(f"{step % 100}%|{'#' * (step % 30)}| {step}/100000 "
                                 f"[00:{step % 60:02d}<01:00, 9.{step % 10}it/s]\r")
            parts.append(rng.choice(texts) + "\n")
            chunk = "".join(parts)
            fh.write(chunk)
            written += len(chunk.encode())


def build_distinct_log(path: Path, size_mb: int, texts: list[str], seed: int = 11) -> None:
    """Lines of random words and numbers (no two alike, even without digits)."""
    rng = random.Random(seed)
    words = [f"{a}{b}" for a in ("data", "model", "layer", "batch", "token", "shard", "param")
             for b in ("set", "map", "run", "net", "key", "row", "col", "idx", "buf", "ptr")]
    target, written = size_mb << 20, 0
    with open(path, "w", encoding="utf-8") as fh:
        while written < target:
            parts = [" ".join(rng.choice(words) + rng.choice("abcdefghijklmnopqrstuvwxyz")
                              * rng.randrange(1, 4) for _ in range(10)) + "\n"
                     for _ in range(3000)]
            parts.append(rng.choice(texts) + "\n")
            chunk = "".join(parts)
            fh.write(chunk)
            written += len(chunk.encode())


def show(label: str, m: dict[str, float], mb: float | None = None) -> None:
    rate = ""
    if mb:
        per_cpu = f"{mb / m['cpu']:6.1f}" if m["cpu"] > 0 else "   n/a"
        rate = f"  {mb / m['wall']:6.1f} MiB/s whole process, {per_cpu} per CPU s"
    print(f"  {label:44} {m['wall']:6.3f} s (min {m['min']:.3f}, max {m['max']:.3f}, CPU "
          f"{m['cpu']:.3f} s, RSS {m['rss_mb']:.0f} MB){rate}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="3 runs, 10 and 50 MiB only")
    ap.add_argument("--runs", type=int, default=0)
    ap.add_argument("--baseline", metavar="TREE", help="also time the envdoctor in TREE")
    ap.add_argument("--skip", action="append", default=[],
                    choices=["start", "traceback", "logs", "distinct"])
    args = ap.parse_args()
    runs = args.runs or (3 if args.quick else 7)
    def tree_env(tree: Path, tag: str) -> dict[str, str]:
        """The tree first on the path (what else PYTHONPATH held, e.g. the folder of the
        dependencies on a machine without them installed, stays after it), and its own rule
        cache and .pyc folder, so that two trees never rebuild each other's."""
        rest = os.environ.get("PYTHONPATH", "")
        scratch = tempfile.gettempdir()
        e = dict(os.environ, NO_COLOR="1",
                 PYTHONPATH=os.pathsep.join(x for x in (str(tree), rest) if x),
                 PYTHONPYCACHEPREFIX=f"{scratch}/envdoctor-bench-pyc{tag}",
                 ENVDOCTOR_CACHE_DIR=f"{scratch}/envdoctor-bench-cache{tag}")
        e.pop("PYTHONDONTWRITEBYTECODE", None)          # measure as installed: with .pyc files
        return e

    env = tree_env(REPO, "")
    trees = {"": env}
    if args.baseline:
        trees[" [baseline]"] = tree_env(Path(args.baseline).resolve(), "-baseline")
    py = sys.executable
    ed = [py, "-m", "envdoctor"]
    tmp = Path(tempfile.mkdtemp(prefix="bench-explain-"))
    out: dict[str, object] = {"load_before": loadavg(), "runs": runs,
                              "baseline": args.baseline, "python": sys.version.split()[0]}
    print(f"load average {out['load_before']}; medians of {runs} interleaved runs", flush=True)
    rounds = Rounds(env)

    if "start" not in args.skip:
        one = tmp / "one-line.txt"
        one.write_text("hello\n")
        rounds.add("python -c pass", [py, "-c", "pass"])
        for tag, e in trees.items():
            rounds.add("envdoctor --help" + tag, [*ed, "--help"], env=e)
            rounds.add("explain --no-facts (one line)" + tag,
                       [*ed, "explain", "--no-facts", str(one)], env=e)
        print("== start-up ==")
        res = rounds.run(runs)
        for name, m in res.items():
            show(name, m)
        out["start"] = res

    if "traceback" not in args.skip:
        from envdoctor.rulefiles import load_toml
        tb = tmp / "traceback.txt"
        tb.write_text(load_toml(next((REPO / "tests/corpus/explain").glob("005*.toml")))["text"])
        tb_facts = tmp / "traceback-facts.txt"  # EBUILD002: conditions read nvcc, torch's CUDA
        tb_facts.write_text(
            "Traceback (most recent call last):\n  File \"setup.py\", line 52, in <module>\n"
            "    raise RuntimeError(CUDA_MISMATCH_MESSAGE.format(cuda_str_version, "
            "torch.version.cuda))\nRuntimeError:\nThe detected CUDA version (12.4) mismatches "
            "the version that was used to compile\nPyTorch (11.8). Please make sure to use the "
            "same CUDA versions.\n")
        for tag, e in trees.items():
            rounds.add("explain FILE (ETORCH005, facts if needed)" + tag, [*ed, "explain", str(tb)],
                       env=e)
            rounds.add("explain FILE (facts probed)" + tag, [*ed, "explain", str(tb_facts)],
                       env=e)
            rounds.add("explain --no-facts FILE" + tag, [*ed, "explain", "--no-facts", str(tb)],
                       env=e)
        print("== one traceback, whole process ==")
        res = rounds.run(runs)
        for name, m in res.items():
            show(name, m)
        out["traceback"] = res

    texts = corpus_texts()
    if "logs" not in args.skip:
        sizes = [10, 50] if args.quick else [10, 50, 100]
        print(f"== synthetic logs from {len(texts)} real corpus texts + filler ==", flush=True)
        logs_out: dict[str, object] = {}
        times: dict[str, dict[int, float]] = {}
        for mb in sizes:
            log = tmp / f"log-{mb}.txt"
            build_log(log, mb, texts)
            real_mb = log.stat().st_size / (1 << 20)
            for tag, e in trees.items():
                rounds.add("explain < log" + tag, [*ed, "explain"], stdin=str(log), env=e)
                rounds.add("explain --no-facts --format json FILE" + tag,
                           [*ed, "explain", "--no-facts", "--format", "json", str(log)], env=e)
            rounds.add("grep -c -E 'CUDA|error' FILE", ["grep", "-c", "-E", "CUDA|error",
                                                        str(log)],
                       env=dict(env, LC_ALL="C"))
            res = rounds.run(max(runs - 2, 3))
            print(f" {real_mb:.1f} MiB (load {loadavg()})")
            for name, m in res.items():
                show(name, m, real_mb)
                times.setdefault(name, {})[mb] = m
            logs_out[str(mb)] = {"mib": real_mb, **res}
            log.unlink()
        if len(sizes) == 3:
            print("linearity: marginal ms per MiB, 10->50 vs 50->100 (ratio 1.0 = linear), "
                  "wall | CPU:")
            for name, t in times.items():
                row = []
                for kind in ("wall", "cpu"):
                    first = (t[50][kind] - t[10][kind]) / 40
                    second = (t[100][kind] - t[50][kind]) / 50
                    ratio = second / first if first > 0 else float("nan")
                    row.append(f"{first * 1000:6.2f} / {second * 1000:6.2f} -> {ratio:4.2f}")
                    logs_out.setdefault("linearity", {}).setdefault(name, {})[kind] = \
                        round(ratio, 3)
                print(f"  {name:44} {row[0]} | {row[1]}")
        out["logs"] = logs_out

    if "distinct" not in args.skip:
        log = tmp / "distinct.txt"
        build_distinct_log(log, 10 if args.quick else 50, texts)
        real_mb = log.stat().st_size / (1 << 20)
        for tag, e in trees.items():
            rounds.add("explain --no-facts --format json FILE" + tag,
                       [*ed, "explain", "--no-facts", "--format", "json", str(log)], env=e)
        print(f"== worst case: {real_mb:.1f} MiB of lines that never repeat ==")
        res = rounds.run(3)
        for name, m in res.items():
            show(name, m, real_mb)
        out["distinct"] = res
        log.unlink()

    out["load_after"] = loadavg()
    print(f"load average after: {out['load_after']}")
    results = REPO / "benchmarks" / "results"
    results.mkdir(exist_ok=True)
    dest = results / f"bench_explain-{time.strftime('%Y%m%d-%H%M%S')}.json"
    dest.write_text(json.dumps(out, indent=1))
    print(f"saved {dest.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
