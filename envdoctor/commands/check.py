"""`envdoctor check`: probe (or replay) facts, run the rules, report."""

from __future__ import annotations

import click

from envdoctor import pipeline
from envdoctor.cligroups import Seconds
from envdoctor.commands._online import online_options, online_settings
from envdoctor.commands._output import emit, use_color
from envdoctor.engine import INTENTS
from envdoctor.engine.findings import FAIL_ON
from envdoctor.outputs.renderers import formats, render


@click.command("check")
@click.option("--static", is_flag=True, help="Static probes only: import no framework.")
@click.option("--root", "root", metavar="DIR",
              help="With --static: read system files (/proc, /sys, /dev, /etc, /usr, /opt, the "
                   "loader cache) under DIR, e.g. an unpacked container image or a mounted "
                   "disk; tools still come from PATH, Python packages from this interpreter.")
@click.option("--facts", "facts_file", metavar="FILE",
              help="Replay the rules on a saved facts snapshot instead of probing.")
@click.option("--from", "report_file", metavar="FILE|-",
              help="Diagnose someone else's environment from a pasted report "
                   "(collect_env, nvidia-smi, pip list, issue text …).")
@click.option("--format", "fmt", type=click.Choice(formats("check")), default=None,
              help="Output format [default: text; github under GITHUB_ACTIONS=true]. For "
                   "schedulers: nhc (NHC/Slurm: a drain reason, nothing when healthy), npd "
                   "(node-problem-detector: exit 0 OK, 1 problem, 2 unknown), prometheus "
                   "(node exporter textfile).")
@click.option("--output", "-o", metavar="FILE", help="Write the report to FILE.")
@click.option("--fail-on", type=click.Choice([k for k in FAIL_ON if k != "info"]),
              default=None, help="Exit 1 when a finding is at or above this severity "
              "[default: the policy's fail_on, else warning under --expect gpu, else error].")
@click.option("--expect", "intent", type=click.Choice(INTENTS), default=None,
              help="What this machine should train on [default: the policy's expect, else auto].")
@click.option("-v", "--verbose", is_flag=True, help="Also list passed and unknown checks.")
@click.option("--policy", "policy_file", metavar="FILE",
              help="Policy TOML [default: ./pyproject.toml [tool.envdoctor], ./envdoctor.toml].")
@click.option("--require", "requires", multiple=True, metavar="REQ",
              help="A requirement, e.g. 'torch>=2.4', 'gpus>=8', bf16 (repeatable; quote "
                   "one with > or <, which the shell reads as a redirection).")
@click.option("--report", "reports", multiple=True, metavar="FORMAT:FILE",
              help="Also write FORMAT to FILE, e.g. junit:out.xml (repeatable).")
@click.option("--no-redact", is_flag=True,
              help="Keep host and user names, addresses, GPU UUIDs and credentials in outputs.")
@click.option("--smoke", "smoke_suite", type=click.Choice(["quick", "full"]), default="quick",
              show_default=True, help="Smoke suite per framework; full adds torch.compile, "
              "SavedModel, memory, multi-GPU and speed steps.")
@click.option("--no-smoke", is_flag=True, help="Run the live framework workers, no smoke kernels.")
@click.option("--framework", "frameworks", metavar="NAMES",
              help="Live-probe only these frameworks, e.g. torch,jax [default: all installed].")
@online_options
@click.option("--timeout", "worker_timeout", type=Seconds(min=1.0), default=None,
              metavar="S", help="Seconds each framework worker may run "
              "[default: 120; 300 with --smoke full].")
def check(static: bool, facts_file: str | None, report_file: str | None, fmt: str | None,
          output: str | None,
          fail_on: str | None, intent: str | None, verbose: bool, policy_file: str | None = None,
          requires: tuple[str, ...] = (), reports: tuple[str, ...] = (),
          no_redact: bool = False, smoke_suite: str = "quick", no_smoke: bool = False,
          frameworks: str | None = None, worker_timeout: float | None = None,
          online: bool = False, index_url: str | None = None,
          torch_index_url: str | None = None, online_timeout: float | None = None,
          root: str | None = None) -> None:
    """Tell whether this machine can train, and why not."""
    from envdoctor.commands._output import default_format, parse_report_spec, write_reports
    from envdoctor.gate import policy as policy_mod

    gate = policy_mod.load(policy_file, requires)
    intent, fail_on = gate.settings(intent, fail_on)
    fmt = default_format(fmt)
    for spec in reports:
        parse_report_spec(spec)  # a wrong --report fails before any probing
    from envdoctor.commands._output import check_output_paths
    check_output_paths(output, reports)  # so does an unwritable or doubly used path
    from envdoctor.outputs.sink import keep_credentials
    keep_credentials(no_redact)  # every document of the run, also those written later
    settings = online_settings(online, index_url, torch_index_url, online_timeout)  # and flags
    checks = pipeline.preload_checks()  # overlaps with the probes' waiting
    facts = pipeline.collect(report_file=report_file, facts_file=facts_file,
                             live=not static, frameworks=frameworks, timeout=worker_timeout,
                             suite=smoke_suite, smoke=not no_smoke, root=root)
    from envdoctor.suggest import online_mode
    with online_mode(settings) as said:
        report = pipeline.build(facts, intent=intent, fail_on=fail_on, policy=gate,
                                redact=not no_redact, checks=checks)
    from envdoctor.suggest import data_line_matters
    if said and data_line_matters(list(said), online=settings is not None):
        from envdoctor.outputs.stderr import say
        for line in said:   # the date of the data the fixes' install commands rest on
            say(f"envdoctor: install commands in fixes: {line}")
    write_reports(report, reports)
    options = {"verbose": True} if verbose and fmt == "text" else {}
    color = use_color(output) and fmt == "text"
    emit(render("check", fmt, report, color=color, **options), output, fmt, color=color)
    if fmt == "npd":  # node-problem-detector reads 2 as Unknown: a verdict nobody can trust
        from envdoctor.outputs.renderers.oneline import npd_exit
        raise SystemExit(npd_exit(report))
    raise SystemExit(report.exit_code)
