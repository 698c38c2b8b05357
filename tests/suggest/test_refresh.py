"""The matrices refresh (envdoctor.matrices.refresh): the recorded sources of today reproduce
the shipped matrices with no diff; newer recorded sources give the expected diff, with a
source per changed cell, and --write applies it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from envdoctor.matrices.refresh import compare, load_sources, render
from envdoctor.matrices.refresh.extract import READERS, build_matrix
from envdoctor.matrices.refresh.pypi import core_metadata, simple_page

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


NEW = "https://pypi.org/simple/torch/"
META = "https://files.example.invalid/constructed/torch-2.15.1-cp312-cp312-manylinux_2_28_x86_64.whl"
EXPECTED = f"""\
rules/matrices/wheel_index.toml [[torch]] torch = "2.16.0": python: (absent) -> ">=3.11,<3.15"  # {MAIN}
rules/matrices/wheel_index.toml [[torch]] torch = "2.16.0": linux_x86_64: (absent) -> ["cpu", "cu130", "cu132", "cu134", "rocm7.2", "rocm7.14"]  # {MAIN}
rules/matrices/wheel_index.toml [[torch]] torch = "2.16.0": linux_aarch64: (absent) -> ["cpu", "cu130", "cu132", "cu134"]  # {MAIN}
rules/matrices/wheel_index.toml [[torch]] torch = "2.16.0": win_amd64: (absent) -> ["cpu", "cu130", "cu132"]  # {MAIN}
rules/matrices/wheel_index.toml [[torch]] torch = "2.16.0": macos_arm64: (absent) -> ["cpu"]  # {MAIN}
rules/matrices/wheel_index.toml [[torch]] torch = "2.16.0": confirmed: (absent) -> true  # {MAIN}
rules/matrices/wheel_index.toml [[torch]] torch = "2.16.0": pypi.linux_x86_64: (absent) -> "cu132"  # {MAIN}
rules/matrices/tensorflow.toml [[release]] tensorflow = "2.22": python: (absent) -> ">=3.11,<3.15"  # https://github.com/tensorflow/docs/blob/master/site/en/install/source.md
rules/matrices/tensorflow.toml [[release]] tensorflow = "2.22": cudnn: (absent) -> "9.8"  # https://github.com/tensorflow/docs/blob/master/site/en/install/source.md
rules/matrices/tensorflow.toml [[release]] tensorflow = "2.22": cuda: (absent) -> "12.9"  # https://github.com/tensorflow/docs/blob/master/site/en/install/source.md
rules/matrices/jax.toml [[release]] jax = "0.13.0": released January 12, 2027, not in the data (review: add a row with its Python range)  # https://github.com/jax-ml/jax/blob/main/CHANGELOG.md
rules/matrices/jax.toml [[plugin]] cuda_major = "13": min_driver_linux: "580" -> "590"  # https://github.com/jax-ml/jax/blob/main/docs/installation.md
rules/matrices/wheel_index.toml [[torch]] torch = "2.15.1": python: (absent) -> ">=3.11,<3.16"  # {NEW}
rules/matrices/jax.toml [[release]] jax = "0.12.1": released 2027-01-12, not in the data (review: add a row with its Python range)  # https://pypi.org/simple/jax/
rules/matrices/wheel_index.toml [[torch]] torch = "2.15.1": pypi.linux_x86_64: (absent) -> "cu132"  # {META}
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
    rows = {r["torch"]: r for r in wheel["torch"]}
    row = rows["2.16.0"]   # a go-live: confirmed by its source
    assert (row["python"], row["pypi"]) == (">=3.11,<3.15", {"linux_x86_64": "cu132"})
    assert "confirmed" not in row and row["source"] == MAIN
    patch = rows["2.15.1"]  # a PyPI listing says a release exists, not which indexes carry it
    assert (patch["python"], patch["pypi"], patch["confirmed"]) == (
        ">=3.11,<3.16", {"linux_x86_64": "cu132"}, False)
    assert [r["torch"] for r in wheel["torch"][:3]] == ["2.15.1", "2.16.0", "2.15.0"]
    assert wheel["meta"]["data_as_of"] == "2027-01-13"
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
    assert cells["confirmed"] is False
    assert cells["win_amd64"] == ["cpu", "cu126", "cu130", "cu132", "xpu"]


