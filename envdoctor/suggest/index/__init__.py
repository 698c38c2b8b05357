"""`suggest --online`: the releases the package indexes list today, for one machine profile.

    online = Online(index_url=None, torch_index_url=TORCH_ROOT, timeout=10.0)
    view, lines = view_for(machine, ["torch", "jax"], audio=False, online=online)
    with data.releases_from(view): ...plan...

``index_url``: a PyPI-style simple index (PEP 691 JSON, else PEP 503 HTML); None = the one pip
is configured with (``PIP_INDEX_URL``, pip.conf / pip.ini), else https://pypi.org/simple.
``torch_index_url``: the PyTorch wheel root (``<root>/<variant>/torch/``). Every request of a
run shares one deadline (``timeout`` seconds); a page that cannot be read leaves its framework
to the shipped data, with one line saying so. Nothing here runs unless ``--online`` asks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from envdoctor.suggest.index.http import redact
from envdoctor.suggest.index.reader import Reader
from envdoctor.suggest.index.view import IndexView, read_jax, read_tf, read_torch
from envdoctor.suggest.machine import Machine

PYPI = "https://pypi.org/simple"
TORCH_ROOT = "https://download.pytorch.org/whl"
DEFAULT_TIMEOUT = 10.0

__all__ = ["DEFAULT_TIMEOUT", "PYPI", "TORCH_ROOT", "IndexView", "Online", "view_for"]


class BadIndexUrl(ValueError):
    """An index address that is not http(s)."""


def check_url(url: str, what: str) -> str:
    from urllib.parse import urlsplit
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BadIndexUrl(f"{what} must be an http(s) address, not {redact(url)!r}")
    return url.strip().rstrip("/")


@dataclass
class Online:
    """How `--online` reads: which indexes, within how many seconds in all."""

    index_url: str | None = None
    torch_index_url: str = TORCH_ROOT
    timeout: float = DEFAULT_TIMEOUT
    _reader: Reader | None = field(default=None, repr=False)
    _views: dict[tuple[object, ...], tuple[IndexView, list[str]]] = field(
        default_factory=dict, repr=False)

    def pypi(self) -> tuple[str, str]:
        """(simple index URL, where it comes from): the flag, else pip's configuration, else
        PyPI. A configured index that is not http(s) (a local folder) is not read: PyPI."""
        if self.index_url:
            return check_url(self.index_url, "--index-url"), "--index-url"
        from envdoctor.suggest.index.config import pip_index_url
        got = pip_index_url()
        if got is not None:
            try:
                return check_url(got[0], "pip's index-url"), got[1]
            except BadIndexUrl:
                pass
        return PYPI, "default"

    def reader(self) -> Reader:
        if self._reader is None:
            self._reader = Reader(self.timeout)
        return self._reader


def view_for(m: Machine, frameworks: list[str], audio: bool, online: Online
             ) -> tuple[IndexView, list[str]]:
    """The index view for machine ``m`` and the lines to print about it (what could not be
    read). One view per machine profile and request within a run."""
    from envdoctor.suggest.plan import assumed_platform
    platform, _ = assumed_platform(m)
    # every fact a view is built from (the driver and GPUs decide which CUDA or ROCm variants
    # and plugins are read and kept, the macOS release and the C library which wheels fit):
    # two profiles that share a platform and Python but not these never share a view
    key = (platform, m.python, m.nvidia, m.gpus, m.driver, m.torch_hip, m.torch_variant,
           m.amd, m.amd_gpus, m.has_amd, m.os, m.wsl, m.jetson, m.macos, m.glibc, m.intel_gpus,
           tuple(sorted(frameworks)), audio)
    if key in online._views:
        return online._views[key]
    pypi, _where = online.pypi()
    view = IndexView(check_url(online.torch_index_url, "--torch-index-url"))
    reader = online.reader()
    if "torch" in frameworks or any(f in frameworks for f in
                                    ("xformers", "bitsandbytes", "flash-attn")):
        read_torch(view, m, platform, audio, reader, pypi)
    if "jax" in frameworks:
        read_jax(view, m, platform, reader, pypi)
    if "tensorflow" in frameworks:
        read_tf(view, m, platform, reader, pypi)
    lines = list(view.partial)
    if view.failures:
        names = ", ".join(dict.fromkeys(f for f, _, _ in view.failures))
        framework, url, why = view.failures[0]
        from envdoctor.suggest.data import data_as_of
        lines.append(f"online: {url} could not be read ({why}); {names}: answered from the "
                     f"shipped data as of {data_as_of()}")
    online._views[key] = (view, lines)
    return view, lines
