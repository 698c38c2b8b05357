"""SIGTERM, SIGHUP, SIGINT, SIGQUIT and every other signal whose default action ends a process
(SIGUSR1, SIGUSR2, SIGALRM …, ``children.ENDING``) end envdoctor one way: its children, then
one line.

``timeout``, a Slurm or Kubernetes cancel (SIGTERM), a dropped ssh session (SIGHUP), Ctrl-C
(SIGINT) and Ctrl-\\ (SIGQUIT, whose core dump of an interpreter would help nobody) all mean
"stop now"; so does a signal nobody handles (Slurm's ``--signal=USR1``, ``timeout -s ALRM``):
its default action would end envdoctor and leave its children running. Live workers and
probe commands run in sessions of their own, so no signal sent to envdoctor reaches them;
left alone they would outlive it (a hung ``nvidia-smi``, a worker running a full smoke
suite). ``install`` (called by the CLI entry,
never on import) makes each of these signals: ``children.terminate_all`` (SIGTERM to every
child group and descendant, a short grace, SIGKILL), one line on stderr
(``envdoctor: terminated by SIGTERM``) and exit 128 + the signal number (143, 129, 130, 131).

A command that has something worth keeping when it is stopped (a fleet rank: its snapshot,
rank 0's partial report) registers ``last_words``: called after the children are gone, given
``LAST_WORDS`` seconds in a thread of its own (a hook stuck on a lock the interrupted code
holds is abandoned, not waited for), and the line it returns replaces the default one.

Python runs a signal handler only in the main thread, between bytecodes; a main thread stuck
in a C call (a framework import, a driver call) would never run it. So the signals also wake
a watcher thread through ``signal.set_wakeup_fd``, and whichever of the two comes first ends
the process; the other waits for that.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType

from envdoctor import children

SIGNALS = tuple(getattr(signal, n) for n in children.ENDING if hasattr(signal, n))
# signals envdoctor's own code uses as a timer (the explain scan's regex deadline): the
# watcher thread never ends the process on one (its ticks reach the wakeup fd too); the
# handler does, unless that timer is ticking or has just stopped
TIMERS = frozenset(getattr(signal, n) for n in ("SIGALRM",) if hasattr(signal, n))
_once = threading.Lock()
_ender: int | None = None  # the thread ending the process
LAST_WORDS = 5.0           # seconds the last words may take before the process exits anyway
_last_words: list[Callable[[int], str]] = []


def exit_code(number: int) -> int:
    """The shell's convention for "ended by signal N"."""
    return 128 + number


def last_words(hook: Callable[[int], str]) -> None:
    """Call ``hook(signal number)`` when a signal ends the process, after its children were
    stopped; a non-empty line it returns is said instead of ``terminated by SIG…``."""
    _last_words.append(hook)


def _say_last_words(number: int) -> str:
    """Run the hooks in a thread bounded by LAST_WORDS; the last line one returned."""
    if not _last_words:
        return ""
    box: list[str] = []

    def call() -> None:
        for hook in list(_last_words):
            with contextlib.suppress(Exception):
                line = hook(number)
                if line:
                    box.append(line)

    thread = threading.Thread(target=call, name="envdoctor-last-words", daemon=True)
    thread.start()
    thread.join(LAST_WORDS)
    return box[-1] if box else ""


# Temporary files being written (``sink.write_file``'s, the rule cache's): a signal ends the
# process with ``os._exit``, past every ``finally``, so ``end`` removes them itself: an output
# is replaced whole or left as it was, never a ``.out.json.x1y2.tmp`` beside it
_unfinished: set[str] = set()


@contextlib.contextmanager
def unfinished(path: str) -> Iterator[None]:
    """While the block runs, ``path`` is removed if a signal ends the process."""
    _unfinished.add(path)
    try:
        yield
    finally:
        _unfinished.discard(path)


def _remove_unfinished() -> None:
    for path in list(_unfinished):
        with contextlib.suppress(OSError):
            os.unlink(path)


