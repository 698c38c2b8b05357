"""Realistic ``envdoctor facts`` snapshots of a large fleet, with drift planted, for
``bench_fleet_scale.py`` and the scale tests.

Every node starts from the H100 fixture (tests/fixtures/diff/h100-driver-550.json) and gets what
really differs between healthy nodes of one cluster: GPU UUIDs, temperatures, power draw, free
RAM and disk, the snapshot's time; the file is named after the host (``gpuNNNNN.json``, as
``--output snaps/$(hostname).json`` writes it). Then a drift
``pattern`` is planted:

* ``few``       a handful of odd nodes: another driver on 3, an uncorrected ECC error on 2, a
                variable (NCCL_IB_HCA) set on 3 only, a package (flash-attn) on 5 only, numpy
                different on 1.
* ``scattered`` worst case for the text: ~1 % of the nodes each on its own driver, half the
                nodes with a package the other half lacks, every 7th node with its own
                variable value, 40 nodes with an ECC error.
* ``wrong-majority`` 60 % of the nodes on an older driver (the golden node, node 1, has the
                new one): only a baseline can say which is wrong.
* ``none``      identical nodes.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "diff" / "h100-driver-550.json"
PATTERNS = ("few", "scattered", "wrong-majority", "none")


def host(i: int) -> str:
    return f"gpu{i:05d}"


def _jitter(data: dict[str, Any], i: int) -> None:
    """What differs on every healthy node: names, ids, sensors, free space, time."""
    data["created"] = f"2025-01-14T09:{(i // 60) % 60:02d}:{i % 60:02d}+00:00"
    data["host"]["ram_available_gb"] = round(1900 + (i * 7919) % 100 + 0.25, 2)
    data["host"]["disk_free_gb"] = round(3000 + (i * 104729) % 200 + 0.5, 1)
    for g in data["nvidia"]["gpus"]:
        g["uuid"] = f"GPU-{i:08x}-{g['index']:04x}-4e7f-8a9b-0c1d2e3f4a50"
        g["temperature_c"] = 28 + (i + g["index"] * 3) % 12
        g["power_draw_w"] = round(65 + (i * 31 + g["index"]) % 10 + 0.5, 1)


def _package(data: dict[str, Any], name: str, version: str) -> None:
    dists = data["packages"]["distributions"]
    for d in dists:
        if d["name"] == name:
            d["version"] = version
            return
    dists.append({"name": name, "version": version,
                  "location": "/opt/conda/envs/train/lib/python3.11/site-packages",
                  "modules": [name.replace("-", "_")]})


def _plant(data: dict[str, Any], i: int, count: int, pattern: str) -> None:
    nv, env = data["nvidia"], data["env"]["vars"]
    if pattern == "few":
        if i in (count // 3, count // 3 + 1, count - 2):
            nv["driver_version"] = nv["kernel_module_version"] = "535.104.05"
        if i in (count // 5, count // 2):
            nv["gpus"][i % 8]["ecc_uncorrected"] = 2
        if i in (10, 11, 12 + count // 2):
            env["NCCL_IB_HCA"] = "mlx5_0"
        if i in (4, 40, 400, 4000, count - 1):
            _package(data, "flash-attn", "2.6.3")
        if i == count // 4:
            _package(data, "numpy", "2.1.0")
    elif pattern == "scattered":
        if i % 97 == 5:
            nv["driver_version"] = nv["kernel_module_version"] = f"550.{i % 1000}.{i % 89:02d}"
        if i % 2:
            _package(data, "flash-attn", "2.6.3")
        if i % 7 == 3:
            env["NCCL_SOCKET_IFNAME"] = f"ib{i % 13}"
        if i % (max(count // 40, 1)) == 1:
            nv["gpus"][i % 8]["ecc_uncorrected"] = 1
    elif pattern == "wrong-majority":
        if i > 1 and i % 5 < 3:
            nv["driver_version"] = nv["kernel_module_version"] = "535.104.05"


def snapshot(i: int, count: int, pattern: str, base: dict[str, Any] | None = None
             ) -> dict[str, Any]:
    """Node ``i`` (1-based) of ``count``."""
    data = copy.deepcopy(base if base is not None else json.loads(FIXTURE.read_text()))
    _jitter(data, i)
    _plant(data, i, count, pattern)
    return data


def write(folder: Path, count: int, pattern: str = "few") -> list[Path]:
    """``count`` snapshot files ``gpuNNNNN.json`` in ``folder``."""
    if pattern not in PATTERNS:
        raise ValueError(f"pattern {pattern!r} is not one of {PATTERNS}")
    folder.mkdir(parents=True, exist_ok=True)
    base = json.loads(FIXTURE.read_text())
    out = []
    for i in range(1, count + 1):
        path = folder / f"{host(i)}.json"
        path.write_text(json.dumps(snapshot(i, count, pattern, base)))
        out.append(path)
    return out
