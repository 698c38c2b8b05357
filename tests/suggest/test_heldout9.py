"""Held-out machine profiles, batch 9 (tests/suggest/heldout/profiles9.toml): machines none of
batches 3-8 has, labelled by today's truth (2026-12-06) from the official sources before
`suggest` ran on them. Measured, not tuned on: the figure is held to a floor (README.md records
the first run, "not yet measured" until then) rather than each answer asserted.

The judge is batch 8's (tests/suggest/test_heldout8.py: batch 5's labels, arch lists, driver
floors and false reasons, batch 8's torch table ``today_cell8``, its torchvision pairs). The
facts snapshot is batch 8's plus what this batch's profiles state that batch 8's did not: the C
library (``glibc`` -> ``host.glibc``), a container (``container`` -> ``host.container``) and a
CUDA forward-compatibility libcuda in it (``cuda_compat`` -> ``libraries``, a ``libcuda`` under
``/usr/local/cuda/compat``). ``expect_online`` answers are judged against the wheels the local
index (heldout9_index) lists.

``python -m tests.suggest.test_heldout9 -v`` prints the per-platform figures, the `--online`
figure against the local index and every wrong answer. The structure tests
(``-k "structure or new_combinations or tables or newest or fixture or rejects"``) run no
`suggest`."""

from __future__ import annotations

import json
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
from .test_heldout3 import MACHINES as BATCH3
from .test_heldout4 import MACHINES as BATCH4
from .test_heldout5 import _ALT, _cp, _platform_key, matches
from .test_heldout5 import MACHINES as BATCH5
from .test_heldout6 import MACHINES as BATCH6
from .test_heldout7 import MACHINES as BATCH7
from .test_heldout8 import MACHINES as BATCH8

LABELS = tomllib.loads((Path(__file__).parent / "heldout" / "profiles9.toml").read_text("utf-8"))
MACHINES: list[dict[str, Any]] = LABELS["machine"]
FLOOR = 1.0          # first run on 65d8a61: 136/141; after: 141/141 (README.md, batch 9)
ONLINE_FLOOR = 1.0   # first run on 65d8a61: 108/113; after: 113/113

CASES = [(row, fw, False) for row in MACHINES for fw in row["expect"]] + \
    [(row, fw, True) for row in MACHINES for fw in row.get("expect_keep", {})]
ONLINE_CASES = [(row, fw) for row in MACHINES for fw in row.get("expect_online", {})]
today_cell9 = h8.today_cell8     # nothing was published between batch 8 and batch 9
judge = h8.judge


def online_cell_table() -> Any:
    from .heldout9_index import torch_cells
    return hc.cell_table(torch_cells())


# ------------------------------------------------------------------ the machine as facts
def snapshot(row: dict[str, Any]) -> Facts:
    """Batch 8's snapshot, plus the C library, a container and a forward-compatibility
    libcuda where a row states them (fields batch 8's rows never had)."""
    data = h8.snapshot(row).to_dict()
    if "glibc" in row:
        data["host"]["glibc"] = row["glibc"]
    if "container" in row:
        data["host"]["container"] = row["container"]
    if "cuda_compat" in row:
        libs = data.get("libraries") or {"probe": {"status": "ok"}, "libraries": []}
        libs["libraries"] = [*libs.get("libraries", []),
                             {"name": "libcuda", "version": row["cuda_compat"],
                              "path": f"/usr/local/cuda/compat/libcuda.so.{row['cuda_compat']}",
                              "source": "folder"}]
        data["libraries"] = libs
    return Facts.from_dict(data)


platform_of = h8.platform_of


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
    from .heldout9_index import serving
    return hc.online_figures(ONLINE_CASES, "expect_online", answer, judge, online_cell_table(),
                             serving, flavour)


# ------------------------------------------------------------------ structure (no `suggest`)
def test_batch9_structure_is_a_fresh_batch_of_the_promised_size():
    names = [row["name"] for row in MACHINES]
    assert len(names) == len(set(names))
    assert len(names) >= 40 and len(CASES) >= 120 and len(ONLINE_CASES) >= 30
    assert sum(1 for _, _, keep in CASES if keep) >= 10
    assert not set(names) & {row["name"] for row in
                             [*BATCH3, *BATCH4, *BATCH5, *BATCH6, *BATCH7, *BATCH8]}
    platforms = Counter(platform_of(row) for row in MACHINES)
    assert len(platforms) >= 12, platforms
    for row, fw, keep in CASES:
        assert fw in ("torch", "jax", "tensorflow"), row["name"]
        for alt in _expected(row, fw, keep).split(" | "):
            assert _ALT.fullmatch(alt.strip()), (row["name"], fw, alt)
            assert not alt.startswith(">=") or fw == "torch", (row["name"], fw)
        assert row["why"].strip(), row["name"]
    for row, fw in ONLINE_CASES:
        assert fw in row["expect"], (row["name"], fw)
        for alt in row["expect_online"][fw].split(" | "):
            assert _ALT.fullmatch(alt.strip()), (row["name"], fw, alt)
    for row in MACHINES:
        assert ("macos" in row) == (row["os"] == "Darwin"), row["name"]
        assert "tpu" not in row or ("gpu" not in row and row["arch"] == "x86_64"), row["name"]
        assert "cuda_compat" not in row or ("container" in row and "gpu" in row), row["name"]
        facts = snapshot(row)                  # every profile is a valid facts snapshot
        if "glibc" in row:
            assert facts.host.glibc == row["glibc"], row["name"]
            assert row["os"] == "Linux" and "torch" not in row["expect"], row["name"]
        if "container" in row:
            assert facts.host.container == row["container"], row["name"]
        if "cuda_compat" in row:
            compat = facts.libraries.named("libcuda")
            assert compat and compat[-1].version == Version(row["cuda_compat"]), row["name"]
            assert "/compat/" in compat[-1].path
        if "tpu" in row:
            assert facts.env.vars["TPU_ACCELERATOR_TYPE"] == row["tpu"]


