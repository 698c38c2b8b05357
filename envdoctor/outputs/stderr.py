"""Lines on stderr (an error, a note): the sink for them, terminal-safe and one line each.

Apart from ``envdoctor.outputs.sink`` because ``envdoctor.errors`` prints its one-line errors
through it, and the document sink raises those errors: this module needs nothing but the
sanitiser, so there is no import cycle.
"""

from __future__ import annotations

import contextlib
import sys

from envdoctor.outputs.sanitise import one_line


def say(line: str) -> None:
    """One line on stderr, terminal-safe and inert in a CI log (a newline in a quoted value
    is shown as ``\\n``); a stderr that cannot be written to is not worth another error."""
    safe = one_line(line.rstrip("\n"))
    with contextlib.suppress(Exception):
        sys.stderr.write(safe + "\n")
        sys.stderr.flush()
