"""Knowledge functions that let `check` fixes print the install `suggest` would give.

    fix = "{install}"   with   evidence = { install = "install_line('torch')" }

``install_line(framework)``: the command for this machine (GPU, driver, Python, platform), or,
when nothing in the data runs here or the facts cannot decide, a pointer to
``envdoctor suggest FRAMEWORK`` with the deciding reason. ``install_why(framework)``: one line
on what decided it. ``install_lines()``: one line per installed torch/tensorflow/jax.
Always strings, so a fix never prints "unknown".
"""

from __future__ import annotations

from typing import Any

from envdoctor.engine.vocabulary import register
from envdoctor.facts import Facts


def _suggestion(facts: Facts, framework: str) -> Any:
    from envdoctor.suggest import suggest
    return suggest(facts, [framework]).suggestions[0]


def line_of(facts: Facts, framework: str) -> str:
    s = _suggestion(facts, framework)
    if s.command:
        return s.command
    if s.status == "installed":
        return (f"{framework} {s.version} ({s.variant}) is already the right install: "
                "nothing to change")
    first = next((r.text for r in s.reasons if r.constraint not in ("platform", "python")),
                 s.reasons[0].text if s.reasons else "")
    return f"envdoctor suggest {framework}   ({first})"


def why_of(facts: Facts, framework: str) -> str:
    s = _suggestion(facts, framework)
    if not s.command:
        return f"no {framework} install in the data fits this machine as it was observed"
    blocked = sorted({r.constraint for r in s.reasons if "needs" in r.text or "no code" in r.text})
    what = f"{framework} {s.version} {s.variant}".strip()
    tail = f"; newer builds are ruled out by: {', '.join(blocked)}" if blocked else ""
    return f"{what} is the newest build for this GPU, driver and Python{tail}"


@register("install_line")
def _install_line(facts: Facts, intent: str) -> Any:
    """``install_line('torch')``: the install command `envdoctor suggest torch` gives here."""
    return lambda framework: line_of(facts, str(framework))


@register("install_why")
def _install_why(facts: Facts, intent: str) -> Any:
    """``install_why('torch')``: one line on which constraints decided that command."""
    return lambda framework: why_of(facts, str(framework))


@register("install_lines")
def _install_lines(facts: Facts, intent: str) -> Any:
    """``install_lines()``: "torch: <command>" for each installed torch / tensorflow / jax."""
    def fn() -> str:
        fw = facts.frameworks
        names = [n for n, b in (("torch", fw.torch), ("tensorflow", fw.tensorflow),
                                ("jax", fw.jax)) if b is not None]
        return "\n".join(f"{n}: {line_of(facts, n)}" for n in names or ["torch"])
    return fn
