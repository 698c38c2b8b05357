"""Identical nodes, decoded and judged once: the fact signature of a snapshot.

Healthy nodes of one cluster differ in what says nothing about their setup — GPU UUIDs,
temperatures, power draw, memory in use, free RAM and disk, probe timings, the snapshot's time
(``SENSORS``) — and agree on everything else. The *signature* of a snapshot is its facts with
those values masked (their presence kept); nodes with one signature form a group.

A group's first snapshot is decoded in full; every other member is that node's facts with its
own sensor values put in (decoded by the same schema code, so bad values are bad input naming
the file). The single-machine checks run once per group on the first member, each check with
the sensor fields traced: a check that never read one cannot give another member a different
result (same inputs, same path through the same code), so its result is shared; a check that
read one is evaluated again on every member. Exact, and at 10 000 snapshots the checks cost
what a few hundred do.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from functools import cache
from typing import Any

from envdoctor.facts import SECTIONS, Facts, FactsError, Gpu, HostFacts, ProbeInfo

# Per-node values that say nothing about a node's setup: masked in the signature.
SENSORS: dict[type, tuple[str, ...]] = {
    Facts: ("created",),
    HostFacts: ("ram_available_gb", "disk_free_gb"),
    Gpu: ("uuid", "temperature_c", "power_draw_w", "memory_used_mb"),
    ProbeInfo: ("seconds",),
}
_MASK = "\x00sensor"


def _facts_dict(data: Any) -> dict[str, Any] | None:
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("facts"), dict) and "host" not in data:
        return data["facts"]  # a whole `check --format json` output
    return data


def _masked(d: Any, keys: tuple[str, ...], out: dict[str, Any], where: str) -> Any:
    """``d`` with ``keys`` masked (a shallow copy), their values into ``out[where.key]``."""
    if not isinstance(d, dict) or not any(k in d for k in keys):
        return d
    d = dict(d)
    for k in keys:
        if k in d:
            out[f"{where}{k}"] = d[k]
            d[k] = _MASK
    return d


def split(data: Any) -> tuple[str, dict[str, Any]]:
    """(signature, sensor values by path) of one snapshot's JSON; not changed in place."""
    facts = _facts_dict(data)
    sensors: dict[str, Any] = {}
    if facts is None:
        return digest(data), sensors
    top = _masked(facts, SENSORS[Facts], sensors, "")
    top = dict(top) if top is facts else top
    for section in (*SECTIONS, "live"):
        value = top.get(section)
        if section == "live" or not isinstance(value, dict):
            continue
        value = dict(value)
        value["probe"] = _masked(value.get("probe"), SENSORS[ProbeInfo], sensors,
                                 f"{section}.probe.")
        if section == "host":
            value = _masked(value, SENSORS[HostFacts], sensors, "host.")
        elif section == "nvidia" and isinstance(value.get("gpus"), list):
            value["gpus"] = [_masked(g, SENSORS[Gpu], sensors, f"nvidia.gpus.{i}.")
                             for i, g in enumerate(value["gpus"])]
        top[section] = value
    if facts is not data:  # a check report: only its facts make the signature
        top = {"facts": top}
    return digest(top), sensors


def digest(value: Any) -> str:
    """A short stable digest of JSON data."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


@cache
def _hints(cls: type) -> dict[str, Any]:
    from envdoctor.facts.serialize import field_hints
    return dict(field_hints(cls))


def _decoded(cls: type, name: str, value: Any, path: str) -> Any:
    from envdoctor.facts.serialize import DecodeError, from_jsonable
    try:
        return from_jsonable(_hints(cls)[name], value, f"$.{path}")
    except DecodeError as exc:
        raise FactsError(f"facts do not fit the schema: {exc}") from None


# The kinds a sensor value has in a well-formed snapshot (taken as they are); anything else
# goes through the schema decoder, which converts or refuses it exactly as for a first member.
_FAST = {"created": str, "uuid": str, "ram_available_gb": float, "disk_free_gb": float,
         "temperature_c": int, "power_draw_w": float, "memory_used_mb": int, "seconds": float}


def _put(obj: Any, cls: type, values: dict[str, Any], prefix: str) -> Any:
    changes = {}
    for k in SENSORS[cls]:
        path = prefix + k
        if path not in values:
            continue
        value = values[path]
        if type(value) is not _FAST[k]:
            value = _decoded(cls, k, value, path)
        if getattr(obj, k) != value:
            changes[k] = value
    return _with(obj, changes) if changes else obj


def _with(obj: Any, changes: dict[str, Any]) -> Any:
    """``dataclasses.replace`` for the facts records (frozen, no __post_init__, no derived
    fields), without re-running their __init__: the same object, a fifth of the cost."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    new.__dict__.update(changes)
    return new


