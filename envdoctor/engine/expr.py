"""A small, safe expression language for conditions in ``rules/``, with three-valued logic.

Checks are data: ``when = "nvidia.gpu_count > 0 and torch.cuda is None"``. Expressions are
parsed with ``ast`` and interpreted node by node from an allowlist (never ``eval``). A value
that nobody observed is ``UNKNOWN`` and propagates like SQL's NULL: ``False and UNKNOWN`` is
False, ``True and UNKNOWN`` is UNKNOWN, a comparison with UNKNOWN is UNKNOWN. A check whose
condition is UNKNOWN produces no finding ("unknown"), which is what makes rules safe on a
partial snapshot such as a pasted bug report.

Comparisons coerce strings to ``packaging.version.Version`` when the other side is a Version, so
``torch.version >= '2.6'`` means what it says. ``None`` compares false to everything (not
installed is not unknown), except with ``is``/``is not``/``==``/``!=``.
"""

from __future__ import annotations

import ast
import dataclasses
import operator
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from envdoctor import astparse


class _Unknown:
    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:  # pragma: no cover - guarded by the interpreter
        raise TypeError("UNKNOWN has no truth value; the interpreter handles it")


UNKNOWN = _Unknown()


class Partial:
    """A collection seen only in part (a pasted ``pip list`` excerpt, a jax block that lists
    devices but no plugins): its items are observed, "and nothing else" is not.

    ``any(...)`` over it is True when an observed item matches, else UNKNOWN; ``len``, ``== 0``,
    ``not in`` and indexing are UNKNOWN; ``x in`` it is True or UNKNOWN. Made by the vocabulary
    (``envdoctor.engine.views``) from the fact states; evidence texts show the observed items.
    """

    __slots__ = ("items",)

    def __init__(self, items: Iterable[Any] = ()):
        self.items = tuple(items)

    def __repr__(self) -> str:
        return f"Partial({list(self.items)!r})"

    def __bool__(self) -> bool:  # pragma: no cover - guarded by the interpreter
        raise TypeError("a Partial has no truth value; the interpreter handles it")


class PartialMap(dict[str, Any]):
    """A mapping seen only in part (environment variables a pasted report happens to show):
    a key it holds is observed; a key it lacks is UNKNOWN, not "unset"."""

    def get(self, key: Any, default: Any = None) -> Any:
        return dict.get(self, key, UNKNOWN)

    def __repr__(self) -> str:
        return f"PartialMap({dict.__repr__(self)})"


def _partial_items(value: Any) -> tuple[Any, ...] | None:
    """The observed items of a partly seen collection, else None (not partial)."""
    if isinstance(value, Partial):
        return value.items
    if isinstance(value, PartialMap):
        return tuple(value)
    return None


def truth(value: Any) -> Any:
    """Three-valued truth: True, False or UNKNOWN (a partial collection is non-empty or
    unknown, never "empty")."""
    if value is UNKNOWN:
        return UNKNOWN
    items = _partial_items(value)
    if items is not None:
        return True if items else UNKNOWN
    return bool(value)


class ExprError(ValueError):
    """An expression that is not allowed or does not parse; the message says which part."""


class UnknownFact(ExprError):
    """A rule read a field the facts model does not have (a misspelt name). Load-time checks
    (``engine.factpaths``) reject such rules; at evaluation it is an error of the rule, never
    "looked: not there"."""

    def __init__(self, record: str, name: str):
        self.record, self.name = record, name
        super().__init__(f"unknown fact name {name!r}: {record} has no such field")


_CMP: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_, ast.IsNot: operator.is_not,
}
_BIN: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.Mod: operator.mod,
}
_STR_METHODS = frozenset({"startswith", "endswith", "lower", "upper", "strip", "split",
                          "replace", "get", "keys", "values", "items", "named"})
