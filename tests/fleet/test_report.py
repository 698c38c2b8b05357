"""From rank payloads (as ranks send them) to the report: GPU-fleet aspects that this CPU
machine cannot produce live, redaction of host names, JUnit per node × check."""

from __future__ import annotations

import json

from envdoctor.fleet import model
from envdoctor.fleet import report as fleet_report
from envdoctor.outputs.redact import redact_report
from envdoctor.outputs.renderers import render
from tests.fleet.conftest import FIXTURES

FACTS = json.loads((FIXTURES / "diff" / "h100-driver-550.json").read_text())
UUID = "GPU-0a3c1f2e-5b6d-4e7f-8a9b-0c1d2e3f4a{}{}"


def payload(rank: int, host: str, node_rank: int, local_rank: int, gpu: int, clock: float,
            gpus_on_node: int = 8) -> dict:
    facts = json.loads(json.dumps(FACTS))
    facts["nvidia"]["gpus"] = facts["nvidia"]["gpus"][:gpus_on_node]
    node = {"facts": facts, "extra": {"ib_ports": {}, "nccl_net_plugins": []}} \
        if local_rank == 0 else None
    return {"payload_version": 1, "layout": {"rank": rank, "local_rank": local_rank,
                                             "host": host, "node_rank": node_rank,
                                             "node": f"{host}#{node_rank}", "world_size": 4},
            "binding": {"device": f"cuda:{gpu}", "gpu_uuid": UUID.format(node_rank, gpu),
                        "device_count": 8, "torch": "2.5.1+cu121"},
            "env": {"NCCL_IB_HCA": "mlx5"}, "node": node, "live": None, "bench": None,
            "clock": clock, "seconds": {}, "error": ""}


def build() -> model.Fleet:
    payloads = {0: payload(0, "alpha", 0, 0, 0, 1000.0), 1: payload(1, "alpha", 0, 1, 1, 1000.01),
                # beta: one GPU for two ranks, both bound to it; rank 3's clock is 5 s ahead
                2: payload(2, "beta", 1, 0, 0, 1000.02, gpus_on_node=1),
                3: payload(3, "beta", 1, 1, 0, 1005.0)}
    payloads[3]["binding"]["gpu_uuid"] = payloads[2]["binding"]["gpu_uuid"]
    return model.build(payloads, 4, "torchrun", [])


def test_gpu_fleet_findings_name_node_and_ranks() -> None:
    report = fleet_report.build(build())
    found = {f.code: f for f in report.findings}
    assert found["FLEET013"].evidence["nodes"] == ["host-2#1"]  # 1 GPU, 2 ranks
    # GPU count 8 vs 1 on two nodes: no majority, so both are named, each with its value
    count = found["FLEET014"]
    assert count.evidence["nodes"] == ["host-1#0", "host-2#1"]
    assert count.evidence["clear_majority"] is False and "majority (" not in count.title
    assert "8 on host-1#0" in count.title and "1 on host-2#1" in count.title
    dup = found["FLEET015"].evidence["duplicates"][0]
    assert dup["ranks"] == [2, 3] and dup["nodes"] == ["host-2#1"]
    assert found["FLEET018"].evidence["ranks"] == [3]
    assert "FLEET010" not in found and "FLEET016" not in found


def test_host_names_are_redacted_and_stable() -> None:
    report = redact_report(fleet_report.build(build()))
    text = render("check", "json", report)
    assert "alpha" not in text and "beta" not in text
    nodes = json.loads(text)["fleet"]["nodes"]
    assert [(n["node"], n["host"]) for n in nodes] == [("host-1#0", "host-1"),
                                                       ("host-2#1", "host-2")]
    assert "host-2#1" in {n for f in report.findings for n in f.evidence.get("nodes", ())}


def test_no_redact_keeps_host_names() -> None:
    report = fleet_report.build(build(), redact=False)
    assert [n["node"] for n in report.extra["fleet"]["nodes"]] == ["alpha#0", "beta#1"]


def test_junit_has_one_case_per_node_for_a_fleet_rule() -> None:
    xml = render("check", "junit", fleet_report.build(build()))
    assert xml.count('name="FLEET013 fleet-gpus-fewer-than-ranks @ host-1#0"') == 1
    assert xml.count('name="FLEET013 fleet-gpus-fewer-than-ranks @ host-2#1"') == 1
