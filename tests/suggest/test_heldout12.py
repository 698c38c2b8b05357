"""Held-out machine profiles, batch 12 (tests/suggest/heldout/profiles12.toml): machines none of
batches 3-11 has, labelled by today's truth (2026-12-06) from the official sources before
`suggest` ran on them. Measured, not tuned on: the figure is held to a floor (README.md records
the first run) rather than each answer asserted. First run on 2722337: 196/199, --online 145/145.

The judge is batch 8's (as batches 9-11), the facts snapshot batch 11's (MIG mode included) plus
an Intel GPU on the PCI bus (``intel_gpu = { device, driver }`` -> the host's ``intel_gpus``),
and ``expect_online`` answers are judged against batch 11's local index (heldout11_index),
reused unchanged.

``python -m tests.suggest.test_heldout12 -v`` prints the per-platform figures, the `--online`
figure against the local index and every wrong answer. The structure tests
(``-k "structure or new_combinations or tables or newest or rejects"``) run no `suggest`."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import tomllib
from packaging.version import Version

from envdoctor.facts import Facts
from envdoctor.suggest.model import Suggestion

from . import heldout_common as hc
from . import test_heldout5 as h5
from . import test_heldout8 as h8
from . import test_heldout11 as h11
from .test_heldout3 import MACHINES as BATCH3
from .test_heldout4 import MACHINES as BATCH4
from .test_heldout5 import _ALT, _cp, _platform_key, matches
from .test_heldout5 import MACHINES as BATCH5
from .test_heldout6 import MACHINES as BATCH6
from .test_heldout7 import MACHINES as BATCH7
from .test_heldout8 import MACHINES as BATCH8
from .test_heldout9 import MACHINES as BATCH9
from .test_heldout10 import MACHINES as BATCH10
from .test_heldout11 import MACHINES as BATCH11

LABELS = tomllib.loads((Path(__file__).parent / "heldout" / "profiles12.toml").read_text("utf-8"))
MACHINES: list[dict[str, Any]] = LABELS["machine"]
FLOOR = 0.98         # batch 12: first run on 2722337 196/199 (README.md)
ONLINE_FLOOR = 1.0   # batch 12: first run 145/145

CASES = [(row, fw, False) for row in MACHINES for fw in row["expect"]] + \
    [(row, fw, True) for row in MACHINES for fw in row.get("expect_keep", {})]
ONLINE_CASES = [(row, fw) for row in MACHINES for fw in row.get("expect_online", {})]
today_cell12 = h8.today_cell8     # nothing was published between batch 8 and batch 12
judge = h8.judge
OLD = [*BATCH3, *BATCH4, *BATCH5, *BATCH6, *BATCH7, *BATCH8, *BATCH9, *BATCH10, *BATCH11]
_INTEL_SLOT = "0000:03:00.0"


def platform_of(row: dict[str, Any]) -> str:
    """Batch 8's platforms, plus Linux boxes with an Intel GPU (the facts read them from /sys)."""
    if "intel_gpu" in row:
        return "Linux x86_64 Intel"
    return h8.platform_of(row)


def snapshot(row: dict[str, Any]) -> Facts:
    """Batch 11's snapshot, plus an Intel GPU on the PCI bus where a row states one."""
    data = h11.snapshot(row).to_dict()
    if "intel_gpu" in row:
        gpu = row["intel_gpu"]
        data["host"]["intel_gpus"] = [{"pci_address": _INTEL_SLOT, "device": gpu["device"],
                                       "driver": gpu["driver"]}]
    return Facts.from_dict(data)


def online_cell_table() -> Any:
    from .heldout11_index import torch_cells
    return hc.cell_table(torch_cells())


def answer(row: dict[str, Any], framework: str, keep: bool = False, online: Any = None
           ) -> Suggestion:
    from envdoctor.suggest import suggest
    return suggest(snapshot(row), [framework], keep_installed=keep,
                   online=online).suggestions[0]


_expected = hc.expected


def figures() -> tuple[Counter[str], Counter[str], list[str]]:
    """(right, total) per platform over every labelled answer, and the wrong ones."""
    return hc.figures(CASES, answer, judge, platform_of)


def online_figures(flavour: str = "json") -> tuple[int, int, list[str]]:
    from .heldout11_index import serving
    return hc.online_figures(ONLINE_CASES, "expect_online", answer, judge, online_cell_table(),
                             serving, flavour)


def _combo(row: dict[str, Any]) -> tuple[Any, ...]:
    """Batch 8's key (GPU, driver branch, platform, Python, ROCm target, installed state, TPU)
    plus the Intel GPU, which no earlier batch's row has."""
    return (*h8._combo(row), row.get("intel_gpu", {}).get("device"))


