"""Generic JSON round trip for the frozen dataclasses that make up a facts snapshot.

Facts are typed (``Version`` objects, tuples, nested dataclasses) but travel as plain JSON.
One converter driven by the type hints keeps every section free of hand-written
``to_dict``/``from_dict`` pairs, so adding a fact is one field, not three edits.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from functools import cache
from typing import Any, Union

from packaging.version import InvalidVersion, Version

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
        if not isinstance(data, tp) or (tp is int and isinstance(data, bool)):
            raise DecodeError(f"{path}: expected {tp.__name__}, got {type(data).__name__}")
        return data
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
            raise DecodeError(f"{path}: expected an object, got {type(data).__name__}")
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
            raise DecodeError(f"{path}: expected a version string")
        try:
            return DisplayVersion(data)
        except InvalidVersion:
            raise DecodeError(f"{path}: {data!r} is not a version") from None
    if origin is tuple:
        if not isinstance(data, list):
            raise DecodeError(f"{path}: expected a list")
        item = args[0] if args else Any
        return tuple(from_jsonable(item, v, f"{path}[{i}]") for i, v in enumerate(data))
    if origin is dict:
        if not isinstance(data, dict):
            raise DecodeError(f"{path}: expected an object")
        val_t = args[1] if len(args) == 2 else Any
        return {str(k): from_jsonable(val_t, v, f"{path}.{k}") for k, v in data.items()}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(data)
        except ValueError:
            raise DecodeError(f"{path}: {data!r} is not one of {[m.value for m in tp]}") from None
    if tp is float:
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise DecodeError(f"{path}: expected a number")
        return float(data)
    if tp in (int, str, bool):
        if not isinstance(data, tp) or (tp is int and isinstance(data, bool)):
            raise DecodeError(f"{path}: expected {tp.__name__}, got {type(data).__name__}")
        return data
    return data


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
