"""The one owner of every process envdoctor starts.

Probe commands (``runner``), framework workers (``live.orchestrate``), the NVML child, the
fleet's torch pre-flight and the forked half of a big ``explain`` scan all start here and
nowhere else (tests/test_children.py fails on a ``subprocess``/``os.fork``/``multiprocessing``
anywhere else in the package). Each started command runs in a session of its own (its own
process group, so a terminal's Ctrl-C reaches envdoctor alone) and carries this run's mark
(``MARK_VAR``) in its environment, so that ending it reaches everything it started: its
group, and every process of ours with the mark, even one that called ``setsid``.

Three ways out:
* ``kill_tree`` / ``kill_owned_by``: one command past its deadline (SIGKILL, at once);
* ``kill_all``: envdoctor is leaving normally; whatever a deadline abandoned goes with it,
  and so does a daemon a command forked (its own session, its pipes closed);
* ``guard``: for a process a launcher may SIGKILL (a fleet rank): a tiny child that outlives
  it, sees its parent go, and kills every marked process it left (SIGKILL cannot be handled,
  so nothing in the killed process can do this);
* ``terminate_all``: envdoctor was told to stop (any signal of ``ENDING``):
  SIGTERM to every group and descendant, a short grace, then SIGKILL to whatever is left.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from typing import IO, Any

from envdoctor.bounded import read_regular

MARK_VAR = "ENVDOCTOR_RUN_MARK"  # set in every child's environment to find its descendants
# each started command's own mark, beside the run's: ``kill_tree`` of one command (a hung
# rocm-smi at its deadline) reaches its descendants, never a sibling's (a slow nvcc started by
# another probe at the same time carries the same run mark, not the same command mark)
CHILD_VAR = "ENVDOCTOR_CHILD_MARK"
GRACE = 1.0                      # seconds a told-to-stop child has between SIGTERM and SIGKILL
# every signal whose default action ends a process and that another process sends (not a
# fault of our own code, as SIGSEGV is): each must end envdoctor's children too (``terminate``)
ENDING = ("SIGTERM", "SIGHUP", "SIGINT", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM",
          "SIGVTALRM", "SIGPROF", "SIGIO", "SIGPWR", "SIGXCPU", "SIGSTKFLT")

# pid -> (the Popen, or None for a fork; the thread that owns it)
_live: dict[int, tuple[subprocess.Popen[bytes] | None, int]] = {}
_lock = threading.RLock()          # re-entrant: a signal handler may run inside ``spawn``
_mark = ""
# threads past their deadline: they start nothing more (the objects, not their idents: an
# ident is reused by the next thread)
_cancelled: weakref.WeakSet[threading.Thread] = weakref.WeakSet()
_closing = False                   # envdoctor is leaving: nothing more starts
_fork_safe_threads: set[int] = set()  # threads that hold no lock a fork could inherit
_child_marks: weakref.WeakKeyDictionary[subprocess.Popen[bytes], str] = weakref.WeakKeyDictionary()
_started = 0                       # commands started: numbers the command marks


class NotStarted(OSError):
    """The command was not started: envdoctor is leaving or the caller's deadline passed."""


def run_mark() -> str:
    """A token unique to this envdoctor process, inherited by everything it starts."""
    global _mark
    if not _mark:
        _mark = f"{os.getpid()}-{os.urandom(6).hex()}"
    return _mark


def _refuse() -> None:
    if _closing:
        raise NotStarted("not started: envdoctor is exiting")
    if threading.current_thread() in _cancelled:
        raise NotStarted("not started: the probe's deadline passed")


def spawn(argv: Sequence[str], *, env: Mapping[str, str] | None = None,
          cwd: str | None = None, stdin: int | IO[Any] | None = subprocess.DEVNULL,
          stdout: int | IO[Any] | None = subprocess.PIPE,
          stderr: int | IO[Any] | None = subprocess.PIPE) -> subprocess.Popen[bytes]:
    """Start ``argv`` (a list, never a shell) in its own session, marked and registered to
    the calling thread until ``release``. Raises ``NotStarted`` when nothing may start now,
    else what ``Popen`` raises (``FileNotFoundError``, ``OSError``, ``ValueError``)."""
    global _started
    child_env = dict(os.environ if env is None else env)
    child_env[MARK_VAR] = run_mark()
    with _lock:  # started and registered as one step: ``terminate_all`` sees it or stops it
        _refuse()
        _started += 1
        own = f"{run_mark()}.{_started}"
        child_env[CHILD_VAR] = own
        proc = subprocess.Popen(list(argv), stdin=stdin, stdout=stdout, stderr=stderr,
                                env=child_env, cwd=cwd, start_new_session=os.name == "posix")
        _live[proc.pid] = (proc, threading.get_ident())
        _child_marks[proc] = own
    return proc


