"""Renderers turn a report into text; they format and decide nothing.

One explicit registry: ``--format`` choices come from it, and later outputs (markdown, junit,
sarif, github) are one module and one line here.
"""

from __future__ import annotations

from collections.abc import Callable

from envdoctor.renderers import github, json_renderer, junit, markdown, sarif, text
from envdoctor.report import Report

Renderer = Callable[[Report, bool], str]

RENDERERS: dict[str, Renderer] = {
    "text": text.render,
    "json": json_renderer.render,
    "markdown": markdown.render,
    "junit": junit.render,
    "sarif": sarif.render,
    "github": github.render,
}


def render(name: str, report: Report, color: bool = False) -> str:
    return RENDERERS[name](report, color)
