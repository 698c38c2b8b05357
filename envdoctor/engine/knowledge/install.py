"""install: the command `envdoctor suggest` gives for this machine, for install-type fixes.

    fix = "{install}"   with   evidence = { install = "install_line('torch')" }

``install_line(framework)``: the command for this machine (GPU, driver, Python, platform), or,
when nothing in the data runs here or the facts cannot decide, a pointer to
``envdoctor suggest FRAMEWORK`` with the deciding reason. ``kept_install_line(framework)``: the
same in keep-installed mode (the fix of an installed package realigns it, never upgrades it).

The planners live in ``envdoctor.suggest``; these functions declare what they read (every read
optional: `suggest` itself says "undecided" on missing facts) and call down into it.
"""

from __future__ import annotations

from typing import Any

from envdoctor.engine.knowledge._reads import MACHINE_READS, reads
from envdoctor.suggest.lines import facts_of, line_of

# Everything the install planner reads, rebuilt into a Facts by ``facts_of``; `check`'s torch
# fixes (engine.knowledge.torch) declare the same reads.
_READS = MACHINE_READS


@reads(**_READS)
def install_line(framework: str, **facts: Any) -> str:
    """``install_line('torch')``: the install command `envdoctor suggest torch` gives here."""
    return line_of(facts_of(**facts), str(framework))


@reads(**_READS)
def kept_install_line(framework: str, **facts: Any) -> str:
    """``kept_install_line('jax')``: the install `envdoctor suggest` gives in keep-installed
    mode (the installed release realigned, when it runs here), for fixes of the installed
    packages."""
    return line_of(facts_of(**facts), str(framework), keep_installed=True)

