"""``envdoctor fleet compare DIR|FILE...``: the fleet rules over saved snapshots, without torch.

A snapshot is either ``envdoctor check --format json`` / ``envdoctor facts`` output (read with
the same loader as ``check --facts``) or a rank snapshot that ``envdoctor fleet --out-dir``
wrote. It is named by its host where it records one (a rank snapshot's node, else the
HOSTNAME / SLURMD_NODENAME it saw), else by its file name.

Besides the rules' findings, every aspect that ``envdoctor diff`` weighs is compared N-way:
values are counted per aspect, the nodes off the majority are listed, and the differences are
ranked as ``diff`` ranks them (its weights), those that a finding explains first. One pass
over the snapshots: time and memory grow linearly with their number.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from envdoctor.engine.findings import CheckResult, Finding, Severity
from envdoctor.errors import BadInput, reading
from envdoctor.facts import Facts
from envdoctor.fleet import model

HEAD = 512                 # bytes read to tell a rank snapshot from a facts file
MAX_FILES = 100000
MAX_DIFFERENCES = 50       # ranked differences kept in the report


def snapshot_files(paths: tuple[str, ...]) -> list[Path]:
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            out += sorted(x for x in p.glob("*.json") if x.is_file())
        elif p.is_file():
            out.append(p)
        else:
            raise BadInput(f"{raw}: no such file or folder")
        if len(out) > MAX_FILES:
            raise BadInput(f"more than {MAX_FILES} snapshot files: compare fewer at a time")
    if not out:
        raise BadInput("no snapshot files (*.json) in " + ", ".join(paths))
    return out


def _head(path: Path) -> bytes:
    with reading(str(path), "a snapshot"), open(path, "rb") as fh:
        return fh.read(HEAD)


def _is_rank_snapshot(head: bytes) -> bool:
    return b'"payload_version"' in head


def _is_check_report(head: bytes) -> bool:
    """`check --format json` writes facts_schema_version second, right after schema_version."""
    return b'"facts_schema_version"' in head


def _host_of(facts: Facts) -> str:
    for key in ("SLURMD_NODENAME", "HOSTNAME"):
        value = facts.env.vars.get(key, "")
        if value and not value.startswith("<"):  # "<host>": a redacted report
            return value
    return ""


def saved_results(path: Path) -> tuple[str, list[CheckResult]] | None:
    """The results a saved ``check --format json`` report carries (None for bare facts).

    The report is read a second time (the facts loader read it first); JSON parsing is cheap
    next to evaluating every check again, and these results are what the check saw there.
    """
    with reading(str(path), "a snapshot"):
        data = json.loads(path.read_text(encoding="utf-8"))
    checks, found = data.get("checks"), data.get("findings")
    intent = (data.get("summary") or {}).get("intent")
    if not (isinstance(checks, list) and isinstance(found, list) and isinstance(intent, str)):
        return None
    try:
        by_code = {f["code"]: Finding(code=f["code"], id=f["id"],
                                      severity=Severity(f["severity"]), title=f["title"],
                                      why=f.get("why", ""), fix=f.get("fix", ""),
                                      references=tuple(f.get("references", ())),
                                      evidence=f.get("evidence") or {}, area=f.get("area", ""))
                   for f in found}
        results = [CheckResult(c["code"], c["id"], c["state"],
                               by_code.get(c["code"]) if c["state"] == "fired" else None,
                               c.get("detail", "")) for c in checks
                   if not str(c["code"]).startswith("REQ")]  # the policy is judged again
    except (KeyError, TypeError, ValueError) as exc:
        raise BadInput(f"{path}: a check report whose findings do not fit: {exc}") from None
    return intent, results


def load(paths: tuple[str, ...]) -> model.Fleet:
    """Every snapshot as a node (rank snapshots grouped by their node)."""
    from envdoctor import pipeline

    payloads: dict[int, dict[str, Any]] = {}
    unfinished: list[int] = []
    plain: list[tuple[str, Facts, str]] = []
    names: Counter[str] = Counter()
    for path in snapshot_files(paths):
        head = _head(path)
        if _is_rank_snapshot(head):
            with reading(str(path), "a snapshot"):
                text = path.read_text(encoding="utf-8")
            try:
                data = model.decode_payload(text)
            except ValueError as exc:
                raise BadInput(f"{path}: {exc}") from None
            rank = data["layout"].get("rank")
            if not isinstance(rank, int) or rank in payloads:
                raise BadInput(f"{path}: rank {rank!r} is missing or appears twice")
            payloads[rank] = data
            if "binding" not in data:  # only the first record: the rank never finished
                unfinished.append(rank)
            continue
        facts = pipeline.load_facts_file(str(path))
        host = _host_of(facts)
        name = host or path.stem
        names[name] += 1
        plain.append((name if names[name] == 1 else f"{name} ({path.name})", facts, host,
                      saved_results(path) if _is_check_report(head) else None))
    fleet = model.from_snapshots(payloads, unfinished) if payloads else model.Fleet()
    fleet.compare = True
    for name, facts, host, saved in plain:
        fleet.nodes.append(model.NodeView(name=name, host=host, facts=facts, source=name,
                                          saved=saved))
    return fleet


def differences(fleet: model.Fleet, findings: list[Any]) -> list[dict[str, Any]]:
    """``diff``'s aspects compared across all nodes: majority, odd nodes, ranked."""
    from envdoctor.diff import aspects as diff_aspects

    table: dict[str, dict[str, Any]] = {}
    for node in fleet.nodes:
        if node.facts is None:
            continue
        for key, (label, area, value, weights, _kind) in diff_aspects(node.facts).items():
            if key.startswith("probe."):
                continue
            entry = table.setdefault(key, {"label": label, "area": area,
                                           "weight": weights[0], "values": {}})
            entry["values"].setdefault("(absent)" if value is None else str(value),
                                       []).append(node.name)
    areas = {f.area for f in findings}
    out = []
    for key, entry in table.items():
        values = entry["values"]
        if len(values) < 2:
            continue
        majority = max(values, key=lambda v: len(values[v]))
        odd = [{"value": v, "nodes": n} for v, n in values.items() if v != majority]
        explained = entry["area"] in areas or any(
            o["value"] in f.title for o in odd for f in findings if len(o["value"]) >= 3)
        out.append({"key": key, "label": entry["label"], "area": entry["area"],
                    "majority": majority, "majority_nodes": len(values[majority]),
                    "odd": odd, "weight": entry["weight"], "explained": explained})
    out.sort(key=lambda d: (not d["explained"], -d["weight"], d["key"]))
    return [{"rank": i + 1, **d} for i, d in enumerate(out[:MAX_DIFFERENCES])]


def text_block(diffs: list[dict[str, Any]], limit: int = 20) -> str:
    if not diffs:
        return "No differences between the snapshots in the facts that matter.\n"
    lines = [f"Differences between nodes, most likely to matter first ({len(diffs)}):"]
    for d in diffs[:limit]:
        odd = "; ".join(f"{o['value']} on {', '.join(o['nodes'][:6])}"
                        + (" …" if len(o["nodes"]) > 6 else "") for o in d["odd"][:4])
        lines.append(f"{d['rank']:>3}. {d['label']}: majority {d['majority']} "
                     f"({d['majority_nodes']} node(s)); {odd}")
    return "\n".join(lines) + "\n"
