"""Apply a signature's ``[[conditions]]`` to facts: sharpen an answer, never invent one.

A condition is ``when`` (an expression over ``envdoctor.engine.vocabulary.names_for(facts)``),
a ``note``
with ``{placeholders}`` (any expression, e.g. ``{torch.version}``) and an optional new
confidence. Three-valued: a condition that is UNKNOWN (the fact was not observed, or a name
the expression needs is not defined) is simply not applied; only True adds the note.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from envdoctor.explain.signatures import Signature

if TYPE_CHECKING:
    from envdoctor.facts import Facts

# the facts sections (envdoctor.facts.SECTIONS; not imported here: it is slow to import and
# only needed once a matched signature has conditions)
SECTIONS = ("host", "nvidia", "rocm", "apple", "jetson", "cuda", "libraries", "packages",
            "frameworks", "env")

_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


# which facts sections a name in a condition reads (to probe only those)
NAME_SECTIONS: dict[str, tuple[str, ...]] = {
    **{name: (name,) for name in SECTIONS},
    "torch": ("frameworks",), "tensorflow": ("frameworks",), "jax": ("frameworks",),
    "keras": ("frameworks",), "gpus": ("nvidia",), "python": ("host",),
    "pkg": ("packages",), "has": ("packages",), "live": (), "intent": (), "origin": (),
    "framework_saw_gpu": (),
    "any_gpu_cc": ("nvidia",), "no_gpu_reason": ("nvidia", "rocm", "jetson", "env"),
    "amd_machine": ("rocm",), "apple_machine": ("apple",), "jetson_machine": ("jetson",),
    "torch_has_arch": ("frameworks", "libraries"),
    "torch_missing_archs": ("frameworks", "libraries", "nvidia"),
    # expression builtins read no facts
    **{name: () for name in ("any", "all", "list", "len", "known", "min", "max", "version",
                             "spec", "major", "minor", "round", "str", "sorted", "set")},
}


def sections_needed(signatures: list[Signature]) -> tuple[str, ...] | None:
    """The facts sections these signatures' conditions read; None means all of them.

    A name we do not know (a new knowledge function) asks for every section, so a missing
    entry here costs time, never a wrong answer.
    """
    from envdoctor.engine import expr
    needed: set[str] = set()
    for sig in signatures:
        for cond in sig.conditions:
            for name in expr.free_names(cond.when):
                if name not in NAME_SECTIONS:
                    return None
                needed.update(NAME_SECTIONS[name])
    return tuple(sorted(needed))


def merge_facts(live: Facts | None, report: Facts | None) -> Facts | None:
    """Report facts (parsed from the pasted text) win, section by section, where they know."""
    if report is None:
        return live
    if live is None:
        return report
    changes = {name: getattr(report, name) for name in SECTIONS
               if getattr(report, name).probe.status.known}
    return replace(live, **changes)


class ConditionEvaluator:
    """Callable used by ``rank``: ``(signature) -> (confidence or None, notes)``."""

    def __init__(self, facts: Facts):
        from envdoctor.engine import expr
        from envdoctor.engine.vocabulary import names_for
        self.expr = expr
        self.ev = expr.Evaluator({**expr.BUILTINS, **names_for(facts)})

    def _value(self, tree: Any) -> Any:
        try:
            return self.ev(tree)
        except Exception:  # an unknown name or a bad call in data: not applied, never a crash
            return self.expr.UNKNOWN

    def _fill(self, note: str) -> str:
        expr = self.expr

        def one(m: re.Match[str]) -> str:
            try:
                value = self._value(expr.compile_expr(m.group(1)))
            except expr.ExprError:
                return m.group(0)
            return "unknown" if value is expr.UNKNOWN or value is None else str(value)
        return _PLACEHOLDER.sub(one, note)

    def __call__(self, sig: Signature) -> tuple[str | None, tuple[str, ...], str | None]:
        """(new confidence, notes, new category) from the conditions that hold."""
        confidence, notes, category = None, [], None
        for cond in sig.conditions:
            value = self._value(cond.when)
            if value is self.expr.UNKNOWN or not value:
                continue
            if cond.note:
                notes.append(self._fill(cond.note))
            if cond.confidence:
                confidence = cond.confidence
            if cond.category:
                category = cond.category
        return confidence, tuple(notes), category
