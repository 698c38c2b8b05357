"""`envdoctor suggest`: the install command that fits this machine, reasoned from rules/ data.

Library API (also what `check` fixes use):

    suggest(facts, ["torch"], installer="pip") -> SuggestResult
    install_command(facts, "torch") -> Suggestion | None

Every answer comes from the matrices in ``rules/matrices`` (wheel_index, torch, jax,
tensorflow, cuda_driver, gpus); nothing is fetched at run time. Where the facts or the data
cannot decide, the Suggestion's status says so ("undecided" / "none") with the reasons.
"""

from __future__ import annotations

from dataclasses import replace

from envdoctor.facts import Facts
from envdoctor.suggest import companions, jax_plan, tf_plan, torch_plan
from envdoctor.suggest.data import data_as_of
from envdoctor.suggest.install import INSTALLERS
from envdoctor.suggest.machine import Machine, machine_of
from envdoctor.suggest.model import SCHEMA_VERSION, Alternative, Reason, Suggestion, SuggestResult
from envdoctor.suggest.plan import Planner, Request

__all__ = ["FRAMEWORKS", "INSTALLERS", "PLANNERS", "SCHEMA_VERSION", "Alternative", "Planner",
           "Reason", "Request", "Suggestion", "SuggestResult", "UnknownFramework", "canonical",
           "install_command", "installed_of", "suggest"]

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


def suggest(facts: Facts, names: list[str] | None = None, installer: str = "pip",
            keep_installed: bool = False) -> SuggestResult:
    """Suggestions for ``names`` (aliases allowed); None or [] = the installed frameworks.

    ``keep_installed``: keep the installed torch (and JAX) release when a variant of it runs
    here (`check` fixes); else the newest release that runs.

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
    torch_pick = None
    out: list[Suggestion] = []
    request = Request(installer, audio, keep_installed)
    if any(w in _COMPANIONS for w in wanted) or "torch" in wanted:
        torch_pick = PLANNERS["torch"](m, request)
    for name in wanted:
        out.append(torch_pick if name == "torch" and torch_pick is not None
                   else PLANNERS[name](m, replace(request, torch_pick=torch_pick)))
    return SuggestResult(tuple(out), m.describe(), data_as_of())


def install_command(facts: Facts, framework: str, installer: str = "pip") -> Suggestion | None:
    """The one install for ``framework`` on this machine, or None when nothing in the data runs.

    For `check` fixes: a Suggestion whose ``command`` is the line to print (status "ok"), or
    whose reasons say why there is none. "keep" (installed is newer than the data) and
    "undecided" return the Suggestion too; callers print ``command`` only when it is set.
    """
    got = suggest(facts, [framework], installer).suggestions[0]
    return None if got.status == "none" else got