def can_fork() -> bool:
    """Is ``fork`` safe here: no thread but this one, or ones known to hold no lock?"""
    others = {t.ident for t in threading.enumerate()} - {threading.get_ident()}
    return not (others - _fork_safe_threads)


def fork_safe_thread(ident: int | None) -> None:
    """Mark a thread that only waits in a system call (the signal watcher) as harmless to a
    ``fork``, so that it does not turn the parallel ``explain`` scan off."""
    if ident is not None:
        _fork_safe_threads.add(ident)


def fork() -> int:
    """``os.fork``, registered: 0 in the child (which takes the default action of every
    terminating signal again: it is envdoctor's helper, not envdoctor), the pid in the
    parent, which must ``release`` it once reaped. Raises ``NotStarted`` or ``OSError``."""
    with _lock:
        _refuse()
        pid = os.fork()
        if pid == 0:
            _as_forked_child()
            return 0
        _live[pid] = (None, threading.get_ident())
    return pid


def _as_forked_child() -> None:
    with contextlib.suppress(ValueError, OSError):
        signal.set_wakeup_fd(-1)
    for name in ENDING:
        number = getattr(signal, name, None)
        # envdoctor's own ending handler only: the explain scan's SIGALRM tick stays
        if number is not None and \
                getattr(signal.getsignal(number), "__module__", "") == "envdoctor.terminate":
            with contextlib.suppress(ValueError, OSError):
                signal.signal(number, signal.SIG_DFL)


def release(child: subprocess.Popen[bytes] | int) -> None:
    """The child has ended (and was reaped): stop tracking it."""
    pid = child if isinstance(child, int) else child.pid
    with _lock:
        _live.pop(pid, None)


def owned_by(thread_ident: int) -> list[int]:
    """The pids a thread started and still owns."""
    with _lock:
        return [pid for pid, (_, owner) in _live.items() if owner == thread_ident]


def kill_owned_by(thread_ident: int) -> int:
    """Kill what a timed-out probe thread started, and let it start nothing more (a retry
    loop would otherwise start the next attempt); returns how many commands were killed."""
    with _lock:
        _cancelled.update(t for t in threading.enumerate() if t.ident == thread_ident)
        procs = [(pid, p) for pid, (p, owner) in _live.items() if owner == thread_ident]
    for pid, proc in procs:
        kill_tree(proc if proc is not None else pid)
    return len(procs)