def test_batch9_machines_are_new_combinations():
    """No machine of batches 3-8 again under another name: GPU, driver branch, platform,
    Python, ROCm target, installed state and TPU together differ (the C library, a container,
    a compat package, the toolkit, macOS and JetPack releases are left out, so they make
    nothing new by themselves); nor two machines of this batch."""
    old = {h8._combo(row) for row in
           [*BATCH3, *BATCH4, *BATCH5, *BATCH6, *BATCH7, *BATCH8]}
    assert not [row["name"] for row in MACHINES if h8._combo(row) in old]
    mine = Counter(h8._combo(row) for row in MACHINES)
    assert not [combo for combo, n in mine.items() if n > 1]


@pytest.mark.parametrize("row", [r for r in MACHINES if "gpu" in r
                                 and ("tegra" not in r.get("kernel", "")
                                      or "Thor" in r["gpu"][0])],
                         ids=lambda r: r["name"])
def test_the_judge_tables_agree_with_the_labels(row):
    """A ">=V cuda" label's floor has a CONFIRMED build that runs here (batch 8's table), and
    an ``expect_online`` ">=V cuda" floor a wheel the local index lists that runs here."""
    platform = _platform_key(row)
    online = online_cell_table()
    labels = [(row["expect"].get("torch", ""), today_cell9),
              (row.get("expect_keep", {}).get("torch", ""), today_cell9),
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


def test_the_batch9_judge_rejects_what_does_not_run():
    """The judge can fail on this batch's machines: a CUDA 13 build on a 575 driver, a cu126
    build of 2.15, the index's 2.16.0 on Python 3.11 (it has no cp311)."""
    ampere575 = next(r for r in MACHINES if r["name"].startswith("rtx3060-broken"))

    def s(version: str, variant: str) -> Suggestion:
        return Suggestion("torch", "ok", version=version, variant=variant)
    assert matches(ampere575, ">=2.14.0 cuda", s("2.14.1", "cu126"), today_cell9)
    assert not matches(ampere575, ">=2.14.0 cuda", s("2.15.0", "cu132"), today_cell9)
    assert not matches(ampere575, ">=2.14.0 cuda", s("2.15.0", "cu126"), today_cell9)
    a6000 = next(r for r in MACHINES if r["name"].startswith("rtxa6000-working"))
    online = online_cell_table()
    assert matches(a6000, ">=2.15.1 cuda", s("2.15.1", "cu134"), online)
    assert not matches(a6000, ">=2.15.1 cuda", s("2.16.0", "cu132"), online)
    assert judge(ampere575, "torch", ">=2.14.0 cuda", Suggestion(
        "torch", "ok", version="2.14.1", variant="cu126",
        command="pip install torch==2.14.1 torchvision==0.29.0 --index-url "
                "https://download.pytorch.org/whl/cu126")) is not None


_vkey = hc.vkey


def test_online_labels_are_the_newest_the_index_lists_that_fit():
    """Where a newer torch in the local index would run here, the online label's floor is it:
    2.16.0 on a 13.x driver with a Turing or newer GPU and Python >= 3.12 (2.15.1 on 3.11, the
    patch that added cu134); 2.14.1 cu126 for a 12.x driver or a pre-Turing GPU (no 2.15.x /
    2.16.0 cu126); for ROCm the newest rocm7.2 / rocm7.14 build (2.15.1), 2.16.0's renamed
    rocm7.14.1 accepted too."""
    from .heldout9_index import torch_cells
    cells = torch_cells()
    for row in MACHINES:
        label = row.get("expect_online", {}).get("torch", "")
        if not label.startswith(">="):
            continue
        kind = label.split(" | ")[0].split(" ")[1]
        platform = _platform_key(row)

        def fits(variant: str, platform: str = platform, kind: str = kind,
                 row: dict[str, Any] = row) -> bool:
            if kind == "cuda":
                return h5.runs_on_gpu(row, variant, platform)
            if kind == "rocm":
                return variant in ("rocm7.2", "rocm7.14")
            return variant.startswith(kind)
        found = sorted({v for v, var, p, cp in cells if p == platform and cp == _cp(row)
                        and fits(var)}, key=_vkey)
        assert found and label.startswith(f">={found[-1]} "), (row["name"], label, found[-1:])
    # and the fixture's shape is what the labels assume
    assert not {c for c in cells if c[0] in ("2.15.0", "2.15.1", "2.16.0") and c[1] == "cu126"}
    assert ("2.15.1", "cu134", "linux_x86_64", "cp311") in cells       # the patch's new variant
    assert not {c for c in cells if c[0] == "2.15.0" and c[1] == "cu134"}
    assert not {c for c in cells if c[0] == "2.16.0" and c[3] == "cp311"}
    assert ("2.16.0", "cu134", "linux_x86_64", "cp312") in cells      # PyPI's Linux wheel
    assert ("2.16.0", "rocm7.14.1", "linux_x86_64", "cp313") in cells
    assert not {c for c in cells if c[0] == "2.16.0" and c[1] in ("rocm7.2", "rocm7.14",
                                                                  "cu130")}


def test_the_index_fixture_structure_serves_its_pages():
    """The fixture answers on 127.0.0.1 with PEP 691 JSON (and PEP 503 HTML): jax 0.13.0 is
    yanked, 0.13.1's Linux wheels are manylinux_2_28 only and its tpu extra pins libtpu
    0.0.54, the cuda13 plugin 0.12.1 has no jaxlib, TF 2.22.0 has no cp310, torch 2.16.0's ROCm
    folder is rocm7.14.1."""
    from urllib.request import Request, urlopen

    from .heldout9_index import NEWEST, serving
    accept = {"Accept": "application/vnd.pypi.simple.v1+json"}

    def page(index: Any, path: str) -> dict:
        with urlopen(Request(f"{index.url}/{path}/", headers=accept),  # noqa: S310
                     timeout=10) as reply:
            return json.loads(reply.read())
    with serving("json") as index:
        jaxlib = page(index, "jaxlib")["files"]
        assert all(f.get("yanked") for f in jaxlib if f["filename"].startswith("jaxlib-0.13.0-"))
        new = {f["filename"] for f in jaxlib if f["filename"].startswith("jaxlib-0.13.1-")}
        assert new and not [n for n in new if "manylinux_2_27" in n or "manylinux2014" in n]
        assert "jaxlib-0.13.1-cp312-cp312-manylinux_2_28_x86_64.whl" in new
        assert not any(f["filename"].startswith("jaxlib-0.12.1") for f in jaxlib)
        assert any(f["filename"].startswith("jax_cuda13_plugin-0.12.1-")
                   for f in page(index, "jax-cuda13-plugin")["files"])
        tf = {f["filename"] for f in page(index, "tensorflow")["files"]}
        assert "tensorflow-2.22.0-cp311-cp311-manylinux_2_27_x86_64.whl" in tf
        assert not [n for n in tf if n.startswith("tensorflow-2.22.0-cp310")]
        torch = {f["filename"] for f in page(index, "torch")["files"]}
        assert f"torch-{NEWEST['torch']}-cp312-cp312-manylinux_2_28_x86_64.whl" in torch
        assert "torch-2.16.0-cp311-cp311-manylinux_2_28_x86_64.whl" not in torch
        with urlopen(f"{index.torch_root}/rocm7.14.1/torch/", timeout=10) as reply:  # noqa: S310
            rocm = reply.read().decode()
        assert "2.16.0+rocm7.14.1" in rocm
        with urlopen(f"{index.torch_root}/cu134/torch/", timeout=10) as reply:  # noqa: S310
            cu134 = reply.read().decode()
        assert "2.15.1+cu134" in cu134 and "2.15.0+cu134" not in cu134
        meta = f"{index.url}/jax/jax-0.13.1-py3-none-any.whl.metadata"
        with urlopen(meta, timeout=10) as reply:  # noqa: S310
            assert 'libtpu==0.0.54.*; extra == "tpu"' in reply.read().decode()
    with serving("html") as index, \
            urlopen(f"{index.url}/jax/", timeout=10) as reply:  # noqa: S310
        html = reply.read().decode()
    assert "jax-0.13.0-py3-none-any.whl" in html and "data-yanked" in html
    assert 'data-requires-python="&gt;=3.12"' in html


# ------------------------------------------------------------------ scoring (runs `suggest`)
def test_batch9_answers_reach_the_floor():
    right, total, wrong = figures()
    assert sum(total.values()) == len(CASES)
    assert sum(right.values()) / len(CASES) >= FLOOR, "\n".join(wrong)


@pytest.mark.parametrize("flavour", ["json", "html"])
def test_batch9_online_answers_reach_the_floor(flavour, tmp_path, monkeypatch):
    hc.isolate_online(tmp_path, monkeypatch)
    right, total, wrong = online_figures(flavour)
    assert total == len(ONLINE_CASES)
    assert right / total >= ONLINE_FLOOR, "\n".join(wrong)


if __name__ == "__main__":
    hc.report(figures, online_figures, "-v" in sys.argv)
