"""Import torch in a child first, under ``--timeout``, before the rank imports it itself.

A rank needs torch.distributed in its own process (the rendezvous and the barrier are the
job's), but an import that hangs (a stale NFS mount, a driver call at import) would hang the
rank for ever, before any deadline runs, and one that segfaults would kill it without a word.
So the same interpreter, with the rank's environment and ``sys.path``, imports torch and
torch.distributed in a child started through ``envdoctor.children``: a child that does not
answer in time is killed and named; one that dies is named by its signal. Only an import that
worked there is repeated here (then warm in the page cache).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

from envdoctor import children

CHILD = (
    "import json, sys\n"
    "sys.path[:] = json.loads(sys.argv[1])\n"
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


def torch_import_problem(timeout: float) -> str:
    """"" when torch and torch.distributed with gloo import in a child within ``timeout``
    seconds, else why not in a few words (for ``run.NO_TORCH``)."""
    from envdoctor import runner

    start = time.monotonic()
    argv = [sys.executable, "-c", CHILD, json.dumps(sys.path)]
    try:
        proc = children.spawn(argv, env=dict(os.environ))
    except OSError as exc:
        return f"could not start a child to import torch: {exc.strerror or exc}"
    try:
        out, err, error = runner.collect_output(proc, start + timeout, stderr_tail=True)
        if error:
            children.kill_tree(proc)
            if "timed out" in error:
                return (f"importing torch did not finish within {timeout:g}s (--timeout); "
                        "a hung import: a stale network file system, a driver call at import")
            return f"importing torch {error}"
        code = proc.wait(timeout=5.0)
    except Exception as exc:  # noqa: BLE001 - TimeoutExpired: closed its output, never exited
        children.kill_tree(proc)
        return f"importing torch did not exit ({type(exc).__name__})"
    finally:
        if proc.poll() is None:
            children.kill_tree(proc)
        children.release(proc)
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"importing torch killed the interpreter ({name})"
    try:
        answer = json.loads(out.decode("utf-8", errors="replace"))
    except ValueError:
        answer = None
    if isinstance(answer, dict) and answer.get("ok") is True:
        return ""
    if isinstance(answer, dict) and isinstance(answer.get("error"), str) and answer["error"]:
        return answer["error"]
    last = next((line.strip() for line in reversed(err.decode("utf-8", "replace").splitlines())
                 if line.strip()), "")
    return f"importing torch exited with status {code}" + (f": {last[:200]}" if last else "")
