"""Generic JSON round trip for the frozen dataclasses that make up a facts snapshot.

Facts are typed (``Version`` objects, tuples, nested dataclasses) but travel as plain JSON.
One converter driven by the type hints keeps every section free of hand-written
``to_dict``/``from_dict`` pairs, so adding a fact is one field, not three edits.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import types
import typing
from functools import cache
from typing import Any, Union

from packaging.version import Version

from envdoctor.versions import DisplayVersion


class DecodeError(ValueError):
    """The JSON does not fit the dataclass it is decoded into; the message names the path."""


def to_jsonable(value: Any) -> Any:
    """Turn facts (dataclasses, Versions, tuples, enums) into JSON-ready builtins."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Version):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    return value


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


@cache
def _shape(tp: Any) -> tuple[Any, tuple[Any, ...]]:
    """``tp``'s origin and arguments, asked once per type (a fleet decodes 400 snapshots)."""
    return typing.get_origin(tp), typing.get_args(tp)


def _is_dataclass(tp: Any) -> bool:
    try:
        return _is_dataclass_cached(tp)
    except TypeError:  # unhashable
        return dataclasses.is_dataclass(tp)


@cache
def _is_dataclass_cached(tp: Any) -> bool:
    return dataclasses.is_dataclass(tp)


@cache
def _field_hints(cls: type) -> tuple[tuple[str, Any], ...]:
    """A dataclass's fields with their resolved types, in declaration order."""
    hints = _hints(cls)
    return tuple((f.name, hints[f.name]) for f in dataclasses.fields(cls))


def field_hints(cls: type) -> tuple[tuple[str, Any], ...]:
    """A dataclass's fields with their resolved types (cached)."""
    return _field_hints(cls)


def from_jsonable(tp: Any, data: Any, path: str = "$") -> Any:
    """Build a value of type ``tp`` from JSON data; unknown keys are ignored (forward compat)."""
    if tp is Any:
        return data
    if tp is str or tp is int or tp is bool:  # the most common leaves, checked first
        return _leaf(tp, data, path)
    try:
        origin, args = _shape(tp)
    except TypeError:  # an unhashable type annotation: not cached
        origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (Union, types.UnionType):
        if data is None and type(None) in args:
            return None
        last_error: Exception | None = None
        for arg in args:
            if arg is type(None):
                continue
            try:
                return from_jsonable(arg, data, path)
            except DecodeError as exc:
                last_error = exc
        raise last_error or DecodeError(f"{path}: no type matched")
    if _is_dataclass(tp):
        if not isinstance(data, dict):
            raise DecodeError(f"{path}: expected an object, got {_kind(data)}")
        kwargs = {}
        for name, hint in _field_hints(tp):
            if name in data:
                kwargs[name] = from_jsonable(hint, data[name], f"{path}.{name}")
        try:
            return tp(**kwargs)
        except TypeError as exc:
            raise DecodeError(f"{path}: {exc}") from None
    if tp is Version:
        if not isinstance(data, str):
            raise DecodeError(f"{path}: expected a version string, got {_kind(data)}")
        if len(data) > MAX_VERSION:
            raise DecodeError(f"{path}: a version of {len(data)} characters is not one")
        try:
            return DisplayVersion(data)
        except ValueError:  # InvalidVersion, or a part of more than 4300 digits
            raise DecodeError(f"{path}: {data!r} is not a version") from None
    if origin is tuple:
        if not isinstance(data, list):
            raise DecodeError(f"{path}: expected a list, got {_kind(data)}")
        item = args[0] if args else Any
        most = getattr(item, "MAX_COUNT", MAX_ITEMS)
        if len(data) > most:  # refused before any item is decoded: the cost is bounded here
            raise DecodeError(f"{path}: a list of {len(data)} items (at most {most})")
        return tuple(from_jsonable(item, v, f"{path}[{i}]") for i, v in enumerate(data))
    if origin is dict:
        if not isinstance(data, dict):
            raise DecodeError(f"{path}: expected an object, got {_kind(data)}")
        val_t = args[1] if len(args) == 2 else Any
        return {str(k): from_jsonable(val_t, v, f"{path}.{_key(k)}") for k, v in data.items()}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(data)
        except ValueError:
            raise DecodeError(f"{path}: {_short(data)} is not one of "
                              f"{[m.value for m in tp]}") from None
    if tp is float:
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise DecodeError(f"{path}: expected a number, got {_kind(data)}")
        if isinstance(data, int) and not -INT64 <= data < INT64:  # JSON files hold no NaN
            raise DecodeError(f"{path}: the number {_short(data)} is out of range")
        return float(data)
    if tp in (int, str, bool):
        return _leaf(tp, data, path)
    return data


