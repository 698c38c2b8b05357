"""`envdoctor diff`: ranked differences between two whole-machine snapshots.

Fixtures (tests/fixtures/diff/): one 8x H100 node (Ubuntu 22.04, conda, torch 2.5.1+cu121
with its pip CUDA libraries) before and after a driver downgrade 550.54.15 -> 470.256.02
(plus a kernel update and a tqdm patch release, which do not matter), and the same node whose
job script blanks CUDA_VISIBLE_DEVICES while also switching to a cu124 torch wheel.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envdoctor import diff, pipeline

FIX = Path(__file__).parent / "fixtures" / "diff"
A, B, CVD = (str(FIX / n) for n in ("h100-driver-550.json", "h100-driver-470.json",
                                    "h100-cvd-blank.json"))


def _compare(a: str, b: str) -> dict:
    fa, fb = pipeline.load_facts_file(a), pipeline.load_facts_file(b)
    return diff.compare(fa, fb, pipeline.diagnose(fa).findings, pipeline.diagnose(fb).findings)


def test_driver_downgrade_ranks_first_with_the_finding_that_explains_it():
    result = _compare(A, B)
    keys = [d["key"] for d in result["differences"]]
    assert keys[0] == "nvidia.driver"
    assert set(keys) == {"nvidia.driver", "nvidia.cuda", "host.kernel", "pkg.tqdm"}
    first = result["differences"][0]
    assert (first["a"], first["b"], first["change"]) == ("550.54.15", "470.256.02", "major")
    assert [(f["code"], f["side"]) for f in first["findings"]] == [("DRV001", "b")]
    assert keys.index("host.kernel") > keys.index("nvidia.cuda")


def test_a_difference_that_breaks_outranks_a_bigger_harmless_one():
    """A torch CUDA build change weighs more than an env var, but the blank
    CUDA_VISIBLE_DEVICES is what breaks B (ENV001), so it ranks first."""
    result = _compare(A, CVD)
    ranked = result["differences"]
    assert ranked[0]["key"] == "env.CUDA_VISIBLE_DEVICES"
    assert [f["code"] for f in ranked[0]["findings"]] == ["ENV001"]
    harmless = next(d for d in ranked if d["key"] == "torch.cuda")
    assert harmless["weight"] > ranked[0]["weight"] and harmless["findings"] == []
    assert ranked[0]["score"] > harmless["score"]


def test_identical_snapshots_have_no_differences():
    assert _compare(A, A)["differences"] == []


def test_unknown_sections_are_not_differences():
    data = json.loads(Path(B).read_text())
    data["packages"] = {"probe": {"status": "unknown"}}
    fa = pipeline.load_facts_file(A)
    from envdoctor.facts import Facts
    fb = Facts.from_dict(data)
    keys = [d.key for d in diff.differences(fa, fb)]
    assert not any(k.startswith("pkg.") for k in keys)
    assert "nvidia.driver" in keys


@pytest.mark.parametrize("a,b,change", [
    ("550.54.15", "470.256.02", "major"), ("12.4", "12.1", "minor"),
    ("2.5.1", "2.5.0", "patch"), (None, "1.0", "added"), ("1.0", None, "removed"),
])
def test_change_levels(a, b, change):
    assert diff._level(a, b) == change


def test_python_minor_is_a_major_change():
    assert diff._level("3.11.10", "3.12.1", python=True) == "major"
    assert diff._level("3.11.10", "3.11.9", python=True) == "patch"


def test_cli_text_and_json(cli):
    text = cli("diff", A, B)
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[2].startswith("  1. NVIDIA driver (branch = major): 550.54.15 → 470.256.02")
    assert "DRV001 only in B" in lines[3]
    data = json.loads(cli("diff", A, B, "--format", "json").stdout)
    assert data["differences"][0]["key"] == "nvidia.driver"
    assert data["only_in_b"][0]["explains"] == "nvidia.driver"


def test_diff_accepts_check_json(cli, tmp_path):
    out = tmp_path / "check.json"
    cli("check", "--facts", B, "--format", "json", "-o", str(out))
    data = json.loads(cli("diff", A, str(out), "--format", "json").stdout)
    assert data["differences"][0]["key"] == "nvidia.driver"


@pytest.mark.parametrize("content,needle", [
    (None, "no such file"), ("{not json", "not valid JSON"), ("[1, 2]", "JSON object"),
    ('{"schema_version": 99}', "schema_version 99"),
])
def test_bad_input_is_one_line_exit_2(cli, tmp_path, content, needle):
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content)
    proc = cli("diff", A, str(bad))
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and needle in proc.stderr


@pytest.mark.parametrize("value", ["2." + "9" * 5000, "550." + "0" * 400 + "1",
                                   "2.3.1+cu" + "9" * 5000])
@pytest.mark.parametrize("swap", [False, True])
def test_a_huge_version_in_either_snapshot_is_bad_input_naming_the_field(cli, tmp_path, value,
                                                                         swap):
    """A driver version too long to be one (whose digits Python refuses to make an int of) is
    bad input that names the field, as `check --facts` says it, not an internal error."""
    data = json.loads(Path(B).read_text())
    data["nvidia"]["driver_version"] = value
    bad = tmp_path / "huge.json"
    bad.write_text(json.dumps(data))
    files = [str(bad), A] if swap else [A, str(bad)]
    for fmt in ("text", "json"):
        proc = cli("diff", *files, "--format", fmt)
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "driver_version" in proc.stderr
        assert "9" * 50 not in proc.stderr
