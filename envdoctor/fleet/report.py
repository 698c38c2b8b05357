"""The fleet report: fleet rules, each node's own checks and the policy, per node, as one Report.

One ``outputs.report.Report`` so that the JSON, JUnit, SARIF and Markdown renderers and the exit
code work as for ``check``: ``results`` hold one entry per node × check (JUnit's test cases),
``findings`` one per cause, each naming the nodes (and ranks) it concerns, and the report's
``fleet`` key the layout: nodes, their ranks, bindings and timings.

Host names are replaced by ``host-1``, ``host-2`` … (in node order) unless ``--no-redact``: stable
within one report, so findings and the node list still match.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from envdoctor.engine.findings import CheckResult, Finding
from envdoctor.facts import Facts
from envdoctor.fleet import aspects, groups, rules
from envdoctor.fleet.model import Fleet, NodeView
from envdoctor.outputs.report import Report

FLEET_SCHEMA_VERSION = 1


def alias_hosts(fleet: Fleet) -> dict[str, str]:
    """Replace host names in node names by host-N (first seen first); returns the map."""
    aliases: dict[str, str] = {}
    for node in fleet.nodes:
        if node.host and node.host not in aliases:
            aliases[node.host] = f"host-{len(aliases) + 1}"
    renamed: dict[str, str] = {}
    for node in fleet.nodes:
        if node.host in aliases:
            new = aliases[node.host] + node.name[len(node.host):] \
                if node.name.startswith(node.host) else node.name
            renamed[node.name] = new
            node.name, node.host = new, aliases[node.host]
        for r in node.ranks:
            r.node = node.name
    return aliases


def node_value(name: str, node: NodeView, fleet: Fleet, memo: dict[Any, Any]) -> Any:
    """A node aspect's value; a node of a compared group (a signature, no ranks, no node
    probe extras) shares it with its group unless reading it touched a sensor field."""
    if not node.signature or node.ranks or node.extra or node.facts is None:
        return aspects.node_value(name, node, fleet)
    hit = memo.get((node.signature, name), memo)
    if hit is not memo and hit is not groups.PER_NODE:
        return hit

    def read(facts: Facts) -> Any:
        return aspects.node_value(name, NodeView(name=node.name, host=node.host, facts=facts),
                                  fleet)
    return groups.memo_by_group(node.signature, name, node.facts, read, memo)


def _subjects(rule: rules.FleetRule, fleet: Fleet, memo: dict[Any, Any] | None = None
              ) -> list[rules.Subject]:
    memo = {} if memo is None else memo
    if rule.scope == "node":
        return [rules.Subject(n.name, n.name, node_value(rule.aspect, n, fleet, memo))
                for n in fleet.nodes]
    nowhere = NodeView(name="")  # ranks that never said where they run
    return [rules.Subject(f"rank {r.rank}", n.name,
                          aspects.rank_value(rule.aspect, r, n, fleet), r.rank)
            for n, ranks in [*((n, n.ranks) for n in fleet.nodes), (nowhere, fleet.unplaced)]
            for r in ranks]


COMPACT_NODES = 64  # above this many nodes, a rule that named none is one result, not N


def fleet_results(fleet: Fleet, fleet_rules: list[rules.FleetRule],
                  memo: dict[Any, Any] | None = None, baseline: Facts | None = None
                  ) -> tuple[list[CheckResult], list[Finding]]:
    """One result per node × rule; a rule no node could be judged on (no bench, no InfiniBand,
    snapshots without ranks) is one ``unknown`` result, not one per node; on a fleet of more
    than COMPACT_NODES nodes, so is a rule that named no node (``passed``, or ``unknown``
    where some nodes were not known), so that 10 000 nodes are not 370 000 results.
    ``baseline``: a golden node's facts; a node-scope drift rule then names every node whose
    value differs from the baseline's (where the baseline knows the value)."""
    results, findings = [], []
    compact = len(fleet.nodes) > COMPACT_NODES
    golden = NodeView(name="baseline", facts=baseline) if baseline is not None else None
    for rule in fleet_rules:
        expected = rules.NO_BASELINE
        if golden is not None and rule.scope == "node" and rule.kind == "drift":
            expected = aspects.node_value(rule.aspect, golden, fleet)
        verdict = rules.judge(rule, _subjects(rule, fleet, memo), expected)
        findings += verdict.findings
        if not verdict.judged:
            results.append(CheckResult(rule.code, rule.id, "unknown", None,
                                       "not known on any node"))
            continue
        if compact and not verdict.named:
            unknown = sum(1 for n in fleet.nodes if n.name not in verdict.judged)
            results.append(CheckResult(
                rule.code, rule.id, "unknown" if unknown else "passed", None,
                f"not known on {unknown} of {len(fleet.nodes)} nodes, passed on the others"
                if unknown else f"passed on all {len(fleet.nodes)} nodes"))
            continue
        rest = 0
        for node in fleet.nodes:
            if node.name in verdict.named:
                state, finding = "fired", verdict.named[node.name]
            elif compact:
                rest += 1
                continue
            elif node.name in verdict.judged:
                state, finding = "passed", None
            else:
                state, finding = "unknown", None
            results.append(CheckResult(rule.code, f"{rule.id} @ {node.name}", state, finding,
                                       "" if state != "unknown" else "value not known"))
        if rest:
            results.append(CheckResult(rule.code, rule.id, "passed", None,
                                       f"passed (or not known) on the other {rest} nodes"))
    return results, findings


