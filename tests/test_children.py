"""One registry owns every child: nothing in envdoctor/ starts a process another way, and
what the registry started it can end, session escapees and SIGTERM-ignorers included."""

from __future__ import annotations

import ast
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import psutil
import pytest

from envdoctor import children

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "envdoctor"
OWNERS = {PACKAGE / "children.py"}
STARTERS = {
    "subprocess": {"Popen", "run", "call", "check_call", "check_output", "getoutput",
                   "getstatusoutput"},
    "os": {"fork", "forkpty", "system", "popen", "posix_spawn", "posix_spawnp", "spawnl",
           "spawnle", "spawnlp", "spawnlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe", "execl",
           "execle", "execlp", "execlpe", "execv", "execve", "execvp", "execvpe"},
    "pty": {"fork", "spawn"},
    "asyncio": {"create_subprocess_exec", "create_subprocess_shell"},
}
BANNED_MODULES = ("multiprocessing", "concurrent.futures.process")


def _starts(path: Path) -> list[str]:
    """Every place in ``path`` that starts a process or imports a way to."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        where = f"{path.relative_to(REPO)}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                node.attr in STARTERS.get(node.value.id, ()) and \
                not (node.value.id == "subprocess" and node.attr == "Popen" and
                     _only_a_type(tree, node)):
            found.append(f"{where}: {node.value.id}.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = {a.name for a in node.names}
            if node.module.startswith(BANNED_MODULES) or names & STARTERS.get(node.module, set()):
                found.append(f"{where}: from {node.module} import {', '.join(sorted(names))}")
            if node.module == "concurrent.futures" and "ProcessPoolExecutor" in names:
                found.append(f"{where}: ProcessPoolExecutor")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(BANNED_MODULES):
                    found.append(f"{where}: import {alias.name}")
        elif isinstance(node, ast.Attribute) and node.attr == "ProcessPoolExecutor":
            found.append(f"{where}: ProcessPoolExecutor")
    return found


def _only_a_type(tree: ast.AST, target: ast.Attribute) -> bool:
    """``subprocess.Popen`` in an annotation or ``Popen[bytes]`` names a type, starts nothing."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.func is target:
            return False
    return True


def test_nothing_outside_the_registry_starts_a_process():
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) if path not in OWNERS
             for hit in _starts(path)]
    assert found == [], "start children through envdoctor.children:\n" + "\n".join(found)


def test_the_structural_scan_sees_each_way_to_start_a_process(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(textwrap.dedent("""\
        import os, subprocess, multiprocessing
        from subprocess import check_output
        from concurrent.futures import ProcessPoolExecutor
        def f(p: subprocess.Popen[bytes]) -> None:
            subprocess.Popen(["true"]); subprocess.run(["true"]); os.fork(); os.system("x")
            os.execvp("true", ["true"])
        """))
    global REPO
    old, REPO = REPO, tmp_path
    try:
        hits = _starts(sample)
    finally:
        REPO = old
    assert len(hits) == 8, hits  # the annotation alone is not one


SCRIPT = """
import os, subprocess, sys, time
from envdoctor import children
escapee, stubborn = sys.argv[1], sys.argv[2]
children.spawn(["sh", "-c", f"setsid env -i sleep {escapee} & exec sleep {escapee}1"])
children.spawn([sys.executable, "-c",
                "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                f"print('ready', flush=True); time.sleep({stubborn})"], stdout=None)
time.sleep(1.5)
start = time.monotonic()
children.terminate_all(grace=1.0)
print(f"took {time.monotonic() - start:.2f}", flush=True)
try:
    children.spawn(["true"])
except children.NotStarted as exc:
    print(exc)
"""


def _alive(needle: str) -> list[int]:
    out = []
    for p in psutil.process_iter(["cmdline", "status"]):
        try:
            if p.info["status"] != psutil.STATUS_ZOMBIE and \
                    any(needle in part for part in p.info["cmdline"] or ()):
                out.append(p.pid)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return out


def test_terminate_all_ends_session_escapees_and_sigterm_ignorers():
    escapee = f"{800 + uuid.uuid4().int % 99}.{uuid.uuid4().int % 10**5:05d}"
    stubborn = f"{700 + uuid.uuid4().int % 99}.{uuid.uuid4().int % 10**5:05d}"
    done = subprocess.run([sys.executable, "-c", SCRIPT, escapee, stubborn], cwd=REPO,
                          env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True,
                          text=True, timeout=60)
    try:
        time.sleep(0.3)
        assert _alive(escapee) == [] and _alive(stubborn) == []
        lines = done.stdout.splitlines()
        assert lines[0] == "ready" and lines[-1] == "not started: envdoctor is exiting", lines
        took = float(lines[1].split()[1])
        assert 0.9 <= took < 5, took  # the SIGTERM-ignorer had its grace, then SIGKILL
    finally:
        for pid in _alive(escapee) + _alive(stubborn):
            os.kill(pid, 9)


def test_a_spawned_child_has_its_own_session_and_the_run_mark():
    proc = children.spawn([sys.executable, "-c", "import os, sys; "
                           f"sys.stdout.write(str(os.getsid(0)) + ' ' + "
                           f"os.environ[{children.MARK_VAR!r}])"])
    try:
        assert proc.pid in children._live
        out, _ = proc.communicate(timeout=30)
    finally:
        children.release(proc)
    sid, mark = out.decode().split()
    assert int(sid) == proc.pid != os.getsid(0)
    assert mark == children.run_mark()
    assert proc.pid not in children._live


def test_a_cancelled_thread_ident_reused_by_a_new_thread_still_starts_commands():
    def idle() -> None:
        time.sleep(0.05)

    first = threading.Thread(target=idle)
    first.start()
    children.kill_owned_by(first.ident or 0)
    first.join()
    results: list[str] = []

    def start() -> None:
        try:
            proc = children.spawn(["true"])
            proc.wait(10)
            children.release(proc)
            results.append("started")
        except children.NotStarted as exc:
            results.append(str(exc))

    second = threading.Thread(target=start)
    second.start()
    second.join(20)
    assert results == ["started"]


def test_the_signal_watcher_does_not_turn_fork_off():
    script = ("from envdoctor import children, terminate; import threading; "
              "print(children.can_fork(), terminate.install(), threading.active_count(), "
              "children.can_fork())")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=60)
    assert done.stdout.split() == ["True", "True", "2", "True"], done.stdout + done.stderr


