"""Renderers turn a report into text; they format and decide nothing.

One explicit registry: ``--format`` choices come from it, and later outputs (markdown, junit,
sarif, github) are one module and one line here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from envdoctor.outputs.report import Report

Renderer = Callable[["Report", bool], str]

# format name -> module in envdoctor.outputs.renderers with `render(report, color) -> str`.
# Modules are
# imported when used, so `check` pays only for the format it prints.
RENDERERS: dict[str, str] = {
    "text": "text",
    "json": "json_renderer",
    "markdown": "markdown",
    "junit": "junit",
    "sarif": "sarif",
    "github": "github",
}


def renderer(name: str) -> Renderer:
    return importlib.import_module(f"envdoctor.outputs.renderers.{RENDERERS[name]}").render


def render(name: str, report: Report, color: bool = False) -> str:
    return renderer(name)(report, color)
