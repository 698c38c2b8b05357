"""The click group class every command group shares (the top level in ``envdoctor.cli``,
``rules``, ``fleet``): here, below both ``cli`` and ``commands``, so a subcommand group uses
it without importing the module that imports the subcommands.
"""

from __future__ import annotations

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
