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

import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from envdoctor.engine.findings import CheckResult, Finding, Severity
from envdoctor.errors import BadInput
from envdoctor.facts import Facts
from envdoctor.fleet import model

MAX_FILES = 100000
MAX_DIFFERENCES = 50       # ranked differences kept in the report


def snapshot_files(paths: tuple[str, ...]) -> list[Path]:
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            out += sorted(x for x in p.glob("*.json") if x.is_file())
        elif os.path.lexists(p):
            out.append(p)  # a regular file, or what the reader will refuse, saying what it is
        else:
            raise BadInput(f"{raw}: no such file or folder")
        if len(out) > MAX_FILES:
            raise BadInput(f"more than {MAX_FILES} snapshot files: compare fewer at a time")
    if not out:
        raise BadInput("no snapshot files (*.json) in " + ", ".join(paths))
    return out


def _is_rank_snapshot(data: Any) -> bool:
    return isinstance(data, dict) and "payload_version" in data


def _is_fleet_report(data: Any) -> bool:
    """`envdoctor fleet --format json` output (rank 0's report or compare's)."""
    return isinstance(data, dict) and isinstance(data.get("fleet"), dict) and \
        "findings" in data and "payload_version" not in data


def _run_of(ranked: list[tuple[Path, dict[str, Any]]]) -> str:
    """The run the snapshots are of: rank 0's (the newest rank 0 when several wrote one),
    else the newest snapshot's; "" when none says."""
    def started(data: dict[str, Any]) -> float:
        o = data.get("outcome")
        t = o.get("started") if isinstance(o, dict) else None
        return float(t) if isinstance(t, (int, float)) and not isinstance(t, bool) else 0.0
    keyed = [(data["layout"].get("rank") != 0, -started(data), str(data["run"]))
             for _, data in ranked if isinstance(data.get("run"), str)]
    return min(keyed)[2] if keyed else ""


def _is_check_report(data: Any) -> bool:
    """`check --format json` output: facts beside their checks' results."""
    return isinstance(data, dict) and "facts_schema_version" in data


def _host_of(facts: Facts) -> str:
    for key in ("SLURMD_NODENAME", "HOSTNAME"):
        value = facts.env.vars.get(key, "")
        if value and not value.startswith("<"):  # "<host>": a redacted report
            return value
    return ""


def saved_results(path: Path, data: Any) -> tuple[str, list[CheckResult]] | None:
    """The results a saved ``check --format json`` report carries (None for bare facts), from
    the JSON the facts loader already read; a finding or result of the wrong shape is bad
    input naming the file and the field."""
    if not isinstance(data, dict):
        return None
    checks, found = data.get("checks"), data.get("findings")
    summary = data.get("summary")
    intent = summary.get("intent") if isinstance(summary, dict) else None
    if not (isinstance(checks, list) and isinstance(found, list) and isinstance(intent, str)):
        return None
    try:
        by_code = {}
        for i, f in enumerate(found):
            _fields(f, f"findings[{i}]", _FINDING)
            by_code[f["code"]] = Finding(
                code=f["code"], id=f["id"], severity=Severity(f["severity"]), title=f["title"],
                why=f.get("why") or "", fix=f.get("fix") or "",
                references=tuple(f.get("references") or ()), evidence=f.get("evidence") or {},
                area=f.get("area") or "")
        results = []
        for i, c in enumerate(checks):
            _fields(c, f"checks[{i}]", _RESULT)
            if c["code"].startswith("REQ"):
                continue  # the policy is judged again
            results.append(CheckResult(c["code"], c["id"], c["state"],
                                       by_code.get(c["code"]) if c["state"] == "fired" else None,
                                       c.get("detail") or ""))
    except (KeyError, TypeError, ValueError) as exc:
        raise BadInput(f"{path}: a check report whose findings do not fit: {exc}") from None
    return intent, results


