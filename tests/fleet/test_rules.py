"""Fleet rules are data: every file loads, its own examples fire and stay quiet as they say,
and the judging itself (majority, unknowns, maps, duplicates, outliers) is checked here."""

from __future__ import annotations

import copy

import pytest

from envdoctor.fleet import aspects, rules
from envdoctor.fleet.rules import Subject, judge, parse_rule
from envdoctor.rulefiles import RuleFileError, load_tree

RULES = rules.load_rules()
BY_CODE = {r.code: r for r in RULES}


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_each_rule_passes_its_own_examples(rule: rules.FleetRule) -> None:
    assert rules.run_examples(rule) == []


def test_every_issue_area_has_a_rule() -> None:
    used = {r.aspect for r in RULES}
    for aspect in ("driver", "nccl", "cudnn", "torch", "torch_build", "nccl_net_plugin",
                   "rank_env", "gpu_model", "gpu_shortfall", "gpu_uuid", "no_gpu",
                   "ecc_uncorrected", "remap_pending", "xid", "throttle", "app_clocks",
                   "temperature", "pcie_width", "nvlink_down", "ib_port_state", "ib_rates",
                   "clock_skew", "late", "allreduce_exact", "tflops", "busbw_local",
                   "socket_not_ib", "p2p"):
        assert aspect in used, aspect
    assert set(used) <= set(aspects.NODE) | set(aspects.RANK)


def _raw(code: str) -> dict:
    path, data = next((p, d) for p, d in load_tree("fleet") if d["code"] == code)
    return copy.deepcopy(data)


@pytest.mark.parametrize("change, field", [
    (lambda d: d.pop("references"), "references"),
    (lambda d: d.update(aspect="no_such_thing"), "aspect"),
    (lambda d: d.update(kind="vote"), "kind"),
    (lambda d: d.update(examples=[e for e in d["examples"] if e["fires"]]), "examples"),
    (lambda d: d.update(code="DRV001"), "code"),
])
def test_a_broken_rule_file_names_its_field(change, field: str) -> None:
    data = _raw("FLEET001")
    change(data)
    with pytest.raises(RuleFileError, match=field):
        parse_rule(data, "rules/fleet/x.toml")


def nodes(*values):
    return [Subject(f"n{i}", f"n{i}", v) for i, v in enumerate(values)]


def test_drift_names_the_odd_node_and_the_majority() -> None:
    verdict = judge(BY_CODE["FLEET001"], nodes("550.54.15", "550.54.15", "535.104.05",
                                               "550.54.15"))
    [f] = verdict.findings
    assert f.evidence["nodes"] == ["n2"] and f.evidence["majority"] == "550.54.15"
    assert "535.104.05 on n2" in f.title and "(3 of 4)" in f.title
    assert set(verdict.named) == {"n2"}


def test_unknown_values_are_never_drift() -> None:
    verdict = judge(BY_CODE["FLEET001"], nodes("550.54.15", None, "550.54.15"))
    assert verdict.findings == [] and verdict.judged == {"n0", "n2"}


def test_a_tie_says_there_is_no_clear_majority() -> None:
    [f] = judge(BY_CODE["FLEET001"], nodes("550.54.15", "535.104.05")).findings
    assert "no clear majority" in f.title and f.evidence["clear_majority"] is False


def test_map_drift_is_one_finding_per_key() -> None:
    found = judge(BY_CODE["FLEET009"], nodes({"numpy": "1.26.4", "triton": "3.1.0"},
                                             {"numpy": "2.1.0", "triton": "3.1.0"},
                                             {"numpy": "1.26.4"})).findings
    assert sorted(f.evidence["key"] for f in found) == ["numpy", "triton"]


def test_rank_findings_name_ranks_grouped_by_node() -> None:
    ranks = [Subject(f"rank {i}", "host-1#0" if i < 2 else "host-2#1", v, i)
             for i, v in enumerate(["2.5.1", "2.5.1", "2.4.0", "2.4.0", "2.5.1"])]
    [f] = judge(BY_CODE["FLEET029"], ranks).findings
    assert f.evidence["ranks"] == [2, 3] and f.evidence["nodes"] == ["host-2#1"]
    assert "host-2#1 (ranks 2, 3)" in f.title


def test_duplicate_gpu_uuid_names_both_ranks() -> None:
    ranks = [Subject(f"rank {i}", "n", u, i) for i, u in enumerate(["GPU-a", "GPU-a", "GPU-b"])]
    [f] = judge(BY_CODE["FLEET015"], ranks).findings
    assert f.evidence["ranks"] == [0, 1]


def test_outlier_needs_three_values_and_uses_the_median() -> None:
    rule = BY_CODE["FLEET032"]
    assert judge(rule, [Subject("rank 0", "n", 100.0, 0), Subject("rank 1", "n", 10.0, 1)]
                 ).findings == []
    [f] = judge(rule, [Subject(f"rank {i}", "n", v, i) for i, v in
                       enumerate([100.0, 101.0, 99.0, 70.0])]).findings
    assert f.evidence["ranks"] == [3] and f.evidence["median"] == 99.5


def test_a_healthy_fleet_gets_no_finding_at_all() -> None:
    """Same values everywhere for every aspect: nothing fires."""
    healthy = {"drift": "same", "duplicate": None, "outlier": 100.0}
    for rule in RULES:
        if rule.kind == "predicate":
            examples = [e for e in rule.examples if not e["fires"]]
            values = examples[0]["values"]
            subjects = rules.example_subjects(rule, {"values": values})
        elif rule.kind == "duplicate":
            subjects = rules.example_subjects(rule, {"values": ["GPU-1", "GPU-2", "GPU-3"]})
        else:
            subjects = rules.example_subjects(rule, {"values": [healthy[rule.kind]] * 4})
        assert judge(rule, subjects).findings == [], rule.code