def test_importing_envdoctor_installs_no_signal_handler():
    """Handlers belong to the CLI entry (``cli.run``): a program importing envdoctor keeps
    its own SIGTERM, SIGHUP and SIGINT."""
    script = ("import signal, envdoctor.cli, envdoctor.terminate, envdoctor.children, "
              "envdoctor.runner, envdoctor.live.orchestrate; "
              "print(signal.getsignal(signal.SIGTERM) is signal.SIG_DFL, "
              "signal.getsignal(signal.SIGHUP) is signal.SIG_DFL, "
              "signal.getsignal(signal.SIGINT) is signal.default_int_handler, "
              "signal.set_wakeup_fd(-1))")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=60)
    assert done.stdout.split() == ["True", "True", "True", "-1"], done.stdout + done.stderr


STUCK = """
import ctypes, sys, time
from envdoctor import children, terminate
terminate.install()
children.spawn(["sleep", sys.argv[2]])
print("ready", flush=True)
ctypes.CDLL(sys.argv[1]).stuck()   # C code that never returns to Python bytecode
"""


def test_a_main_thread_stuck_in_c_still_ends_on_sigterm(tmp_path):
    """Python runs signal handlers only between bytecodes of the main thread; a main thread
    inside a C call that retries its wait for ever (a driver call, a framework's init) never
    gets there. The watcher thread ends the process anyway."""
    if shutil.which("gcc") is None:
        pytest.skip("needs gcc")
    source = tmp_path / "stuck.c"
    source.write_text("#include <unistd.h>\nvoid stuck(void) { for (;;) sleep(1); }\n")
    lib = tmp_path / "libstuck.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(lib), str(source)], check=True,
                   timeout=60)
    own = f"{600 + uuid.uuid4().int % 99}.{uuid.uuid4().int % 10**5:05d}"
    proc = subprocess.Popen([sys.executable, "-c", STUCK, str(lib), own], cwd=REPO,
                            env=dict(os.environ, PYTHONPATH=str(REPO)), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
        time.sleep(0.3)
        assert proc.returncode == 143 and err == "envdoctor: terminated by SIGTERM\n", err
        assert _alive(own) == []
    finally:
        proc.kill()
        for pid in _alive(own):
            os.kill(pid, 9)


DAEMON = """
import sys, time
from envdoctor import children
own = sys.argv[1]
tool = children.spawn(["sh", "-c", f"setsid sleep {own} </dev/null >/dev/null 2>&1 & echo ok"])
tool.communicate(timeout=30)
children.release(tool)   # the tool answered and exited: nothing of it is registered
time.sleep(0.5)
children.kill_all()      # what envdoctor does as it leaves
print("left", flush=True)
"""


def test_a_daemon_a_command_forked_goes_when_envdoctor_leaves():
    """A tool that answers and exits leaving a daemon (its own session, its pipes closed):
    neither its group nor its pipes reach that daemon, its run mark does."""
    own = f"{500 + uuid.uuid4().int % 99}.{uuid.uuid4().int % 10**5:05d}"
    done = subprocess.run([sys.executable, "-c", DAEMON, own], cwd=REPO,
                          env=dict(os.environ, PYTHONPATH=str(REPO)), capture_output=True,
                          text=True, timeout=60)
    try:
        time.sleep(0.3)
        assert done.stdout.split() == ["left"], done.stdout + done.stderr
        assert _alive(own) == []
    finally:
        for pid in _alive(own):
            os.kill(pid, 9)


ENDED = """
import sys, time
from envdoctor import children, terminate
terminate.install()
children.spawn(["sleep", sys.argv[1]])
print("ready", flush=True)
time.sleep(60)
"""


@pytest.mark.parametrize("name", ["SIGUSR1", "SIGUSR2", "SIGALRM", "SIGVTALRM", "SIGPWR"])
def test_every_signal_whose_default_ends_envdoctor_ends_its_children_first(name):
    """Not only SIGTERM/SIGHUP/SIGINT/SIGQUIT: a signal nobody handles (Slurm's
    ``--signal=USR1``, ``timeout -s ALRM``) would end envdoctor by its default action and
    leave every child running."""
    number = getattr(signal, name)
    own = f"{400 + uuid.uuid4().int % 99}.{uuid.uuid4().int % 10**5:05d}"
    proc = subprocess.Popen([sys.executable, "-c", ENDED, own], cwd=REPO,
                            env=dict(os.environ, PYTHONPATH=str(REPO)), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        proc.send_signal(number)
        _, err = proc.communicate(timeout=20)
        time.sleep(0.3)
        assert proc.returncode == 128 + number, (proc.returncode, err)
        assert err == f"envdoctor: terminated by {name}\n"
        assert _alive(own) == []
    finally:
        proc.kill()
        for pid in _alive(own):
            os.kill(pid, 9)


def test_a_signal_that_is_ignored_or_handled_at_start_is_left_alone():
    """A launcher may ignore SIGUSR2, a host program may handle SIGUSR1: neither is taken
    over; nor is SIGHUP under ``nohup``, nor SIGINT/SIGQUIT in a background job of a shell
    without job control; SIGTERM is, even ignored (a scheduler's "stop now")."""
    script = ("import signal; signal.signal(signal.SIGHUP, signal.SIG_IGN); "
              "signal.signal(signal.SIGUSR2, signal.SIG_IGN); "
              "signal.signal(signal.SIGINT, signal.SIG_IGN); "
              "signal.signal(signal.SIGQUIT, signal.SIG_IGN); "
              "signal.signal(signal.SIGTERM, signal.SIG_IGN); "
              "mine = lambda *a: None; signal.signal(signal.SIGUSR1, mine); "
              "from envdoctor import terminate; terminate.install(); "
              "print(signal.getsignal(signal.SIGUSR2) is signal.SIG_IGN, "
              "signal.getsignal(signal.SIGUSR1) is mine, "
              "signal.getsignal(signal.SIGALRM) is terminate._handler, "
              "signal.getsignal(signal.SIGHUP) is signal.SIG_IGN, "
              "signal.getsignal(signal.SIGINT) is signal.SIG_IGN, "
              "signal.getsignal(signal.SIGQUIT) is signal.SIG_IGN, "
              "signal.getsignal(signal.SIGTERM) is terminate._handler)")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=60)
    assert done.stdout.split() == ["True"] * 7, done.stdout + done.stderr


def test_the_explain_deadline_still_ticks_under_the_ending_handlers():
    """SIGALRM is both an ending signal and the explain scan's timer: the timer still runs
    under the CLI's handler, and its ticks end nothing."""
    script = ("import signal, time; from envdoctor import terminate; terminate.install(); "
              "from envdoctor.explain import deadline; "
              "ok = deadline._usable(); code = (lambda: None).__code__\n"
              "with deadline.guard(code):\n    time.sleep(1.2)\n"
              "print(ok, signal.getsignal(signal.SIGALRM) is terminate._handler, "
              "deadline.ticking())")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=60)
    assert done.returncode == 0 and done.stdout.split() == ["True", "True", "True"], \
        (done.returncode, done.stdout + done.stderr)