# The fields of a saved finding and result, with the kind each must have (None: optional).
_FINDING = {"code": str, "id": str, "severity": str, "title": str, "why": (str, None),
            "fix": (str, None), "area": (str, None), "references": (list, None),
            "evidence": (dict, None)}
_RESULT = {"code": str, "id": str, "state": str, "detail": (str, None)}


def _fields(item: Any, where: str, spec: dict[str, Any]) -> None:
    if not isinstance(item, dict):
        raise ValueError(f"{where}: expected an object, got {type(item).__name__}")
    for key, kinds in spec.items():
        kinds = kinds if isinstance(kinds, tuple) else (kinds,)
        value = item.get(key)
        if value is None and None in kinds:
            continue
        types_ = tuple(k for k in kinds if k is not None)
        if not isinstance(value, types_):
            got = "nothing" if key not in item else type(value).__name__
            raise ValueError(f"{where}.{key}: expected {types_[0].__name__}, got {got}")
    refs = item.get("references") or []
    if not all(isinstance(r, str) for r in refs):
        raise ValueError(f"{where}.references: expected a list of strings")


def _read(path: Path) -> Any:
    """One snapshot file's JSON through the bounded reader (a regular file, size, depth and
    number limits): bad input names the file."""
    from envdoctor.bounded import InputError, decode_json, read_file
    try:
        return decode_json(read_file(path, "a snapshot"), "a snapshot", unique=True)
    except InputError as exc:
        raise BadInput(f"{path}: {exc}") from None


def load_baseline(path: str) -> Facts:
    """The golden node's facts (a check report or a facts snapshot), bad input naming it."""
    from envdoctor import pipeline
    p = Path(path)
    if not os.path.lexists(p):
        raise BadInput(f"{path}: no such file (--baseline)")
    data = _read(p)
    if _is_rank_snapshot(data):
        node = data.get("node") if isinstance(data, dict) else None
        if not (isinstance(node, dict) and isinstance(node.get("facts"), dict)):
            raise BadInput(f"{path}: a rank snapshot without its node's facts cannot be a "
                           "baseline (use its node's local rank 0, or a check report)")
        data = node["facts"]
    return pipeline.facts_of(data, str(p))


