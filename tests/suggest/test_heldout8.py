"""Held-out machine profiles, batch 8 (tests/suggest/heldout/profiles8.toml): machines none of
batches 3-7 has, labelled by today's truth (2026-12-06) from the official sources before
`suggest` ran on them. Measured, not tuned on: the figure is held to a floor (README.md records
the first run) rather than each answer asserted.

The judge is batch 5's (tests/suggest/test_heldout5.py: labels, arch lists, driver floors,
false reasons) with batch 8's torch wheel table (``today_cell8``: 2.15 has no cu126 build,
2.14 / 2.15 no cu134, per the sources in profiles8.toml's header) and this batch's torchvision
pairs. The facts snapshot is batch 7's plus what this batch's profiles state that batch 7's did
not: a CUDA toolkit (``nvcc`` -> ``cuda``; ``"none"``: confirmed absent), a cuDNN on the
library path (``cudnn`` -> ``libraries``) and a Cloud TPU (``tpu`` -> the TPU's device nodes
in ``host.gpu_device_nodes`` and ``TPU_ACCELERATOR_TYPE`` in ``env``). ``expect_online``
answers are judged against the wheels the local index (heldout8_index) lists.

``python -m tests.suggest.test_heldout8 -v`` prints the per-platform figures, the `--online`
figure against the local index and every wrong answer. The structure tests
(``-k "structure or new_combinations or tables or newest or fixture"``) run no `suggest`."""

from __future__ import annotations

import json
import re
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
from . import test_heldout7 as h7
from .test_heldout3 import MACHINES as BATCH3
from .test_heldout4 import MACHINES as BATCH4
from .test_heldout5 import _ALT, _cp, _pins, _platform_key, false_reason, got_of, matches
from .test_heldout5 import MACHINES as BATCH5
from .test_heldout6 import MACHINES as BATCH6
from .test_heldout7 import MACHINES as BATCH7

LABELS = tomllib.loads((Path(__file__).parent / "heldout" / "profiles8.toml").read_text("utf-8"))
MACHINES: list[dict[str, Any]] = LABELS["machine"]
FLOOR = 1.0          # first run on d783515: 134/140; after: 140/140 (README.md)
ONLINE_FLOOR = 1.0   # first run on d783515: 109/112; after: 112/112
ROOT = Path(__file__).resolve().parents[2]

CASES = [(row, fw, False) for row in MACHINES for fw in row["expect"]] + \
    [(row, fw, True) for row in MACHINES for fw in row.get("expect_keep", {})]
ONLINE_CASES = [(row, fw) for row in MACHINES for fw in row.get("expect_online", {})]

# torchvision that pairs with each torch (PyPI's metadata; 0.29.2 is py3 with torch>=2.14.0),
# plus the local index's 0.30.0 (pins torch==2.16.0)
_VISION = {**h7._VISION, "2.16.0": {"0.30.0", "0.29.2"}, "2.15.1": {"0.29.2"},
           "2.15.0": {"0.29.2"}, "2.14.1": {"0.29.1", "0.29.2"}, "2.14.0": {"0.29.0", "0.29.2"},
           "2.9.1": {"0.24.1"}}


# ------------------------------------------------------------------ today's torch wheels
# Batch 8's table (profiles8.toml's header): 2.14.x on cpu / cu126 / cu130 / cu132 (Linux
# x86_64 and aarch64, Windows) and rocm7.2 / rocm7.14 (Linux x86_64), no cu134
# (test-infra#8601); 2.15.0 without cu126 (RFC pytorch#190385, test-infra#8739); macOS CPU.
_PYTHONS8 = {"2.14.0": range(10, 15), "2.14.1": range(10, 15), "2.15.0": range(11, 16)}
_BUILT8 = {
    "2.14": {"linux_x86_64": ("cpu", "cu126", "cu130", "cu132", "rocm7.2", "rocm7.14"),
             "linux_aarch64": ("cpu", "cu126", "cu130", "cu132"),
             "win_amd64": ("cpu", "cu126", "cu130", "cu132"), "macos_arm64": ("cpu",)},
    "2.15": {"linux_x86_64": ("cpu", "cu130", "cu132", "rocm7.2", "rocm7.14"),
             "linux_aarch64": ("cpu", "cu130", "cu132"),
             "win_amd64": ("cpu", "cu130", "cu132"), "macos_arm64": ("cpu",)},
}
_PYPI = {("2.14.1", "linux"): "cu130", ("2.15.0", "linux"): "cu132"}