def kill_tree(child: subprocess.Popen[bytes] | int) -> None:
    """Kill a command, its process group (it runs in its own session) and every descendant
    that carries its command mark (``CHILD_VAR``), including one that escaped into a session
    of its own; the other commands running now (another probe's) are not touched."""
    if isinstance(child, int):
        with contextlib.suppress(OSError):
            os.kill(child, signal.SIGKILL)
        return
    _signal_group(child.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        child.kill()
    own = _child_marks.get(child)
    if own:
        _signal_marked(own, signal.SIGKILL, CHILD_VAR)
    with contextlib.suppress(Exception):
        child.wait(timeout=1.0)


GUARD = (
    "import os, sys, time\n"
    "parent, needle = int(sys.argv[1]), sys.argv[2].encode()\n"
    "while os.getppid() == parent:\n"
    "    time.sleep(0.2)\n"
    "me = os.getpid()\n"
    "for _ in range(3):\n"
    "    for name in os.listdir('/proc'):\n"
    "        if not name.isdigit() or int(name) == me:\n"
    "            continue\n"
    "        try:\n"
    "            with open('/proc/' + name + '/environ', 'rb') as f:\n"
    "                env = f.read(1 << 20).split(b'\\0')\n"
    "        except OSError:\n"
    "            continue\n"
    "        if needle in env:\n"
    "            try:\n"
    "                os.kill(int(name), 9)\n"
    "            except OSError:\n"
    "                pass\n"
    "    time.sleep(0.2)\n"
)


def guard() -> bool:
    """Start the guard (Linux): when this process dies without cleaning up (SIGKILL, the
    OOM killer), the guard kills every process carrying this run's mark within a second,
    then leaves; a normal exit kills the guard with the other children. False when it could
    not start (no /proc, nothing may start now)."""
    import sys
    if not os.path.isdir("/proc"):
        return False
    global _guard
    try:
        _guard = spawn([sys.executable, "-I", "-S", "-c", GUARD, str(os.getpid()),
                        f"{MARK_VAR}={run_mark()}"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    except OSError:
        return False
    return True


_guard: subprocess.Popen[bytes] | None = None  # it starts nothing: ended without a /proc scan


def _end_guard() -> None:
    global _guard
    guard, _guard = _guard, None
    if guard is None:
        return
    with contextlib.suppress(OSError):
        guard.kill()
    with contextlib.suppress(Exception):
        guard.wait(timeout=1.0)
    release(guard)


def kill_all() -> None:
    """Kill every command still running, with its process group and marked descendants.

    Called before envdoctor exits, so a probe abandoned at its deadline (a hung nvidia-smi
    in its field-retry loop) never leaves a process behind.
    """
    global _closing
    _end_guard()
    with _lock:
        _closing = True
        procs = list(_live.items())
    for pid, (proc, _) in procs:
        kill_tree(proc if proc is not None else pid)
    if _mark and _started:  # any command may have left a marked descendant: a killed one's,
        # or a daemon one forked into a session of its own with its pipes closed, which
        # neither its group nor the pipes reach (/proc costs ~20 ms of 0.3 s); none started:
        _signal_marked(_mark, signal.SIGKILL)  # nothing to look for


def terminate_all(grace: float = GRACE) -> None:
    """End everything envdoctor started because envdoctor itself was told to stop: SIGTERM
    to every registered process group, every descendant and every marked process, up to
    ``grace`` seconds for them to go, then SIGKILL to all of them. Never raises, never waits
    on a lock another thread may hold for ever (a signal can arrive inside ``spawn``)."""
    global _closing
    _closing = True
    got = _lock.acquire(timeout=0.2)
    try:
        entries = list(_live.items())   # one C-level copy: safe even without the lock
    finally:
        if got:
            _lock.release()
    groups = [pid for pid, (proc, _) in entries if proc is not None]
    pids = {pid for pid, _ in entries} | _descendants()
    if _mark:
        pids |= set(_signal_marked(_mark, signal.SIGTERM))
    for pgid in groups:
        _signal_group(pgid, signal.SIGTERM)
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    end = time.monotonic() + grace
    while pids and time.monotonic() < end:
        pids = {pid for pid in pids if _running(pid)}
        if pids:
            time.sleep(0.02)
    for pgid in groups:  # members the snapshot missed (started just now) are in the groups
        _signal_group(pgid, signal.SIGKILL)
    for pid in pids | _descendants():
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    if _mark:
        _signal_marked(_mark, signal.SIGKILL)


def _signal_group(pgid: int, number: int) -> None:
    if os.name == "posix":
        with contextlib.suppress(OSError):
            os.killpg(pgid, number)


def _descendants() -> set[int]:
    """Every live descendant of this process (children of children …), through psutil."""
    try:
        import psutil
        return {p.pid for p in psutil.Process().children(recursive=True)}
    except Exception:  # noqa: BLE001 - psutil missing or /proc unreadable: groups and marks
        return set()


def _running(pid: int) -> bool:
    """Alive and not a zombie (a zombie has exited; its parent has not reaped it yet)."""
    stat = read_regular(f"/proc/{pid}/stat", 4096)
    if stat is not None:
        fields = stat.rsplit(b")", 1)[-1].split()
        if fields:
            return fields[0] != b"Z"
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return not os.path.isdir("/proc")  # no /proc entry on Linux: gone


def _signal_marked(mark: str, number: int, var: str = MARK_VAR) -> list[int]:
    """Send ``number`` to every process of ours whose environment carries ``var=mark`` (Linux
    /proc); returns their pids."""
    needle = f"{var}={mark}".encode()
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []
    me = os.getpid()
    hit = []
    for pid in pids:
        if pid == me:
            continue
        env = read_regular(f"/proc/{pid}/environ", 1 << 20)
        if env is None:
            continue
        if needle in env.split(b"\0"):  # the whole entry: mark .1 is not mark .12
            hit.append(pid)
            with contextlib.suppress(OSError):
                os.kill(pid, number)
    return hit
