"""`envdoctor suggest`: the install command that fits this machine, reasoned from rules/ data.

Library API (also what `check` fixes use):

    suggest(facts, ["torch"], installer="pip") -> SuggestResult
    install_command(facts, "torch") -> Suggestion | None

Every answer comes from the matrices in ``rules/matrices`` (wheel_index, torch, jax,
tensorflow, cuda_driver, gpus) and names their date; nothing is fetched unless ``online``
(an ``index.Online``, `--online`) asks: then the releases come from what the package indexes
list (``envdoctor.suggest.index``), through ``data.releases_from``, the one seam the planners
read releases through. Where the facts or the data cannot decide, the Suggestion's status says
so ("undecided" / "none") with the reasons.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING

from envdoctor.facts import Facts
from envdoctor.suggest import companions, data, jax_plan, stray, tf_plan, torch_plan
from envdoctor.suggest.data import STALE_DAYS, data_age_days, data_as_of
from envdoctor.suggest.install import INSTALLERS
from envdoctor.suggest.machine import Machine, machine_of
from envdoctor.suggest.model import SCHEMA_VERSION, Alternative, Reason, Suggestion, SuggestResult
from envdoctor.suggest.plan import Planner, Request

if TYPE_CHECKING:
    from envdoctor.suggest.index import Online

__all__ = ["FRAMEWORKS", "INSTALLERS", "PLANNERS", "SCHEMA_VERSION", "Alternative", "Planner",
           "Reason", "Request", "Suggestion", "SuggestResult", "UnknownFramework", "canonical",
           "age_line", "install_command", "installed_of", "online_mode", "suggest"]

# name users type -> the framework it means
ALIASES = {
    "torch": "torch", "pytorch": "torch", "torchvision": "torch", "torchaudio": "torch",
    "tensorflow": "tensorflow", "tf": "tensorflow", "tensorflow-cpu": "tensorflow",
    "jax": "jax", "jaxlib": "jax",
    "xformers": "xformers", "bitsandbytes": "bitsandbytes",
    "flash-attn": "flash-attn", "flash_attn": "flash-attn", "flash-attention": "flash-attn",
}
FRAMEWORKS = ("torch", "tensorflow", "jax", "xformers", "bitsandbytes", "flash-attn")
_COMPANIONS = ("xformers", "bitsandbytes", "flash-attn")


class UnknownFramework(ValueError):
    """A name `suggest` has no data for."""


def canonical(name: str) -> str:
    try:
        return ALIASES[name.strip().lower()]
    except KeyError:
        raise UnknownFramework(f"unknown framework {name!r}; known: "
                               f"{', '.join(sorted(ALIASES))}") from None


def installed_of(m: Machine) -> list[str]:
    """The frameworks (and companions) installed on the machine, in FRAMEWORKS order."""
    return [f for f in FRAMEWORKS if f in m.installed]


# framework -> its planner: one shape for all (``plan.Planner``), one explicit registry
PLANNERS: dict[str, Planner] = {
    "torch": torch_plan.plan, "tensorflow": tf_plan.plan, "jax": jax_plan.plan,
    "xformers": companions.plan_xformers, "bitsandbytes": companions.plan_bitsandbytes,
    "flash-attn": companions.plan_flash_attn,
}


_ONLINE: list[Online | None] = [None]
_SAID: dict[str, None] = {}     # the data lines of every answer given in an online_mode block


@contextmanager
def online_mode(online: Online | None) -> Iterator[dict[str, None]]:
    """Every ``suggest`` inside the block (a `check` run's fixes) reads the indexes as
    ``online`` says (None: the shipped data only), unless the call names its own. Yields the
    lines to print about the data those answers rest on (filled as they are given): its date,
    an index that could not be read, the data's age."""
    _ONLINE.append(online)
    _SAID.clear()
    try:
        yield _SAID
    finally:
        _ONLINE.pop()


def data_line_matters(lines: list[str], online: bool) -> bool:
    """Whether `check` should say what its fixes' install commands rest on: with --online
    (which index answered), or when something is worth a line (old data, an index that could
    not be read); fixes from current shipped data name their date in `suggest` and in JSON,
    and a clean run keeps stderr quiet."""
    plain = f"rules/matrices as of {data_as_of() or 'unknown'}"
    return online or any(line != plain for line in lines)


def age_line(online: bool) -> str | None:
    """The one line on old shipped data: more than ``STALE_DAYS`` before today (``ENVDOCTOR_TODAY``
    pins the date) and no index was read; None otherwise."""
    age = data_age_days()
    if online or age is None or age <= STALE_DAYS:
        return None
    return (f"the shipped data is {age} days old (as of {data_as_of()}): releases since then "
            "are not suggested; --online reads the package indexes")


def suggest(facts: Facts, names: list[str] | None = None, installer: str = "pip",
            keep_installed: bool = False, online: Online | None = None) -> SuggestResult:
    """Suggestions for ``names`` (aliases allowed); None or [] = the installed frameworks.

    ``keep_installed``: keep the installed torch (and JAX) release when a variant of it runs
    here (`check` fixes); else the newest release that runs. ``online``: read the releases
    from the package indexes (else those of ``online_mode``; else the shipped data only).

    Raises UnknownFramework for a name without data. With nothing named and nothing installed,
    torch, tensorflow and jax are suggested.
    """
    if installer not in INSTALLERS:
        raise ValueError(f"installer must be one of {INSTALLERS}")
    m = machine_of(facts)
    raw = [n.strip().lower() for n in names or []]
    wanted = list(dict.fromkeys(canonical(n) for n in raw)) or installed_of(m) \
        or ["torch", "tensorflow", "jax"]
    audio = "torchaudio" in raw or "torchaudio" in m.installed
    online = online if online is not None else _ONLINE[-1]
    view, notes = None, list[str]()
    if online is not None:
        from envdoctor.suggest.index import view_for
        view, notes = view_for(m, wanted, audio, online)
    shipped = f"rules/matrices as of {data_as_of() or 'unknown'}"
    torch_pick = None
    out: list[Suggestion] = []
    request = Request(installer, audio, keep_installed)
    with data.releases_from(view):
        if any(w in _COMPANIONS for w in wanted) or "torch" in wanted:
            torch_pick = PLANNERS["torch"](m, request)
        for name in wanted:
            got = torch_pick if name == "torch" and torch_pick is not None \
                else PLANNERS[name](m, replace(request, torch_pick=torch_pick))
            got = stray.with_strays(got, m, installer)
            where = view.sources.get(name) if view is not None else None
            out.append(replace(got, data=f"releases as {where} lists them; driver floors and "
                               f"arch lists from {shipped}" if where else shipped))
    stale = age_line(online is not None)
    for line in [*(s.data for s in out), *notes, *([stale] if stale else [])]:
        _SAID[line] = None
    return SuggestResult(tuple(out), m.describe(), data_as_of(),
                         notes=tuple(notes + ([stale] if stale else [])),
                         online=online is not None)


def install_command(facts: Facts, framework: str, installer: str = "pip") -> Suggestion | None:
    """The one install for ``framework`` on this machine, or None when nothing in the data runs.

    For `check` fixes: a Suggestion whose ``command`` is the line to print (status "ok"), or
    whose reasons say why there is none. "keep" (installed is newer than the data) and
    "undecided" return the Suggestion too; callers print ``command`` only when it is set.
    """
    got = suggest(facts, [framework], installer).suggestions[0]
    return None if got.status == "none" else got