def today_cell8(version: str, variant: str, platform: str, cp: str) -> str | None:
    """"confirmed" | "plausible" | None for a torch wheel of today (2026-12-06)."""
    if version not in _PYTHONS8 or int(cp[3:]) not in _PYTHONS8[version]:
        return None
    if variant not in _BUILT8[version[:4]].get(platform, ()):
        return None
    if version == "2.14.0":
        return "confirmed"
    os_ = platform.split("_")[0]
    if (os_ in ("macos", "win") and variant == "cpu") or _PYPI.get((version, os_)) == variant:
        return "confirmed"
    return "plausible"


def online_cell_table() -> Any:
    from .heldout8_index import torch_cells
    return hc.cell_table(torch_cells())


# ------------------------------------------------------------------ the machine as facts
_TPU_NODES = {"v4": [f"/dev/accel{i}" for i in range(4)]}


def snapshot(row: dict[str, Any]) -> Facts:
    """Batch 7's snapshot, plus the CUDA toolkit, a cuDNN and a Cloud TPU where a row states
    them (fields batch 7's rows never had)."""
    data = h7.snapshot(row).to_dict()
    windows = row["os"] == "Windows"
    if row.get("nvcc") == "none":
        data["cuda"] = {"probe": {"status": "not_found"}}
    elif "nvcc" in row:
        v = row["nvcc"]
        home = (f"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v{v}" if windows
                else f"/usr/local/cuda-{v}")
        nvcc = home + ("\\bin\\nvcc.exe" if windows else "/bin/nvcc")
        data["cuda"] = {"probe": {"status": "ok"}, "nvcc_path": nvcc, "nvcc_version": v,
                        "toolkits": [{"version": v, "path": home, "source": "nvcc",
                                      "how": "nvcc --version"}]}
    if "cudnn" in row:
        major = row["cudnn"].split(".")[0]
        path = (f"C:\\Program Files\\NVIDIA\\CUDNN\\v{row['cudnn'][:3]}\\bin\\cudnn64_{major}.dll"
                if windows else f"/usr/lib/x86_64-linux-gnu/libcudnn.so.{major}")
        data["libraries"] = {"probe": {"status": "ok"},
                             "libraries": [{"name": "cudnn", "version": row["cudnn"],
                                            "path": path, "source": "folder"}]}
    if "tpu" in row:
        family = row["tpu"].split("-")[0]
        nodes = _TPU_NODES.get(family, [f"/dev/vfio/{i}" for i in range(4)])
        data["host"]["gpu_device_nodes"] = nodes
        data["env"] = {"probe": {"status": "ok"}, "vars": {"TPU_ACCELERATOR_TYPE": row["tpu"]}}
    return Facts.from_dict(data)


def platform_of(row: dict[str, Any]) -> str:
    return "Cloud TPU VM" if "tpu" in row else h5.platform_of(row)


def answer(row: dict[str, Any], framework: str, keep: bool = False, online: Any = None
           ) -> Suggestion:
    from envdoctor.suggest import suggest
    return suggest(snapshot(row), [framework], keep_installed=keep,
                   online=online).suggestions[0]


# ------------------------------------------------------------------ judging
def command_problem(s: Suggestion) -> str | None:
    """What in the command would not install, or None (batch 5's check, this batch's pairs)."""
    if not s.command or s.framework != "torch":
        return None
    pins = _pins(s.command)
    torch = pins.get("torch", "").split("+")[0]
    vision = pins.get("torchvision", "").split("+")[0]
    if torch and s.version and torch != s.version.split("+")[0]:
        return f"the command pins torch {torch}, the answer says {s.version}"
    if vision and torch and torch in _VISION and vision not in _VISION[torch]:
        return f"torchvision {vision} does not pair with torch {torch}"
    m = re.search(r"--(?:extra-)?index-url\s+\S*/whl/(\S+?)/?(?:\s|$)", s.command)
    if m and s.variant and m.group(1) != s.variant:
        return f"index {m.group(1)} for a {s.variant} answer"
    return None


def judge(row: dict[str, Any], framework: str, label: str, s: Suggestion,
          cell_of: Any = today_cell8) -> str | None:
    """None when the answer is right, else what is wrong with it."""
    if not matches(row, label, s, cell_of):
        return f"got {got_of(s)!r}, want {label!r}"
    problem = command_problem(s) or false_reason(row, s)
    return f"got {got_of(s)!r}: {problem}" if problem else None


_expected = hc.expected


def figures() -> tuple[Counter[str], Counter[str], list[str]]:
    """(right, total) per platform over every labelled answer, and the wrong ones."""
    return hc.figures(CASES, answer, judge, platform_of)


def online_figures(flavour: str = "json") -> tuple[int, int, list[str]]:
    from .heldout8_index import serving
    return hc.online_figures(ONLINE_CASES, "expect_online", answer, judge, online_cell_table(),
                             serving, flavour)


# ------------------------------------------------------------------ structure (no `suggest`)
def test_batch8_structure_is_a_fresh_batch_of_the_promised_size():
    names = [row["name"] for row in MACHINES]
    assert len(names) == len(set(names))
    assert len(names) >= 40 and len(CASES) >= 100 and len(ONLINE_CASES) >= 30
    assert sum(1 for _, _, keep in CASES if keep) >= 10
    assert not set(names) & {row["name"] for row in
                             [*BATCH3, *BATCH4, *BATCH5, *BATCH6, *BATCH7]}
    platforms = Counter(platform_of(row) for row in MACHINES)
    assert len(platforms) >= 10, platforms
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
        facts = snapshot(row)                  # every profile is a valid facts snapshot
        if row.get("nvcc", "none") != "none":
            assert facts.cuda.nvcc_version == Version(row["nvcc"]), row["name"]
        if "tpu" in row:
            assert facts.env.vars["TPU_ACCELERATOR_TYPE"] == row["tpu"]
            assert facts.host.gpu_device_nodes, row["name"]


def _combo(row: dict[str, Any]) -> tuple[Any, ...]:
    return (row.get("gpu", [None])[0], row.get("driver", "").split(".")[0], row["os"],
            row["arch"], ".".join(row["python"].split(".")[:2]), bool(row.get("wsl")),
            row.get("rocm", {}).get("gfx"), tuple(sorted(row.get("installed", []))),
            row.get("tpu"))


def test_batch8_machines_are_new_combinations():
    """No machine of batches 3-7 again under another name: GPU, driver branch, platform,
    Python, ROCm target, installed state and TPU together differ (the toolkit, cuDNN, macOS and
    JetPack releases are left out, so they make nothing new by themselves); nor two machines
    of this batch."""
    old = {_combo(row) for row in [*BATCH3, *BATCH4, *BATCH5, *BATCH6, *BATCH7]}
    assert not [row["name"] for row in MACHINES if _combo(row) in old]
    mine = Counter(_combo(row) for row in MACHINES)
    assert not [combo for combo, n in mine.items() if n > 1]


@pytest.mark.parametrize("row", [r for r in MACHINES if "gpu" in r
                                 and ("tegra" not in r.get("kernel", "")
                                      or "Thor" in r["gpu"][0])],
                         ids=lambda r: r["name"])