_ALLOWED = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub,
            ast.Compare, ast.Name, ast.Load, ast.Attribute, ast.Subscript, ast.Call,
            ast.Constant, ast.List, ast.Tuple, ast.GeneratorExp, ast.comprehension,
            ast.BinOp, ast.IfExp, ast.Slice, ast.keyword, ast.Store, *(_CMP), *(_BIN))


def compile_expr(source: str, validate: bool = True) -> ast.Expression:
    """Parse and validate; raises ``ExprError`` naming the first disallowed construct.

    ``validate=False`` is only for sources this function already accepted (the rule cache).
    """
    try:
        tree = astparse.parse(source.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExprError(f"does not parse: {exc.msg} in {source!r}") from None
    if not validate:
        return tree
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise ExprError(f"{type(node).__name__} is not allowed in {source!r}")
        if isinstance(node, ast.Name) and node.id.startswith("_"):
            raise ExprError(f"private name {node.id!r} in {source!r}")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise ExprError(f"private attribute {node.attr!r} in {source!r}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr not in _STR_METHODS:
            raise ExprError(f"method {node.func.attr!r} is not allowed in {source!r}")
    return tree


def free_names(tree: ast.Expression) -> set[str]:
    """Names an expression reads from outside (comprehension variables excluded)."""
    bound = {n.id for c in ast.walk(tree) if isinstance(c, ast.comprehension)
             for n in ast.walk(c.target) if isinstance(n, ast.Name)}
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return used - bound - {"True", "False", "None"}


# (evaluator class, AST node class) -> the unbound method that interprets that node
_DISPATCH: dict[tuple[type, type], Callable[..., Any]] = {}


class Evaluator:
    """Interprets a compiled expression against ``names`` (variables and functions)."""

    def __init__(self, names: Mapping[str, Any], lenient: bool = False):
        self.names = names
        # lenient: for evidence texts, a partial collection reads as its observed items
        self.lenient = lenient

    def __call__(self, tree: ast.Expression) -> Any:
        return self.eval(tree.body, {})

    def eval(self, node: ast.AST, local: dict[str, Any]) -> Any:
        key = (type(self), type(node))
        method = _DISPATCH.get(key)
        if method is None:  # first node of this kind: find its ``_<NodeName>`` method once
            method = _DISPATCH[key] = getattr(type(self), "_" + type(node).__name__)
        return method(self, node, local)

    # -- leaves
    def _Constant(self, node: ast.Constant, local: dict[str, Any]) -> Any:
        return node.value

    def _Name(self, node: ast.Name, local: dict[str, Any]) -> Any:
        if node.id in local:
            return local[node.id]
        if node.id in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.id]
        if node.id not in self.names:
            raise ExprError(f"unknown name {node.id!r}")
        return self._settle(self.names[node.id])

    def _settle(self, value: Any) -> Any:
        if self.lenient:
            if isinstance(value, Partial):
                return value.items
            if isinstance(value, PartialMap):
                return dict(value)
        return value

    def _List(self, node: ast.List, local: dict[str, Any]) -> Any:
        return [self.eval(e, local) for e in node.elts]

    _Tuple = _List

    # -- access
    def _Attribute(self, node: ast.Attribute, local: dict[str, Any]) -> Any:
        base = self.eval(node.value, local)
        if base is UNKNOWN:
            return UNKNOWN
        if base is None:
            return None
        if node.attr.startswith("_"):  # also enforced at compile time; defence in depth
            raise ExprError(f"private attribute {node.attr!r}")
        if isinstance(base, Partial):
            return UNKNOWN
        if isinstance(base, Mapping):
            return self._settle(base.get(node.attr))
        try:
            return self._settle(getattr(base, node.attr))
        except AttributeError:
            if dataclasses.is_dataclass(base):  # a fact the model does not have
                raise UnknownFact(type(base).__name__, node.attr) from None
            return None

    def _Subscript(self, node: ast.Subscript, local: dict[str, Any]) -> Any:
        base = self.eval(node.value, local)
        key = self.eval(node.slice, local)
        if base is UNKNOWN or key is UNKNOWN:
            return UNKNOWN
        if base is None:
            return None
        if isinstance(base, Partial):
            return UNKNOWN  # the n-th observed item is not the n-th item
        try:
            return self._settle(base[key])
        except KeyError:
            return UNKNOWN if isinstance(base, PartialMap) else None
        except (IndexError, TypeError):
            return None

    def _Slice(self, node: ast.Slice, local: dict[str, Any]) -> Any:
        parts = [None if p is None else self.eval(p, local)
                 for p in (node.lower, node.upper, node.step)]
        return UNKNOWN if UNKNOWN in parts else slice(*parts)

    def _Call(self, node: ast.Call, local: dict[str, Any]) -> Any:
        args = [self.eval(a, local) for a in node.args]
        kwargs = {k.arg: self.eval(k.value, local) for k in node.keywords if k.arg}
        if isinstance(node.func, ast.Attribute):
            base = self.eval(node.func.value, local)
            if base is UNKNOWN or UNKNOWN in args:
                return UNKNOWN
            if base is None:
                return None
            if node.func.attr not in _STR_METHODS:
                raise ExprError(f"method {node.func.attr!r} is not allowed")
            if isinstance(base, Partial):
                return UNKNOWN
            fn = getattr(base, node.func.attr, None)
            if fn is None:
                return None
            if fn is UNKNOWN:  # a method over facts that were not observed
                return UNKNOWN
            return self._settle(fn(*args, **kwargs))
        fn = self.eval(node.func, local)
        if not callable(fn):
            raise ExprError(f"{ast.unparse(node.func)} is not a function")
        if getattr(fn, "sees_unknown", False):
            return fn(*args, **kwargs)
        if any(a is UNKNOWN for a in args) or UNKNOWN in kwargs.values():
            return UNKNOWN
        return fn(*args, **kwargs)

    # -- logic
    def _BoolOp(self, node: ast.BoolOp, local: dict[str, Any]) -> Any:
        is_and = isinstance(node.op, ast.And)
        saw_unknown = False
        value: Any = None
        for sub in node.values:
            value = self.eval(sub, local)
            decided = truth(value)
            if decided is UNKNOWN:
                saw_unknown = True
                continue
            if is_and and not decided:
                return value
            if not is_and and decided:
                return value
        return UNKNOWN if saw_unknown else value

    def _UnaryOp(self, node: ast.UnaryOp, local: dict[str, Any]) -> Any:
        value = self.eval(node.operand, local)
        if value is UNKNOWN:
            return UNKNOWN
        if isinstance(node.op, ast.Not):
            decided = truth(value)
            return UNKNOWN if decided is UNKNOWN else not decided
        return None if value is None else -value

    def _IfExp(self, node: ast.IfExp, local: dict[str, Any]) -> Any:
        test = truth(self.eval(node.test, local))
        if test is UNKNOWN:
            return UNKNOWN
        return self.eval(node.body if test else node.orelse, local)

    def _BinOp(self, node: ast.BinOp, local: dict[str, Any]) -> Any:
        left, right = self.eval(node.left, local), self.eval(node.right, local)
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        if left is None or right is None:
            return None
        return _BIN[type(node.op)](left, right)

    def _Compare(self, node: ast.Compare, local: dict[str, Any]) -> Any:
        left = self.eval(node.left, local)
        result: Any = True
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = self.eval(right_node, local)
            outcome = compare(type(op), left, right)
            if outcome is UNKNOWN:
                result = UNKNOWN
            elif not outcome:
                return False
            left = right
        return result

    def _GeneratorExp(self, node: ast.GeneratorExp, local: dict[str, Any]) -> Any:
        return _LazyGen(self, node, local)


class _LazyGen:
    """A generator expression; ``any``/``all`` consume it with three-valued logic."""

    def __init__(self, ev: Evaluator, node: ast.GeneratorExp, local: dict[str, Any]):
        self.ev, self.node, self.local = ev, node, local

    def values(self) -> Iterable[Any]:
        gen = self.node.generators[0]
        source = self.ev.eval(gen.iter, self.local)
        if source is UNKNOWN:
            yield UNKNOWN
            return
        if not isinstance(gen.target, ast.Name):
            raise ExprError("only `for name in …` is supported")
        items = _partial_items(source)
        if items is not None:
            source = (*items, UNKNOWN)  # "and maybe more": an item nobody observed
        for item in source or ():
            if item is UNKNOWN:
                yield UNKNOWN
                continue
            local = dict(self.local, **{gen.target.id: item})
            conds = [self.ev.eval(c, local) for c in gen.ifs]
            if any(c is UNKNOWN for c in conds):
                yield UNKNOWN
                continue
            if all(conds):
                yield self.ev.eval(self.node.elt, local)


def as_version(value: Any) -> Any:
    if isinstance(value, Version):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str):
        parsed = _version_of(value)
        return value if parsed is None else parsed
    return value


