"""`envdoctor suggest [FRAMEWORK...]`: the install command that fits this machine."""

from __future__ import annotations

import click

from envdoctor.commands._online import online_options, online_settings
from envdoctor.errors import EXIT_FINDINGS, BadInput


@click.command("suggest")
@click.argument("frameworks", nargs=-1, metavar="[FRAMEWORK...]")
@click.option("--facts", "facts_file", metavar="FILE",
              help="Reason about a saved facts snapshot instead of probing this machine.")
@click.option("--from", "report_file", metavar="FILE",
              help="Reason about a pasted report (collect_env, nvidia-smi, pip list …); - = stdin.")
@click.option("--installer", type=click.Choice(["pip", "uv", "conda"]), default="pip",
              show_default=True, help="Spell the commands for this installer.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("--output", "-o", metavar="FILE", help="Write the answer to FILE.")
@click.option("--keep", is_flag=True,
              help="Keep the installed release when a build of it runs here (say so) instead "
                   "of the newest.")
@click.option("--verbose", "-v", is_flag=True, help="Every reason, with its source URL.")
@online_options
def suggest(frameworks: tuple[str, ...], facts_file: str | None, report_file: str | None,
            installer: str, fmt: str, output: str | None, verbose: bool, keep: bool = False,
            online: bool = False, index_url: str | None = None,
            torch_index_url: str | None = None, online_timeout: float | None = None) -> None:
    """The newest release of each FRAMEWORK that runs here, its variant and the exact command.

    FRAMEWORK: torch (torchvision, torchaudio), tensorflow, jax, xformers, bitsandbytes,
    flash-attn; none named = the installed ones. Static probes only (no framework is imported),
    no network unless --online: the answer comes from rules/matrices and says how old that
    data is; with --online the releases come from the package indexes (an index that cannot
    be read: the shipped answer and one line saying so). NVIDIA: the driver and the GPU's
    architecture decide the CUDA wheel; AMD: the GPU's gfx target and the ROCm release decide
    the ROCm wheel (undecided where AMD's lists cannot).

    Exit 0 with suggestions, 1 when no release of a named framework runs on this machine,
    2 on bad input.
    """
    from envdoctor import suggest as engine
    from envdoctor.commands._output import check_output_paths, emit
    from envdoctor.suggest.render import to_json, to_text

    if facts_file and report_file:
        raise BadInput("--facts and --from exclude each other: give a snapshot or a pasted report")
    check_output_paths(output, ())
    settings = online_settings(online, index_url, torch_index_url, online_timeout)
    try:
        names = [engine.canonical(n) for n in frameworks]
    except engine.UnknownFramework as exc:
        raise BadInput(str(exc)) from None
    if report_file:
        from envdoctor.parsers import load_report_file
        facts = load_report_file(report_file)
    elif facts_file:
        from envdoctor import pipeline
        facts = pipeline.load_facts_file(facts_file)
    else:
        from envdoctor.probes import collect
        facts = collect()
    raw = [f.lower() for f in frameworks]
    result = engine.suggest(facts, raw or None, installer, online=settings, keep_installed=keep)
    emit(to_json(result) if fmt == "json" else to_text(result, verbose), output, fmt)
    if names and any(s.status == "none" for s in result.suggestions):
        raise SystemExit(EXIT_FINDINGS)