def load(paths: tuple[str, ...]) -> model.Fleet:
    """Every snapshot as a node (rank snapshots grouped by their node). Snapshots with one
    fact signature (``groups``) are decoded once: the others are the first one's facts with
    their own sensor values; saved check results that are the same are read once."""
    from envdoctor import pipeline
    from envdoctor.facts import FactsError
    from envdoctor.fleet import groups

    payloads: dict[int, dict[str, Any]] = {}
    unfinished: list[int] = []
    plain_data: list[tuple[Path, Any]] = []
    duplicates: dict[int, list[str]] = {}
    # (node name, facts, host, the results of a saved check report or None, signature)
    plain: list[tuple[str, Facts, str, tuple[str, list[CheckResult]] | None, str]] = []
    names: Counter[str] = Counter()
    bases: dict[str, Facts] = {}
    saved_seen: dict[str, tuple[str, list[CheckResult]] | None] = {}
    skipped: list[str] = []
    ranked: list[tuple[Path, dict[str, Any]]] = []
    for path in snapshot_files(paths):
        data = _read(path)
        if _is_fleet_report(data):  # `fleet -o DIR/report.json`: a report, not a node
            skipped.append(f"{path.name}: a fleet report, not a snapshot (not compared)")
            continue
        if _is_rank_snapshot(data):
            try:
                ranked.append((path, model.check_payload(data)))
            except ValueError as exc:
                raise BadInput(f"{path}: {exc}") from None
            continue
        plain_data.append((path, data))
    run = _run_of(ranked)
    for path, data in ranked:
        if run and isinstance(data.get("run"), str) and data["run"] != run:
            skipped.append(f"{path.name}: from another run ({str(data['run'])[:80]}), not "
                           "compared")
            continue
        rank = data["layout"].get("rank")
        outcome = data.get("outcome")
        if isinstance(rank, int) and isinstance(outcome, dict) and \
                isinstance(outcome.get("duplicate_of"), dict):
            # a second process started with this RANK: not a rank of the job, a fault
            duplicates.setdefault(rank, []).append(str(data["layout"].get("node", "?")))
            continue
        if not isinstance(rank, int) or rank in payloads:
            raise BadInput(f"{path}: rank {rank!r} is missing or appears twice")
        payloads[rank] = data
        if "binding" not in data:  # only the first record: the rank never finished
            unfinished.append(rank)
    for path, data in plain_data:
        signature, sensors = groups.split(data)
        base = bases.get(signature)
        if base is None:
            facts = bases[signature] = pipeline.facts_of(data, str(path))
        else:
            try:
                facts = groups.member(base, sensors)
            except FactsError as exc:
                raise BadInput(f"{path}: {exc}") from None
        host = _host_of(facts)
        name = host or path.stem
        names[name] += 1
        saved = None
        if _is_check_report(data):
            key = groups.digest([data.get("checks"), data.get("findings"),
                                 data.get("summary", {}).get("intent")
                                 if isinstance(data.get("summary"), dict) else None])
            if key not in saved_seen:
                saved_seen[key] = saved_results(path, data)
            saved = saved_seen[key]
        plain.append((name if names[name] == 1 else f"{name} ({path.name})", facts, host,
                      saved, signature))
        del data
    fleet = model.from_snapshots(payloads, unfinished, duplicates) if payloads \
        else model.Fleet()
    fleet.compare = True
    fleet.errors += skipped
    for name, facts, host, saved, signature in plain:
        fleet.nodes.append(model.NodeView(name=name, host=host, facts=facts, source=name,
                                          saved=saved, signature=signature))
    return fleet


def differences(fleet: model.Fleet, findings: Sequence[Finding]) -> list[dict[str, Any]]:
    """``diff``'s aspects compared across all nodes, ranked. A key some nodes lack (a
    variable set on 3 of 200 nodes, a package on some only) is "(unset)" on the nodes whose
    probe answered; variables that name the node or process are not compared. With a value
    on more than half of the nodes, that is the majority and the others are odd; without
    one, every value is listed with its nodes."""
    from envdoctor.diff import aspects as diff_aspects
    from envdoctor.fleet import groups
    from envdoctor.fleet.aspects import IDENTITY_VARS

    table: dict[str, dict[str, Any]] = {}
    memo: dict[Any, Any] = {}
    judged: list[tuple[str, Facts, dict[str, Any]]] = []
    for node in fleet.nodes:
        if node.facts is None:
            continue
        found = groups.memo_by_group(node.signature, "diff", node.facts, diff_aspects, memo) \
            if node.signature else diff_aspects(node.facts)
        judged.append((node.name, node.facts, found))
        for key, (label, area, _value, weights, _kind) in found.items():
            if key not in table and not key.startswith("probe.") and \
                    key.partition(".")[2] not in IDENTITY_VARS:
                table[key] = {"label": label, "area": area, "weight": weights[0],
                              "values": {}}
    shown_for: dict[int, list[tuple[dict[str, list[str]], str]]] = {}
    for name, facts, found in judged:  # nodes of one group share ``found``: read it once
        if id(found) not in shown_for:
            pairs = []
            for key, entry in table.items():
                if key in found:
                    value = found[key][2]
                    pairs.append((entry["values"], "(absent)" if value is None else str(value)))
                elif _answered(facts, key):  # else unknown there, not different
                    pairs.append((entry["values"], "(unset)"))
            shown_for[id(found)] = pairs
        for values, shown in shown_for[id(found)]:
            values.setdefault(shown, []).append(name)
    areas = {f.area for f in findings}
    out = []
    for key, entry in table.items():
        values = entry["values"]
        if len(values) < 2:
            continue
        total = sum(len(n) for n in values.values())
        top = max(values, key=lambda v: len(values[v]))
        strict = 2 * len(values[top]) > total
        odd = [{"value": v, "nodes": n} for v, n in sorted(
            values.items(), key=lambda item: -len(item[1])) if not strict or v != top]
        explained = entry["area"] in areas or any(
            o["value"] in f.title for o in odd for f in findings if len(o["value"]) >= 3)
        out.append({"key": key, "label": entry["label"], "area": entry["area"],
                    "majority": top if strict else None,
                    "majority_nodes": len(values[top]) if strict else 0, "total": total,
                    "odd": odd, "weight": entry["weight"], "explained": explained})
    out.sort(key=lambda d: (not d["explained"], -d["weight"], d["key"]))
    return [{"rank": i + 1, **d} for i, d in enumerate(out[:MAX_DIFFERENCES])]


