"""The vocabulary that rule expressions see: facts sections, shortcuts and knowledge functions.

Every value obeys the fact states (``envdoctor.engine.views``): a section or field that was not
observed, or whose probe failed, is ``UNKNOWN``, so a rule that needs it is "unknown", never
a finding; ``None`` / empty means "looked: not there". Knowledge functions come from the one
registry in ``envdoctor.engine.knowledge``; this module binds them to a snapshot and resolves
the facts each declares, answering UNKNOWN itself when one is not known.
"""

from __future__ import annotations

from typing import Any

from envdoctor.engine.expr import UNKNOWN, Partial, PartialMap
from envdoctor.engine.knowledge import REGISTRY, function
from envdoctor.engine.knowledge._reads import FirstOf, Read, Undetermined
from envdoctor.engine.views import resolve, section_view, unwrap
from envdoctor.facts import SECTIONS, Facts

# Names a rule may use besides the builtins and the knowledge functions.
SHORTCUTS = ("torch", "tensorflow", "jax", "keras", "gpus", "python", "pkg", "has", "live",
             "intent", "origin", "paddle", "mindspore", "mxnet")


class Knowledge:
    """The knowledge functions bound to one snapshot and intent, with their results memoised
    for the evaluation of one snapshot (``torch_archs()`` is asked by several checks)."""

    def __init__(self, facts: Facts, intent: str):
        self.facts, self.intent = facts, intent
        self._memo: dict[tuple[Any, ...], Any] = {}

    def call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        plain = tuple(unwrap(a) for a in args)
        if any(a is UNKNOWN for a in plain):
            return UNKNOWN
        try:
            key: tuple[Any, ...] | None = (name, plain, tuple(sorted(kwargs.items())))
            hash(key)
        except TypeError:
            key = None
        if key is not None and key in self._memo:
            return self._memo[key]
        value = self._run(name, plain, kwargs)
        if key is not None:
            self._memo[key] = value
        return value

    def _run(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        fn = function(name)
        if isinstance(fn, FirstOf):
            saw_unknown = False
            for part in fn.names:
                value = self.call(part, args, kwargs)
                if value is UNKNOWN:
                    saw_unknown = True
                elif value is not None:
                    return value
            return UNKNOWN if saw_unknown else None
        resolved = {}
        for param, read in getattr(fn, "reads", {}).items():
            value = self.read(read)
            if value is UNKNOWN:
                if read.required:
                    return UNKNOWN
                value = read.default
            resolved[param] = value
        try:
            return fn(*args, **kwargs, **resolved)
        except Undetermined:
            return UNKNOWN

    def read(self, read: Read) -> Any:
        if read.function:
            return self.call(read.function, (), {})
        if read.path == "intent":
            return self.intent
        if read.path == "origin":
            return self.facts.origin
        return resolve(self.facts, read.path, read.partial_ok)

    def bound(self, name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            return self.call(name, args, kwargs)
        call.__name__ = name
        return call


def names_for(facts: Facts, intent: str = "auto") -> dict[str, Any]:
    """Every name a rule expression can read, for one snapshot and ``--expect`` intent."""
    names: dict[str, Any] = {name: section_view(getattr(facts, name)) for name in SECTIONS}
    env = names["env"]
    if env is not UNKNOWN:
        env_vars = env.vars  # a dict, a PartialMap (seen in part) or UNKNOWN (failed)
        names["env"] = env_vars if env_vars is UNKNOWN or isinstance(env_vars, PartialMap) \
            else dict(env_vars)
    fw = names["frameworks"]
    for name in ("torch", "tensorflow", "jax", "keras", "paddle", "mindspore", "mxnet"):
        names[name] = UNKNOWN if fw is UNKNOWN else getattr(fw, name)
    nv = names["nvidia"]
    names["gpus"] = UNKNOWN if nv is UNKNOWN else nv.gpus
    host = names["host"]
    names["python"] = UNKNOWN if host is UNKNOWN else host.python_version
    packages = names["packages"]

    def pkg(name: str) -> Any:
        """``pkg('numpy')``: the installed distribution, None when confirmed absent."""
        if packages is UNKNOWN:
            return UNKNOWN
        found = packages.get(name)
        return UNKNOWN if found is UNKNOWN else found

    def has(name: str) -> Any:
        """``has('tf-keras')``: installed (True), confirmed absent (False), or UNKNOWN."""
        found = pkg(name)
        return UNKNOWN if found is UNKNOWN else found is not None

    names["pkg"] = pkg
    names["has"] = has
    # framework -> LiveFramework (envdoctor.facts); UNKNOWN when no worker ran (--static)
    names["live"] = facts.live if facts.live else UNKNOWN
    names["intent"] = intent
    names["origin"] = facts.origin
    knowledge = Knowledge(facts, intent)
    for fname in REGISTRY:
        names[fname] = knowledge.bound(fname)
    return names


def known_names() -> frozenset[str]:
    """Every name a rule may use: facts sections, shortcuts and knowledge functions (the
    expression builtins come on top)."""
    return frozenset(SECTIONS) | frozenset(SHORTCUTS) | frozenset(REGISTRY)


__all__ = ["Knowledge", "Partial", "known_names", "names_for"]
