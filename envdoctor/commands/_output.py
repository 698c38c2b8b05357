"""Where a command's text goes: ``--output FILE`` or stdout, with colour only on a terminal.

Shared by every command (check, explain, facts, report, diff) so that a file that cannot be
written is the same one-line exit-2 error everywhere. Kept free of heavy imports: `explain`
starts in a fraction of a second.
"""

from __future__ import annotations

import os
import sys

from envdoctor.errors import BadInput


def emit(text: str, output: str | None) -> None:
    """Write to --output (a file) or stdout."""
    if output and output != "-":
        try:
            with open(output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise BadInput(f"{output}: cannot write: {exc.strerror or exc}") from None
    else:
        from envdoctor.streams import write_stdout
        write_stdout(text)


def use_color(output: str | None) -> bool:
    """Colour only for a terminal on stdout, and never under NO_COLOR or TERM=dumb."""
    if output and output != "-":
        return False
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return sys.stdout.isatty()
