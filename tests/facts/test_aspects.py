"""`diff` and `fleet` speak one vocabulary: each shared aspect is labelled and read once."""

from __future__ import annotations

from envdoctor import diff
from envdoctor.engine.checks import example_facts
from envdoctor.facts.aspects import ASPECTS, BY_FLEET_NAME, BY_KEY
from envdoctor.fleet import aspects as fleet_aspects

FACTS = example_facts({
    "nvidia": {"driver_version": "550.54.15", "cuda_driver_version": "12.4",
               "gpus": [{"name": "NVIDIA H100 80GB HBM3", "cc": "9.0"}] * 2},
    "cuda": {"nvcc_version": "12.4"},
    "host": {"python_version": "3.11.9"},
    "frameworks": {"torch": {"version": "2.5.1+cu124", "cuda": "12.4"}},
})


def test_names_are_unique_both_ways():
    assert len(BY_KEY) == len(BY_FLEET_NAME) == len(ASPECTS)


def test_diff_and_fleet_print_the_same_label_for_the_same_aspect():
    got = diff.aspects(FACTS)
    for aspect in ASPECTS:
        if aspect.key in got:
            assert got[aspect.key][0] == aspect.label
        assert fleet_aspects.label(aspect.fleet) == aspect.label


def test_diff_and_fleet_read_the_same_value():
    got = diff.aspects(FACTS)
    for aspect in ASPECTS:
        fleet_value = fleet_aspects.NODE[aspect.fleet][1](_Node(FACTS), None)
        if aspect.key in got and got[aspect.key][2] is not None:
            assert str(got[aspect.key][2]) == str(fleet_value), aspect.key
    assert str(got["nvidia.driver"][2]) == "550.54.15"
    assert got["gpu.model"][2] == "NVIDIA H100 80GB HBM3 ×2"


class _Node:
    def __init__(self, facts):
        self.facts = facts
