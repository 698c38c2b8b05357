"""Renderers turn a document into text; they format and decide nothing.

One explicit registry keyed by (document, format): ``check`` (a Report), ``report`` (the bug
report of a Report), ``explain`` (an Explanation) and ``diff`` (a comparison). Each entry
names ``module:function`` with the signature ``render(obj, color, **options) -> str`` (an
option only the formats that know it take: ``verbose`` for check text); modules are
imported when used, so a command pays only for the format it prints. ``--format`` choices
come from here (``formats(document)``).
"""

from __future__ import annotations

import importlib
from typing import Any, Protocol


class Renderer(Protocol):
    """``render(obj, color) -> str``: the document and whether to colour it, positionally;
    any further parameter is an option with a default (``verbose`` for check text)."""

    def __call__(self, obj: Any, color: bool = False, /) -> str: ...


RENDERERS: dict[tuple[str, str], str] = {
    ("check", "text"): "envdoctor.outputs.renderers.text:render",
    ("check", "json"): "envdoctor.outputs.renderers.json_renderer:render",
    ("check", "markdown"): "envdoctor.outputs.renderers.markdown:render",
    ("check", "junit"): "envdoctor.outputs.renderers.junit:render",
    ("check", "sarif"): "envdoctor.outputs.renderers.sarif:render",
    ("check", "github"): "envdoctor.outputs.renderers.github:render",
    ("check", "nhc"): "envdoctor.outputs.renderers.oneline:render_nhc",
    ("check", "npd"): "envdoctor.outputs.renderers.oneline:render_npd",
    ("check", "prometheus"): "envdoctor.outputs.renderers.prometheus:render",
    ("report", "markdown"): "envdoctor.outputs.renderers.markdown:render_bug_report",
    ("report", "json"): "envdoctor.outputs.renderers.json_renderer:render_bug_report",
    ("explain", "text"): "envdoctor.explain.render:render_text",
    ("explain", "markdown"): "envdoctor.explain.render:render_markdown",
    ("explain", "json"): "envdoctor.explain.render:render_json",
    ("diff", "text"): "envdoctor.diff:render_document",
    ("diff", "json"): "envdoctor.diff:render_json",
}


def formats(document: str) -> list[str]:
    """The formats a document can be rendered in, sorted (``--format`` choices)."""
    return sorted(fmt for doc, fmt in RENDERERS if doc == document)


def renderer(document: str, fmt: str) -> Renderer:
    module, _, name = RENDERERS[(document, fmt)].partition(":")
    found: Renderer = getattr(importlib.import_module(module), name)
    return found


def render(document: str, fmt: str, obj: Any, color: bool = False, **options: Any) -> str:
    return renderer(document, fmt)(obj, color, **options)