def member(base: Facts, sensors: dict[str, Any]) -> Facts:
    """The facts of a node whose signature is ``base``'s, with its own sensor values."""
    changes: dict[str, Any] = {}
    for section in SECTIONS:
        part = getattr(base, section)
        probe = _put(part.probe, ProbeInfo, sensors, f"{section}.probe.")
        new = part if probe is part.probe else _with(part, {"probe": probe})
        if section == "host":
            new = _put(new, HostFacts, sensors, "host.")
        elif section == "nvidia" and new.gpus:
            gpus = tuple(_put(g, Gpu, sensors, f"nvidia.gpus.{i}.")
                         for i, g in enumerate(new.gpus))
            if any(a is not b for a, b in zip(gpus, new.gpus, strict=True)):
                new = _with(new, {"gpus": gpus})
        if new is not part:
            changes[section] = new
    facts = _with(base, changes) if changes else base
    return _put(facts, Facts, sensors, "")


# ---------------------------------------------------------------------------- tracing
class _Trace:
    """Whether a sensor field was read since ``reset``."""

    touched = False


def _traced_class(cls: type) -> type:
    watched = frozenset((*SENSORS[cls], "__dict__"))

    def __getattribute__(self: Any, name: str) -> Any:
        if name in watched:
            _Trace.touched = True
        return object.__getattribute__(self, name)

    return type(f"Traced{cls.__name__}", (cls,), {"__getattribute__": __getattribute__,
                                                   "__slots__": ()})


_TRACED = {cls: _traced_class(cls) for cls in SENSORS}


def _trace(obj: Any) -> Any:
    out = copy.copy(obj)
    object.__setattr__(out, "__class__", _TRACED[type(obj)])
    return out


def traced(facts: Facts) -> Facts:
    """A copy of ``facts`` whose sensor fields record when they are read."""
    sections: dict[str, Any] = {}
    for section in SECTIONS:
        part = getattr(facts, section)
        new = replace(part, probe=_trace(part.probe))
        if section == "host":
            new = _trace(new)
        elif section == "nvidia":
            new = replace(new, gpus=tuple(_trace(g) for g in new.gpus))
        sections[section] = new
    out = _trace(replace(facts, **sections))
    return out


@contextmanager
def watching() -> Iterator[Callable[[], bool]]:
    """``with watching() as read: …; read()`` — whether a sensor field was read inside."""
    _Trace.touched = False
    try:
        yield lambda: _Trace.touched
    finally:
        _Trace.touched = False


# ---------------------------------------------------------------------------- checks
def evaluate(groups: dict[str, list[tuple[str, Facts]]], checks: list[Any], intent: str,
             prepare: Callable[[Facts], Facts] = lambda facts: facts
             ) -> dict[str, list[Any]]:
    """node name -> its check results, each group's insensitive checks evaluated once.
    ``prepare``: what the checks judge, made from a node's facts (the probe diagnoses); when
    making it reads a sensor field, every check is judged again on every member."""
    from envdoctor.engine import expr
    from envdoctor.engine.checks import evaluate_one, supersede
    from envdoctor.engine.vocabulary import names_for

    out: dict[str, list[Any]] = {}
    for members in groups.values():
        first_name, first = members[0]
        with watching() as read:
            probe = prepare(traced(first))
            prepared_from_sensors = read()
        with watching() as read:  # the usual case: no check reads a sensor field
            names = {**expr.BUILTINS, **names_for(probe, intent)}
            shared = [evaluate_one(check, names, intent, merged=True) for check in checks]
            touched = read()
        sensitive: list[int] = []
        if prepared_from_sensors:
            sensitive = list(range(len(checks)))
        elif touched:  # which ones: each in a fresh namespace (no memo carried between checks)
            for i, check in enumerate(checks):
                with watching() as read:
                    names = {**expr.BUILTINS, **names_for(probe, intent)}
                    evaluate_one(check, names, intent, merged=True)
                    if read():
                        sensitive.append(i)
        out[first_name] = supersede(checks, shared)
        for name, facts in members[1:]:
            if not sensitive:
                out[name] = out[first_name]
                continue
            names = {**expr.BUILTINS, **names_for(prepare(facts), intent)}
            own = list(shared)
            for i in sensitive:
                own[i] = evaluate_one(checks[i], names, intent, merged=True)
            out[name] = supersede(checks, own)
    return out


def memo_by_group(signature: str, key: str, facts: Facts, fn: Callable[[Facts], Any],
                  cache: dict[tuple[str, str], Any]) -> Any:
    """``fn(facts)``, shared by the group when it read no sensor field on the first member."""
    hit = cache.get((signature, key), cache)
    if hit is PER_NODE:
        return fn(facts)
    if hit is not cache:
        return hit
    with watching() as read:
        value = fn(traced(facts))
        if read():
            cache[(signature, key)] = PER_NODE
            return fn(facts)
    cache[(signature, key)] = value
    return value


PER_NODE = object()  # memo_by_group: the value read a sensor field, computed per node
