"""The vocabulary that rule expressions see: facts sections, shortcuts and knowledge functions.

A section whose probe did not answer (status error/skipped/unknown) is ``UNKNOWN`` here, so a
rule that needs it is "unknown", never a finding. ``None`` means "answered: not there".
Knowledge functions (matrix look-ups) live in ``envdoctor.engine.knowledge.compat`` and register
into
``FUNCTIONS``; adding one is how a new kind of rule becomes possible without engine changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from envdoctor.engine.expr import UNKNOWN
from envdoctor.facts import SECTIONS, Facts

# name -> factory(facts, intent) -> value. Filled by envdoctor.engine.knowledge.compat and
# later modules.
FUNCTIONS: dict[str, Callable[[Facts, str], Any]] = {}


def register(name: str) -> Callable[[Callable[[Facts, str], Any]], Callable[[Facts, str], Any]]:
    """Decorator: ``@register("min_driver")`` on ``def f(facts, intent) -> value``."""
    def wrap(factory: Callable[[Facts, str], Any]) -> Callable[[Facts, str], Any]:
        FUNCTIONS[name] = factory
        return factory
    return wrap


def section(facts: Facts, name: str) -> Any:
    value = getattr(facts, name)
    return value if value.probe.status.known else UNKNOWN


def names_for(facts: Facts, intent: str = "auto") -> dict[str, Any]:
    import envdoctor.engine.knowledge.compat
    import envdoctor.engine.knowledge.frameworks  # noqa: F401 - Paddle/MindSpore/MXNet, live_warned
    import envdoctor.engine.knowledge.live  # noqa: F401 - live_* / smoke_* functions over Facts.live

    names: dict[str, Any] = {name: section(facts, name) for name in SECTIONS}
    env = names["env"]
    names["env"] = UNKNOWN if env is UNKNOWN else dict(env.vars)
    fw = names["frameworks"]
    for name in ("torch", "tensorflow", "jax", "keras", "paddle", "mindspore", "mxnet"):
        names[name] = UNKNOWN if fw is UNKNOWN else getattr(fw, name)
    nv = names["nvidia"]
    names["gpus"] = UNKNOWN if nv is UNKNOWN else nv.gpus
    host = names["host"]
    names["python"] = UNKNOWN if host is UNKNOWN else host.python_version
    packages = names["packages"]

    def pkg(name: str) -> Any:
        return UNKNOWN if packages is UNKNOWN else packages.get(name)

    names["pkg"] = pkg
    names["has"] = lambda name: UNKNOWN if packages is UNKNOWN else packages.get(name) is not None
    # framework -> LiveFramework (envdoctor.facts); UNKNOWN when no worker ran (--static)
    names["live"] = facts.live if facts.live else UNKNOWN
    names["intent"] = intent
    names["origin"] = facts.origin
    for fname, factory in FUNCTIONS.items():
        names[fname] = factory(facts, intent)
    return names
