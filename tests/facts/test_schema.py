"""The published facts JSON Schema: committed file is current, and real snapshots validate."""

from __future__ import annotations

import json

import jsonschema
import pytest
from conftest import REPO, run_cli

from envdoctor.facts import SCHEMA_VERSION, Facts, schema

COMMITTED = REPO / "schema" / "facts.schema.json"


@pytest.fixture(scope="module")
def validator():
    data = json.loads(COMMITTED.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(data)
    return jsonschema.Draft202012Validator(data)


@pytest.fixture(scope="module")
def live_snapshot():
    proc = run_cli("facts")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_committed_schema_is_current():
    """Fails when facts.py changed without `python -m envdoctor.facts.schema`."""
    assert COMMITTED.read_text(encoding="utf-8") == schema.render(), (
        "schema/facts.schema.json is stale: run `python -m envdoctor.facts.schema`")


def test_schema_names_every_section_and_the_version():
    facts_def = schema.build()["$defs"]["Facts"]
    for section in ("host", "nvidia", "cuda", "libraries", "packages", "frameworks", "env"):
        assert facts_def["properties"][section] == {"$ref": f"#/$defs/{section_def(section)}"}
    assert facts_def["properties"]["schema_version"]["const"] == SCHEMA_VERSION


def section_def(section: str) -> str:
    return type(getattr(Facts(), section)).__name__


def test_live_facts_validate(validator, live_snapshot):
    errors = sorted(validator.iter_errors(live_snapshot), key=str)
    assert errors == []
    assert live_snapshot["schema_version"] == SCHEMA_VERSION


def test_empty_and_round_tripped_snapshots_validate(validator, live_snapshot):
    validator.validate(Facts().to_dict())
    validator.validate(Facts.from_dict(live_snapshot).to_dict())


@pytest.mark.parametrize("mutate", [
    lambda d: d["nvidia"].__setitem__("gpus", "two H100s"),
    lambda d: d["nvidia"]["probe"].__setitem__("status", "fine"),
    lambda d: d.__setitem__("schema_version", SCHEMA_VERSION + 1),
    lambda d: d.pop("schema_version"),
    lambda d: d["host"].__setitem__("cpu_count", "2"),
])
def test_schema_rejects_wrong_shapes(validator, live_snapshot, mutate):
    data = json.loads(json.dumps(live_snapshot))
    mutate(data)
    assert not validator.is_valid(data)


def test_main_writes_the_same_file(tmp_path):
    target = tmp_path / "out.schema.json"
    assert schema.main([str(target)]) == 0
    assert target.read_text(encoding="utf-8") == COMMITTED.read_text(encoding="utf-8")


def test_installed_path_finds_the_schema():
    assert schema.installed_path() is not None


def test_the_schema_writer_takes_help_as_a_request_not_a_file(tmp_path, monkeypatch):
    from envdoctor.facts import schema

    monkeypatch.chdir(tmp_path)
    assert schema.main(["--help"]) == 0 and schema.main(["--bogus"]) == 2
    assert list(tmp_path.iterdir()) == []
