"""The one shape every planner has: ``plan(machine, request) -> Suggestion``.

A planner is one module's ``plan`` function (``torch_plan``, ``tf_plan``, ``jax_plan``) or
one of ``companions``' (``plan_xformers`` …); ``envdoctor.suggest.PLANNERS`` lists them all
by framework. What a planner is asked beyond the machine is one ``Request`` (a planner reads
the fields that concern it), so calling any of them is the same call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from envdoctor.suggest.machine import Machine
from envdoctor.suggest.model import Reason, Suggestion

# Where the snapshot does not state the OS and CPU, the answer is for this platform (and
# says so).
ASSUMED_PLATFORM = "linux_x86_64"


@dataclass(frozen=True)
class Request:
    """What a planner is asked: the installer's syntax; torchaudio too (torch); keep the
    installed release when a build of it runs here (`check` fixes: never a needless upgrade);
    the torch a companion package must match (xformers, bitsandbytes, flash-attn)."""

    installer: str = "pip"
    audio: bool = False
    keep_installed: bool = False
    torch_pick: Suggestion | None = None


class Planner(Protocol):
    """``plan(machine, request)``: the suggestion for one framework on that machine."""

    def __call__(self, m: Machine, request: Request, /) -> Suggestion: ...


def assumed_platform(m: Machine) -> tuple[str, list[Reason]]:
    """The machine's wheel platform, or ``ASSUMED_PLATFORM`` with the reason that says so."""
    if m.platform is not None:
        return m.platform, []
    return ASSUMED_PLATFORM, [Reason("platform", "the snapshot does not state the OS and CPU; "
                                     "this answer is for Linux x86_64", "", False)]
