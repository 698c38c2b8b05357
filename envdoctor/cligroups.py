"""The click group class every command group shares (the top level in ``envdoctor.cli``,
``rules``, ``fleet``): here, below both ``cli`` and ``commands``, so a subcommand group uses
it without importing the module that imports the subcommands.
"""

from __future__ import annotations

import math
from typing import Any

import click


class SuggestingGroup(click.Group):
    """A click group that answers a mistyped subcommand with the closest one: click offers
    "Did you mean" for options only (``envdoctor chek`` -> "No such command 'chek'. Did you
    mean 'check'?", exit 2)."""

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None \
                and not ctx.resilient_parsing:
            import difflib
            visible = [n for n in self.list_commands(ctx)
                       if not getattr(self.commands.get(n), "hidden", False)]
            close = difflib.get_close_matches(name, visible, n=3, cutoff=0.6)
            if close:
                hint = " or ".join(repr(c) for c in close)
                ctx.fail(f"No such command {name!r}. Did you mean {hint}?")
        return super().resolve_command(ctx, args)


MAX_SECONDS = 7 * 24 * 3600.0  # past a week a wait is no deadline; time_t and sockets overflow


class Seconds(click.FloatRange):
    """A number of seconds for an option: finite and within ``[min, max]``. click's
    ``FloatRange`` lets ``nan`` through every bound (each comparison with it is false) and
    ``inf``/``1e999`` past a range with no upper bound; a thread join, a socket or a
    ``time_t`` then fails deep inside the run (an internal error, exit 3) or waits forever.
    Here each is a usage error naming the option: one line, exit 2."""

    name = "seconds"

    def __init__(self, min: float | None = None, max: float = MAX_SECONDS) -> None:
        super().__init__(min=min, max=max)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        number = value if isinstance(value, float) else click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        return float(super().convert(number, param, ctx))