def test_the_xpu_arch_is_read_from_the_branch_that_adds_it():
    """xpu on Linux x86_64 and Windows where the wheel matrix adds the XPU arch for those OSes
    with --with-xpu enabled by default; none where the branch or the default is missing."""
    text = (DATA / "today" / "build_matrix_2.13.py").read_text("utf-8")
    cells = {c.field: c.value for c in build_matrix(text, "u")}
    assert cells["linux_x86_64"][-1] == "xpu" and cells["win_amd64"][-1] == "xpu"
    assert "xpu" not in cells["linux_aarch64"]
    linux_only = text.replace("os in (LINUX, WINDOWS)", "os == LINUX")
    cells = {c.field: c.value for c in build_matrix(linux_only, "u")}
    assert "xpu" in cells["linux_x86_64"] and "xpu" not in cells["win_amd64"]
    off = text.replace('"WITH_XPU", ENABLE', '"WITH_XPU", DISABLE')
    cells = {c.field: c.value for c in build_matrix(off, "u")}
    assert "xpu" not in cells["linux_x86_64"] and "xpu" not in cells["win_amd64"]


def test_the_build_matrix_is_read_not_run():
    text = ('import os\nos.system("exit 3")\nCURRENT_CANDIDATE_VERSION = os.environ["X"]\n'
            'CURRENT_STABLE_VERSION = "2.14.0"\n')
    assert build_matrix(text, "u") == []


@pytest.mark.parametrize("manifest, message", [
    (None, "cannot read"),
    ('[[source]]\nkind = "rss"\nfile = "a"\nurl = "u"\n', "a source needs kind"),
    ('[[source]]\nkind = "tf_tested"\nfile = "missing.md"\nurl = "u"\n', "cannot read source"),
    ('[[source]]\nkind = "build_matrix"\nfile = "bad.py"\nurl = "u"\n', "not the expected"),
    ('[[source]]\nkind = "pypi_simple"\nfile = "deep.json"\nurl = "u"\n', "not the expected"),
    ('[[source]]\nkind = "pypi_simple"\nfile = "list.json"\nurl = "u"\n', "not the expected"),
    ('[[source]]\nkind = "pypi_metadata"\nfile = "bad.py"\nurl = "u"\n', "not the expected"),
    ('[[source]]\nkind = "pypi_simple"\nfile = "list.json"\nurl = "u"\nfields = "python"\n',
     "fields is a list"),
])
def test_bad_sources_are_one_line_exit_2(tmp_path, manifest, message):
    if manifest is not None:
        (tmp_path / "sources.toml").write_text(manifest, "utf-8")
    (tmp_path / "bad.py").write_text("def (:\n", "utf-8")
    (tmp_path / "deep.json").write_text("[" * 100_000, "utf-8")   # a hostile page
    (tmp_path / "list.json").write_text('{"name": "torch", "files": {}}', "utf-8")
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


# ------------------------------------------------------------------ PyPI readers
def _page(name: str, *files: dict) -> str:
    return json.dumps({"meta": {"api-version": "1.1"}, "name": name, "files": list(files)})


def test_a_pypi_page_states_python_from_its_cpython_tags():
    """Free-threaded ABIs, pre-releases, yanked files and sdists state nothing."""
    wheels = [{"filename": f"torch-3.0.0-cp3{m}-cp3{m}-manylinux_2_28_x86_64.whl"}
              for m in (11, 12, 13)]
    page = _page("Torch", *wheels,
                 {"filename": "torch-3.0.0-cp314-cp314t-manylinux_2_28_x86_64.whl"},
                 {"filename": "torch-3.1.0rc1-cp312-cp312-win_amd64.whl"},
                 {"filename": "torch-3.0.1-cp39-cp39-win_amd64.whl", "yanked": "broken"},
                 {"filename": "torch-3.0.0.tar.gz"}, {"filename": "not a wheel.whl"})
    got = [(c.file, c.key, c.field, c.value, c.source) for c in simple_page(page, "u")]
    assert got == [("wheel_index", ("torch", "3.0.0"), "python", ">=3.11,<3.14", "u")]


