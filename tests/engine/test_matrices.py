"""Every matrix row in rules/matrices cites a source URL, has the right types, and parses."""

from __future__ import annotations

import copy

import pytest

from envdoctor.matrices.check import matrix_problems
from envdoctor.rulefiles import load_toml, rules_dir

FILES = sorted((rules_dir() / "matrices").glob("*.toml"))


def test_all_matrices_present():
    assert {p.stem for p in FILES} >= {"cuda_driver", "cudnn", "gpus", "gpu_datasheet", "jax",
                                       "misc", "tensorflow", "torch"}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_matrix_rows_have_sources_and_parse(path):
    assert matrix_problems(path.stem, load_toml(path)) == []


def _torch():
    return copy.deepcopy(load_toml(rules_dir() / "matrices" / "torch.toml"))


def test_a_row_without_source_is_rejected():
    data = _torch()
    del data["release"][3]["source"]
    assert matrix_problems("torch", data) == ["release[3].source: every row needs a source URL"]


def test_a_source_that_is_not_a_url_is_rejected():
    data = _torch()
    data["variant"][0]["source"] = "from memory"
    assert "variant[0].source" in matrix_problems("torch", data)[0]


@pytest.mark.parametrize("table, field, value, needle", [
    ("release", "python", "3.9 to 3.12", "not a version specifier"),
    ("release", "torch", "two point six", "not a version"),
    ("release", "confirmed", "no", "must be true or false"),
    ("variant", "archs", ["sm_80", "ampere"], "not sm_XY"),
])
def test_bad_types_are_rejected(table, field, value, needle):
    data = _torch()
    data[table][0][field] = value
    problems = matrix_problems("torch", data)
    assert len(problems) == 1 and f"{table}[0]" in problems[0] and needle in problems[0]


def test_cudnn_series_text_must_parse():
    data = copy.deepcopy(load_toml(rules_dir() / "matrices" / "cudnn.toml"))
    data["release"][0]["cudnn"] = "9.x"
    assert "release[0].cudnn" in matrix_problems("cudnn", data)[0]


def test_unconfirmed_rows_carry_a_note():
    """A cell we could not confirm says why, so the next researcher knows what to check."""
    for path in FILES:
        for table, rows in load_toml(path).items():
            for i, row in enumerate(rows if isinstance(rows, list) else []):
                if row.get("confirmed") is False:
                    assert row.get("note"), f"{path.name}: {table}[{i}] unconfirmed without note"
