"""Fleet text: one line per node (its ranks, its stack, its findings), then each finding with
the nodes and ranks it names and its fix; for ``fleet compare``, one line per group of nodes
whose facts agree, within a fixed number of lines. Formats only; decides nothing."""

from __future__ import annotations

import textwrap
from typing import Any

from envdoctor.outputs.report import Report
from envdoctor.outputs.sanitise import flat

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


_RANK = {"error": 3, "warning": 2, "info": 1}


def _worst(report: Report) -> dict[str, str]:
    worst: dict[str, str] = {}
    for f in report.findings:
        for node in f.evidence.get("nodes", ()):
            if _RANK[f.severity.value] > _RANK.get(worst.get(node, ""), 0):
                worst[node] = f.severity.value
    return worst


def _node_line(n: dict[str, Any], worst: dict[str, str],
               summary: dict[str, Any] | None = None) -> str:
    mark = MARK.get(worst.get(n["node"], "info"), "✓")
    codes = sorted(set(n.get("findings", [])))
    summary = n.get("summary", summary or {})
    tail = f"  [{', '.join(codes)}]" if codes else ""
    late_text = "".join(
        f"; {state}: {', '.join(str(r['rank']) for r in n['ranks'] if r.get('state') == state)}"
        for state in ("late", "dead") if any(r.get("state") == state for r in n["ranks"]))
    if not late_text and any(not r.get("arrived", True) for r in n["ranks"]):
        late_text = "; late: " + ", ".join(str(r["rank"]) for r in n["ranks"]
                                           if not r.get("arrived", True))
    who = _ranks(n["ranks"]) if n["ranks"] else "snapshot"
    return flat(f"[{mark}] {n['node']}: {who}{late_text} — {_stack(summary)}{tail}")


def render(report: Report, color: bool = False) -> str:
    fleet = report.extra.get("fleet") or {}
    worst = _worst(report)
    nodes = fleet.get("nodes", [])
    source = "saved snapshots" if fleet.get("source") == "snapshots" else \
        f"{fleet.get('launcher') or '?'}, {fleet.get('world_size')} rank(s)"
    lines = [f"envdoctor fleet — {source} on {len(nodes)} node(s)"]
    lines += _hosts_hint(fleet)
    for n in nodes:
        lines.append(_node_line(n, worst))
    lost = fleet.get("unplaced_ranks") or []
    if lost:
        lines.append(f"[✗] no known node: {_ranks(lost)} — never announced itself")
    if fleet.get("unheard_ranks"):
        lines.append(f"    unknown: {_ranks([{'rank': r} for r in fleet['unheard_ranks']])} "
                     "(the rendezvous failed before they could be heard)")
    for error in fleet.get("errors", []):
        lines.append(f"    note: {flat(error)}")
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


def _hosts_hint(fleet: dict[str, Any]) -> list[str]:
    if not fleet.get("hosts_redacted"):
        return []
    return ["host names are redacted (host-1, host-2 …): --show-hosts shows the real ones "
            "(--no-redact also keeps addresses and UUIDs)"]


def _finding_lines(f: Any, full: bool) -> list[str]:
    out = [f"{f.severity.value.upper()} {f.code} {f.title}"]
    if full and f.why:
        out.append(textwrap.fill(" ".join(f.why.split()), 96, initial_indent="    ",
                                 subsequent_indent="    "))
    if f.fix:
        out.append("    fix: " + " ".join(f.fix.split()))
    if full:
        out += [f"    see: {ref}" for ref in f.references[:1]]
    return "\n".join(out).split("\n")  # real lines: the wrapped why is several


