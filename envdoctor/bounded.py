"""Bounded work on untrusted text: size caps, line caps and reads that cannot block.

Everything envdoctor parses (a tool's output, a file in someone's site-packages, a pasted
report) may be huge, binary, a FIFO or a device. These helpers make the cost of reading it
bounded before any regex sees it: at most ``limit`` bytes are read, a FIFO or device is never
opened for a blocking read, and no line is longer than ``MAX_LINE`` characters (so even a
pattern that scans a line costs a bounded amount per line).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
import sys
from typing import Any, BinaryIO, overload

MAX_LINE = 16384         # characters kept of one line; the rest of the line is dropped
MAX_FILE = 1 << 20       # default cap for a probe's file read (version files, METADATA)


def cap_lines(text: str, max_line: int = MAX_LINE) -> str:
    """``text`` with every line cut to ``max_line`` characters; linear, C-speed when no line is
    long (one ``find`` per half window proves it)."""
    if len(text) <= max_line:
        return text
    step = max(max_line // 2, 1)
    for start in range(0, len(text) - step + 1, step):
        if text.find("\n", start, start + step) == -1:
            break
    else:
        return text
    return "\n".join(line[:max_line] for line in text.split("\n"))


# Runs no parsed text needs, shortened before any pattern sees them: a pattern like
# ``\s*X\s*$`` or ``(\d+)\s*MiB`` costs the square of the run it starts in, so capping runs
# at RUN characters (alignment in tables needs a few dozen spaces at most) bounds every one.
RUN = 64
_LONG_SPACES = re.compile(rf"[^\S\n]{{{RUN + 1},}}")  # any whitespace but newlines: tabs too
_LONG_DIGITS = re.compile(rf"\d{{{RUN + 1},}}")


# Byte classes for the fast test in ``has_long_run``: in UTF-8 every non-ASCII character is
# made only of bytes >= 0x80, so mapping those bytes into *both* classes keeps every real run
# (Unicode spaces and digits included) a run; a run of other non-ASCII text is only a false
# alarm, answered by the exact patterns.
_ASCII_SPACES = b"\t\x0b\x0c\r\x1c\x1d\x1e\x1f "
_AS_SPACE = bytes(32 if (i in _ASCII_SPACES or i >= 0x80) else 120 for i in range(256))
_AS_DIGIT = bytes(48 if (0x30 <= i <= 0x39 or i >= 0x80) else 120 for i in range(256))


def has_long_run(text: str) -> bool:
    """Whether ``text`` may hold a run ``defuse`` would cut: never False when it does.

    Two byte translations and two substring searches, about ten times cheaper than the
    patterns themselves, which need a try at every character.
    """
    data = text.encode("utf-8", "surrogatepass")
    return (b" " * (RUN + 1) in data.translate(_AS_SPACE)
            or b"0" * (RUN + 1) in data.translate(_AS_DIGIT))


# Characters ``str.splitlines`` (and every parser that uses it) takes for a line break, which no
# tool or system file means as one: a GPU name holding U+2028 would cut its nvidia-smi row in
# two (the row lost, a GPU missing). The readers of tool outputs and system files spell them out
# (``\u2028``), as the sanitiser would on output; ``\n`` and ``\r`` stay.
_STRAY_BREAKS = {c: f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"
                 for c in (0x0b, 0x0c, 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029)}
_STRAY = re.compile("[\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def one_break(text: str) -> str:
    """``text`` whose only line breaks are ``\\n`` and ``\\r`` (see ``_STRAY_BREAKS``)."""
    return text.translate(_STRAY_BREAKS) if _STRAY.search(text) else text


def defuse(text: str) -> str:
    """``text`` with every run of whitespace (but newlines) or digits longer than ``RUN``
    cut to ``RUN`` (whitespace runs become spaces)."""
    if len(text) <= RUN or not has_long_run(text):
        return text
    text = _LONG_SPACES.sub(" " * RUN, text)
    return _LONG_DIGITS.sub(lambda m: m.group(0)[:RUN], text)


# ---------------------------------------------------------------------------- folder listings
# A folder's names are outside input too: which files a probe looks at comes from a listing of
# a place an environment variable, ``--root`` or ``sys.path`` names. That place is a path, never
# a pattern (a CONDA_PREFIX of ``/*/*/*/*/*`` walked the whole disk for a minute; a --root named
# ``img[2]`` matched nothing, or another image), and a listing has a bound (a conda-meta of 25 000
# planted names made 25 000 toolkits: a snapshot the reader refuses). Every glob of a probe or a
# worker goes through ``matching`` (tests/test_adv9_boundaries.py fails on any other).
MAX_LISTED = 1024        # names one listing returns: a machine has a few toolkits, not thousands


def matching(folder: str | os.PathLike[str], pattern: str, limit: int = MAX_LISTED) -> list[str]:
    """The paths under ``folder`` that ``pattern`` (a glob relative to it: ``lib*.so*``,
    ``nvidia/*/lib/lib*.so*``) names, sorted, at most ``limit`` of them. ``folder`` is taken
    literally: ``*``, ``?`` and ``[`` in it are characters of a name, never wildcards."""
    import glob
    import itertools
    base = glob.escape(os.fspath(folder)) if os.fspath(folder) else "."
    found = itertools.islice(glob.iglob(os.path.join(base, pattern.lstrip("/"))), max(0, limit))
    return sorted(found)


# ---------------------------------------------------------------------------- another root
# ``check --static --root DIR`` reads an unpacked image or a mounted disk. Its symlinks mean
# what they mean inside that tree: ``/usr/local/cuda -> /etc/alternatives/cuda`` (every CUDA
# image has it) or ``etc/os-release -> /proc/self/environ`` must resolve under DIR, never on
# this machine, as a chroot would. Every probe read of a path under the root is resolved here.
MAX_LINKS = 40           # symlinks followed in one path, as the kernel's ELOOP limit
_JAILS: tuple[str, ...] = ()


def confine(root: str | os.PathLike[str] | None) -> tuple[str, ...]:
    """Resolve the symlinks of every path read under ``root`` inside ``root`` (None or ``/``:
    no confinement); returns the previous setting for ``unconfine``."""
    global _JAILS
    old = _JAILS
    if root is None or os.path.abspath(root) == "/":
        _JAILS = ()
    else:
        given = os.path.abspath(root).rstrip("/")
        _JAILS = tuple(dict.fromkeys((given, os.path.realpath(given).rstrip("/"))))
    return old


def unconfine(previous: tuple[str, ...] = ()) -> None:
    global _JAILS
    _JAILS = previous


def resolve_in(root: str, rel: str) -> str | None:
    """``rel`` (a path inside ``root``) with every symlink resolved as if ``root`` were ``/``:
    an absolute target starts again at ``root``, ``..`` stops at it. None for a loop (more than
    MAX_LINKS links). A missing component ends the walk (the open fails on it)."""
    parts = [p for p in rel.split("/") if p and p != "."]
    parts.reverse()
    done: list[str] = []
    links = 0
    while parts:
        part = parts.pop()
        if part == "..":
            if done:
                done.pop()
            continue
        here = os.path.join(root, *done, part)
        try:
            mode = os.lstat(here).st_mode
        except (OSError, ValueError):
            done.append(part)
            done.extend(reversed(parts))
            break
        if not stat.S_ISLNK(mode):
            done.append(part)
            continue
        links += 1
        if links > MAX_LINKS:
            return None
        try:
            target = os.readlink(here)
        except OSError:
            return None
        if target.startswith("/"):
            done = []
        parts.extend(reversed([p for p in target.split("/") if p and p != "."]))
    return os.path.join(root, *done) if done else root


def jailed(path: str | os.PathLike[str]) -> str | None:
    """``path`` as a probe must open it: resolved inside the confined root when it lies under
    it (None for a symlink loop), unchanged otherwise (site-packages, a tool's own files)."""
    text = os.fspath(path)
    if not _JAILS:
        return text
    full = os.path.abspath(text)
    for jail in _JAILS:
        if full == jail or full.startswith(jail + "/"):
            return resolve_in(jail, full[len(jail):])
    return text


def _open_probe_file(path: str | os.PathLike[str]) -> int:
    """An O_NONBLOCK read descriptor of ``path`` resolved inside a confined root; OSError when
    it cannot be opened (or, under a root, still ends in a symlink: a race)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    target = jailed(path)
    if target is None:
        raise OSError(40, "too many levels of symbolic links")
    if _JAILS and target != os.fspath(path):
        flags |= getattr(os, "O_NOFOLLOW", 0)
    return os.open(target, flags)


def read_regular(path: str | os.PathLike[str], limit: int = MAX_FILE) -> bytes | None:
    """At most ``limit`` bytes of a regular file; None for anything else or on any error.

    Opened with ``O_NONBLOCK`` so a FIFO planted where a version file should be cannot hang the
    probe at ``open``; a FIFO, socket or device (``/dev/zero`` as ``CUDA_HOME``) is refused by
    ``fstat`` before any read. Under ``--root`` its symlinks resolve inside the root (``confine``).
    """
    try:
        fd = _open_probe_file(path)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, left = [], limit
        while left > 0:
            piece = os.read(fd, min(left, 1 << 20))
            if not piece:
                break
            chunks.append(piece)
            left -= len(piece)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike[str], limit: int = MAX_FILE,
              max_line: int = MAX_LINE) -> str | None:
    """``read_regular`` decoded as UTF-8 (invalid bytes replaced), lines and runs capped."""
    data = read_regular(path, limit)
    if data is None:
        return None
    return defuse(cap_lines(data.decode("utf-8", errors="replace"), max_line))


# ============================================================================ the one reader
# Every byte from outside (an input file, stdin, a snapshot, the rule cache, a rule or policy
# file, pyproject.toml, a /proc file) enters through the functions below; a structural test
# (tests/test_one_way_in.py) fails on any other ``open()`` of outside data. Limits first, then
# typed decoding: what does not fit is an ``InputError`` (a ValueError naming what is wrong),
# which the callers turn into one line and exit 2 (``BadInput``) naming the file.

MAX_INPUT = 32 << 20    # a facts snapshot or a pasted report is kilobytes; 32 MB is not one
MAX_DEPTH = 64          # nesting of a facts snapshot is about 6; JSON deeper than this is hostile
MAX_NUMBER = 40         # characters of one number: 64-bit integers and doubles need < 25
MAX_TOML = 4 << 20      # a policy, a pyproject.toml or a rule file
MAX_KEY_PARTS = 32      # dotted parts of one TOML key (tomllib is quadratic in them)
MAX_PROC = 8 << 20      # a /proc or /sys file (/proc/self/maps of a framework process)
FIFO_WAIT = 5.0         # seconds a named FIFO given as input may stay silent before we say so
INT64 = 1 << 63


class InputError(ValueError):
    """Outside data that cannot be used: the message says what is wrong, not where (callers
    prefix the file, and the field where they know it). ``token`` is the offending text, when
    a JSON hook raised it, for ``json_at`` to say where it is."""

    def __init__(self, message: str, token: str = "") -> None:
        super().__init__(message)
        self.token = token


def _bad_input(message: str) -> Exception:
    from envdoctor.errors import BadInput  # lazily: workers import this module, not click
    return BadInput(message)


def _inherited_pipe(path: str) -> bool:
    """``<(cmd)`` gives /dev/fd/N: a pipe whose writer already runs; read it like stdin."""
    return path.startswith(("/dev/fd/", "/proc/self/fd/", "/dev/stdin"))


def _open_fd(path: str | os.PathLike[str], what: str, stream: bool) -> int:
    """A file descriptor of ``path`` (or stdin for ``-`` when ``stream``), refusing without
    blocking what cannot be ``what``: a directory, a device, a socket, and a FIFO unless a
    stream was asked for (then one that nobody writes to within FIFO_WAIT seconds)."""
    import select

    name = os.fspath(path)
    if stream and name == "-":
        if sys.stdin is None:
            raise InputError("stdin is closed")
        try:
            return os.dup(sys.stdin.fileno())
        except (OSError, ValueError):
            raise InputError("stdin is closed") from None
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError("no such file") from None
    except IsADirectoryError:
        raise InputError(f"is a directory, not {what}") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputError(f"is a directory, not {what}")
        if stat.S_ISFIFO(mode):
            if not stream:
                raise InputError(f"is a pipe (FIFO), not {what}")
            if not _inherited_pipe(name):
                ready, _, _ = select.select([fd], [], [], FIFO_WAIT)
                if not ready:
                    raise InputError(f"nothing was written to this pipe within "
                                     f"{FIFO_WAIT:g} s, not {what}")
        elif not stat.S_ISREG(mode):
            raise InputError(f"is a device or socket, not {what}")
        os.set_blocking(fd, True)
        return fd
    except BaseException:
        os.close(fd)
        raise


def open_input(path: str, what: str, *, stream: bool = True) -> BinaryIO:
    """A binary file object for an input file or ``-`` (stdin), refusing what cannot be one.

    A directory, a device (``/dev/zero``) or a socket is a one-line BadInput. Stdin and
    ``<(cmd)`` pipes are read as they come (like ``cat``); a named FIFO that nobody writes to
    within ``FIFO_WAIT`` seconds is a BadInput, rather than a hang. The caller closes it.
    """
    try:
        return os.fdopen(_open_fd(path, what, stream), "rb")
    except InputError as exc:
        raise _bad_input(f"{path}: {exc}") from None


def _read_fd(fd: int, limit: int) -> bytes:
    """At most ``limit`` + 1 bytes of ``fd`` (one more tells the caller it is too big)."""
    chunks, size = [], 0
    while size <= limit:
        piece = os.read(fd, min(1 << 20, limit + 1 - size))
        if not piece:
            break
        chunks.append(piece)
        size += len(piece)
    return b"".join(chunks)


def read_file(path: str | os.PathLike[str], what: str = "an input file",
              limit: int = MAX_INPUT, *, stream: bool = False) -> bytes:
    """A whole file of at most ``limit`` bytes: a regular file unless ``stream`` (then also
    ``-``, a pipe or a FIFO). ``InputError`` for anything else, a bigger file or a read error;
    never blocks on a FIFO or device and never reads past the limit (a sparse 1 GB file costs
    ``limit`` bytes)."""
    fd = _open_fd(path, what, stream)
    try:
        if os.fstat(fd).st_size > limit:  # a regular file says its size: refused unread
            raise InputError(f"larger than {_size(limit)}, not {what}")
        data = _read_fd(fd, limit)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise InputError(f"larger than {_size(limit)}, not {what}")
    return data


def read_stream(stream: Any, limit: int, what: str, deadline: float | None = None) -> bytes:
    """All of a socket-backed stream (an HTTP response body) of at most ``limit`` bytes, read
    in pieces (``read1``: whatever has arrived) until its end; ``InputError`` past the limit or
    once ``time.monotonic()`` passes ``deadline``, so a body that never ends or drips costs at
    most ``limit`` bytes and the time left."""
    import time
    chunks: list[bytes] = []
    size = 0
    while True:
        if deadline is not None and time.monotonic() > deadline:
            raise InputError(f"{what}: no complete answer before the deadline")
        piece = stream.read1(1 << 16)
        if not piece:
            return b"".join(chunks)
        size += len(piece)
        if size > limit:
            raise InputError(f"{what}: larger than {_size(limit)}")
        chunks.append(piece)


def _size(limit: int) -> str:
    return f"{limit >> 20} MB" if limit >= 1 << 20 else f"{limit} bytes"


def read_input(path: str, what: str, limit: int = MAX_INPUT, *, stream: bool = True) -> bytes:
    """``read_file`` for a file the user named (``-`` and pipes allowed unless ``stream`` is
    False); every failure is a one-line BadInput naming the file."""
    try:
        return read_file(path, what, limit, stream=stream)
    except InputError as exc:
        raise _bad_input(f"{path}: {exc}") from None


def read_proc(path: str | os.PathLike[str], limit: int = MAX_PROC) -> str | None:
    """A /proc or /sys file as text (undecodable bytes replaced), lines capped; None when it
    cannot be read. /proc files report size 0 but are regular: read to their end or ``limit``."""
    data = read_regular(path, limit)
    return None if data is None else one_break(cap_lines(data.decode("utf-8", errors="replace")))


def utf8(data: bytes, what: str) -> str:
    """``data`` as UTF-8 text (a BOM dropped); ``InputError`` for binary data or bad UTF-8."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"not UTF-8 text (a binary file?), not {what}") from None
    if "\x00" in text[:8192]:
        raise InputError(f"binary data, not {what}")
    return text


# ---------------------------------------------------------------------------- JSON
def _json_int(text: str) -> int:
    if len(text) > MAX_NUMBER:
        raise InputError(f"a number of {len(text)} digits (at most {MAX_NUMBER})", text)
    return int(text)


def _json_float(text: str) -> float:
    if len(text) > MAX_NUMBER:
        raise InputError(f"a number of {len(text)} characters (at most {MAX_NUMBER})", text)
    value = float(text)
    if not math.isfinite(value):
        raise InputError(f"the number {text} is out of range", text)
    return value


def _json_constant(text: str) -> Any:
    raise InputError(f"{text} is not a number (JSON has no NaN or Infinity)", text)


_DECODER = json.JSONDecoder(parse_int=_json_int, parse_float=_json_float,
                            parse_constant=_json_constant)
# Our own children's answers (a smoke step that measured NaN says so): NaN kept, the rest bounded
_NAN_DECODER = json.JSONDecoder(parse_int=_json_int)


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise InputError(f"the key {key[:64]!r} appears twice in one object (which of "
                                 "the two counts is up to the reader)")
            seen.add(key)
    return obj


# A document the user names (a snapshot, a check or report JSON, a fleet node's file): a key
# written twice is refused, not settled last-wins as ``json`` does: a reviewer, ``jq`` or another
# tool may have read the first ("nvidia" twice: a healthy driver, then an old one)
_UNIQUE_DECODER = json.JSONDecoder(parse_int=_json_int, parse_float=_json_float,
                                   parse_constant=_json_constant,
                                   object_pairs_hook=_unique_object)


def json_depth(value: object) -> int:
    """Nesting depth of parsed JSON, level by level without recursion (stops counting past
    MAX_DEPTH + 1); a third of what ``json.loads`` itself costs."""
    level = [value] if type(value) is dict or type(value) is list else []
    depth = 0
    while level and depth <= MAX_DEPTH:
        depth += 1
        below: list[Any] = []
        for item in level:
            below += [v for v in (item.values() if type(item) is dict else item)
                      if type(v) is dict or type(v) is list]
        level = below
    return depth


def _deep() -> InputError:
    return InputError(f"JSON nested deeper than {MAX_DEPTH} levels")


_KEY_BEFORE = re.compile(r'"([^"\\\n]{1,64})"\s*:\s*$')


def _where(text: str, start: int, token: str) -> str:
    """'line N: "key": ' for the first bare ``token`` after ``start`` (the one a hook refused:
    the decoder reads in order, so an earlier bare copy would have been refused first)."""
    if not token:
        return ""
    found = re.compile(rf"(?<![\w.\"+-]){re.escape(token)}(?![\w.\"])").search(text, start)
    if found is None:  # a bare token is where the decoder stopped; a quoted one is text
        return ""
    pos = found.start()
    line = text.count("\n", 0, pos) + 1
    key = _KEY_BEFORE.search(text, max(start, pos - 256), pos)
    return f"line {line}: " + (f"{key.group(1)!r}: " if key else "")


def json_at(text: str, start: int = 0, *, nan: bool = False,
            unique: bool = False) -> tuple[Any, int]:
    """The JSON value that starts at ``text[start]`` and where it ends (``raw_decode``), with
    the limits: depth, number length, no NaN/Infinity (unless ``nan``: a worker's measurement),
    no key twice in one object (``unique``: a document the user names). ``InputError`` when it
    is not one."""
    decoder = _NAN_DECODER if nan else _UNIQUE_DECODER if unique else _DECODER
    try:
        value, end = decoder.raw_decode(text, start)
    except InputError as exc:
        raise InputError(_where(text, start, exc.token) + str(exc)) from None
    except RecursionError:
        raise _deep() from None
    except ValueError as exc:
        where = f" at line {exc.lineno}" if hasattr(exc, "lineno") else ""
        raise InputError(f"not valid JSON ({getattr(exc, 'msg', exc)}{where})") from None
    if json_depth(value) > MAX_DEPTH:
        raise _deep()
    return value, end


def decode_json(data: str | bytes, what: str = "JSON", *, nan: bool = False,
                unique: bool = False) -> Any:
    """One JSON document (bytes must be UTF-8) with the limits of ``json_at``; trailing
    non-blank text is an error, as for ``json.loads``."""
    text = utf8(data, what) if isinstance(data, bytes) else data
    start = len(text) - len(text.lstrip())
    value, end = json_at(text, start, nan=nan, unique=unique)
    if text[end:].strip():
        line = text.count("\n", 0, end) + 1
        raise InputError(f"not valid JSON (extra data at line {line})")
    return value


def decode_own_json(data: str | bytes, what: str = "JSON") -> Any:
    """JSON that envdoctor itself wrote: a cache entry whose seal (a MAC under this user's
    secret, ``envdoctor.seal``) matched, or the answer of a child this process forked. Plain
    ``json.loads``, without ``decode_json``'s hook per number and depth walk (~5 ms on the
    1.2 MB signature cache, ~10 ms on the children's line numbers of a 100 MB log); anything
    that is not one JSON document is an ``InputError``."""
    try:
        return json.loads(data)
    except RecursionError:
        raise _deep() from None
    except ValueError as exc:
        raise InputError(f"{what}: not valid JSON ({getattr(exc, 'msg', exc)})") from None


def load_json_file(path: str, what: str, limit: int = MAX_INPUT, *,
                   stream: bool = True) -> Any:
    """JSON from a file the user named, every limit applied: each failure is one line, exit 2."""
    data = read_input(path, what, limit, stream=stream)
    try:
        return decode_json(data, what, unique=True)
    except InputError as exc:
        message = str(exc)
        if message.startswith("JSON nested"):
            message += f", not {what}"
        raise _bad_input(f"{path}: {message}") from None


# ---------------------------------------------------------------------------- TOML
_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"[^"\\\n]{0,256}"|'[^'\n]{0,256}')"""
# a search starts only where a bare key begins: inside a long run of key characters it would
# retry at every offset (quadratic)
_DOTTED = re.compile(rf"(?<![A-Za-z0-9_-]){_KEY_PART}(?:[ \t]*\.[ \t]*{_KEY_PART}){{{MAX_KEY_PARTS}}}")


def _toml() -> Any:
    if sys.version_info >= (3, 11):
        import tomllib as module
    else:  # pragma: no cover - Python 3.10
        import tomli as module
    return module


def _toml_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise InputError(f"the number {text} is not finite")
    return value


def decode_toml(data: str | bytes, what: str = "TOML") -> dict[str, Any]:
    """A TOML document with limits tomllib lacks: no key of more than MAX_KEY_PARTS dotted parts
    (rejected before tomllib, which is quadratic in them), no nesting past the recursion limit,
    integers within 64 bits (as TOML itself requires), no inf or nan."""
    text = utf8(data, what) if isinstance(data, bytes) else data
    if _DOTTED.search(text):
        raise InputError(f"a key with more than {MAX_KEY_PARTS} dotted parts, not {what}")
    module = _toml()
    try:
        value = module.loads(text, parse_float=_toml_float)
    except InputError:
        raise
    except module.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML ({exc})") from None
    except RecursionError:
        raise InputError(f"nested too deeply, not {what}") from None
    except ValueError:  # int() refuses more than 4300 digits
        raise InputError(f"an integer of thousands of digits, not {what}") from None
    _check_toml_numbers(value)
    return value


def _check_toml_numbers(value: Any) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, int) and not isinstance(item, bool) and not -INT64 <= item < INT64:
            raise InputError("an integer beyond 64 bits")


# ---------------------------------------------------------------------------- environment
MAX_ENV = 1 << 16       # characters of one environment variable's value that are read


@overload
def env(name: str) -> str | None: ...
@overload
def env(name: str, default: str) -> str: ...


def env(name: str, default: str | None = None) -> str | None:
    """An environment variable, or ``default`` when it is unset or longer than MAX_ENV
    characters (a path, a flag or a device list that long is not one)."""
    value = os.environ.get(name)
    if value is None or len(value) > MAX_ENV:
        return default
    return value


def environ() -> dict[str, str]:
    """The environment as ``env`` reads it: variables whose value is longer than MAX_ENV are
    left out (for probes that record many variables at once)."""
    return {name: value for name, value in os.environ.items() if len(value) <= MAX_ENV}


# ============================================================================ ELF headers
MAX_ELF_READ = 8 << 20   # bytes read from one shared library: its headers and dynamic section


class BudgetExceeded(OSError):
    """A capped reader was asked for more than its budget (a hostile or corrupt ELF)."""


class CappedFile:
    """A seekable read-only view of a regular file that reads at most ``budget`` bytes in all.

    ELF parsing seeks to the program headers and the dynamic section of a library that can be
    a gigabyte (libtorch_cuda.so); a corrupt header could point a parser at a huge string table
    or a loop. Every ``read`` is charged to the budget and one past it raises
    ``BudgetExceeded``, so reading one file's headers costs a bounded amount whatever it holds.
    """

    def __init__(self, fd: int, size: int, budget: int) -> None:
        self._fd, self._size, self._left, self._pos = fd, size, budget, 0

    def read(self, n: int = -1) -> bytes:
        want = self._size - self._pos if n is None or n < 0 else n
        want = max(0, min(want, self._size - self._pos))
        if want > self._left:
            raise BudgetExceeded(f"ELF read budget exhausted ({want} bytes more asked)")
        data = os.pread(self._fd, want, self._pos)
        self._left -= len(data)
        self._pos += len(data)
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        base = {0: 0, 1: self._pos, 2: self._size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def tell(self) -> int:
        return self._pos

    def close(self) -> None:
        os.close(self._fd)

    def __enter__(self) -> CappedFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_capped(path: str | os.PathLike[str], budget: int = MAX_ELF_READ) -> CappedFile | None:
    """A ``CappedFile`` of a regular file; None for a FIFO, device, folder or on any error
    (opened with ``O_NONBLOCK``, checked with ``fstat`` before any read; under ``--root`` its
    symlinks resolve inside the root)."""
    try:
        fd = _open_probe_file(path)
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        return None
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        return None
    return CappedFile(fd, st.st_size, budget)
