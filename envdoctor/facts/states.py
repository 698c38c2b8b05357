"""What a fact's value is worth: observed, stated, confirmed absent, not observed, or failed.

*Stated* is a fact a person wrote in a pasted text ("GTX 1080 Ti" in a title, "My tensorflow
version is 2.12.0", an issue form's fields): rules read it as they read an observed one, and
the report says it was stated (``ProbeInfo.sources[path]`` starts with ``STATED_PREFIX``).

A section's ``ProbeInfo`` carries the states (``status`` for the whole section, ``unobserved``
and ``failed`` per path); this module reads them, and gives probes and parsers the helpers to
write them. Paths are dotted and relative to the section (``"torch.cuda"`` in ``frameworks``,
``"gpus"`` in ``nvidia``); a path covers everything below it, and inside a list it applies to
every item (``"gpus.cc"``: no GPU's compute capability was observed).

How to say what you did not see
- a probe that could not run a tool:  ``failed_field(section, "gpus", "nvidia-smi did not answer
  in 10 s")`` or, for the whole section, ``ProbeInfo(status=Status.ERROR, reason=…, ran=…)``;
- a parser of pasted text: ``only_stated(section, stated_paths)`` marks every field the text
  did not state as not observed (a jax block with devices but no plugin list: ``jax.plugins``).
- confirmed absence needs no mark: a field of a section that answered, not listed as
  unobserved or failed, is what was seen (``None`` / ``()`` = looked, not there).
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import replace
from enum import Enum
from typing import Any

from envdoctor.facts import SECTIONS, Facts, ProbeInfo, Status


class State(str, Enum):
    OBSERVED = "observed"      # seen, with a source
    STATED = "stated"          # written in a pasted text (a title, prose, a form), not a tool's
    ABSENT = "absent"          # looked where it would be: not there
    UNOBSERVED = "unobserved"  # nobody looked (not in the pasted report, probe skipped)
    FAILED = "failed"          # looked, and the looking broke

    @property
    def known(self) -> bool:
        return self in (State.OBSERVED, State.STATED, State.ABSENT)


# the source of a field that a person wrote in a pasted text, not a tool printed
STATED_PREFIX = "stated in text"


def _covers(marked: str, path: str) -> bool:
    """A mark on ``marked`` applies to ``path``: the same path or one of its ancestors."""
    return path == marked or path.startswith(marked + ".")


def _below(path: str, marked: str) -> bool:
    return marked.startswith(path + ".") if path else True


def path_state(info: ProbeInfo, path: str) -> tuple[State, str]:
    """The state of ``path`` (relative to its section) and, for failed, why.

    ``OBSERVED`` is returned for fields of a section that answered even when the value is
    ``None`` or empty: then it is a confirmed absence (the caller sees the value).
    """
    status = info.status
    if status is Status.NOT_FOUND:
        return State.ABSENT, info.reason
    if status is Status.ERROR:
        return State.FAILED, info.reason or "the probe failed"
    if status is not Status.OK:
        return State.UNOBSERVED, info.reason or status.value
    for marked, why in info.failed.items():
        if _covers(marked, path):
            return State.FAILED, why
    for marked in info.unobserved:
        if _covers(marked, path):
            return State.UNOBSERVED, "not observed"
    for marked, source in info.sources.items():
        if _covers(marked, path) and source.startswith(STATED_PREFIX):
            return State.STATED, source  # as good as observed for a rule, and said so
    return State.OBSERVED, info.sources.get(path, info.source)


def marks_below(info: ProbeInfo, path: str) -> tuple[str, ...]:
    """Marked paths strictly below ``path`` (``"jax.plugins"`` is below ``"jax"``)."""
    marked = (*info.failed, *info.unobserved)
    return tuple(m for m in marked if _below(path, m) and m != path)


def state_of(facts: Facts, path: str) -> tuple[State, str]:
    """The state of a dotted path from the snapshot's root: ``"nvidia.driver_version"``."""
    section, _, rest = path.partition(".")
    if section not in SECTIONS:
        raise KeyError(f"{section!r} is not a facts section ({', '.join(SECTIONS)})")
    return path_state(getattr(facts, section).probe, rest)


# ---------------------------------------------------------------------------- writing
def unobserved_field(section: Any, *paths: str) -> Any:
    """``section`` with ``paths`` marked as not observed."""
    info = section.probe
    added = tuple(p for p in paths if p not in info.unobserved)
    return replace(section, probe=replace(info, unobserved=info.unobserved + added))


def failed_field(section: Any, path: str, why: str) -> Any:
    """``section`` with ``path`` marked as failed: ``why`` says what ran and how it broke."""
    info = section.probe
    return replace(section, probe=replace(info, failed={**info.failed, path: why}))


def field_paths(cls: type, prefix: str = "", depth: int = 2) -> tuple[str, ...]:
    """Every field path of a facts dataclass (nested records to ``depth``), ``probe`` excluded.

    ``FrameworkFacts`` -> ``("torch", "torch.version", "torch.cuda", …, "jax.plugins", …)``.
    """
    hints = typing.get_type_hints(cls)
    out: list[str] = []
    for f in dataclasses.fields(cls):
        if f.name == "probe":
            continue
        path = f"{prefix}{f.name}"
        out.append(path)
        inner = _record_type(hints[f.name])
        if inner is not None and depth > 1:
            out.extend(field_paths(inner, path + ".", depth - 1))
    return tuple(out)


def _record_type(tp: Any) -> type | None:
    """The dataclass inside ``X | None`` (a nested record), else None (lists stay whole)."""
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return tp
    for arg in typing.get_args(tp):
        if isinstance(arg, type) and dataclasses.is_dataclass(arg) \
                and typing.get_origin(tp) is not tuple:
            return arg
    return None


def only_stated(section: Any, stated: set[str] | frozenset[str] | tuple[str, ...]) -> Any:
    """``section`` with every field path the source did not state marked as not observed.

    For parsers of pasted text: ``stated`` holds the paths the text showed (``"jax.version"``,
    ``"jax.jaxlib"``); a path is stated when it, a descendant or an ancestor is. Nested records
    that were not stated at all are marked as a whole (``"keras"``), so a rule that asks
    whether Keras is installed gets *unknown*, not "no".
    """
    wanted = set(stated)

    def is_stated(path: str) -> bool:
        return any(s == path or s.startswith(path + ".") or path.startswith(s + ".")
                   for s in wanted)

    missing: list[str] = []
    for path in field_paths(type(section)):
        if is_stated(path) or any(_covers(m, path) for m in missing):
            continue
        missing.append(path)
    return unobserved_field(section, *missing) if missing else section


def value_at(section: Any, path: str) -> Any:
    """The value at ``path`` inside a section record (None when a step is missing)."""
    obj = section
    for part in path.split(".") if path else ():
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj
