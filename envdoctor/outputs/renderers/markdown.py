"""Markdown: the check's summary for $GITHUB_STEP_SUMMARY or an issue comment, and the longer bug
report of ``envdoctor report`` (the same head, then the facts, smoke results and the raw
snapshot in a collapsed block). GitHub-flavoured: tables, ``<details>``, fenced code. Every
value from the report (a GPU name, a path, a finding's text, which quotes facts) is escaped with
``sanitise.md_*``: HTML, links, pipes, backticks and newlines in a pasted value show as text.
"""

from __future__ import annotations

import json
from typing import Any

from envdoctor.facts import Facts, Status
from envdoctor.outputs.report import Report
from envdoctor.outputs.sanitise import md_cell, md_code, md_fence, md_line, md_link

ICONS = {"ok": "✅", "info": "ℹ️", "warning": "⚠️", "error": "❌", "unknown": "❔"}


def cell(value: Any) -> str:
    """A table cell: one line, Markdown and HTML escaped."""
    return md_cell(value)


def render(report: Report, color: bool = False) -> str:
    return "\n".join(_head(report, "envdoctor check")) + "\n"


def _head(report: Report, title: str) -> list[str]:
    counts = report.counts()
    verdict = "OK" if report.exit_code == 0 else "FAIL"
    origin = (" (facts probed on this machine)" if report.facts.origin == "live"
              else f" (facts from {md_line(report.facts.origin)})")
    out = [f"## {ICONS['ok' if verdict == 'OK' else 'error']} {title}: {verdict}{origin}", "",
           f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info · "
           f"expect {md_code(report.intent)} · fail-on {md_code(report.fail_on)} · "
           f"envdoctor {md_line(report.facts.envdoctor_version or '')}".rstrip(), "",
           "| | Area | Details |", "| --- | --- | --- |"]
    for line in report.areas:
        out.append(f"| {ICONS.get(line.status, '❔')} | {cell(line.label)} | "
                   f"{cell(line.detail)} |")
    out.append("")
    out += _requirements(report)
    if report.findings:
        out += ["### Findings", ""]
    for f in report.findings:
        icon = ICONS.get(f.severity.value, "")
        out.append(f"#### {icon} {f.severity.value.upper()} {md_code(f.code)} "
                   f"{md_line(f.title)}")
        out.append("")
        if f.why:
            out += [md_line(p) for p in f.why.strip().split("\n\n") if p.strip()]
            out.append("")
        if f.fix:
            out += ["**Fix:**", "", *md_fence(f.fix.strip()), ""]
        refs = [r for r in f.references if r]
        if refs:
            out.append("Sources: " + ", ".join(md_link(r) for r in refs))
            out.append("")
    ignored = (report.extra.get("policy") or {}).get("ignored") or []
    if ignored:
        out += ["### Ignored by policy", ""]
        out += [f"- {md_code(i.get('code'))} — {cell(i.get('reason'))}" for i in ignored]
        out.append("")
    return out


def _requirements(report: Report) -> list[str]:
    reqs = [r for r in report.results if r.code.startswith("REQ")]
    if not reqs:
        return []
    mark = {"passed": "✅ met", "fired": "❌ not met", "unknown": "❔ unknown",
            "ignored": "➖ ignored", "error": "❔ error"}
    out = ["### Requirements", "", "| Requirement | State | This machine |",
           "| --- | --- | --- |"]
    for r in reqs:
        ev = r.finding.evidence if r.finding else {}
        text = ev.get("requirement") or r.detail.partition(": ")[0] or r.id
        actual = ev.get("actual") or r.detail.partition(": ")[2] or r.detail
        out.append(f"| {md_code(text)} | {cell(mark.get(r.state, r.state))} | {cell(actual)} |")
    out.append("")
    return out


# ---------------------------------------------------------------------------- bug report
def render_bug_report(report: Report, color: bool = False) -> str:
    """The full report to paste into an issue: summary, findings, smoke, facts, raw JSON."""
    out = _head(report, "envdoctor report")
    out += _smoke(report.extra.get("smoke"))
    out += ["### Environment", ""] + _facts_tables(report.facts)
    raw = _html_safe_json(report.facts.to_dict())
    out += [("<details><summary>Facts snapshot (JSON, replay with "
             "<code>envdoctor check --facts FILE</code>)</summary>"), "",
            *md_fence(raw, "json"), "", "</details>", ""]
    if report.extra.get("redacted"):
        out.append("_Redacted by envdoctor: user and host names, home folders, GPU UUIDs, IP "
                   "and MAC addresses and credentials are replaced by placeholders._")
        out.append("")
    return "\n".join(out)


