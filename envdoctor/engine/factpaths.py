"""Every fact name a rule reads, checked against the facts model when the rule is loaded.

The evaluator reads an attribute a record does not have as "looked: not there", so a
misspelt field (``host.disk_free_g``) would make ``host.disk_free_g is None`` true on every
machine. This module follows each attribute chain of an expression through the type hints of
the facts dataclasses (``envdoctor.facts``) and the names the vocabulary binds
(``envdoctor.engine.vocabulary.names_for``), and names every step the model does not have.

What it cannot type (a knowledge function's result, a builtin's) it does not judge: the
check is for the facts model, and a chain rooted elsewhere is left to the rule's examples.
The same walk checks an example's ``facts`` table (an unknown key there is silently dropped by
the snapshot decoder, so an example could prove a rule on facts it never set).
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import types
import typing
from collections.abc import Mapping
from functools import cache
from typing import Any, Union

_ANY: Any = typing.Any
_NONE = type(None)


class _Fn:
    """A callable name of the vocabulary whose result type is known (``pkg``, ``has``)."""

    def __init__(self, result: Any):
        self.result = result


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


@cache
def roots() -> dict[str, Any]:
    """The type of each name a rule expression starts from (see ``vocabulary.names_for``);
    names not here (knowledge functions, builtins) are not typed."""
    from envdoctor.facts import SECTIONS, EnvFacts, Facts, FrameworkFacts, HostFacts, \
        NvidiaFacts, PackageFacts
    facts = _hints(Facts)
    out: dict[str, Any] = {name: facts[name] for name in SECTIONS}
    out["env"] = _hints(EnvFacts)["vars"]   # the variables themselves
    for name, tp in _hints(FrameworkFacts).items():
        if name != "probe":
            out[name] = tp
    out["gpus"] = _hints(NvidiaFacts)["gpus"]
    out["python"] = _hints(HostFacts)["python_version"]
    out["live"] = facts["live"]
    out["intent"] = str
    out["origin"] = str
    out["pkg"] = _Fn(typing.get_type_hints(PackageFacts.get)["return"])
    out["has"] = _Fn(bool)
    return out


def _members(tp: Any) -> tuple[Any, ...]:
    """The non-None members of a union (``X | None``), else ``(tp,)``."""
    if typing.get_origin(tp) in (Union, types.UnionType):
        return tuple(t for t in typing.get_args(tp) if t is not _NONE)
    return (tp,)


def _union(items: list[Any]) -> Any:
    items = [t for t in items if t is not _NONE]
    if not items or any(t is _ANY for t in items):
        return _ANY
    return items[0] if len(items) == 1 else Union[tuple(items)]  # noqa: UP007


def type_name(tp: Any) -> str:
    names = [getattr(t, "__name__", str(t)) for t in _members(tp)]
    return " | ".join(names)


def _container(tp: Any) -> tuple[Any, Any] | None:
    """(origin, args) of a tuple/list/dict type, else None."""
    origin = typing.get_origin(tp)
    if origin in (tuple, list, dict, Mapping) or (isinstance(origin, type)
                                                  and issubclass(origin, Mapping)):
        return origin, typing.get_args(tp)
    return None


def _is_mapping(tp: Any) -> bool:
    shape = _container(tp)
    return shape is not None and shape[0] not in (tuple, list)


def element(tp: Any) -> Any:
    """What iterating ``tp`` yields: a tuple's items, a mapping's keys."""
    results = []
    for t in _members(tp):
        shape = _container(t)
        if shape is None:
            results.append(_ANY)
            continue
        origin, args = shape
        results.append(args[0] if args else _ANY)
    return _union(results)


def item(tp: Any, is_slice: bool) -> Any:
    """What ``tp[key]`` yields."""
    results = []
    for t in _members(tp):
        shape = _container(t)
        if shape is None:
            results.append(_ANY)
        elif shape[0] in (tuple, list):
            results.append(t if is_slice else (shape[1][0] if shape[1] else _ANY))
        else:
            results.append(shape[1][1] if len(shape[1]) == 2 else _ANY)
    return _union(results)


class UnknownName(Exception):
    """One step of a chain the facts model does not have."""

    def __init__(self, owner: Any, name: str, choices: list[str]):
        self.owner, self.name = owner, name
        close = difflib.get_close_matches(name, choices, n=1)
        self.hint = f"; did you mean {close[0]!r}?" if close else ""
        super().__init__(f"{type_name(owner)} has no field {name!r}{self.hint}")


def _public(cls: type) -> list[str]:
    names = [f.name for f in dataclasses.fields(cls)] if dataclasses.is_dataclass(cls) else []
    return sorted({*names, *(n for n in dir(cls) if not n.startswith("_"))})


def attribute(tp: Any, name: str) -> Any:
    """The type of ``<tp>.name`` as the evaluator reads it; raises ``UnknownName``."""
    if tp is _ANY or isinstance(tp, _Fn):
        return _ANY
    results: list[Any] = []
    missing: list[type] = []
    for t in _members(tp):
        if t is _ANY:
            return _ANY
        if _is_mapping(t):  # the evaluator reads ``mapping.name`` as ``mapping.get(name)``
            results.append(item(t, False))
            continue
        if _container(t) is not None:
            missing.append(t)
            continue
        cls = typing.get_origin(t) or t
        if not isinstance(cls, type):
            return _ANY
        if dataclasses.is_dataclass(cls):
            fields = _hints(cls)
            if name in fields:
                results.append(fields[name])
                continue
        member = getattr(cls, name, None)
        if member is None:
            missing.append(cls)
        elif isinstance(member, property):
            results.append(_returns(member.fget))
        elif callable(member) and not isinstance(member, type):
            results.append(_Fn(_returns(member)))
        else:
            results.append(_ANY)
    if not results:
        owner = missing[0] if missing else tp
        choices = _public(owner) if isinstance(owner, type) and _container(owner) is None \
            else []
        raise UnknownName(owner, name, choices)
    if any(isinstance(r, _Fn) for r in results):
        return next(r for r in results if isinstance(r, _Fn))
    return _union(results)


def _returns(fn: Any) -> Any:
    try:
        return typing.get_type_hints(fn).get("return", _ANY)
    except Exception:  # a builtin's method (str.lower): not annotated
        return _ANY


# ---------------------------------------------------------------------------- expressions
def problems(tree: ast.Expression) -> list[str]:
    """Every attribute chain of ``tree`` that the facts model does not have, one line each:
    ``unknown fact host.disk_free_g: HostFacts has no field 'disk_free_g'; did you mean
    'disk_free_gb'?``"""
    out: list[str] = []
    _Walker(out).type_of(tree.body, {})
    return list(dict.fromkeys(out))


class _Walker:
    def __init__(self, out: list[str]):
        self.out = out
        self.roots = roots()

    def type_of(self, node: ast.AST, local: dict[str, Any]) -> Any:
        if isinstance(node, ast.Name):
            if node.id in local:
                return local[node.id]
            return self.roots.get(node.id, _ANY)
        if isinstance(node, ast.Attribute):
            base = self.type_of(node.value, local)
            try:
                return attribute(base, node.attr)
            except UnknownName as exc:
                self.out.append(f"unknown fact {ast.unparse(node)}: {exc}")
                return _ANY
        if isinstance(node, ast.Subscript):
            base = self.type_of(node.value, local)
            self.type_of(node.slice, local)
            return item(base, isinstance(node.slice, ast.Slice)) if base is not _ANY else _ANY
        if isinstance(node, ast.Call):
            for sub in [*node.args, *(k.value for k in node.keywords)]:
                self.type_of(sub, local)
            fn = self.type_of(node.func, local)
            if isinstance(fn, _Fn):
                return fn.result
            if isinstance(node.func, ast.Attribute) and node.func.attr == "get":
                base = self.type_of(node.func.value, local)
                if _is_mapping(base):
                    return _union([item(base, False), _NONE])
            return _ANY
        if isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
            inner = dict(local)
            for comp in node.generators:
                self._bind(comp.target, element(self.type_of(comp.iter, inner)), inner)
                for cond in comp.ifs:
                    self.type_of(cond, inner)
            self.type_of(node.elt, inner)
            return _ANY
        for child in ast.iter_child_nodes(node):
            self.type_of(child, local)
        return _ANY

    def _bind(self, target: ast.AST, tp: Any, local: dict[str, Any]) -> None:
        if isinstance(target, ast.Name):
            local[target.id] = tp
        else:  # ``for k, v in ...``: not typed
            for sub in ast.walk(target):
                if isinstance(sub, ast.Name):
                    local[sub.id] = _ANY


# ---------------------------------------------------------------------------- example facts
def data_problems(data: Any, tp: Any = None, where: str = "facts") -> list[str]:
    """Keys of an example's ``facts`` table (see ``checks.example_facts``) that the facts
    model does not have; the conveniences it accepts (``env`` as the variables,
    ``packages.distributions`` as a name -> version table) are allowed."""
    from envdoctor.facts import Facts
    if tp is None:
        if not isinstance(data, dict):
            return []
        out: list[str] = []
        hints = _hints(Facts)
        for key, value in data.items():
            if key not in hints:
                out.append(_unknown(where, Facts, key))
            elif key == "env" and isinstance(value, dict) and "vars" not in value:
                continue
            elif key == "packages" and isinstance(value, dict) and \
                    isinstance(value.get("distributions"), dict):
                rest = {k: v for k, v in value.items() if k != "distributions"}
                out += data_problems(rest, hints[key], f"{where}.{key}")
            else:
                out += data_problems(value, hints[key], f"{where}.{key}")
        return out
    out = []
    for t in _members(tp):
        cls = typing.get_origin(t) or t
        if isinstance(cls, type) and dataclasses.is_dataclass(cls) and isinstance(data, dict):
            hints = _hints(cls)
            for key, value in data.items():
                if key not in hints:
                    out.append(_unknown(where, cls, key))
                else:
                    out += data_problems(value, hints[key], f"{where}.{key}")
            return out
        shape = _container(t)
        if shape is not None and shape[0] in (tuple, list) and isinstance(data, list):
            inner = shape[1][0] if shape[1] else _ANY
            for i, value in enumerate(data):
                out += data_problems(value, inner, f"{where}[{i}]")
            return out
        if shape is not None and isinstance(data, dict) and len(shape[1]) == 2:
            for key, value in data.items():
                out += data_problems(value, shape[1][1], f"{where}.{key}")
            return out
    return out


def _unknown(where: str, cls: type, key: str) -> str:
    close = difflib.get_close_matches(key, [f.name for f in dataclasses.fields(cls)], n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown fact {where}.{key}: {cls.__name__} has no field {key!r}{hint}"