@lru_cache(maxsize=4096)
def _version_of(text: str) -> Version | None:
    """One shared (immutable) Version per text: comparisons re-read the same strings for
    every check and every snapshot of a fleet."""
    try:
        return Version(text)
    except InvalidVersion:
        return None


def compare(op: type, left: Any, right: Any) -> Any:
    if left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    if op in (ast.Is, ast.IsNot):
        return _CMP[op](left, right)
    if op in (ast.In, ast.NotIn):
        if right is None:
            return op is ast.NotIn
        items = _partial_items(right)
        if items is not None:
            if left in items:
                return op is ast.In
            return UNKNOWN
        if isinstance(right, SpecifierSet):
            left = as_version(left)
            if not isinstance(left, Version):
                return False
            inside = right.contains(left, prereleases=True)
            return inside if op is ast.In else not inside
        return _CMP[op](left, right)
    if _partial_items(left) is not None or _partial_items(right) is not None:
        return UNKNOWN  # a collection seen in part equals nothing for sure, nor differs
    if isinstance(left, tuple) and isinstance(right, list) or \
            isinstance(left, list) and isinstance(right, tuple):
        left, right = list(left), list(right)  # facts hold tuples, literals are lists
    if left is None or right is None:
        return _CMP[op](left, right) if op in (ast.Eq, ast.NotEq) else False
    if isinstance(left, Version) or isinstance(right, Version):
        left, right = as_version(left), as_version(right)
        if not (isinstance(left, Version) and isinstance(right, Version)):
            return op is ast.NotEq
    try:
        return _CMP[op](left, right)
    except TypeError:
        return False