_taken: set[int] = set()   # the signals ``install`` took over
# SIGTERM is a scheduler's or a launcher's "stop now" (Slurm, Kubernetes, torchrun's agent,
# ``timeout``): taken even where the caller ignored it. SIGHUP, SIGINT and SIGQUIT are the
# ones a caller ignores on purpose: ``nohup`` (the run outlives the ssh session) and a shell
# without job control for a background job (``envdoctor fleet … &``: Ctrl-C and Ctrl-\ at
# the terminal are for the foreground job); one ignored at start stays ignored, for
# envdoctor and its children alike, as for any other program.
STOP = frozenset(getattr(signal, n) for n in ("SIGTERM",) if hasattr(signal, n))


def install() -> bool:
    """Handle every signal of ``SIGNALS`` as above: SIGTERM always (``STOP``: "stop now",
    even where a launcher ignored it), every other one whose disposition is still the default
    (one that is ignored, as ``nohup`` ignores SIGHUP and a background job SIGINT and SIGQUIT,
    or that a host program or a profiler handles, is left as it is); False where it cannot
    (not the main thread, a platform without these signals)."""
    if threading.current_thread() is not threading.main_thread() or not SIGNALS:
        return False
    for number in SIGNALS:
        with contextlib.suppress(OSError, ValueError):
            if number in STOP or \
                    signal.getsignal(number) in (signal.SIG_DFL, signal.default_int_handler):
                signal.signal(number, _handler)
                _taken.add(int(number))
    with contextlib.suppress(OSError, ValueError, AttributeError):
        read, write = os.pipe()
        os.set_blocking(write, False)
        signal.set_wakeup_fd(write, warn_on_full_buffer=False)
        watcher = threading.Thread(target=_watch, args=(read,), name="envdoctor-signals",
                                   daemon=True)
        watcher.start()
        children.fork_safe_thread(watcher.ident)
    return True


def _handler(number: int, frame: FrameType | None) -> None:
    if number in TIMERS and _own_timer():
        return
    end(number)


def _own_timer() -> bool:
    """Is envdoctor's own SIGALRM timer ticking, or has it just stopped (a tick may still be
    pending)?"""
    import sys
    deadline = sys.modules.get("envdoctor.explain.deadline")
    return bool(deadline is not None and deadline.ticking())


def _watch(fd: int) -> None:
    wanted = set(_taken) - {int(n) for n in TIMERS}
    while True:
        try:
            data = os.read(fd, 64)
        except InterruptedError:
            continue
        except OSError:
            return
        if not data:
            return
        for number in data:
            if number in wanted:
                end(number)


def end(number: int) -> None:
    """Stop every child, say why in one line, exit 128 + ``number``. A second signal while
    this runs is ignored in the thread doing it and parks any other thread."""
    global _ender
    me = threading.get_ident()
    if not _once.acquire(blocking=False):
        if _ender == me:  # a signal arriving inside this very call: let it finish
            return
        while True:       # the other thread is ending the process
            time.sleep(60)
    _ender = me
    line = ""
    try:
        _remove_unfinished()
        children.terminate_all()
        line = _say_last_words(number)
    finally:
        _say(line or f"envdoctor: terminated by {_name(number)}")
        os._exit(exit_code(number))


def name(number: int) -> str:
    """SIGTERM, SIGINT …: how a report names the signal that ended a run."""
    return _name(number)


def _name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _say(line: str) -> None:
    """One line on stderr, written to the descriptor (the stream's lock may be held by the
    very code the signal interrupted); on a terminal, the cursor a progress bar hid is shown
    again first."""
    prefix = ""
    with contextlib.suppress(Exception):
        if os.isatty(2):
            prefix = "\r\x1b[2K\x1b[?25h"
    with contextlib.suppress(OSError):
        os.write(2, (prefix + line + "\n").encode("ascii", "replace"))
