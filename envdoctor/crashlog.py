"""The crash log: what a user attaches to an issue when envdoctor hits an internal error (exit 3).

Kept apart from ``errors`` (which every command imports) because it needs the redactor, and
``errors`` must stay free of the outputs package.
"""

from __future__ import annotations

import os
import sys
import time


def crash_dir() -> str:
    """Where crash logs go: the user's state dir (``$XDG_STATE_HOME/envdoctor/crash``, else
    ``~/.local/state/envdoctor/crash``), created 0700; never a shared temp dir."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"),
                                                           ".local", "state")
    return os.path.join(base, "envdoctor", "crash")


def write_crash_log(exc: BaseException) -> str:
    """Save the (redacted) traceback where a user can find it and attach it to an issue.

    The file gets a random name, is created with ``O_EXCL | O_NOFOLLOW`` and mode 0600 in a
    0700 folder of the user's own (a symlink planted there, or a folder another user can
    write, is refused), and argv, environment and traceback are redacted.
    """
    import stat
    import traceback

    from envdoctor import __version__
    folder = crash_dir()
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.lstat(folder)
        if not stat.S_ISDIR(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()) \
                or st.st_mode & 0o022:
            return f"(no crash log: {folder} is not a private folder of this user)"
        name = f"envdoctor-crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.urandom(8).hex()}.log"
        path = os.path.join(folder, name)
        flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_CLOEXEC", 0))
        fd = os.open(path, flags, 0o600)
    except OSError as err:
        return f"(could not write a crash log in {folder}: {err.strerror or err})"
    trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    body = (f"envdoctor {__version__} on Python {sys.version.split()[0]} ({sys.platform})\n"
            f"argv: {sys.argv[1:]!r}\n\n{trace}")
    try:
        from envdoctor.probes.envvars import select
        env = select(os.environ)
        body += "\nenvironment (allowlisted):\n" + "".join(f"  {k}={v}\n" for k, v in env.items())
        from envdoctor.outputs.redact import for_data
        body = for_data({"argv": sys.argv, "env": env}).text(body)
    except Exception:  # noqa: BLE001 - redaction failed: keep only what cannot leak
        body = (f"envdoctor {__version__} on Python {sys.version.split()[0]}\n"
                f"{type(exc).__name__} (redaction failed; argv and details left out)\n")
    from envdoctor.outputs.sanitise import terminal
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as fh:
            fh.write(terminal(body))  # read with cat: an escape in a message stays visible
    except OSError as err:
        return f"(could not write a crash log: {err.strerror or err})"
    return path


def redacted(message: str) -> str:
    """An error line for stderr (which CI logs keep), redacted like every output and then
    terminal-safe: a bad-input message quotes the user's paths and values, an internal
    error's message anything."""
    if not message:
        return message
    try:
        from envdoctor.outputs.redact import for_data
        from envdoctor.outputs.sanitise import one_line
        return one_line(for_data({"argv": sys.argv, "message": message}).text(message))
    except Exception:  # noqa: BLE001 - redaction failed: say nothing that could leak
        return "(message left out: redaction failed)"


def one_line(exc: BaseException) -> str:
    """The first line of ``exc``'s message (at most 300 characters), redacted."""
    return redacted(str(exc).splitlines()[0][:300] if str(exc).strip() else "")