MAX_VERSION = 128      # characters of a version string (the longest real ones are ~40)
# Items of one list of a snapshot (packages, libraries, flags); a device list is bounded by
# its item type's ``MAX_COUNT`` (no machine has thousands of GPUs, and every rule walks them)
MAX_ITEMS = 20000
INT64 = 1 << 63        # facts' integers (memory in MiB, counts, pids) fit in 64 bits
_KINDS = {str: "a string", int: "an integer", bool: "true or false", float: "a number",
          list: "a list", dict: "an object", type(None): "null"}


def _kind(data: Any) -> str:
    """The JSON kind of a decoded value, for messages: "a string", "an object" …"""
    return _KINDS.get(type(data), type(data).__name__)


def _short(data: Any) -> str:
    text = repr(data)
    return text if len(text) <= 24 else f"{text[:12]}…({len(text)} characters)"


def _key(key: Any) -> str:
    """A dict key as it appears in a field path: plain when it is a short name."""
    text = str(key)
    return text if len(text) <= 64 and text.isprintable() else _short(text)


def _leaf(tp: type, data: Any, path: str) -> Any:
    """A str, int or bool leaf: the JSON kind it must be (a bool is not a number), integers
    within 64 bits (a memory of 10**400 MiB is not a measurement)."""
    if not isinstance(data, tp) or (tp is int and isinstance(data, bool)):
        raise DecodeError(f"{path}: expected {_KINDS[tp]}, got {_kind(data)}")
    if isinstance(data, int) and not -INT64 <= data < INT64:
        raise DecodeError(f"{path}: the number {_short(data)} is out of range")
    return data


def out_of_range_unobserved(value: Any) -> Any:
    """``value`` (a dataclass tree) with every integer beyond 64 bits and every non-finite
    float made unknown: None where the field allows it, else its default. A parser of pasted
    text reads "999…9MiB" as digits; a number no machine has is a fact not observed, never a
    size that meets ``gpu_memory_gb>=80`` (nor one a snapshot could carry back)."""
    if not (dataclasses.is_dataclass(value) and not isinstance(value, type)):
        return value
    hints = dict(_field_hints(type(value)))
    changes = {}
    for f in dataclasses.fields(value):
        old = getattr(value, f.name)
        new = _within(old, hints[f.name], f)
        if new is not old:
            changes[f.name] = new
    return dataclasses.replace(value, **changes) if changes else value


def _absurd(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return not -INT64 <= value < INT64
    return isinstance(value, float) and not math.isfinite(value)


def _within(old: Any, hint: Any, f: Any) -> Any:
    if _absurd(old):
        if type(None) in typing.get_args(hint):
            return None
        return f.default if f.default is not dataclasses.MISSING else type(old)()
    if dataclasses.is_dataclass(old) and not isinstance(old, type):
        return out_of_range_unobserved(old)
    if isinstance(old, tuple):
        items = tuple(out_of_range_unobserved(v) for v in old if not _absurd(v))
        same = len(items) == len(old) and all(a is b for a, b in zip(items, old, strict=True))
        return old if same else items
    if isinstance(old, dict):
        kept = {k: out_of_range_unobserved(v) for k, v in old.items() if not _absurd(v)}
        same = len(kept) == len(old) and all(kept[k] is v for k, v in old.items())
        return old if same else kept
    return old


def json_schema(tp: Any, defs: dict[str, Any] | None = None) -> dict[str, Any]:
    """Derive a JSON Schema (draft 2020-12) fragment for ``tp``; dataclasses go into ``defs``."""
    defs = {} if defs is None else defs
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is Any:
        return {}
    if origin in (Union, types.UnionType):
        return {"anyOf": [json_schema(a, defs) for a in args]}
    if tp is type(None):
        return {"type": "null"}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        name = tp.__name__
        if name not in defs:
            defs[name] = {}  # placeholder against recursion
            hints = _hints(tp)
            props = {f.name: json_schema(hints[f.name], defs) for f in dataclasses.fields(tp)}
            doc = (tp.__doc__ or "").strip().splitlines()
            defs[name] = {"type": "object", "properties": props,
                          "description": doc[0] if doc else name}
        return {"$ref": f"#/$defs/{name}"}
    if tp is Version:
        return {"type": "string", "description": "PEP 440 version"}
    if origin is tuple:
        return {"type": "array", "items": json_schema(args[0] if args else Any, defs)}
    if origin is dict:
        return {"type": "object",
                "additionalProperties": json_schema(args[1] if len(args) == 2 else Any, defs)}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return {"enum": [m.value for m in tp]}
    return {str: {"type": "string"}, int: {"type": "integer"}, float: {"type": "number"},
            bool: {"type": "boolean"}}.get(tp, {})
