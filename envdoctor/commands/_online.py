"""The --online flags `suggest` and `check` share, and the settings they make (the one place
that turns them into an ``index.Online``)."""

from __future__ import annotations

from typing import Any

import click

from envdoctor.cligroups import Seconds
from envdoctor.errors import BadInput


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
        click.option("--online-timeout", type=Seconds(0.5, 60.0), default=None,
                     metavar="S", help="Seconds all of --online's requests may take together "
                                       "[default: 10]."),
    ]):
        command = option(command)
    return command


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