def _on(nodes: list[str], shown: int = 6) -> str:
    """Where a single-machine finding fired, in its title (every renderer shows titles): a
    compressed host list, ``gpu[001-040,043]``."""
    from envdoctor.fleet.hostlist import compress
    return compress(nodes, shown)


def _group(per_node: list[tuple[NodeView, list[CheckResult]]], every_node: bool = False
           ) -> tuple[list[CheckResult], list[Finding]]:
    """Per-node results of single-machine checks -> one finding per (code, title) naming every
    node it fired on, and results: per node × check for the checks that fired somewhere (or all,
    with ``every_node``), else one result per check (its state where it is the same on every
    node, "unknown" otherwise) so that a 1000-node report stays readable."""
    merged: dict[tuple[str, str], tuple[Finding, list[str]]] = {}
    fired_codes: set[str] = set()
    fired_on: dict[str, int] = {}
    check_id: dict[str, str] = {}
    for node, results in per_node:
        for r in results:
            if r.finding is not None:
                key = (r.finding.code, r.finding.title)
                merged.setdefault(key, (r.finding, []))[1].append(node.name)
                fired_codes.add(r.code)
                fired_on[r.code] = fired_on.get(r.code, 0) + 1
                check_id[r.code] = r.id
    findings: dict[tuple[str, str], Finding] = {}
    for key, (f, nodes) in merged.items():
        findings[key] = replace(f, title=f"{f.title} (on {_on(nodes)})",
                                evidence={**f.evidence, "nodes": nodes})
    out: list[CheckResult] = []
    summary: dict[str, CheckResult] = {}
    compact = len(per_node) > COMPACT_NODES
    for node, results in per_node:
        for r in results:
            if compact and r.code in fired_codes and r.finding is None:
                continue  # a big fleet: the nodes it fired on, and one result for the rest
            if every_node or r.code in fired_codes:
                found = findings[(r.finding.code, r.finding.title)] if r.finding is not None \
                    else None
                out.append(CheckResult(r.code, f"{r.id} @ {node.name}", r.state, found, r.detail))
            elif r.code not in summary:
                summary[r.code] = r
            elif summary[r.code].state != r.state:
                summary[r.code] = CheckResult(r.code, r.id, "unknown", None,
                                              "differs between nodes")
    if compact:
        for code in sorted(fired_codes):
            if fired_on[code] < len(per_node):
                out.append(CheckResult(code, check_id[code], "passed", None,
                                       f"did not fire on the other "
                                       f"{len(per_node) - fired_on[code]} nodes"))
    return out + list(summary.values()), list(findings.values())


def node_checks(fleet: Fleet, intent: str) -> tuple[list[CheckResult], list[Finding]]:
    """The single-machine checks (rules/checks) on each node's facts, through the engine; a
    snapshot that is a saved `check` report for the same intent brings its own results (what
    the check saw on that node), which are used as they are. Nodes with one fact signature
    (``fleet compare``) are evaluated together (``groups.evaluate``: exact, once per group)."""
    from envdoctor import pipeline
    from envdoctor.fleet import groups

    checks = None
    together: dict[str, list[tuple[str, Facts]]] = {}
    for n in fleet.nodes:
        if (n.saved is None or n.saved[0] != intent) and n.facts is not None:
            together.setdefault(n.signature or f"node:{n.name}", []).append((n.name, n.facts))
    if together:
        checks = pipeline.load_checks()
    evaluated = groups.evaluate(together, checks or [], intent, pipeline.diagnosed) \
        if together else {}
    per_node = []
    for n in fleet.nodes:
        if n.saved is not None and n.saved[0] == intent:
            per_node.append((n, n.saved[1]))
        elif n.facts is not None:
            per_node.append((n, evaluated[n.name]))
    return _group(per_node)


def policy_checks(fleet: Fleet, policy: Any) -> tuple[list[CheckResult], list[Finding]]:
    """``--require`` and the policy's requirements, judged per node (gpus>=8 means per node)."""
    from envdoctor.gate import policy as gate
    if not policy.requirements:
        return [], []
    memo: dict[Any, Any] = {}

    def judged(n: NodeView) -> list[CheckResult]:
        assert n.facts is not None
        if not n.signature:
            return gate.evaluate(policy, n.facts, {})
        return groups.memo_by_group(n.signature, "policy", n.facts,
                                    lambda f: gate.evaluate(policy, f, {}), memo)
    return _group([(n, judged(n)) for n in fleet.nodes if n.facts is not None],
                  every_node=True)


