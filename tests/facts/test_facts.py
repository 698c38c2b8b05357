"""The facts snapshot: typed, frozen, JSON round trip, schema version."""

from __future__ import annotations

import dataclasses
import json

import pytest
from packaging.version import Version

from envdoctor.facts import (
    SCHEMA_VERSION,
    Facts,
    FactsError,
    FrameworkFacts,
    Gpu,
    NvidiaFacts,
    ProbeInfo,
    Status,
    TorchBuild,
)


def sample() -> Facts:
    return Facts(
        nvidia=NvidiaFacts(probe=ProbeInfo(Status.OK, source="nvml"),
                           driver_version=Version("550.54.15"),
                           cuda_driver_version=Version("12.4"),
                           gpus=(Gpu(index=0, name="NVIDIA H100 80GB HBM3", cc=Version("9.0"),
                                     memory_total_mb=81559, throttle_reasons=("sw_power_cap",)),)),
        frameworks=FrameworkFacts(probe=ProbeInfo(Status.OK),
                                  torch=TorchBuild(version=Version("2.6.0+cu124"),
                                                   cuda=Version("12.4"))),
    )


def test_json_round_trip_is_lossless():
    facts = sample()
    again = Facts.from_dict(json.loads(facts.to_json()))
    assert again == facts
    assert isinstance(again.nvidia.driver_version, Version)
    assert again.nvidia.gpus[0].throttle_reasons == ("sw_power_cap",)


def test_facts_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        sample().origin = "x"


def test_other_schema_version_is_refused():
    data = sample().to_dict()
    data["schema_version"] = SCHEMA_VERSION + 1
    with pytest.raises(FactsError, match="schema_version"):
        Facts.from_dict(data)


@pytest.mark.parametrize("bad", [[], "x", {"schema_version": SCHEMA_VERSION, "nvidia": []},
                                 {"schema_version": SCHEMA_VERSION,
                                  "nvidia": {"driver_version": "not a version"}}])
def test_malformed_snapshots_raise_facts_error(bad):
    with pytest.raises(FactsError):
        Facts.from_dict(bad)


def test_a_whole_check_json_output_is_accepted():
    facts = sample()
    assert Facts.from_dict({"findings": [], "facts": facts.to_dict()}) == facts


def test_unknown_keys_are_ignored_for_forward_compatibility():
    data = sample().to_dict()
    data["nvidia"]["a_future_field"] = 1
    assert Facts.from_dict(data) == sample()


def test_default_sections_are_unknown_not_absent():
    facts = Facts()
    assert facts.nvidia.probe.status is Status.UNKNOWN
    assert not facts.nvidia.probe.status.known


def test_driver_versions_print_as_nvidia_writes_them_and_still_compare():
    data = sample().to_dict()
    data["nvidia"]["driver_version"] = "535.104.05"
    facts = Facts.from_dict(data)
    assert str(facts.nvidia.driver_version) == "535.104.05"
    assert json.loads(facts.to_json())["nvidia"]["driver_version"] == "535.104.05"
    assert facts.nvidia.driver_version == Version("535.104.5")
    assert facts.nvidia.driver_version < Version("535.104.10")


def test_canonical_name_follows_pep_503():
    from envdoctor.versions import canonical_name
    assert canonical_name("Tensorflow_CPU") == "tensorflow-cpu"
    assert canonical_name("jax.cuda12__plugin") == "jax-cuda12-plugin"
