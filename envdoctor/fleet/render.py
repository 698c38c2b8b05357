"""Fleet text: one line per node (its ranks, its stack, its findings), then each finding with
the nodes and ranks it names and its fix. Formats only; decides nothing."""

from __future__ import annotations

import textwrap
from typing import Any

from envdoctor.outputs.report import Report

MARK = {"error": "✗", "warning": "!", "info": "✓"}


def _ranks(ranks: list[dict[str, Any]]) -> str:
    numbers = [r["rank"] for r in ranks]
    if numbers == list(range(numbers[0], numbers[-1] + 1)) and len(numbers) > 2:
        return f"ranks {numbers[0]}–{numbers[-1]}"
    return ("rank " if len(numbers) == 1 else "ranks ") + ", ".join(map(str, numbers[:16])) + \
        (" …" if len(numbers) > 16 else "")


def _stack(summary: dict[str, Any]) -> str:
    parts = []
    if "driver" in summary:
        parts.append(f"driver {summary['driver']}")
    if summary.get("gpu_model") not in (None, "none"):
        parts.append(summary["gpu_model"])
    elif "gpu_count" in summary:
        parts.append(f"{summary['gpu_count']} GPU(s)")
    for key, name in (("nccl", "NCCL"), ("torch", "torch"), ("python", "Python")):
        if summary.get(key) not in (None, "none"):
            parts.append(f"{name} {summary[key]}")
    return ", ".join(parts) or "no node facts (its local rank 0 did not report)"


def _gbs(value: Any) -> str:
    return f"{value:.3g} GB/s" if isinstance(value, (int, float)) else "?"


def _bench(fleet: dict[str, Any]) -> list[str]:
    """``--bench`` figures: the fleet's bus bandwidth (all ranks, across nodes), then per node
    the matmul TFLOP/s of its ranks, its intra-node bus bandwidth and the all-reduce check."""
    bench = fleet.get("bench") or {}
    per_node = [(n["node"], [r["bench"] for r in n.get("ranks", []) if r.get("bench")])
                for n in fleet.get("nodes", [])]
    if not bench and not any(b for _, b in per_node):
        return []
    lines = [f"bench ({bench.get('backend') or '?'} on {bench.get('device') or '?'}):"]
    world = bench.get("world") or {}
    if world:
        gather = world.get("all_gather") or {}
        lines.append(f"    all ranks ({world.get('ranks', '?')}): all-reduce busbw "
                     f"{_gbs(world.get('busbw_gbs'))}, all-gather busbw "
                     f"{_gbs(gather.get('busbw_gbs'))}")
    cross = bench.get("cross") or {}
    if cross:
        lines.append(f"    across nodes ({cross.get('ranks', '?')} leaders): all-reduce busbw "
                     f"{_gbs(cross.get('busbw_gbs'))}")
    for node, benches in per_node:
        if not benches:
            continue
        tflops = [b["matmul_tflops"] for b in benches
                  if isinstance(b.get("matmul_tflops"), (int, float))]
        shown = (f"{min(tflops):.3g}–{max(tflops):.3g}" if len(tflops) > 1 and
                 min(tflops) != max(tflops) else f"{tflops[0]:.3g}") if tflops else "?"
        local = next((b["local"] for b in benches if isinstance(b.get("local"), dict)), None)
        checks = {str(b.get("allreduce_check")) for b in benches if b.get("allreduce_check")}
        errors = [str(b["error"]) for b in benches if b.get("error")]
        parts = [f"matmul {shown} TFLOP/s"]
        if local:
            parts.append(f"intra-node busbw {_gbs(local.get('busbw_gbs'))}")
        if checks:
            parts.append("all-reduce " + ", ".join(sorted(checks)))
        nets = {str(b["nccl_net"]) for b in benches if b.get("nccl_net")}
        if nets:
            parts.append("NCCL over " + ", ".join(sorted(nets)))
        if errors:
            parts.append("failed: " + errors[0][:120])
        lines.append(f"    {node}: " + "; ".join(parts))
    return lines + [""]


def render(report: Report, color: bool = False) -> str:
    fleet = report.extra.get("fleet") or {}
    rank = {"error": 3, "warning": 2, "info": 1}
    worst: dict[str, str] = {}
    for f in report.findings:
        for node in f.evidence.get("nodes", ()):
            if rank[f.severity.value] > rank.get(worst.get(node, ""), 0):
                worst[node] = f.severity.value
    nodes = fleet.get("nodes", [])
    source = "saved snapshots" if fleet.get("source") == "snapshots" else \
        f"{fleet.get('launcher') or '?'}, {fleet.get('world_size')} rank(s)"
    lines = [f"envdoctor fleet — {source} on {len(nodes)} node(s)"]
    for n in nodes:
        mark = MARK.get(worst.get(n["node"], "info"), "✓")
        codes = sorted(set(n.get("findings", [])))
        tail = f"  [{', '.join(codes)}]" if codes else ""
        late_text = "".join(
            f"; {state}: {', '.join(str(r['rank']) for r in n['ranks'] if r.get('state') == state)}"
            for state in ("late", "dead") if any(r.get("state") == state for r in n["ranks"]))
        if not late_text and any(not r.get("arrived", True) for r in n["ranks"]):
            late_text = "; late: " + ", ".join(str(r["rank"]) for r in n["ranks"]
                                               if not r.get("arrived", True))
        who = _ranks(n["ranks"]) if n["ranks"] else "snapshot"
        lines.append(f"[{mark}] {n['node']}: {who}{late_text} — "
                     f"{_stack(n.get('summary', {}))}{tail}")
    lost = fleet.get("unplaced_ranks") or []
    if lost:
        lines.append(f"[✗] no known node: {_ranks(lost)} — never announced itself")
    if fleet.get("unheard_ranks"):
        lines.append(f"    unknown: {_ranks([{'rank': r} for r in fleet['unheard_ranks']])} "
                     "(the rendezvous failed before they could be heard)")
    for error in fleet.get("errors", []):
        lines.append(f"    note: {error}")
    lines.append("")
    lines += _bench(fleet)
    for f in report.findings:
        lines.append(f"{f.severity.value.upper()} {f.code} {f.title}")
        if f.why:
            lines.append(textwrap.fill(" ".join(f.why.split()), 96, initial_indent="    ",
                                       subsequent_indent="    "))
        if f.fix:
            lines.append("    fix: " + " ".join(f.fix.split()))
        for ref in f.references[:2]:
            lines.append(f"    see: {ref}")
        lines.append("")
    counts = report.counts()
    verdict = "FAIL" if report.exit_code else "OK"
    lines.append(f"{verdict}: {counts['error']} error(s), {counts['warning']} warning(s), "
                 f"{counts['info']} info across {len(nodes)} node(s)")
    return "\n".join(lines) + "\n"