# ---------------------------------------------------------------------------- builtins
def _values(items: Any) -> Any:
    """Iterate a generator, a list, or a partial collection (its items, then one UNKNOWN)."""
    if isinstance(items, _LazyGen):
        return items.values()
    partial = _partial_items(items)
    return (*partial, UNKNOWN) if partial is not None else items


def _tri_any(items: Any) -> Any:
    values = _values(items)
    if values is UNKNOWN:
        return UNKNOWN
    saw_unknown = False
    for v in values:
        if v is UNKNOWN:
            saw_unknown = True
        elif v:
            return True
    return UNKNOWN if saw_unknown else False


def _tri_all(items: Any) -> Any:
    values = _values(items)
    if values is UNKNOWN:
        return UNKNOWN
    saw_unknown = False
    for v in values:
        if v is UNKNOWN:
            saw_unknown = True
        elif not v:
            return False
    return UNKNOWN if saw_unknown else True


def _collect(items: Any) -> Any:
    if _partial_items(items) is not None:
        return UNKNOWN
    values = list(items.values()) if isinstance(items, _LazyGen) else items
    if values is UNKNOWN or (isinstance(values, list) and UNKNOWN in values):
        return UNKNOWN
    return values


def _spec(text: str) -> Any:
    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        raise ExprError(f"{text!r} is not a version specifier") from None