def test_a_tensorflow_series_takes_its_newest_release_and_jax_releases_are_dated():
    page = _page("tensorflow",
                 *({"filename": f"tensorflow-2.30.0-cp3{m}-cp3{m}-win_amd64.whl"} for m in (10, 11)),
                 *({"filename": f"tensorflow-2.30.1-cp3{m}-cp3{m}-win_amd64.whl"} for m in (11, 12)))
    assert [(c.key, c.value) for c in simple_page(page, "u")] == [
        (("tensorflow", "2.30"), ">=3.11,<3.13")]
    jax = _page("jax", {"filename": "jax-0.20.0-py3-none-any.whl",
                        "upload-time": "2027-05-01T10:00:00Z"})
    assert [(c.key, c.field, c.value) for c in simple_page(jax, "u")] == [
        (("jax", "0.20.0"), "released", "2027-05-01")]
    assert simple_page(_page("numpy", {"filename": "numpy-9.0-cp312-cp312-win_amd64.whl"}),
                       "u") == []


def _metadata(name: str, *requires: str) -> str:
    return (f"Metadata-Version: 2.4\nName: {name}\nVersion: 3.0.0\n"
            + "".join(f"Requires-Dist: {r}\n" for r in requires))


@pytest.mark.parametrize("requires, want", [
    (['cuda-toolkit[cudart,cublas]==13.2.2; platform_system == "Linux"'], "cu132"),
    (['nvidia-cuda-runtime-cu12==12.8.90; platform_system == "Linux" and '
      'platform_machine == "x86_64"'], "cu128"),
    (['nvidia-cuda-runtime-cu12==12.8.90; platform_system == "Windows"', "filelock"], "cpu"),
    (['cuda-toolkit==13.0.3; extra == "cuda"', "not a requirement ((("], "cpu"),
])
def test_torch_metadata_states_the_cuda_build_pypi_serves(requires, want):
    url = "https://x/torch-3.0.0-cp312-cp312-manylinux_2_28_x86_64.whl"
    got = [(c.key, c.field, c.value, c.source) for c in core_metadata(_metadata("torch", *requires),
                                                                      url)]
    assert got == [(("torch", "3.0.0"), "pypi.linux_x86_64", want, url)]
    # the requirements are evaluated for the wheel's own platform: none for Windows here
    assert core_metadata(_metadata("torch", *requires), "https://x/torch-3.0.0-cp312-cp312-"
                         "win_amd64.whl.metadata") == []


def test_a_companion_pairs_only_through_an_exact_torch_pin():
    def pair(*requires: str) -> list[tuple]:
        return [(c.key, c.field, c.value) for c in core_metadata(
            _metadata("torchvision", *requires), "https://x/torchvision-3.0.0-py3-none-any.whl")]
    assert pair("numpy", "torch (==2.20.0)") == [(("torch", "2.20.0"), "torchvision", "3.0.0")]
    assert pair("torch==2.20.0+cu132") == [(("torch", "2.20.0"), "torchvision", "3.0.0")]
    assert pair("torch (>=2.14.0)") == [] and pair('torch==2.20.0; extra == "x"') == []
    with pytest.raises(SyntaxError):
        core_metadata("no headers here", "u")


def test_a_listing_speaks_for_the_rows_that_cite_it_and_for_newer_ones(rules_copy):
    """PyPI lists every release: torch 2.5.1's cp313 wheels (experimental, left out by the
    build matrix the row cites) are no change; a row that cites the page is compared, an old
    release the data leaves out is not added, a newer one is."""
    pypi = "https://pypi.org/simple/torch/"
    page = _page("torch", *({"filename": f"torch-{v}-cp3{m}-cp3{m}-manylinux_2_28_x86_64.whl"}
                            for v, ms in (("2.5.1", (9, 13)), ("1.0.0", (7,)),
                                          ("2.15.0", (11, 14)), ("9.0.0", (12,))) for m in ms))
    changes = compare(simple_page(page, pypi), rules_copy)
    assert [(c.cell.key[1], c.old, c.cell.value, c.kind) for c in changes] == [
        ("2.15.0", ">=3.11,<3.16", ">=3.11,<3.15", "changed"),
        ("9.0.0", None, ">=3.12,<3.13", "new-row")]
