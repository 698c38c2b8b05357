"""`envdoctor fleet`: run as every rank of the job's launcher; `fleet compare` over snapshots."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

import click

from envdoctor.cligroups import Seconds, SuggestingGroup
from envdoctor.commands._output import (
    check_output_paths,
    default_format,
    emit,
    parse_report_spec,
    prepare,
    use_color,
    write_reports,
)
from envdoctor.engine import INTENTS
from envdoctor.engine.findings import FAIL_ON
from envdoctor.outputs.renderers import formats
from envdoctor.outputs.stderr import say

FORMATS = formats("check")


def _gate_options(fn):
    for option in reversed([
        click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
                     help="Output format [default: text; github under GITHUB_ACTIONS=true]."),
        click.option("--output", "-o", metavar="FILE", help="Write the report to FILE."),
        click.option("--report", "reports", multiple=True, metavar="FORMAT:FILE",
                     help="Also write FORMAT to FILE, e.g. junit:fleet.xml (repeatable)."),
        click.option("--fail-on", type=click.Choice([k for k in FAIL_ON if k != "info"]),
                     default=None, help="Exit 1 when a finding is at or above this severity "
                     "[default: the policy's fail_on, else warning under --expect gpu, "
                     "else error]."),
        click.option("--expect", "intent", type=click.Choice(INTENTS), default=None,
                     help="What the nodes should train on [default: the policy's, else auto]."),
        click.option("--policy", "policy_file", metavar="FILE", help="Policy TOML (as check)."),
        click.option("--require", "requires", multiple=True, metavar="REQ",
                     help="A requirement per node, e.g. 'gpus>=8', 'torch>=2.4' "
                          "(repeatable; quote one with > or <)."),
        click.option("--no-redact", is_flag=True,
                     help="Keep host names (else host-1, host-2 …), addresses and UUIDs."),
        click.option("--show-hosts", is_flag=True,
                     help="Show the nodes' real host names (to drain them), still redacting "
                          "addresses, UUIDs and secrets (--no-redact keeps those too)."),
    ]):
        fn = option(fn)
    return fn


def _check_reports(reports: tuple[str, ...], output: str | None) -> None:
    """A wrong --report or an output that cannot be written fails before any rendezvous (on
    every rank alike)."""
    for spec in reports:
        parse_report_spec(spec)
    check_output_paths(output, reports)


def _text(report, fmt: str, color: bool, tail: Callable[[Any], str] | None = None,
          text: Callable[..., str] | None = None) -> str:
    from envdoctor.fleet import render
    from envdoctor.outputs.renderers import render as render_as
    if fmt == "text":
        if text is not None:
            return text(report, color, tail(report) if tail else "")
        return render.render(report, color) + (tail(report) if tail else "")
    return render_as("check", fmt, report, color)


def _without_host_vars(report):
    import dataclasses

    from envdoctor.outputs.redact import HOST_NAMES
    env = report.facts.env
    kept = {k: v for k, v in env.vars.items() if not HOST_NAMES.search(k)}
    if len(kept) == len(env.vars):
        return report
    facts = dataclasses.replace(report.facts, env=dataclasses.replace(env, vars=kept))
    return dataclasses.replace(report, facts=facts)


def _publish(report, fmt: str | None, output: str | None, redact: bool,
             reports: tuple[str, ...] = (), tail: Callable[[Any], str] | None = None,
             show_hosts: bool = False, text: Callable[..., str] | None = None) -> None:
    """The report, redacted once, to --output/stdout and to every --report FORMAT:FILE;
    ``tail`` adds text after the fleet text (from the redacted report); ``text`` renders
    the text instead of the fleet run's renderer. ``show_hosts``: the facts beside the
    report lose the variables that name hosts (MASTER_ADDR …), else the redactor would learn
    a node's name from them and hide it."""
    from envdoctor.outputs.sink import keep_credentials
    keep_credentials(not redact)
    if redact:
        if show_hosts:
            report = _without_host_vars(report)
        report = prepare(report)
    fmt = default_format(fmt)
    write_reports(report, [s for s in reports if parse_report_spec(s)[0] != "text"])
    for spec in reports:
        kind, path = parse_report_spec(spec)
        if kind == "text":
            emit(_text(report, "text", False, tail, text), path, "text")
    color = use_color(output) and fmt == "text"
    emit(_text(report, fmt, color, tail, text), output, fmt, color=color)


def _leave(code: int) -> None:
    """Exit without interpreter teardown: gloo's threads (and a probe stuck in a C call) must
    not keep a finished rank alive; what the rank started (a probe abandoned at its deadline,
    a live worker) goes with it, as in ``cli.run``."""
    from envdoctor import children
    children.kill_all()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


@click.group("fleet", cls=SuggestingGroup, invoke_without_command=True)
@click.option("--static", is_flag=True, help="No torch smoke in the ranks (probes, binding and "
              "rendezvous only).")