def _len(x: Any) -> Any:
    x = _collect(x)
    return UNKNOWN if x is UNKNOWN else (0 if x is None else len(x))


def _known(x: Any) -> bool:
    return x is not UNKNOWN


def _absent(x: Any) -> Any:
    """``absent(x)``: True only when x was looked for and is not there (None or empty, from
    a fact that was observed); UNKNOWN when x was not observed or was seen only in part."""
    if x is UNKNOWN:
        return UNKNOWN
    if isinstance(x, _LazyGen):
        values = list(x.values())
        seen = [v for v in values if v is not UNKNOWN]
        if seen:
            return False
        return UNKNOWN if values else True
    partial = _partial_items(x)
    if partial is not None:
        return False if partial else UNKNOWN
    if x is None:
        return True
    if isinstance(x, (tuple, list, dict, str, set, frozenset)):
        return len(x) == 0
    return False


def _present(x: Any) -> Any:
    """``present(x)``: the three-valued opposite of ``absent(x)``."""
    gone = _absent(x)
    return UNKNOWN if gone is UNKNOWN else not gone


def _first(*values: Any) -> Any:
    """``first(a, b, …)``: the first value that is known and not None, so that what was
    observed outranks what is inferred (``first(live_gpus(), inferred_gpus())``); UNKNOWN when
    none is and one of them was unknown, else None."""
    saw_unknown = False
    for v in values:
        if v is UNKNOWN:
            saw_unknown = True
        elif v is not None:
            return v
    return UNKNOWN if saw_unknown else None


def _sorted(x: Any) -> Any:
    got = _collect(x)
    return UNKNOWN if got is UNKNOWN else sorted(got or ())


def _set(x: Any) -> Any:
    got = _collect(x)
    return UNKNOWN if got is UNKNOWN else sorted(set(got or ()))


def _major(v: Any) -> Any:
    v = as_version(v)
    return v.major if isinstance(v, Version) else None


def _minor(v: Any) -> Any:
    """``12.4.1`` -> Version('12.4'), for matching a release series."""
    v = as_version(v)
    return Version(f"{v.major}.{v.minor}") if isinstance(v, Version) else None


def _extreme(pick: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    values = _collect(args[0]) if len(args) == 1 else list(args)
    if values is UNKNOWN or any(v is UNKNOWN for v in values):
        return UNKNOWN
    present = [v for v in values if v is not None]
    return pick(present) if present else None


def _sees_unknown(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn.sees_unknown = True  # type: ignore[attr-defined]  # a mark on a plain function
    return fn


BUILTINS: dict[str, Any] = {
    "any": _sees_unknown(_tri_any),
    "all": _sees_unknown(_tri_all),
    "list": _sees_unknown(_collect),
    "len": _sees_unknown(_len),
    "known": _sees_unknown(_known),
    "absent": _sees_unknown(_absent),
    "present": _sees_unknown(_present),
    "first": _sees_unknown(_first),
    "min": _sees_unknown(lambda *a: _extreme(min, a)),
    "max": _sees_unknown(lambda *a: _extreme(max, a)),
    "version": as_version,
    "spec": _spec,
    "major": _major,
    "minor": _minor,
    "round": lambda x, n=0: None if x is None else round(x, n) if n else round(x),
    "str": lambda x: "" if x is None else str(x),
    "sorted": _sees_unknown(_sorted),
    "set": _sees_unknown(_set),
}


def evaluate(source: str | ast.Expression, names: Mapping[str, Any]) -> Any:
    """Compile (if needed) and evaluate ``source`` with ``names`` on top of the builtins."""
    tree = compile_expr(source) if isinstance(source, str) else source
    return Evaluator({**BUILTINS, **names})(tree)