# ------------------------------------------------------------------ structure (no `suggest`)
def test_batch12_structure_is_a_fresh_batch_of_the_promised_size():
    names = [row["name"] for row in MACHINES]
    assert len(names) == len(set(names))
    assert len(names) >= 50 and len(CASES) >= 150 and len(ONLINE_CASES) >= 100
    assert sum(1 for _, _, keep in CASES if keep) >= 15
    assert not set(names) & {row["name"] for row in OLD}
    platforms = Counter(platform_of(row) for row in MACHINES)
    assert len(platforms) >= 12, platforms
    assert sum(1 for row in MACHINES if row.get("mig")) >= 3
    assert sum(1 for row in MACHINES if "intel_gpu" in row) >= 3
    assert {".".join(row["python"].split(".")[:2]) for row in MACHINES} >= \
        {f"3.{m}" for m in range(8, 15)}
    for row, fw, keep in CASES:
        assert fw in ("torch", "jax", "tensorflow"), row["name"]
        for alt in _expected(row, fw, keep).split(" | "):
            assert _ALT.fullmatch(alt.strip()), (row["name"], fw, alt)
            assert not alt.startswith(">=") or fw == "torch", (row["name"], fw)
        assert row["why"].strip(), row["name"]
        assert "[" in row["why"], ("a label names its source key", row["name"])
    for row, fw in ONLINE_CASES:
        assert fw in row["expect"], (row["name"], fw)
        for alt in row["expect_online"][fw].split(" | "):
            assert _ALT.fullmatch(alt.strip()), (row["name"], fw, alt)
    for row in MACHINES:
        assert ("macos" in row) == (row["os"] == "Darwin"), row["name"]
        assert "tpu" not in row and "cuda_compat" not in row, row["name"]
        assert not row.get("mig") or (row["os"] == "Linux" and "gpu" in row), row["name"]
        assert "intel_gpu" not in row or (row["os"] == "Linux" and "gpu" not in row
                                          and "rocm" not in row), row["name"]
        facts = snapshot(row)                  # every profile is a valid facts snapshot
        if row.get("mig"):
            assert all(g.mig_mode for g in facts.nvidia.gpus), row["name"]
        if "intel_gpu" in row:
            assert [g.device for g in facts.host.intel_gpus] == [row["intel_gpu"]["device"]]
        else:
            assert not facts.host.intel_gpus, row["name"]
        if "glibc" in row:
            assert facts.host.glibc == row["glibc"], row["name"]
            if Version(row["glibc"]) < Version("2.28"):
                assert "torch" not in row["expect"], row["name"]


def test_batch12_machines_are_new_combinations():
    """No machine of batches 3-11 again under another name (batch 8's key: GPU, driver branch,
    platform, Python, ROCm target, installed state and TPU, plus the Intel GPU; MIG mode, the C
    library and the macOS release make nothing new by themselves); nor two machines of this
    batch."""
    old = {_combo(row) for row in OLD}
    assert not [row["name"] for row in MACHINES if _combo(row) in old]
    mine = Counter(_combo(row) for row in MACHINES)
    assert not [combo for combo, n in mine.items() if n > 1]


@pytest.mark.parametrize("row", [r for r in MACHINES if "gpu" in r], ids=lambda r: r["name"])
def test_the_judge_tables_agree_with_the_labels(row):
    """A ">=V cuda" label's floor has a CONFIRMED build that runs here (batch 8's table), and
    an ``expect_online`` ">=V cuda" floor a wheel the local index lists that runs here."""
    platform = _platform_key(row)
    online = online_cell_table()
    labels = [(row["expect"].get("torch", ""), today_cell12),
              (row.get("expect_keep", {}).get("torch", ""), today_cell12),
              (row.get("expect_online", {}).get("torch", ""), online)]
    variants = ("cpu", "cu126", "cu130", "cu132", "cu134")
    for label, cell_of in labels:
        for alt in label.split(" | "):
            if not alt.startswith(">=") or " cuda" not in alt:
                continue
            floor = alt[2:].split(" ")[0]
            assert any(cell_of(floor, v, platform, _cp(row)) == "confirmed"
                       and h5.runs_on_gpu(row, v, platform) for v in variants), \
                (row["name"], alt)


