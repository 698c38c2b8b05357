"""Snapshots of the previous schema are read (migrated); unknown versions are one-line errors."""

from __future__ import annotations

import json

import pytest

from envdoctor.facts import SCHEMA_VERSION, Facts, FactsError
from envdoctor.facts.states import State, state_of
from tests.conftest import run_cli


def test_a_version_1_snapshot_is_migrated_with_every_field_observed():
    v1 = {"schema_version": 1, "nvidia": {"probe": {"status": "ok"}, "driver_version": "470.82.01"}}
    facts = Facts.from_dict(v1)
    assert facts.schema_version == SCHEMA_VERSION == 3
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


def test_version_2_flags_become_unobserved_marks():
    """Schema 2 said "build not observed" with torch.build_known / jax.plugins_known = false."""
    v2 = {"schema_version": 2, "frameworks": {
        "probe": {"status": "ok", "unobserved": ["keras"]},
        "torch": {"version": "2.5.1", "cuda": None, "build_known": False},
        "jax": {"version": "0.4.33", "jaxlib": "0.4.33", "plugins_known": False}}}
    facts = Facts.from_dict(v2)
    assert facts.frameworks.probe.unobserved == ("keras", "torch.cuda", "torch.hip", "jax.plugins")
    assert state_of(facts, "frameworks.torch.cuda")[0] is State.UNOBSERVED
    assert state_of(facts, "frameworks.jax.plugins")[0] is State.UNOBSERVED
    known = Facts.from_dict({"schema_version": 2, "frameworks": {
        "probe": {"status": "ok"}, "torch": {"version": "2.5.1+cpu", "build_known": True}}})
    assert known.frameworks.probe.unobserved == ()
    assert state_of(known, "frameworks.torch.cuda")[0] is State.OBSERVED
    assert "build_known" not in known.to_json()


@pytest.mark.parametrize("version", [0, 4, "2", None])
def test_other_versions_are_refused(version):
    with pytest.raises(FactsError, match="schema_version"):
        Facts.from_dict({"schema_version": version})


def test_replaying_a_future_snapshot_is_exit_2_with_one_line(tmp_path):
    path = tmp_path / "future.json"
    path.write_text(json.dumps({"schema_version": 99}))
    proc = run_cli("check", "--facts", str(path))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "schema_version 99" in proc.stderr
