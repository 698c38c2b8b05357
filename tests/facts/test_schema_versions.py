"""Snapshots of the previous schema are read (migrated); unknown versions are one-line errors."""

from __future__ import annotations

import json

import pytest

from envdoctor.facts import SCHEMA_VERSION, Facts, FactsError
from tests.conftest import run_cli


def test_a_version_1_snapshot_is_migrated_with_every_field_observed():
    v1 = {"schema_version": 1, "nvidia": {"probe": {"status": "ok"}, "driver_version": "470.82.01"}}
    facts = Facts.from_dict(v1)
    assert facts.schema_version == SCHEMA_VERSION == 2
    assert facts.nvidia.probe.unobserved == () and facts.nvidia.probe.failed == {}
    assert str(facts.nvidia.driver_version) == "470.82.01"


def test_states_round_trip():
    data = {"schema_version": 2, "frameworks": {"probe": {
        "status": "ok", "unobserved": ["jax.plugins"], "failed": {"torch": "version.py: SyntaxError"},
        "sources": {"jax": "report:jax_env"}}}}
    facts = Facts.from_dict(data)
    again = Facts.from_dict(json.loads(facts.to_json()))
    assert again.frameworks.probe == facts.frameworks.probe
    assert again.frameworks.probe.unobserved == ("jax.plugins",)


@pytest.mark.parametrize("version", [0, 3, "2", None])
def test_other_versions_are_refused(version):
    with pytest.raises(FactsError, match="schema_version"):
        Facts.from_dict({"schema_version": version})


def test_replaying_a_future_snapshot_is_exit_2_with_one_line(tmp_path):
    path = tmp_path / "future.json"
    path.write_text(json.dumps({"schema_version": 99}))
    proc = run_cli("check", "--facts", str(path))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "schema_version 99" in proc.stderr
