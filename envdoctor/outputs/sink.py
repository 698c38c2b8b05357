"""Where envdoctor's output leaves: stdout or a file, always through the sanitiser of its kind.

``write(text, target, kind)`` is the one way out for a document (``say``, from
``outputs.stderr``, for a line on stderr):
``target`` ``None`` or ``-`` (or ``/dev/stdout``) is stdout, anything else a file. A file is
written atomically: a temp file in the same folder, fsync,
``os.replace``; so two runs writing one file leave the whole output of one of them, never a torn
mix, and a reader never sees half a file. A new file gets the usual mode (0666 less the umask),
a replaced one keeps its mode. ``check_target`` runs before any work: a directory, a FIFO (which
would block with no reader), a device or a socket is a one-line error (exit 2), so is a symlink
to one, a missing folder or a read-only one. Kept free of heavy imports (``explain`` starts
fast).
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys

from envdoctor.errors import BadInput
from envdoctor.outputs import sanitise

STDOUT_NAMES = ("-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")


def is_stdout(target: str | None) -> bool:
    """``-`` (and the names of stdout) mean stdout wherever an output path is taken."""
    return not target or target in STDOUT_NAMES


_keep_credentials = False


def keep_credentials(keep: bool) -> None:
    """``--no-redact``: the documents of this run keep credentials too (the user's own replay)."""
    global _keep_credentials
    _keep_credentials = bool(keep)


def write(text: str, target: str | None, kind: str, color: bool = False) -> None:
    """Sanitise ``text`` for ``kind`` (a ``--format`` or a sink kind) and write it out.

    Redaction is the command's (it knows the data: host and user names, which value is an
    environment variable's); the sink adds the last pass every document gets whatever a
    command redacted or forgot (a field rebuilt after redaction, a value quoted into an id):
    the credential shapes no output may carry (``secrets.credentials``: a token's shape, a
    URL's password, a private key), unless ``--no-redact`` asked for them."""
    if not _keep_credentials:
        from envdoctor.secrets import credentials
        text = credentials(text)
    safe = sanitise.clean(kind, text, color=color)
    if is_stdout(target):
        from envdoctor.streams import write_stdout
        write_stdout(safe)
    else:
        assert target is not None
        write_file(target, safe)


def check_target(target: str | None, option: str = "--output") -> None:
    """Before any work: ``target`` can take a file (BadInput, one line, otherwise)."""
    if is_stdout(target):
        return
    assert target is not None
    real = os.path.realpath(target)
    try:
        st = os.stat(real)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise BadInput(f"{option} {target}: cannot write: {exc.strerror or exc}") from None
    if st is not None:
        what = _not_regular(st.st_mode)
        if what:
            raise BadInput(f"{option} {target}: is {what}, not a file envdoctor can write "
                           "(leave the option out, or give '-', to write to stdout)")
        if not os.access(real, os.W_OK):
            raise BadInput(f"{option} {target}: cannot write: permission denied")
    folder = os.path.dirname(real) or "."
    if not os.path.isdir(folder):
        raise BadInput(f"{option} {target}: cannot write: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise BadInput(f"{option} {target}: cannot write: folder {folder} is not writable")


def _not_regular(mode: int) -> str:
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def write_file(path: str, text: str, *, follow: bool = True) -> None:
    """Replace ``path`` (a symlink: the file it names) atomically with ``text`` (UTF-8).

    ``follow=False`` is for envdoctor's own files in a folder others may write (a cache under
    ``ENVDOCTOR_CACHE_DIR`` on a team disk): whatever is at ``path`` (a symlink planted to a
    victim file, a FIFO) is replaced itself, never written through. Either way the temporary
    file has a name nobody can guess and create first (``mkstemp``: ``O_EXCL``), and it is
    removed whenever the write fails (a full disk, a file size limit) or a signal ends the run.
    """
    real = os.path.realpath(path) if follow else os.path.abspath(path)
    folder = os.path.dirname(real) or "."
    try:
        mode = None
        with contextlib.suppress(FileNotFoundError):
            st = os.stat(real) if follow else os.lstat(real)
            what = _not_regular(st.st_mode)
            if what and follow:
                raise BadInput(f"{path}: is {what}, not a file envdoctor can write")
            mode = None if what else stat.S_IMODE(st.st_mode)
        import tempfile  # (only here: it imports shutil, lzma and bz2, ~3 ms a run)
        try:
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(real)}.",
                                       suffix=".tmp")
        except OSError as exc:  # the file may be there (/proc/version): its folder takes none
            raise BadInput(f"{path}: cannot write: no file can be created in {folder} "
                           f"({exc.strerror or exc})") from None
        try:
            with _removed_on_signal(tmp):
                with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                    fh.write(text)
                    fh.flush()
                    os.fsync(fh.fileno())
                    os.chmod(tmp, mode if mode is not None else 0o666 & ~_umask())
                os.replace(tmp, real)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        with contextlib.suppress(OSError):  # the rename itself, durable
            dir_fd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
    except OSError as exc:
        raise BadInput(f"{path}: cannot write: {exc.strerror or exc}") from None


def _removed_on_signal(path: str) -> contextlib.AbstractContextManager[None]:
    """``terminate.unfinished(path)`` where the CLI installed the signal handlers (they end
    the process past every ``finally``); nothing to do in-process, where nothing did."""
    terminate = sys.modules.get("envdoctor.terminate")
    return terminate.unfinished(path) if terminate is not None else contextlib.nullcontext()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
