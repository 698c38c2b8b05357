"""A time bound on each regex search of the scan, behind the load-time audit.

Rules are audited for catastrophic backtracking when they load (``engine.redos``) and every
line is capped (``reader.MAX_LINE``), which bounds a search by the line's length; the audit
finds exponential patterns, not every polynomial one (three overlapping ``.*`` are cubic).
So while a scan runs, an interval timer ticks (SIGALRM, every ``TICK`` s); Python's regex
engine checks for signals as it works, so the tick runs even inside one long search. The
handler reads which pattern the scanner's ``_match`` frame is searching, on which line: the
same search seen for ``BUDGET`` CPU seconds raises ``PatternTooSlow``, naming the rule and the
pattern, which the command reports in one line (exit 2). Nothing is added to the search loop
itself. Only in the main thread, and only when no one else has the timer.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import CodeType, FrameType
from typing import Any

from envdoctor.bounded import env


def _budget(text: str | None, default: float = 2.0) -> float:
    """``ENVDOCTOR_MATCH_BUDGET`` in seconds: a positive finite number, else the default."""
    try:
        value = float(text or default)
    except ValueError:
        return default
    return value if 0 < value < 1e6 else default


BUDGET = _budget(env("ENVDOCTOR_MATCH_BUDGET"))  # CPU s, one search
TICK = 0.25


class PatternTooSlow(Exception):
    """One regex search ran past ``BUDGET``: the rule's pattern backtracks on this line."""

    def __init__(self, code: str, pattern: str, line: int):
        self.code, self.pattern, self.line = code, pattern, line
        super().__init__(f"signature {code}: pattern {pattern!r} still running after "
                         f"{BUDGET:g} s on line {line} (it backtracks; the scan was stopped)")


_ACTIVE: list[CodeType] = []
_STOPPED = [0.0]   # when the timer last stopped (monotonic): a tick may still be pending


def _handler(code: CodeType, seen: dict[str, Any]) -> Any:
    def tick(_signum: int, frame: FrameType | None) -> None:
        while frame is not None and frame.f_code is not code:
            frame = frame.f_back
        if frame is None:
            seen.clear()
            return
        local = frame.f_locals
        key = (id(frame), local.get("order"), local.get("line_no"))
        now = time.process_time()  # CPU seconds: a loaded machine does not trip it
        if seen.get("key") != key:
            seen.update(key=key, since=now)
            return
        if now - seen["since"] >= BUDGET:
            seen.clear()
            state, i, pat = local.get("self"), local.get("i"), local.get("pat")
            name = "?"
            try:
                name = state.sig_hits[i].signature.code  # type: ignore[union-attr]
            except (AttributeError, IndexError, TypeError):
                pass
            raise PatternTooSlow(name, getattr(pat, "source", "?"), int(key[2] or 0))
    return tick


def _usable() -> bool:
    return (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
            and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
            and (signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, signal.SIG_IGN, None)
                 or getattr(signal.getsignal(signal.SIGALRM), "__module__", "")
                 == "envdoctor.terminate"))   # the CLI's ending handler: put back after


def ticking() -> bool:
    """Is the timer running, or did it stop less than a second ago (``terminate`` takes a
    SIGALRM then for one of its ticks, not for a signal from outside)?"""
    return bool(_ACTIVE) or time.monotonic() - _STOPPED[0] < 1.0


@contextmanager
def guard(code: CodeType) -> Iterator[None]:
    """Bound every search made by the function whose code is ``code`` while inside."""
    if _ACTIVE or not _usable():
        yield
        return
    old = signal.signal(signal.SIGALRM, _handler(code, {}))
    _ACTIVE.append(code)
    signal.setitimer(signal.ITIMER_REAL, TICK, TICK)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _STOPPED[0] = time.monotonic()
        signal.signal(signal.SIGALRM, old)
        _ACTIVE.pop()


def rearm() -> None:
    """In a forked child (timers are not inherited): tick again, with the inherited handler."""
    if _ACTIVE and hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, TICK, TICK)