def render_compare(report: Report, color: bool = False, tail: str = "",
                   limit: int = 80) -> str:
    """``fleet compare`` text in at most ``limit`` lines, whatever the fleet: the groups of
    nodes whose facts agree (largest first, each with a compressed host list), the findings
    (each naming its nodes), then ``tail`` (the differences) and the verdict; what does not
    fit is counted, with a pointer to --format json."""
    from envdoctor.fleet.hostlist import compress

    fleet = report.extra.get("fleet") or {}
    worst = _worst(report)
    nodes = fleet.get("nodes", [])
    by_name = {n["node"]: n for n in nodes}
    groups = fleet.get("groups") or [{"group": i + 1, "size": 1, "nodes": [n["node"]]}
                                     for i, n in enumerate(nodes)]
    head = [f"envdoctor fleet compare — {len(nodes)} node(s) in {len(groups)} group(s) of "
            "identical facts (sensor readings aside)", *_hosts_hint(fleet)]
    for error in fleet.get("errors", [])[:3]:
        head.append(f"    note: {flat(error)}")
    if len(fleet.get("errors", [])) > 3:
        head.append(f"    note: and {len(fleet['errors']) - 3} more (--format json)")
    counts = report.counts()
    verdict = "FAIL" if report.exit_code else "OK"
    foot = [f"{verdict}: {counts['error']} error(s), {counts['warning']} warning(s), "
            f"{counts['info']} info across {len(nodes)} node(s)"]
    lost = fleet.get("unplaced_ranks") or []
    if lost:
        head.append(f"[✗] no known node: {_ranks(lost)} — never announced itself")
    if fleet.get("unheard_ranks"):
        head.append(f"    unknown: {_ranks([{'rank': r} for r in fleet['unheard_ranks']])} "
                    "(the rendezvous failed before they could be heard)")
    tail_lines = tail.rstrip("\n").split("\n") if tail.strip() else []
    head = "\n".join(head).split("\n")
    room = limit - len(head) - len(foot) - 3  # three blank separators
    # groups: up to a quarter of the room; the differences: up to a fifth; findings the rest
    group_lines: list[str] = []
    shown_groups = groups[:max(3, room // 4) - 1] if len(groups) > max(3, room // 4) \
        else groups
    for g in shown_groups:
        if g["size"] == 1 and g["nodes"][0] in by_name:
            group_lines.append(_node_line(by_name[g["nodes"][0]], worst, g.get("summary")))
            continue
        members = g["nodes"]
        summary = g.get("summary") or by_name.get(members[0], {}).get("summary", {})
        sev = max((worst.get(m, "") for m in members), key=lambda v: _RANK.get(v, 0))
        codes = sorted({c for m in members for c in by_name.get(m, {}).get("findings", ())})
        tail_codes = f"  [{', '.join(codes)}]" if codes else ""
        group_lines.append(flat(f"[{MARK.get(sev or 'info', '✓')}] {compress(members, 4, False)}"
                                f": {g['size']} snapshots — {_stack(summary)}{tail_codes}"))
    if len(shown_groups) < len(groups):
        rest = groups[len(shown_groups):]
        group_lines.append(f"    … and {len(rest)} more group(s) of {sum(g['size'] for g in rest)}"
                           " node(s) (--format json lists every group and node)")
    diff_room = min(len(tail_lines), max(4, room // 5))
    if len(tail_lines) > diff_room:
        hidden = len(tail_lines) - diff_room + 1
        tail_lines = tail_lines[:diff_room - 1] + [
            f"     … and {hidden} more line(s) (--format json lists every difference)"]
    finding_room = room - len(group_lines) - len(tail_lines)
    finding_lines: list[str] = []
    findings = list(report.findings)
    full = sum(len(_finding_lines(f, True)) for f in findings) <= finding_room
    for i, f in enumerate(findings):
        block = _finding_lines(f, full)
        left = len(findings) - i
        if len(finding_lines) + len(block) > finding_room - (1 if left > 1 else 0):
            finding_lines.append(f"… and {left} more finding(s) (--format json lists them "
                                 "with every node they name)")
            break
        finding_lines += block
    out = [*head, *group_lines, ""]
    if finding_lines:
        out += [*finding_lines, ""]
    if tail_lines:
        out += [*tail_lines, ""]
    out += foot
    lines = "\n".join(out).split("\n")
    if len(lines) > limit:  # never reached by the budget above; the bound holds regardless
        lines = lines[:limit - 2] + ["… (cut: --format json has the whole report)", lines[-1]]
    return "\n".join(lines) + "\n"
