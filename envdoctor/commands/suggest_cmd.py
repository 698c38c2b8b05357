"""`envdoctor suggest [FRAMEWORK...]`: the install command that fits this machine."""

from __future__ import annotations

from typing import Any

import click

from envdoctor.errors import EXIT_FINDINGS, BadInput


def online_options(command: Any) -> Any:
    """--online and the flags that say which indexes it reads (`suggest` and `check`)."""
    for option in reversed([
        click.option("--online", is_flag=True,
                     help="Read the releases the package indexes list today (the only "
                          "network use)."),
        click.option("--index-url", metavar="URL", default=None,
                     help="Simple index for --online [default: pip's configured index-url, "
                          "else https://pypi.org/simple]."),
        click.option("--torch-index-url", metavar="URL", default=None,
                     help="PyTorch wheel root for --online, <URL>/<variant>/torch/ "
                          "[default: https://download.pytorch.org/whl]."),
        click.option("--online-timeout", type=click.FloatRange(0.5, 60.0), default=None,
                     metavar="S", help="Seconds all of --online's requests may take together "
                                       "[default: 10]."),
    ]):
        command = option(command)
    return command


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
    be read: the shipped answer and one line saying so).

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


def online_settings(online: bool, index_url: str | None = None,
                    torch_index_url: str | None = None, timeout: float | None = None) -> Any:
    """The ``index.Online`` of the --online flags (None without --online); an index flag
    without --online, or an address that is not http(s), is bad input."""
    given = [n for n, v in (("--index-url", index_url), ("--torch-index-url", torch_index_url),
                            ("--online-timeout", timeout)) if v is not None]
    if not online:
        if given:
            raise BadInput(f"{given[0]} needs --online (without it no index is read)")
        return None
    from envdoctor.suggest.index import DEFAULT_TIMEOUT, TORCH_ROOT, BadIndexUrl, Online, check_url
    try:
        if index_url is not None:
            check_url(index_url, "--index-url")
        check_url(torch_index_url or TORCH_ROOT, "--torch-index-url")
    except BadIndexUrl as exc:
        raise BadInput(str(exc)) from None
    return Online(index_url, torch_index_url or TORCH_ROOT, timeout or DEFAULT_TIMEOUT)