def _ignore(results: list[CheckResult], findings: list[Finding], policy: Any
            ) -> tuple[list[CheckResult], list[Finding], list[dict[str, str]]]:
    ignore = getattr(policy, "ignore", None) or {}
    if not ignore:
        return results, findings, []
    kept = [CheckResult(r.code, r.id, "ignored", None, f"ignored by policy: {ignore[r.code]}")
            if r.code in ignore and r.state in ("fired", "unknown") else r for r in results]
    ignored = [{"code": c, "reason": why} for c, why in ignore.items()]
    return kept, [f for f in findings if f.code not in ignore], ignored


def _rank_dict(r: Any, fleet: Fleet, node: NodeView) -> dict[str, Any]:
    b = r.binding
    out: dict[str, Any] = {"rank": r.rank, "local_rank": r.local_rank, "arrived": r.arrived,
                           "state": r.state}
    for key in ("device", "gpu_name", "gpu_uuid", "pci_bus_id", "cuda_visible_devices",
                "torch", "nccl", "binding_error"):
        if b.get(key) is not None:
            out[key] = b[key]
    skew = aspects.rank_value("clock_skew", r, node, fleet)
    if skew is not None:
        out["clock_skew_s"] = skew
    if r.live is not None and r.live.smoke is not None:
        out["smoke"] = {"status": r.live.smoke.status, "device": r.live.smoke.device,
                        "failed": [f"{s.name}: {s.detail}" for s in r.live.smoke.failed]}
    if r.bench:
        out["bench"] = r.bench
    if r.seconds:
        out["seconds"] = r.seconds
    if r.error:
        out["error"] = r.error
    return out


def _node_summary(node: NodeView, fleet: Fleet, memo: dict[Any, Any]) -> dict[str, Any]:
    keys = ("driver", "cuda_driver", "gpu_model", "gpu_count", "nccl", "cudnn", "torch",
            "torch_build", "python", "nccl_net_plugin", "ib_rates")
    return {k: v for k in keys if (v := node_value(k, node, fleet, memo)) is not None}


def fleet_dict(fleet: Fleet, by_node: dict[str, list[str]],
               memo: dict[Any, Any] | None = None) -> dict[str, Any]:
    memo = {} if memo is None else memo
    return {
        "schema_version": FLEET_SCHEMA_VERSION,
        "world_size": fleet.world_size, "launcher": fleet.launcher,
        "source": "snapshots" if fleet.compare else "ranks",
        "timeout_s": fleet.timeout, "complete": not (fleet.late or fleet.dead or fleet.absent
                                                     or fleet.unheard or fleet.failure
                                                     or fleet.unreadable or fleet.nogroup
                                                     or fleet.cancelled
                                                     or fleet.duplicate),
        "late_ranks": fleet.late, "dead_ranks": fleet.dead, "absent_ranks": fleet.absent,
        "unheard_ranks": fleet.unheard, "unreadable_ranks": fleet.unreadable,
        "group_failed_ranks": fleet.nogroup, "duplicate_ranks": fleet.duplicate,
        "errors": fleet.errors,
        "unplaced_ranks": [_rank_dict(r, fleet, NodeView(name="")) for r in fleet.unplaced],
        "nodes": [{"node": n.name, "host": n.host, "node_rank": n.node_rank,
                   "facts_from": n.source, "summary": _node_summary(n, fleet, memo),
                   "findings": by_node.get(n.name, []),
                   "ranks": [_rank_dict(r, fleet, n) for r in n.ranks]} for n in fleet.nodes],
        **({"bench": fleet.bench} if fleet.bench else {}),
    }


def build(fleet: Fleet, *, intent: str = "auto", fail_on: str = "error", policy: Any = None,
          redact: bool = True, single_checks: bool = True,
          baseline: Facts | None = None) -> Report:
    """The one fleet report; built once, then only rendered. ``redact``: host names become
    host-1, host-2 … (the report says so); ``baseline``: what the site expects (see
    ``fleet_results``)."""
    aliases = alias_hosts(fleet) if redact else {}
    memo: dict[Any, Any] = {}  # node aspect values shared by a compared group
    results, findings = fleet_results(fleet, rules.load_rules(), memo, baseline)
    if single_checks:
        more, found = node_checks(fleet, intent)
        results, findings = results + more, findings + found
    if policy is not None:
        more, found = policy_checks(fleet, policy)
        results, findings = results + more, findings + found
    results, findings, ignored = _ignore(results, findings, policy)
    findings.sort(key=lambda f: (-f.severity.rank, f.code, f.title))
    by_node: dict[str, list[str]] = {}
    for r in results:
        if r.state == "fired":
            by_node.setdefault(r.id.rpartition(" @ ")[2], []).append(r.code)
    first = next((n.facts for n in fleet.nodes if n.facts is not None), None) or Facts()
    extra: dict[str, Any] = {"fleet": {**fleet_dict(fleet, by_node, memo),
                                       "hosts_redacted": bool(aliases)}}
    if policy is not None and not policy.empty:
        extra["policy"] = {**policy.to_dict(), "ignored": ignored}
    return Report(first, tuple(results), tuple(findings), intent, fail_on, (), extra)