def test_the_batch12_judge_rejects_what_does_not_run():
    """The judge can fail on this batch's machines: a CUDA 13 build on a 570 B200, a CUDA 13
    build on a Volta, a CPU build on a GPU box, 2.16.1 on a 12.x driver, a CPU build or a CUDA
    build on an Intel GPU box, the newest release where --keep keeps a working one."""
    def s(version: str, variant: str) -> Suggestion:
        return Suggestion("torch", "ok", version=version, variant=variant)

    def row(prefix: str) -> dict[str, Any]:
        return next(r for r in MACHINES if r["name"].startswith(prefix))
    b200 = row("b200-driver570")
    assert matches(b200, _expected(b200, "torch", False), s("2.11.0", "cu128"), today_cell12)
    assert not matches(b200, _expected(b200, "torch", False), s("2.15.0", "cu132"),
                       today_cell12)
    gv100 = row("quadro-gv100-volta-driver590")
    assert matches(gv100, ">=2.14.0 cuda", s("2.14.1", "cu126"), today_cell12)
    assert not matches(gv100, ">=2.14.0 cuda", s("2.15.0", "cu130"), today_cell12)
    l4 = row("l4-broken-torch2150-cu132-driver570")
    assert not matches(l4, ">=2.14.0 cuda", s("2.15.0", "cpu"), today_cell12)
    assert not matches(l4, ">=2.14.0 cuda", s("2.15.0", "cu132"), today_cell12)
    online = online_cell_table()
    assert not matches(l4, ">=2.14.1 cuda", s("2.16.1", "cu132"), online)
    arc = row("linux-arc-b580")
    assert matches(arc, _expected(arc, "torch", False), s("2.15.0", "xpu"), today_cell12)
    assert not matches(arc, _expected(arc, "torch", False), s("2.15.0", "cpu"), today_cell12)
    assert not matches(arc, _expected(arc, "torch", False), s("2.15.0", "cu132"), today_cell12)
    kept = row("rtx4090-working-torch2141-cu130")
    assert not matches(kept, _expected(kept, "torch", True), s("2.15.0", "cu132"), today_cell12)


_vkey = hc.vkey


def test_online_labels_are_the_newest_the_index_lists_that_fit():
    """Where a newer torch in the local index would run here, the online label's floor is it
    (batch 11's index: 2.16.1 on a 13.x driver, Turing or newer and Python >= 3.12, 2.15.1 on
    3.11, 2.14.1 cu126 on a 12.x driver or a pre-Turing GPU, 2.14.1 on 3.10, the newest cpu
    build for a CPU box); a macOS label names the newest wheel whose macOS floor the machine
    meets."""
    from .heldout11_index import torch_cells
    cells = torch_cells()
    for row in MACHINES:
        label = row.get("expect_online", {}).get("torch", "")
        platform = _platform_key(row)
        if row["os"] == "Darwin" and label not in ("", "none"):
            macos = Version(row["macos"])
            found = sorted({v for v, var, p, cp, floor in cells if p == platform
                            and cp == _cp(row) and Version(floor) <= macos}, key=_vkey)
            assert found and label == f"{found[-1]} cpu", (row["name"], label, found[-1:])
            continue
        if not label.startswith(">="):
            continue
        kind = label.split(" | ")[0].split(" ")[1]

        def fits(variant: str, platform: str = platform, kind: str = kind,
                 row: dict[str, Any] = row) -> bool:
            if kind == "cuda":
                return h5.runs_on_gpu(row, variant, platform)
            if kind == "rocm":
                return variant.startswith("rocm7.")
            return variant.startswith(kind)
        found = sorted({v for v, var, p, cp, _ in cells if p == platform and cp == _cp(row)
                        and fits(var)}, key=_vkey)
        assert found, (row["name"], label)
        if kind == "rocm":        # the box's ROCm release decides which ROCm folder is newest
            continue
        assert label.startswith(f">={found[-1]} "), (row["name"], label, found[-1:])


# ------------------------------------------------------------------ scoring (runs `suggest`)
def test_batch12_answers_reach_the_floor():
    right, total, wrong = figures()
    assert sum(total.values()) == len(CASES)
    assert sum(right.values()) / len(CASES) >= FLOOR, "\n".join(wrong)


@pytest.mark.parametrize("flavour", ["json", "html"])
def test_batch12_online_answers_reach_the_floor(flavour, tmp_path, monkeypatch):
    hc.isolate_online(tmp_path, monkeypatch)
    right, total, wrong = online_figures(flavour)
    assert total == len(ONLINE_CASES)
    assert right / total >= ONLINE_FLOOR, "\n".join(wrong)


if __name__ == "__main__":
    hc.report(figures, online_figures, "-v" in sys.argv)
