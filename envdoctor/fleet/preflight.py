"""Import torch in a child first, watched by ``--timeout``, before the rank imports it itself.

A rank needs torch.distributed in its own process (the rendezvous and the barrier are the
job's), but an import that hangs (a stale NFS mount, a driver call at import) would hang the
rank for ever, before any deadline runs, and one that segfaults would kill it without a word.
So the same interpreter, with the rank's environment and ``sys.path``, imports torch and
torch.distributed in a child started through ``envdoctor.children``; only an import that
worked there is repeated here (then warm in the page cache).

The child names each module as it starts importing it (a meta-path hook that only reports),
so the watch is on progress, not on the whole import: eight ranks importing torch from a
network file system on a busy node may take longer than ``--timeout`` and still be fine,
while an import that does nothing for ``--timeout`` seconds is hung, and the message says in
which module. A child that dies is named by its signal.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from envdoctor import children
from envdoctor.bounded import decode_json
from envdoctor.errors import EXIT_USAGE

CHILD = (
    "import json, sys\n"
    "sys.path[:] = json.loads(sys.argv[1])\n"
    "class Progress:\n"
    "    @staticmethod\n"
    "    def find_spec(name, path=None, target=None):\n"
    "        try:\n"
    "            sys.stderr.write('import ' + name + '\\n')\n"
    "            sys.stderr.flush()\n"
    "        except Exception:\n"
    "            pass\n"
    "        return None\n"
    "sys.meta_path.insert(0, Progress)\n"
    "try:\n"
    "    import torch\n"
    "    import torch.distributed as dist\n"
    "    ok = bool(dist.is_available() and dist.is_gloo_available())\n"
    "    answer = {'ok': ok, 'error': '' if ok else 'this torch build has no gloo backend'}\n"
    "except Exception as exc:\n"
    "    answer = {'ok': False, 'error': (type(exc).__name__ + ': ' + str(exc))[:200]}\n"
    "sys.stdout.write(json.dumps(answer))\n"
    "sys.stdout.flush()\n"
)


MAX_OUT = 1 << 16      # bytes of the child's answer kept
CAP_FACTOR = 10        # an import still progressing is given up after 10 x --timeout


def torch_import_problem(timeout: float) -> str:
    """"" when torch and torch.distributed with gloo import in a child that never goes
    ``timeout`` seconds without progress, else why not in a few words (for ``run.NO_TORCH``)."""
    argv = [sys.executable, "-c", CHILD, json.dumps(sys.path)]
    try:
        proc = children.spawn(argv, env=dict(os.environ))
    except OSError as exc:
        return f"could not start a child to import torch: {exc.strerror or exc}"
    try:
        out, tail, stalled = _watch(proc, timeout)
        if stalled:
            children.kill_tree(proc)
            where = _last_module(tail)
            return (f"importing torch made no progress for {timeout:g}s (--timeout)"
                    + (f", stuck in {where}" if where else "")
                    + "; a hung import: a stale network file system, a driver call at import")
        code = proc.wait(timeout=5.0)
    except Exception as exc:  # noqa: BLE001 - TimeoutExpired: closed its output, never exited
        children.kill_tree(proc)
        return f"importing torch did not exit ({type(exc).__name__})"
    finally:
        if proc.poll() is None:
            children.kill_tree(proc)
        children.release(proc)
    return _verdict(code, out, tail)


def _watch(proc: subprocess.Popen[bytes], timeout: float) -> tuple[bytes, bytes, bool]:
    """(stdout, the tail of stderr, stalled): read until both pipes close, or until the
    child went ``timeout`` seconds without a byte on stderr (or 10 x ``timeout`` in all)."""
    import selectors

    start = last = time.monotonic()
    out, tail = bytearray(), b""
    sel = selectors.DefaultSelector()
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            sel.register(pipe, selectors.EVENT_READ)
    try:
        while sel.get_map():
            now = time.monotonic()
            if now - last > timeout or now - start > CAP_FACTOR * timeout:
                return bytes(out), tail, True
            for key, _ in sel.select(min(timeout - (now - last), 1.0)):
                piece = os.read(key.fd, 1 << 16)
                if not piece:
                    sel.unregister(key.fileobj)
                elif key.fileobj is proc.stderr:
                    last = time.monotonic()
                    tail = (tail + piece)[-4096:]
                else:
                    out += piece[: MAX_OUT - len(out)]
    finally:
        sel.close()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    return bytes(out), tail, False


def _last_module(tail: bytes) -> str:
    for line in reversed(tail.decode("utf-8", "replace").splitlines()):
        if line.startswith("import ") and len(line) < 200:
            return line[len("import "):].strip()
    return ""


def _verdict(code: int, out: bytes, tail: bytes) -> str:
    """What an ended child said: "" for a good import, else the cause in a few words."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        where = _last_module(tail)
        return f"importing torch killed the interpreter ({name}" + \
            (f", in {where})" if where else ")")
    try:
        answer = decode_json(out.decode("utf-8", errors="replace"), "the import check's answer")
    except ValueError:
        answer = None
    if isinstance(answer, dict) and answer.get("ok") is True:
        return ""
    if isinstance(answer, dict) and isinstance(answer.get("error"), str) and answer["error"]:
        return answer["error"]
    last = next((line.strip() for line in reversed(tail.decode("utf-8", "replace").splitlines())
                 if line.strip() and not line.startswith("import ")), "")
    return f"importing torch exited with status {code}" + (f": {last[:200]}" if last else "")


class ImportWatch:
    """The same progress watch, in this process: for the ranks of a node after its first.

    The node's local rank 0 imports torch in a child first (``torch_import_problem``); its
    other ranks share that node's files and environment, so a second child each would only
    repeat the import (on 2 cores, 16 ranks' extra imports cost more than the barrier). They
    import in-process under this watch instead: a meta-path hook notes each module as it
    starts, and a thread ends the process with the one line when ``timeout`` seconds pass
    without progress (or ``CAP_FACTOR`` x ``timeout`` in all): a hung import is bounded and
    named here too, only without a snapshot of its own (the other ranks name it absent).
    """

    def __init__(self, timeout: float, message: str) -> None:
        import threading

        from envdoctor.outputs.stderr import say  # now: the watch itself imports nothing
        self.say = say
        self.timeout, self.message = timeout, message
        self.last, self.start_at, self.module = time.monotonic(), time.monotonic(), ""
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="envdoctor-import-watch",
                                       daemon=True)

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        self.last, self.module = time.monotonic(), name
        return None

    def __enter__(self) -> ImportWatch:
        sys.meta_path.insert(0, self)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        if self in sys.meta_path:
            sys.meta_path.remove(self)

    def _watch(self) -> None:
        while not self.done.wait(0.5):
            now = time.monotonic()
            if now - self.last > self.timeout or now - self.start_at > CAP_FACTOR * self.timeout:
                where = f" (last module: {self.module})" if self.module else ""
                self.say(self.message.format(why=f"importing torch made no progress for "
                                                 f"{self.timeout:g}s (--timeout){where}"))
                os._exit(EXIT_USAGE)
