"""Facts as rules see them: every value is observed, confirmed absent, or UNKNOWN.

The fact states live in the snapshot (``ProbeInfo.unobserved`` / ``failed``, see
``envdoctor.facts.states``); this module applies them, so no rule and no knowledge function
has to. A section that did not answer is UNKNOWN; inside a section that did, a field that was
not observed or whose probe failed is UNKNOWN, and a collection seen in part is a
``Partial`` (its items are facts, "nothing else" is not). ``x is None``, ``len(x) == 0``,
``not any(...)``, ``not has(...)`` and ``absent(x)`` are then true only on confirmed absence.

Two readers share the rules: ``section_view`` wraps a section for rule expressions
(attribute access applies the states lazily); ``resolve`` reads one dotted path strictly for
knowledge functions (UNKNOWN when the path, an ancestor or anything below it is not known).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from envdoctor.engine.expr import UNKNOWN, Partial, PartialMap, UnknownFact
from envdoctor.facts import Facts, LiveFramework, ProbeInfo, Status
from envdoctor.facts.states import State, marks_below, path_state

# Properties and methods of the facts records, and the fields they are computed from: when
# any of those is not known, neither is the property (``nvidia.gpu_count`` of a GPU list seen
# in part). A property not listed depends on every field of its record.
DERIVED: dict[str, tuple[str, ...]] = {
    "gpu_count": ("gpus",), "gpu_names": ("gpus",), "has_driver": ("driver_version",),
    "versions": ("toolkits",), "named": ("libraries",), "get": ("distributions",),
    "memory_total_gb": ("memory_total_mb",), "gpus": ("devices",),
    "cudnn_major": ("cudnn", "built_cudnn"), "shadowed": ("loaded", "shipped"),
    "diagnosis_text": ("diagnoses",), "failed": ("steps",),
}


def _has_marks(info: ProbeInfo) -> bool:
    return bool(info.unobserved or info.failed)


def section_view(section: Any) -> Any:
    """A facts section for rule expressions: UNKNOWN when it did not answer, the section
    itself when every field is known, else a ``View`` that applies the per-field states."""
    info = section.probe
    if info.status not in (Status.OK, Status.NOT_FOUND):
        return UNKNOWN
    if info.status is Status.NOT_FOUND or not _has_marks(info):
        return section
    return View(section, info, "")


class View:
    """A record inside a section whose fields are not all known (see the module doc)."""

    __slots__ = ("_obj", "_info", "_prefix")

    def __init__(self, obj: Any, info: ProbeInfo, prefix: str):
        self._obj, self._info, self._prefix = obj, info, prefix

    def __repr__(self) -> str:
        return f"View({self._obj!r})"

    def __getattr__(self, name: str) -> Any:
        """The field ``name`` under its fact state; ``UnknownFact`` (never None) for a name
        the record does not have."""
        if name.startswith("_"):
            raise AttributeError(name)
        obj, info = self._obj, self._info
        if name == "probe" and not self._prefix:
            return info
        path = self._prefix + name
        if dataclasses.is_dataclass(obj) and name not in {f.name for f in
                                                          dataclasses.fields(obj)}:
            return self._derived(name)
        state, _ = path_state(info, path)
        value = getattr(obj, name, None)
        if state is State.FAILED:
            return UNKNOWN
        if state is State.UNOBSERVED:
            return _partial(value, info, path)
        return _wrap(value, info, path)

    def _derived(self, name: str) -> Any:
        """A property or method of the record, UNKNOWN unless its inputs are known."""
        if not hasattr(type(self._obj), name):  # neither a field nor a property: a typo
            raise UnknownFact(type(self._obj).__name__, self._prefix + name)
        deps = DERIVED.get(name)
        fields = deps if deps is not None else tuple(
            f.name for f in dataclasses.fields(self._obj) if f.name != "probe")
        partial = False
        for dep in fields:
            path = self._prefix + dep
            state, _ = path_state(self._info, path)
            if state is State.FAILED:
                return UNKNOWN
            if state is State.UNOBSERVED or marks_below(self._info, path):
                partial = True
        value = getattr(self._obj, name, None)
        if not partial:
            return value
        if callable(value):
            return _PartialLookup(value)
        return UNKNOWN


class _PartialLookup:
    """A look-up method over a collection seen in part: what it finds is a fact; "found
    nothing" is UNKNOWN (``packages.get('tqdm')`` on an excerpt of a pip list)."""

    __slots__ = ("fn",)

    def __init__(self, fn: Any):
        self.fn = fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        value = self.fn(*args, **kwargs)
        if value is None or value == ():
            return UNKNOWN
        return Partial(value) if isinstance(value, tuple) else value