def test_the_judge_tables_agree_with_the_labels(row):
    """The judge's own tables (not envdoctor's) say a ">=V cuda" label's floor has a CONFIRMED
    build that runs here, and an ``expect_online`` ">=V cuda" floor a wheel the local index
    lists that runs here: a label no build meets would accept nothing."""
    platform = _platform_key(row)
    online = online_cell_table()
    labels = [(row["expect"].get("torch", ""), today_cell8),
              (row.get("expect_keep", {}).get("torch", ""), today_cell8),
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


def test_the_batch8_table_rejects_what_does_not_exist():
    """The table can fail: 2.15.0 has no cu126, 2.14.x no cu134, and no cp315 before 2.15."""
    pascal = {"gpu": ["NVIDIA GeForce GTX 1080", "6.1"], "driver": "590.44.01",
              "os": "Linux", "arch": "x86_64", "python": "3.12.12"}

    def s(version: str, variant: str) -> Suggestion:
        return Suggestion("torch", "ok", version=version, variant=variant)
    assert matches(pascal, ">=2.14.0 cuda", s("2.14.1", "cu126"), today_cell8)
    assert not matches(pascal, ">=2.14.0 cuda", s("2.15.0", "cu126"), today_cell8)
    assert not matches(pascal, ">=2.14.0 cuda", s("2.15.0", "cu132"), today_cell8)
    ada = {**pascal, "gpu": ["NVIDIA L40", "8.9"]}
    assert not matches(ada, ">=2.14.0 cuda", s("2.14.1", "cu134"), today_cell8)
    assert today_cell8("2.14.1", "cu126", "linux_x86_64", "cp315") is None
    assert judge(ada, "torch", ">=2.14.0 cuda", Suggestion(
        "torch", "ok", version="2.14.1", variant="cu126",
        command="pip install torch==2.14.1 torchvision==0.29.0 --index-url "
                "https://download.pytorch.org/whl/cu126")) is not None


_vkey = hc.vkey


def test_online_labels_are_the_newest_the_index_lists_that_fit():
    """Where a newer torch in the local index would run here, the online label's floor is it:
    2.16.0 on a 13.x driver with a Turing or newer GPU (Linux, aarch64, Windows) and for the
    CPU; 2.14.1 cu126 for a 12.x driver or a pre-Turing GPU (neither 2.15.x nor 2.16.0 has a
    cu126 build); for ROCm the newest rocm7.2 build (2.15.1), 2.16.0 rocm7.14 accepted too."""
    from .heldout8_index import torch_cells
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
                return variant == "rocm7.2"
            return variant.startswith(kind)
        found = sorted({v for v, var, p, cp in cells if p == platform and cp == _cp(row)
                        and fits(var)}, key=_vkey)
        assert found and label.startswith(f">={found[-1]} "), (row["name"], label, found[-1:])
    # and the fixture's shape is what the labels assume
    assert not {c for c in cells if c[0] in ("2.15.0", "2.15.1", "2.16.0") and c[1] == "cu126"}
    assert not {c for c in cells if c[0].startswith("2.14") and c[1] == "cu134"}
    assert ("2.16.0", "cu130", "win_amd64", "cp312") in cells
    assert ("2.16.0", "cu132", "linux_x86_64", "cp311") in cells      # PyPI's Linux wheel
    assert ("2.15.1", "rocm7.2", "linux_x86_64", "cp313") in cells
    assert not {c for c in cells if c[0] == "2.16.0" and c[1] == "rocm7.2"}


def test_the_index_fixture_structure_serves_its_pages():
    """The fixture answers on 127.0.0.1 with PEP 691 JSON (and PEP 503 HTML): torch 2.16.0 and
    2.15.1 have no cu126, jax 0.13.0's tpu extra pins libtpu 0.0.53, jax 0.12.1 has a jaxlib
    now, TF 2.22.0 has cp314 and pins the CUDA 12 wheels for and-cuda."""
    from urllib.request import Request, urlopen

    from .heldout8_index import NEWEST, serving
    accept = {"Accept": "application/vnd.pypi.simple.v1+json"}

    def page(index: Any, path: str) -> dict:
        with urlopen(Request(f"{index.url}/{path}/", headers=accept),  # noqa: S310
                     timeout=10) as reply:
            return json.loads(reply.read())
    with serving("json") as index:
        names = {f["filename"] for f in page(index, "torch")["files"]}
        assert f"torch-{NEWEST['torch']}-cp311-cp311-manylinux_2_28_x86_64.whl" in names
        assert "torch-2.16.0-cp312-cp312-win_amd64.whl" in names
        assert any(f["filename"].startswith("jaxlib-0.12.1-")
                   for f in page(index, "jaxlib")["files"])
        assert any(f["filename"].startswith("jax_cuda12_plugin-0.13.0")
                   for f in page(index, "jax-cuda12-plugin")["files"])
        assert any(f["filename"] == "libtpu-0.0.53-cp312-cp312-manylinux_2_31_x86_64.whl"
                   for f in page(index, "libtpu")["files"])
        assert any(f["filename"].startswith("tensorflow-2.22.0-cp314")
                   for f in page(index, "tensorflow")["files"])
        with urlopen(f"{index.torch_root}/cu126/torch/", timeout=10) as reply:  # noqa: S310
            cu126 = reply.read().decode()
        assert "2.14.1+cu126" in cu126 and "2.15.0+cu126" not in cu126 \
            and "2.16.0+cu126" not in cu126
        meta = f"{index.url}/jax/jax-0.13.0-py3-none-any.whl.metadata"
        with urlopen(meta, timeout=10) as reply:  # noqa: S310
            assert 'libtpu==0.0.53.*; extra == "tpu"' in reply.read().decode()
    with serving("html") as index, \
            urlopen(f"{index.url}/torch/", timeout=10) as reply:  # noqa: S310
        html = reply.read().decode()
    assert "torch-2.15.1-cp315-cp315-manylinux_2_28_aarch64.whl" in html
    assert 'data-requires-python="&gt;=3.11"' in html


# ------------------------------------------------------------------ scoring (runs `suggest`)
def test_batch8_answers_reach_the_floor():
    right, total, wrong = figures()
    assert sum(total.values()) == len(CASES)
    assert sum(right.values()) / len(CASES) >= FLOOR, "\n".join(wrong)


@pytest.mark.parametrize("flavour", ["json", "html"])
def test_batch8_online_answers_reach_the_floor(flavour, tmp_path, monkeypatch):
    hc.isolate_online(tmp_path, monkeypatch)
    right, total, wrong = online_figures(flavour)
    assert total == len(ONLINE_CASES)
    assert right / total >= ONLINE_FLOOR, "\n".join(wrong)


UNREACHABLE = ["gh200-sbsa-driver590-py313", "windows-quadro-p1000-driver553-py311",
               "tpu-v5e-vm-py312"]


@pytest.mark.parametrize("name", UNREACHABLE)
def test_unreachable_index_answers_from_shipped_data_saying_so(name, tmp_path):
    """An index nobody listens on: within 15 s, the shipped data's commands, one line more,
    the same exit code."""
    row = next(r for r in MACHINES if r["name"] == name)
    hc.unreachable_index_answers_from_shipped_data(snapshot(row), name, tmp_path)


if __name__ == "__main__":
    hc.report(figures, online_figures, "-v" in sys.argv)