def _html_safe_json(data: Any) -> str:
    """JSON to embed in Markdown: ASCII, and ``<``, ``>``, ``&`` and backticks as ``\\uXXXX``
    (still the same JSON: the snapshot replays), so no value can open a tag or end the fence."""
    raw = json.dumps(data, indent=1)
    for ch in "<>&`":
        raw = raw.replace(ch, f"\\u{ord(ch):04x}")
    return raw


def _smoke(smoke: Any) -> list[str]:
    if not isinstance(smoke, dict) or not smoke:
        return []
    from envdoctor.live import smoke_detail  # the count `check` prints, from one function
    out = ["### Smoke tests", "", "| Framework | Status | Device | Steps |",
           "| --- | --- | --- | --- |"]
    for name, entry in smoke.items():
        if not isinstance(entry, dict):
            continue
        detail = smoke_detail(entry)
        out.append(f"| {cell(name)} | {cell(entry.get('status'))} | {cell(entry.get('device'))}"
                   f" | {cell(detail)} |")
    out.append("")
    return out


def _facts_tables(facts: Facts) -> list[str]:
    rows: list[tuple[str, Any]] = []
    h = facts.host
    if h.probe.status.known:
        rows += [("OS", f"{h.distro or h.os} ({h.kernel}, {h.arch}, {h.glibc or 'glibc ?'})"),
                 ("Python", (f"{h.python_version} {h.python_implementation} ({h.python_env}) "
                             f"at {h.python_executable}")),
                 ("CPU / RAM", (f"{h.cpu_count} CPUs ({', '.join(h.cpu_flags)}), "
                                f"{h.ram_total_gb} GiB RAM, /dev/shm {h.shm_total_gb} GiB")),
                 ("Container", h.container or "none seen")]
    nv = facts.nvidia
    if nv.probe.status is Status.OK:
        rows.append(("NVIDIA driver", (f"{nv.driver_version} (CUDA ≤ {nv.cuda_driver_version},"
                                       f" via {nv.probe.source})")))
        for g in nv.gpus:
            mem = f"{g.memory_total_mb} MiB" if g.memory_total_mb else "?"
            rows.append((f"GPU {g.index}", f"{g.name}, cc {g.cc}, {mem}"
                                           + (", MIG" if g.mig_mode else "")))
    else:
        status = nv.probe.status.value.replace("_", " ")
        rows.append(("NVIDIA driver", f"{status}: {nv.probe.reason}" if nv.probe.reason
                     else status))
    cu = facts.cuda
    rows.append(("CUDA toolkits", "; ".join(f"{t.version} at {t.path} ({t.source})"
                                            for t in cu.toolkits) or cu.probe.status.value))
    libs = facts.libraries
    rows.append(("Libraries", "; ".join(f"{lib.name} {lib.version} ({lib.source})"
                                        for lib in libs.libraries) or libs.probe.status.value))
    fw = facts.frameworks
    if fw.torch:
        rows.append(("torch", f"{fw.torch.version} (CUDA {fw.torch.cuda or 'none'})"))
    if fw.tensorflow:
        t = fw.tensorflow
        rows.append(("tensorflow", (f"{t.version} from {t.distribution} "
                                    f"(CUDA {t.cuda or 'none'}, cuDNN {t.cudnn or 'none'})")))
    if fw.jax:
        plugins = ", ".join(f"{p.name} {p.version}" for p in fw.jax.plugins) or "no GPU plugin"
        rows.append(("jax", f"{fw.jax.version}, jaxlib {fw.jax.jaxlib} ({plugins})"))
    if fw.keras:
        rows.append(("keras", f"{fw.keras.version}, backend {fw.keras.backend}"))
    out = ["| Fact | Value |", "| --- | --- |"]
    out += [f"| {cell(k)} | {cell(v)} |" for k, v in rows]
    out.append("")
    dists = facts.packages.distributions
    if dists:
        out += ["<details><summary>Packages</summary>", "", "| Package | Version |",
                "| --- | --- |"]
        out += [f"| {cell(d.name)} | {cell(d.version)} |" for d in dists]
        out += ["", "</details>", ""]
    if facts.env.vars:
        out += ["<details><summary>Environment variables</summary>", "", "| Name | Value |",
                "| --- | --- |"]
        out += [f"| {md_code(k)} | {cell(v)} |" for k, v in facts.env.vars.items()]
        out += ["", "</details>", ""]
    return out