# The facts section a `diff` aspect key is read from (its prefix), as `diff` reads them.
_SECTION_OF = {"pkg": "packages", "env": "env", "lib": "libraries", "gpu": "nvidia",
               "nvidia": "nvidia", "host": "host", "python": "host", "cuda": "cuda",
               "probe": "host"}


def _answered(facts: Facts, key: str) -> bool:
    """Whether the probe that would have seen ``key`` answered on that node."""
    section = _SECTION_OF.get(key.split(".")[0], "frameworks")
    return getattr(facts, section).probe.status.known


def group_block(fleet: model.Fleet, block: dict[str, Any]) -> tuple[list[dict[str, Any]],
                                                                    list[dict[str, Any]]]:
    """Nodes whose facts agree (one signature; sensors aside), largest first, each with its
    nodes and the stack summary they share; and the report's node entries, where a grouped
    node names its group instead of repeating that summary (10 000 nodes, a few groups)."""
    entries = {n["node"]: n for n in block.get("nodes", [])}
    by_sig: dict[str, list[str]] = {}
    for node in fleet.nodes:
        by_sig.setdefault(node.signature or f"node:{node.name}", []).append(node.name)
    ordered = sorted(by_sig.items(), key=lambda item: -len(item[1]))
    groups = []
    for i, (sig, names) in enumerate(ordered):
        first = entries.get(names[0], {})
        groups.append({"group": i + 1, "size": len(names), "nodes": names,
                       "summary": first.get("summary", {}),
                       **({"signature": sig} if not sig.startswith("node:") else {})})
        if not sig.startswith("node:"):
            for name in names:
                entry = entries.get(name)
                if entry is not None:
                    entries[name] = {k: v for k, v in entry.items()
                                     if k not in ("summary", "facts_from")} | {"group": i + 1}
    return groups, [entries.get(n["node"], n) for n in block.get("nodes", [])]


def text_block(diffs: list[dict[str, Any]], limit: int = 20) -> str:
    """The ranked differences, one line each (at most ``limit``), host lists compressed."""
    from envdoctor.fleet.hostlist import compress
    from envdoctor.outputs.sanitise import flat

    if not diffs:
        return "No differences between the snapshots in the facts that matter.\n"
    lines = [f"Differences between nodes, most likely to matter first ({len(diffs)}):"]
    for d in diffs[:limit]:
        odd = "; ".join(f"{flat(o['value'])} on {flat(compress(o['nodes'], 3))}"
                        for o in d["odd"][:3])
        if len(d["odd"]) > 3:
            odd += f"; and {len(d['odd']) - 3} more values"
        head = f"majority {flat(d['majority'])} ({d['majority_nodes']} of {d['total']}); " \
            if d.get("majority") is not None else "no clear majority: "
        lines.append(f"{d['rank']:>3}. {flat(d['label'])}: {head}{odd}")
    if len(diffs) > limit:
        lines.append(f"     … and {len(diffs) - limit} more (--format json lists them all)")
    return "\n".join(lines) + "\n"