def _wrap(value: Any, info: ProbeInfo, path: str) -> Any:
    """A known value; records (and lists of records) whose fields carry marks become Views."""
    if not marks_below(info, path):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return View(value, info, path + ".")
    if isinstance(value, tuple):
        return tuple(View(v, info, path + ".") if dataclasses.is_dataclass(v) else v
                     for v in value)
    return value


def _partial(value: Any, info: ProbeInfo, path: str) -> Any:
    """A field nobody observed: a collection keeps its observed items, anything else is
    UNKNOWN (its stored value is only a default)."""
    if isinstance(value, tuple):
        return Partial(_wrap(value, info, path))
    if isinstance(value, dict):
        return PartialMap(value)
    return UNKNOWN


def unwrap(value: Any) -> Any:
    """Plain facts for a knowledge function: Views become their records; a partial
    collection is UNKNOWN (a function sees only facts that are whole)."""
    if isinstance(value, View):
        return value._obj
    if isinstance(value, (Partial, PartialMap)):
        return UNKNOWN
    if isinstance(value, (list, tuple)) and any(isinstance(v, (View, Partial, PartialMap))
                                                for v in value):
        items = [unwrap(v) for v in value]
        return UNKNOWN if any(v is UNKNOWN for v in items) else type(value)(items)
    return value


# ---------------------------------------------------------------------------- strict paths
def live_ran(facts: Facts) -> bool:
    """Whether any live worker answered or failed (not only skipped ones)."""
    return any(isinstance(lf, LiveFramework) and lf.probe.status is not Status.SKIPPED
               for lf in facts.live.values())


def resolve(facts: Facts, path: str, partial_ok: bool = False) -> Any:
    """The value at a dotted path, or UNKNOWN unless it and everything it holds is known.

    ``partial_ok``: a collection seen in part yields its observed items (for functions that
    report what they find among the items, never an absence). ``<section>.probe`` is always
    known; ``live`` is UNKNOWN when no framework worker ran; ``live.<name>`` is that worker's
    record or None.
    """
    head, _, rest = path.partition(".")
    if head == "live":
        if not live_ran(facts):
            return UNKNOWN
        return dict(facts.live) if not rest else facts.live.get(rest)
    section = getattr(facts, head)
    info: ProbeInfo = section.probe
    if rest == "probe" or rest.startswith("probe."):
        return _walk(section, rest)
    state, _ = path_state(info, rest)
    if state is State.FAILED:
        return UNKNOWN
    value = _walk(section, rest)
    if state is State.UNOBSERVED:
        return value if partial_ok and isinstance(value, (tuple, dict)) \
            and info.status is Status.OK else UNKNOWN
    if marks_below(info, rest) and not partial_ok:
        return UNKNOWN
    return value


def _walk(obj: Any, rest: str) -> Any:
    for part in rest.split(".") if rest else ():
        if obj is None:
            return None
        if isinstance(obj, dict):
            obj = obj.get(part)
        elif dataclasses.is_dataclass(obj) and not hasattr(obj, part):
            raise UnknownFact(type(obj).__name__, part)  # a misspelt path: never "absent"
        else:
            obj = getattr(obj, part, None)
    return obj