@click.option("--timeout", type=Seconds(min=2.0), default=60.0, show_default=True,
              metavar="S", help="Seconds a rank's torch import (in a child first) may go "
              "without progress, then seconds the rendezvous waits for every rank, then seconds "
              "each rank has to probe and arrive; ranks not there are named (late, dead or never "
              "joined), not waited for. A fault ends the run within S + 15 s after torch is "
              "imported (S more when the rendezvous itself waited; a rank that starts before "
              "rank 0 serves the store waits up to 2 × S more for it); 4 × S + 25 s is the hard "
              "bound a watchdog keeps. A rank told to stop (SIGTERM, SIGINT, SIGHUP) stops its "
              "probes, writes its snapshot (rank 0: the report of what it has, saying it was "
              "cancelled) and exits 128 + the signal within 10 s.")
@click.option("--bench", is_flag=True, help="Also: exact all-reduce, bus bandwidth sweep, matmul "
              "TFLOP/s, NCCL transport.")
@click.option("--out-dir", metavar="DIR", help="Every rank writes its snapshot here (read them "
              "with `fleet compare DIR`, e.g. after a failed rendezvous).")
@click.option("--store", metavar="FILE", help="Rendezvous through a file on a shared file system "
              "instead of MASTER_ADDR (also $ENVDOCTOR_FLEET_STORE).")
@click.option("--framework", "frameworks", metavar="NAMES", help="Also live-probe these other "
              "frameworks on each node (tensorflow,jax …), in child workers.")
@click.option("--smoke", "suite", type=click.Choice(["quick", "full"]), default="quick",
              show_default=True, help="The torch smoke suite run in each rank.")
@click.option("--root", "root", metavar="DIR", help="With --static: every node reads its "
              "system files (and the fleet's InfiniBand sysfs and NCCL plugin folders) under "
              "DIR, the same path on each node, as `check --static --root` does.")
@_gate_options
@click.pass_context
def fleet(ctx: click.Context, static: bool, timeout: float, bench: bool, out_dir: str | None,
          store: str | None, frameworks: str | None, suite: str, root: str | None,
          fmt: str | None,
          output: str | None, reports: tuple[str, ...], fail_on: str | None,
          intent: str | None, policy_file: str | None, requires: tuple[str, ...],
          no_redact: bool, show_hosts: bool) -> None:
    """Check a cluster as its job sees it: run as every rank, e.g.
    `torchrun --nnodes=N --nproc-per-node=G -m envdoctor fleet`.

    Rank 0 writes the report and exits 0 (no finding at --fail-on), 1 (findings: also ranks
    that were late, died, never joined, or a rendezvous store that failed), 2 (bad input,
    on every rank alike) or 3 (internal error; also a run that outlived its hard bound).
    Every other rank exits 0, with a line on stderr when its part did not complete. A rank
    cancelled by a signal (a scheduler's SIGTERM, SIGINT, SIGHUP) exits 128 + its number
    (143, 130, 129), rank 0 after reporting what it had (FLEET038)."""
    if ctx.invoked_subcommand is not None:
        return
    from envdoctor.fleet.run import Options, run_rank
    from envdoctor.gate import policy as gate

    gate_policy = gate.load(policy_file, requires)  # a bad policy fails before any rendezvous
    intent, fail_on = gate_policy.settings(intent, fail_on)
    _check_reports(reports, output)
    names = tuple(n.strip() for n in (frameworks or "").split(",") if n.strip() and
                  n.strip() != "torch")
    tree = ""
    if root is not None:  # checked before any rendezvous: a bad --root is exit 2 on every rank
        from envdoctor.errors import BadInput
        from envdoctor.pipeline import root_dir
        if not static or names:
            raise BadInput("--root needs --static and no --framework (the workers and the "
                           "torch smoke run on this machine)")
        tree = str(root_dir(root))
    options = Options(static=static, timeout=timeout, bench=bench, out_dir=out_dir or "",
                      store=store or "", frameworks=names, suite=suite, root=tree)

    def publish(result: Any) -> Any:
        report = _rank0_report(result, timeout, intent, fail_on, gate_policy, no_redact,
                               show_hosts)
        _publish(report, fmt, output, not no_redact, reports, show_hosts=show_hosts)
        return report

    options.on_cancel = publish
    result = run_rank(options)
    layout, outcome = result.layout, result.outcome
    if layout.rank != 0 or outcome.duplicate_of:
        if not outcome.barrier:
            where = f"; snapshot in {result.snapshot}" if result.snapshot else \
                " (give --out-dir DIR to keep this rank's snapshot)"
            say(f"envdoctor fleet: rank {layout.rank} on {layout.node}: "
                f"{outcome.error or 'did not complete'}{where}")
        _leave(0)
    _leave(publish(result).exit_code)


def _rank0_report(result: Any, timeout: float, intent: str, fail_on: str, gate_policy: Any,
                  no_redact: bool, show_hosts: bool) -> Any:
    """Rank 0's report of what it gathered (all of it, or what it had when cancelled)."""
    from envdoctor.fleet import model
    from envdoctor.fleet import report as fleet_report
    from envdoctor.fleet.run import unheard

    layout, outcome = result.layout, result.outcome
    payloads, errors = {}, ([outcome.error] if outcome.error else [])
    unreadable = []
    for rank, data in outcome.payloads.items():
        try:
            decoded = model.decode_payload(data)
            said = decoded["layout"].get("rank")
            if said != rank:  # the gather's slot (or store key) is the sender's RANK
                raise ValueError(f"its payload says it is rank {model.shown(said)}: not "
                                 "its own (a payload from another process or job)")
            payloads[rank] = decoded
        except ValueError as exc:
            # named, on the node its hello gave: its facts are missing from the verdict
            unreadable.append(rank)
            errors.append(f"rank {rank}: {model.payload_error(data) or exc}")
    if outcome.cancelled:
        payloads[0] = model.check_payload(result.payload)
    view = model.build(payloads, layout.world_size, layout.launcher, outcome.late,
                       outcome.hello, errors, outcome.dead, outcome.absent,
                       [] if outcome.cancelled else unheard(result), list(outcome.stray),
                       unreadable, list(outcome.nogroup), list(outcome.duplicate))
    view.timeout = timeout
    bench_view = (payloads.get(0) or {}).get("bench") or {}
    if bench_view:
        view.bench = {k: bench_view.get(k) for k in ("backend", "device", "world", "cross")
                      if bench_view.get(k) is not None}
    return fleet_report.build(view, intent=intent, fail_on=fail_on, policy=gate_policy,
                              redact=not (no_redact or show_hosts))


@fleet.command("compare")
@click.argument("paths", nargs=-1, required=True, metavar="DIR|FILE...")
@click.option("--baseline", metavar="SNAPSHOT", help="A golden node's snapshot (`envdoctor "
              "check --format json` or `envdoctor facts`): what the site expects. Every node "
              "whose driver, CUDA, NCCL, cuDNN, torch, Python, packages, variables … differ "
              "from it is named, even when most nodes agree with each other.")
@_gate_options
def compare(paths: tuple[str, ...], baseline: str | None, fmt: str | None, output: str | None,
            reports: tuple[str, ...], fail_on: str | None, intent: str | None,
            policy_file: str | None, requires: tuple[str, ...], no_redact: bool,
            show_hosts: bool) -> None:
    """The fleet rules over saved snapshots (`envdoctor check --format json` per node, or the
    rank snapshots of `fleet --out-dir`); no torch needed.

    Nodes whose facts agree (sensor readings such as temperatures and GPU UUIDs aside) are one
    group; the text shows the groups, largest first, and every finding with the nodes it
    names as host lists (gpu[001-040,043]) in at most 80 lines; --format json has every
    node. A value held by more than half the nodes is the majority; without one, each value
    is listed with its nodes. What the site expects comes from --baseline SNAPSHOT or from
    the policy's requirements (--policy, --require 'driver==550.54.15'): every node that
    differs is named. Node names come from the snapshot (its host) or its file name; host
    names are redacted (host-1 …) unless --show-hosts or --no-redact."""
    import dataclasses
    import gc

    from envdoctor.fleet import compare as fleet_compare
    from envdoctor.fleet import render
    from envdoctor.fleet import report as fleet_report
    from envdoctor.gate import policy as gate

    gate_policy = gate.load(policy_file, requires)
    intent, fail_on = gate_policy.settings(intent, fail_on)
    _check_reports(reports, output)
    golden = fleet_compare.load_baseline(baseline) if baseline else None
    view = fleet_compare.load(paths)
    gc.freeze()  # the snapshots live until exit: later collections need not rescan them
    report = fleet_report.build(view, intent=intent, fail_on=fail_on, policy=gate_policy,
                                redact=not (no_redact or show_hosts), baseline=golden)
    groups, nodes = fleet_compare.group_block(view, report.extra["fleet"])
    fleet_block = {**report.extra["fleet"], "nodes": nodes, "groups": groups,
                   "differences": fleet_compare.differences(view, report.findings),
                   **({"baseline": baseline} if baseline else {})}
    report = dataclasses.replace(report, extra={**report.extra, "fleet": fleet_block})
    _publish(report, fmt, output, not no_redact, reports,
             tail=lambda shown: fleet_compare.text_block(shown.extra["fleet"]["differences"]),
             show_hosts=show_hosts, text=render.render_compare)
    raise SystemExit(report.exit_code)
