"""Held-out machine profiles, batch 3 (tests/suggest/heldout/profiles3.toml): many platforms,
frameworks and installed states, labelled from the official sources before `suggest` ran on
them. Every command is also checked against the index data (suggest_support.check_all).

``python -m tests.suggest.test_heldout3`` prints the per-platform figures (README.md next to
the labels records them)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import tomllib

from envdoctor.facts import Facts
from envdoctor.suggest import suggest
from envdoctor.suggest.machine import machine_of

from .suggest_support import check_all, judged

LABELS = tomllib.loads((Path(__file__).parent / "heldout" / "profiles3.toml").read_text("utf-8"))
MACHINES = LABELS["machine"]


def snapshot(row: dict[str, Any]) -> Facts:
    """The facts snapshot of a labelled profile (the format of tests/fixtures/machines)."""
    host: dict[str, Any] = {"probe": {"status": "ok"}, "os": row["os"], "arch": row["arch"],
                            "python_version": row["python"]}
    if "wsl" in row:
        host["wsl"] = row["wsl"]
    dists = [{"name": n, "version": v} for n, _, v in
             (s.partition("==") for s in row.get("installed", []))]
    frameworks: dict[str, Any] = {"probe": {"status": "ok"}}
    torch = next((d["version"] for d in dists if d["name"] == "torch"), None)
    if torch is not None:
        frameworks["torch"] = {"version": torch, "cuda": row.get("torch_cuda")}
    data: dict[str, Any] = {"schema_version": 1, "origin": "example", "host": host,
                            "frameworks": frameworks,
                            "packages": {"probe": {"status": "ok"}, "distributions": dists}}
    if "gpu" in row:
        data["nvidia"] = {"probe": {"status": "ok"}, "driver_version": row["driver"],
                          "gpus": [{"name": row["gpu"][0], "cc": row["gpu"][1]}]}
    elif row.get("nvidia_unknown"):
        data["nvidia"] = {"probe": {"status": "error", "error": "nvidia-smi timed out"}}
    else:
        data["nvidia"] = {"probe": {"status": "not_found"}}
    return Facts.from_dict(data)


def answer(row: dict[str, Any], framework: str, keep: bool = False) -> str:
    s = suggest(snapshot(row), [framework], keep_installed=keep).suggestions[0]
    check_all(row["name"], s, machine_of(snapshot(row)))
    if s.status in ("none", "undecided"):
        return s.status
    return f"{s.version} {s.variant}"


CASES = [(row, fw, False) for row in MACHINES for fw in row["expect"]] + \
    [(row, fw, True) for row in MACHINES for fw in row.get("expect_keep", {})]


def _expected(row: dict[str, Any], framework: str, keep: bool) -> str:
    return str(row["expect_keep" if keep else "expect"][framework])


@pytest.mark.parametrize("row, framework, keep", CASES,
                         ids=[f"{r['name']}-{fw}{'-keep' if k else ''}" for r, fw, k in CASES])
def test_heldout3_profile(row, framework, keep):
    got, want = answer(row, framework, keep), _expected(row, framework, keep)
    assert judged(framework, want, got, machine_of(snapshot(row)), keep), (got, want, row["why"])


def right(row: dict[str, Any], framework: str, keep: bool, got: str) -> bool:
    """The label's answer, or a newer release of the shipped data that fits (judged)."""
    return judged(framework, _expected(row, framework, keep), got, machine_of(snapshot(row)),
                  keep)


def platform_of(row: dict[str, Any]) -> str:
    if row.get("wsl"):
        return "WSL2"
    if "gpu" in row and row["arch"] == "aarch64":
        return "Jetson" if row["name"].startswith("jetson") else "Linux aarch64 GPU"
    system = {"Darwin": "macOS", "Windows": "Windows"}.get(row["os"], "Linux")
    arch = {"AMD64": "x86_64", "arm64": "arm64"}.get(row["arch"], row["arch"])
    kind = '' if system == 'macOS' else (' GPU' if 'gpu' in row else ' CPU')
    return f"{system} {arch}{kind}"


def figures() -> tuple[Counter[str], Counter[str]]:
    """(right, total) per platform over every labelled answer."""
    hits: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for row, fw, keep in CASES:
        key = platform_of(row)
        total[key] += 1
        try:
            got = answer(row, fw, keep)
        except Exception as exc:  # noqa: BLE001 - a crash or failed index check is a wrong answer
            got = f"error: {type(exc).__name__}: {str(exc)[:120]}"
        if right(row, fw, keep, got):
            hits[key] += 1
        elif "-v" in sys.argv:
            print(f"  WRONG {row['name']} {fw}{' keep' if keep else ''}: got {got!r}, "
                  f"want {_expected(row, fw, keep)!r}")
    return hits, total


if __name__ == "__main__":
    r, t = figures()
    for k in sorted(t):
        print(f"{k:22s} {r[k]:3d}/{t[k]}")
    print(f"{'all':22s} {sum(r.values()):3d}/{sum(t.values())}")
