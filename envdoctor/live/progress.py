"""A live progress display on stderr while workers run (TTY only; rich is imported only then)."""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

from envdoctor.live.orchestrate import WorkerRun
from envdoctor.live.parse import failure_reason


class Progress:
    """``with Progress(names, enabled) as p:`` then ``p.done(run)`` as each worker finishes."""

    def __init__(self, names: list[str], enabled: bool | None = None):
        self.names = names
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._lock = threading.Lock()
        self._bar: Any = None
        self._tasks: dict[str, Any] = {}
        self._start = time.monotonic()

    def __enter__(self) -> Progress:
        if not self.enabled or not self.names:
            return self
        from rich.console import Console
        from rich.progress import Progress as Bar
        from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn
        self._bar = Bar(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                        console=Console(stderr=True), transient=True)
        self._bar.__enter__()
        for name in self.names:
            self._tasks[name] = self._bar.add_task(_shown(f"{name}: importing and running "
                                                          "smoke kernels"), total=1)
        return self

    def done(self, run: WorkerRun) -> None:
        if self._bar is None:
            return
        reason = failure_reason(run)
        text = f"{run.name}: done in {run.seconds:.1f}s" if reason is None else \
            f"{run.name}: {reason}"
        with self._lock:
            self._bar.update(self._tasks[run.name], description=_shown(text), completed=1)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)


def _shown(text: str) -> str:
    """A worker's words (its ImportError) as rich markup that shows exactly them: brackets
    escaped, escape sequences and controls spelled out (the bar is on the terminal)."""
    from rich.markup import escape

    from envdoctor.outputs.sanitise import terminal
    return escape(terminal(" ".join(text.split())))
