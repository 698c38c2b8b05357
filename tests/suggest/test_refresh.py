"""The matrices refresh (envdoctor.matrices.refresh): the recorded sources of today reproduce
the shipped matrices with no diff; newer recorded sources give the expected diff, with a
source per changed cell, and --write applies it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from envdoctor.matrices.refresh import compare, load_sources, render
from envdoctor.matrices.refresh.extract import READERS, build_matrix

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rules"
DATA = ROOT / "tests" / "data" / "refresh"
MAIN = "https://github.com/pytorch/test-infra/blob/main/tools/scripts/generate_binary_build_matrix.py"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "envdoctor.matrices.refresh", *args],
                          capture_output=True, text=True, env=env, timeout=120, check=False)


def test_todays_sources_reproduce_the_shipped_matrices():
    cells = load_sources(DATA / "today")
    assert len(cells) > 200
    assert compare(cells, RULES) == []
    got = _cli("--sources", str(DATA / "today"), "--rules", str(RULES))
    assert (got.returncode, got.stderr) == (0, "")
    assert got.stdout.startswith("no change")


def test_every_recorded_source_states_cells():
    manifest = tomllib.loads((DATA / "today" / "sources.toml").read_text("utf-8"))["source"]
    assert {s["kind"] for s in manifest} == set(READERS)
    for entry in manifest:
        text = (DATA / "today" / entry["file"]).read_text("utf-8")
        assert READERS[entry["kind"]](text, entry["url"]), entry["file"]


EXPECTED = f"""\
rules/matrices/wheel_index.toml [[torch]] torch = "2.15.0": python: (absent) -> ">=3.11,<3.15"  # {MAIN}
rules/matrices/wheel_index.toml [[torch]] torch = "2.15.0": linux_x86_64: (absent) -> ["cpu", "cu130", "cu132", "cu134", "rocm7.2", "rocm7.14"]  # {MAIN}
rules/matrices/wheel_index.toml [[torch]] torch = "2.15.0": linux_aarch64: (absent) -> ["cpu", "cu130", "cu132", "cu134"]  # {MAIN}
rules/matrices/wheel_index.toml [[torch]] torch = "2.15.0": win_amd64: (absent) -> ["cpu", "cu130", "cu132"]  # {MAIN}
rules/matrices/wheel_index.toml [[torch]] torch = "2.15.0": macos_arm64: (absent) -> ["cpu"]  # {MAIN}
rules/matrices/wheel_index.toml [[torch]] torch = "2.15.0": confirmed: (absent) -> true  # {MAIN}
rules/matrices/wheel_index.toml [[torch]] torch = "2.15.0": pypi.linux_x86_64: (absent) -> "cu132"  # {MAIN}
rules/matrices/tensorflow.toml [[release]] tensorflow = "2.22": python: (absent) -> ">=3.11,<3.15"  # https://github.com/tensorflow/docs/blob/master/site/en/install/source.md
rules/matrices/tensorflow.toml [[release]] tensorflow = "2.22": cudnn: (absent) -> "9.8"  # https://github.com/tensorflow/docs/blob/master/site/en/install/source.md
rules/matrices/tensorflow.toml [[release]] tensorflow = "2.22": cuda: (absent) -> "12.9"  # https://github.com/tensorflow/docs/blob/master/site/en/install/source.md
rules/matrices/jax.toml [[release]] jax = "0.12.0": released November 18, 2026, not in the data (review: add a row with its Python range)  # https://github.com/jax-ml/jax/blob/main/CHANGELOG.md
rules/matrices/jax.toml [[plugin]] cuda_major = "13": min_driver_linux: "580" -> "590"  # https://github.com/jax-ml/jax/blob/main/docs/installation.md
"""


def test_newer_sources_give_the_expected_diff_with_a_source_per_cell():
    assert render(compare(load_sources(DATA / "newer"), RULES)) == EXPECTED


@pytest.fixture()
def rules_copy(tmp_path: Path) -> Path:
    shutil.copytree(RULES / "matrices", tmp_path / "rules" / "matrices")
    return tmp_path / "rules"


def test_write_applies_the_diff_and_a_second_run_only_keeps_the_review(rules_copy, tmp_path):
    diff = tmp_path / "diff.txt"
    got = _cli("--sources", str(DATA / "newer"), "--rules", str(rules_copy), "--write",
               "--diff", str(diff))
    assert got.returncode == 1 and diff.read_text("utf-8") == EXPECTED
    again = _cli("--sources", str(DATA / "newer"), "--rules", str(rules_copy))
    assert again.returncode == 1
    assert again.stdout.splitlines() == [line for line in EXPECTED.splitlines()
                                         if "(review:" in line]
    wheel = tomllib.loads((rules_copy / "matrices" / "wheel_index.toml").read_text("utf-8"))
    row = wheel["torch"][0]   # the newest row first, as the file keeps them
    assert (row["torch"], row["python"], row["pypi"]) == ("2.15.0", ">=3.11,<3.15",
                                                          {"linux_x86_64": "cu132"})
    assert "confirmed" not in row and row["source"] == MAIN
    assert wheel["meta"]["data_as_of"] == "2026-11-18"
    jax = tomllib.loads((rules_copy / "matrices" / "jax.toml").read_text("utf-8"))
    plugin = next(p for p in jax["plugin"] if p["cuda_major"] == 13)
    assert plugin["min_driver_linux"] == "590"
    assert plugin["min_driver_linux_source"].endswith("docs/installation.md")
    # everything the sources do not state is as it was (comments and notes included)
    before = (RULES / "matrices" / "torch.toml").read_text("utf-8")
    assert (rules_copy / "matrices" / "torch.toml").read_text("utf-8") == before


def test_a_candidate_build_matrix_is_an_unconfirmed_row():
    text = (DATA / "today" / "build_matrix_2.14.py").read_text("utf-8").replace(
        'CURRENT_STABLE_VERSION = "2.14.0"', 'CURRENT_STABLE_VERSION = "2.13.0"')
    cells = {c.field: c.value for c in build_matrix(text, "u")}
    assert cells["confirmed"] is False and cells["win_amd64"] == ["cpu", "cu126", "cu130", "cu132"]


def test_the_build_matrix_is_read_not_run():
    text = ('import os\nos.system("exit 3")\nCURRENT_CANDIDATE_VERSION = os.environ["X"]\n'
            'CURRENT_STABLE_VERSION = "2.14.0"\n')
    assert build_matrix(text, "u") == []


@pytest.mark.parametrize("manifest, message", [
    (None, "cannot read"),
    ('[[source]]\nkind = "rss"\nfile = "a"\nurl = "u"\n', "a source needs kind"),
    ('[[source]]\nkind = "tf_tested"\nfile = "missing.md"\nurl = "u"\n', "cannot read source"),
    ('[[source]]\nkind = "build_matrix"\nfile = "bad.py"\nurl = "u"\n', "not the expected"),
])
def test_bad_sources_are_one_line_exit_2(tmp_path, manifest, message):
    if manifest is not None:
        (tmp_path / "sources.toml").write_text(manifest, "utf-8")
    (tmp_path / "bad.py").write_text("def (:\n", "utf-8")
    got = _cli("--sources", str(tmp_path), "--rules", str(RULES))
    assert got.returncode == 2 and got.stdout == ""
    assert len(got.stderr.splitlines()) == 1 and message in got.stderr


def test_cuda_driver_rows_span_lines_and_skip_the_minor_version_table():
    from envdoctor.matrices.refresh.extract import cuda_drivers
    text = ("<table><tr><td><p>CUDA 12.x</p></td><td>&gt;=525.60.13</td><td>&gt;=528.33</td></tr>"
            "<tr class='row-odd'>\n<td><p>CUDA 12.8 GA</p></td>\n<td><p>&gt;=570.26</p></td>\n"
            "<td><p>&gt;=570.65</p></td></tr>\n<tr><td>CUDA 13.0 GA</td><td>&gt;=580.65.06</td>"
            "<td>N/A</td></tr></table>")
    got = {(c.key[1], c.field): c.value for c in cuda_drivers(text, "u")}
    assert got == {("CUDA 12.8 GA", "cuda"): "12.8.0", ("CUDA 12.8 GA", "linux"): "570.26",
                   ("CUDA 12.8 GA", "windows"): "570.65", ("CUDA 13.0 GA", "cuda"): "13.0.0",
                   ("CUDA 13.0 GA", "linux"): "580.65.06"}
