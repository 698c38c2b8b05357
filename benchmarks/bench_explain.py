"""Benchmark `envdoctor explain`: one traceback end to end, and throughput on big logs.

    /work/venv/bin/python benchmarks/bench_explain.py [--quick]

Reports medians (and ratios against a peer in the same run):

1. One real traceback, whole process (``python -m envdoctor explain FILE``): one whose
   signature needs no facts, one whose signature has conditions (the static probes run: nvcc,
   torch's CUDA), and ``--no-facts``; peer: friendly-traceback explaining a live exception of
   the same kind (``python -m friendly_traceback script.py``) from /work/peers, when present.
2. Synthetic logs of 10/50/100 MB built from the real corpus texts (tests/corpus/explain)
   buried in filler (training-step lines, TensorFlow ``I`` lines, tqdm ``\\r`` progress):
   MB/s whole process (wall, and per CPU second: the machine is shared), peak RSS; peers in
   the same run: ``grep -c -E`` for two words (the floor of any scanner that reads every byte)
   and ``grep -c -i -F`` for every prefilter literal.
3. The worst case for the distinct-line search: 50 MB of lines that never repeat (random words
   and numbers), which falls back to searching every line: still linear, slower.

Speed is never asserted in unit tests; this script prints numbers for the closing note.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
PEER_PY = Path("/work/peers/bin/python")


CPU: dict[str, float] = {}


def timed(argv: list[str], runs: int, env: dict[str, str] | None = None) -> tuple[float, int]:
    """Median wall seconds and max peak RSS (KB) of ``argv`` over ``runs`` runs.

    The median CPU seconds (user+sys, from /usr/bin/time) go to ``CPU[argv[-1]]``: on a shared,
    loaded machine wall time includes waiting for a core, CPU time does not.
    """
    times, cpus, rss = [], [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", *argv], capture_output=True,
                              text=True, env=env)
        times.append(time.perf_counter() - t0)
        try:
            user, sys_, peak = proc.stderr.strip().splitlines()[-1].split()
            cpus.append(float(user) + float(sys_))
            rss = max(rss, int(peak))
        except (ValueError, IndexError):
            pass
    CPU[argv[-1]] = statistics.median(cpus) if cpus else float("nan")
    return statistics.median(times), rss


def corpus_texts() -> list[str]:
    from envdoctor.engine.loader import load_toml
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


def main() -> None:
    quick = "--quick" in sys.argv
    runs = 3 if quick else 7
    env = dict(os.environ, NO_COLOR="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)           # measure as installed: with .pyc files
    env["PYTHONPYCACHEPREFIX"] = tempfile.gettempdir() + "/envdoctor-bench-pyc"
    py = sys.executable
    tmp = Path(tempfile.mkdtemp(prefix="bench-explain-"))
    from envdoctor.engine.loader import load_toml
    tb = tmp / "traceback.txt"
    tb.write_text(load_toml(next((REPO / "tests/corpus/explain").glob("005*.toml")))["text"])
    tb_facts = tmp / "traceback-facts.txt"   # EBUILD002: conditions read nvcc and torch's CUDA
    tb_facts.write_text(
        "Traceback (most recent call last):\n  File \"setup.py\", line 52, in <module>\n"
        "    raise RuntimeError(CUDA_MISMATCH_MESSAGE.format(cuda_str_version, torch.version.cuda))"
        "\nRuntimeError:\nThe detected CUDA version (12.4) mismatches the version that was used "
        "to compile\nPyTorch (11.8). Please make sure to use the same CUDA versions.\n")
    for f in (tb, tb_facts):
        subprocess.run([py, "-m", "envdoctor", "explain", str(f)], capture_output=True, env=env)

    print(f"== one traceback, whole process (median of {runs}) ==")
    base, _ = timed([py, "-c", "pass"], runs, env)
    full, rss_full = timed([py, "-m", "envdoctor", "explain", str(tb)], runs, env)
    probed, _ = timed([py, "-m", "envdoctor", "explain", str(tb_facts)], runs, env)
    bare, _ = timed([py, "-m", "envdoctor", "explain", "--no-facts", str(tb)], runs, env)
    print(f"python -c pass                         {base:6.3f} s")
    print(f"envdoctor explain (facts, none needed) {full:6.3f} s  (CPU {CPU[str(tb)]:.3f} s)  "
          f"peak RSS {rss_full / 1024:.0f} MB")
    print(f"envdoctor explain (facts probed)       {probed:6.3f} s  "
          f"(CPU {CPU[str(tb_facts)]:.3f} s)")
    bare_cpu = CPU[str(tb)]
    print(f"envdoctor explain --no-facts           {bare:6.3f} s  (CPU {bare_cpu:.3f} s)")
    if PEER_PY.exists():
        script = tmp / "raise.py"
        script.write_text("x = [1, 2, 3]\nprint(x[10])\n")
        peer, _ = timed([str(PEER_PY), "-m", "friendly_traceback", str(script)], runs, env)
        print(f"peer friendly_traceback        {peer:6.3f} s  (ratio envdoctor/peer "
              f"{full / peer:.2f})")

    print(f"\n== synthetic logs from {len(corpus_texts())} real corpus texts + filler ==")
    texts = corpus_texts()
    from envdoctor.explain import scanner
    lits = tmp / "literals.txt"
    lits.write_text("\n".join(sorted(scanner().by_literal)) + "\n")
    sizes = [10, 50] if quick else [10, 50, 100]
    rates = []
    grep_env = dict(env, LC_ALL="C")
    for mb in sizes:
        log = tmp / f"log-{mb}.txt"
        build_log(log, mb, texts)
        real_mb = log.stat().st_size / (1 << 20)
        n = 3 if quick else 5
        argv = [py, "-m", "envdoctor", "explain", "--no-facts", "--format", "json", str(log)]
        secs, rss = timed(argv, n, env)
        cpu = CPU[str(log)]
        grep_e, _ = timed(["grep", "-c", "-E", "CUDA|error", str(log)], n, grep_env)
        grep_f, _ = timed(["grep", "-c", "-i", "-F", "-f", str(lits), str(log)], n, grep_env)
        rates.append(real_mb / max(secs - bare, 1e-3))  # steady state: start-up excluded
        print(f"{real_mb:7.1f} MB  {secs:6.2f} s  {real_mb / secs:6.1f} MB/s whole process, "
              f"{real_mb / cpu:6.1f} MB/s per CPU s, peak RSS {rss / 1024:4.0f} MB | grep -E "
              f"{real_mb / grep_e:7.1f} MB/s (envdoctor/grep-E time {secs / grep_e:5.1f}x), "
              f"grep -iF literals {real_mb / grep_f:6.1f} MB/s")
        log.unlink()
    print("MB/s without the one-traceback start-up time: " +
          ", ".join(f"{mb} MB: {r:.1f}" for mb, r in zip(sizes, rates, strict=True)))
    if len(rates) > 1:
        print(f"linearity: that rate at {sizes[-1]} MB / at {sizes[0]} MB = "
              f"{rates[-1] / rates[0]:.2f} (1.0 = linear)")

    print("\n== worst case: lines that never repeat (no distinct-line saving) ==")
    log = tmp / "distinct.txt"
    build_distinct_log(log, 10 if quick else 50, texts)
    real_mb = log.stat().st_size / (1 << 20)
    secs, _ = timed([py, "-m", "envdoctor", "explain", "--no-facts", "--format", "json",
                     str(log)], 3, env)
    print(f"{real_mb:7.1f} MB  {secs:6.2f} s  {real_mb / secs:6.1f} MB/s whole process, "
          f"{real_mb / CPU[str(log)]:6.1f} MB/s per CPU s")
    log.unlink()


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


if __name__ == "__main__":
    main()
