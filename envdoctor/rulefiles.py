"""Finding and loading the knowledge in ``rules/``: checks, matrices and error signatures.

``rules/`` sits at the repository root (knowledge is data) and ships inside the wheel as
``envdoctor/_rules``. ``ENVDOCTOR_RULES`` points elsewhere (tests, a team's own rules).
Loading validates every file and names the file and the field at fault.
"""

from __future__ import annotations

import json
import os
import re
import sys
import zlib
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from envdoctor.bounded import env
from envdoctor.errors import BadInput


def tomllib():
    """The TOML parser (stdlib tomllib, tomli on 3.10), imported on first use: runs that hit
    the rule cache never need it."""
    if sys.version_info >= (3, 11):
        import tomllib as module
    else:  # pragma: no cover - Python 3.10
        import tomli as module
    return module

PACKAGE_DIR = Path(__file__).resolve().parent  # envdoctor/


class RuleFileError(ValueError):
    """A rule file that cannot be used; the message starts with the file and the field."""

    def __init__(self, path: Path | str, field: str, message: str):
        self.path, self.field = str(path), field
        super().__init__(f"{path}: {field}: {message}")


ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def check_identity(data: dict[str, Any], path: Path | str, required: tuple[str, ...],
                   code_re: re.Pattern[str], code_form: str) -> None:
    """What every rule kind (check, signature, requirement, fleet rule) asks of a file first:
    its required keys, a code of its family's form and a kebab-case id. Errors name the file
    and the field."""
    for key in required:
        if key not in data:
            raise RuleFileError(path, key, "is required")
    if not isinstance(data["code"], str) or not code_re.match(data["code"]):
        raise RuleFileError(path, "code", f"{data['code']!r} must look like {code_form}")
    if not isinstance(data["id"], str) or not ID_RE.match(data["id"]):
        raise RuleFileError(path, "id", f"{data['id']!r} must be kebab-case")


class RulesMissing(BadInput):
    """The rules folder is missing, empty or unreadable: nothing can be judged (exit 2)."""


def rules_dir() -> Path:
    """The rules folder: $ENVDOCTOR_RULES, the copy inside the wheel, or the source tree's.

    Raises ``RulesMissing`` (one line, exit 2) when it is missing, empty or unreadable: a run
    without rules would report a broken machine as healthy.
    """
    override = env("ENVDOCTOR_RULES")
    if override:
        path, where = Path(override), f"ENVDOCTOR_RULES={override}"
    else:
        shipped = PACKAGE_DIR / "_rules"
        path = shipped if shipped.is_dir() else PACKAGE_DIR.parent / "rules"
        where = str(path)
    _verify_rules(str(path), where)
    return path


@lru_cache(maxsize=8)
def _verify_rules(path: str, where: str) -> None:
    folder = Path(path)
    try:
        if not folder.is_dir():
            raise RulesMissing(f"{where}: no such rules folder" if not folder.exists()
                               else f"{where}: not a folder")
        if not os.access(folder, os.R_OK | os.X_OK):
            raise RulesMissing(f"{where}: the rules folder is not readable")
        if not any((folder / kind).is_dir() for kind in ("checks", "signatures")):
            raise RulesMissing(f"{where}: not a rules folder (it has no checks/ or signatures/)")
        if not any((folder / "checks").glob("*/*.toml")) and \
                not any((folder / "checks").glob("*.toml")):
            raise RulesMissing(f"{where}: the rules folder has no checks (checks/*/*.toml)")
    except OSError as exc:
        raise RulesMissing(f"{where}: cannot read the rules folder: "
                           f"{exc.strerror or exc}") from None


MAX_RULE_FILE = 1 << 20   # the largest shipped rule file is 23 kB
MAX_CACHE_ENTRY = 32 << 20


def load_toml(path: Path) -> dict[str, Any]:
    """One rule file through the bounded reader: a regular file of at most MAX_RULE_FILE bytes
    (a FIFO or device is refused without blocking), TOML with limits on keys, nesting and
    numbers; RuleFileError naming the file otherwise."""
    from envdoctor.bounded import InputError, decode_toml, read_file
    try:
        data = read_file(path, "a rule file", MAX_RULE_FILE)
    except InputError as exc:
        raise RuleFileError(path, "file", str(exc)) from None
    try:
        return decode_toml(data, "a rule file")
    except InputError as exc:
        raise RuleFileError(path, "toml", str(exc)) from None


def toml_files(kind: str, root: Path | None = None) -> list[Path]:
    folder = (root or rules_dir()) / kind
    return sorted(folder.rglob("*.toml")) if folder.is_dir() else []


def cache_dir() -> Path | None:
    """Where parsed rule files are cached; None when caching is off (ENVDOCTOR_NO_CACHE=1).

    ``$ENVDOCTOR_CACHE_DIR`` moves it; otherwise ``$XDG_CACHE_HOME/envdoctor``.
    """
    if env("ENVDOCTOR_NO_CACHE"):
        return None
    if env("ENVDOCTOR_CACHE_DIR"):
        return Path(env("ENVDOCTOR_CACHE_DIR", ""))
    base = env("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "envdoctor"


def _blake2b() -> Any:
    """blake2b without importing hashlib (which loads OpenSSL: ~70 ms of start-up)."""
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - not CPython
        from hashlib import blake2b
    return blake2b


def digest(data: bytes) -> str:
    return _blake2b()(data, digest_size=16).hexdigest()


# A file changed less than this long ago is stamped by its bytes, not by its ``stat``: the file
# system's clock moves in ticks (a few ms on ext4, 2 s on FAT), so an edit in the same tick as the
# stat that stamped the file keeps every field ("racy" files, as git calls them).
RECENT_NS = 3_000_000_000


def file_stamps(files: list[Path]) -> list[tuple[str, str]] | None:
    """(path, stamp) of each file: a cache key that changes with any edit of a file's content;
    None if a file is not a regular file of at most MAX_RULE_FILE bytes or cannot be read
    (then nothing is cached and the loader reports the file).

    The stamp is one ``stat``: size, mtime and ctime in ns, inode. Any write moves the ctime,
    which no tool sets back (``touch -d``, ``cp -p``, ``git checkout`` and ``os.utime`` set the
    mtime only), so an edit that keeps the size and restores the mtime still changes the key;
    a file replaced by a rename changes its inode. Reading and hashing every file (~330
    signature files) cost ~57 ms a run on a gVisor VM, a ``stat`` costs ~80 us there. A file
    changed in the last RECENT_NS (by its mtime or ctime, or dated in the future) is stamped
    by the digest of its bytes instead, as every file was before.
    """
    import time
    from stat import S_ISREG

    from envdoctor.bounded import InputError, read_file
    now = time.time_ns()
    out = []
    for p in files:
        try:
            st = os.stat(p)
        except OSError:
            return None
        if not S_ISREG(st.st_mode) or st.st_size > MAX_RULE_FILE:
            return None
        if now - max(st.st_mtime_ns, st.st_ctime_ns) < RECENT_NS:
            try:
                stamp = "b" + digest(read_file(p, "a rule file", MAX_RULE_FILE))
            except InputError:
                return None
        else:  # (a file made unreadable since has a new ctime: the loader then reads it)
            stamp = f"s{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}"
        out.append((str(p), stamp))
    return out


def _seal(secret: bytes, key_text: str, value_text: str) -> str:
    """A MAC of key and value under this user's secret (``envdoctor.seal``)."""
    from envdoctor import seal
    return seal.seal(secret, f"{key_text}\n{value_text}")


def cached_json(kind: str, key: Any, build: Callable[[], Any],
                valid: Callable[[Any], bool] | None = None, write: bool = True
                ) -> tuple[Any, bool]:
    """``build()``'s JSON-able value, cached as ``<cache_dir>/<kind>-<hash>.json``; -> (value,
    from_cache).

    The entry is trusted only when its key (the envdoctor version, ``kind`` and ``key``: the
    digests of the source files' bytes) equals this run's and its seal (a MAC over key and
    value under a per-user secret, ``envdoctor.seal``) still matches: a corrupt, truncated,
    hand-edited or forged entry is discarded and rebuilt, never used, so writing to the cache
    folder cannot change a verdict; without a trustworthy secret nothing is read or written.
    ``build`` validates before anything is written, so a value it raises on is never cached;
    ``valid`` rejects a value of the wrong shape. A cache that cannot be read or written only
    costs time. JSON, never pickle. ``write=False``: a look-up only, ``build``'s value (a
    stand-in) is returned and not cached.
    """
    folder = cache_dir()
    cache = None
    secret = None
    if folder is not None and key is not None:
        from envdoctor import seal
        secret = seal.secret()
    if folder is not None and key is not None and secret is not None:
        from envdoctor import __version__
        from envdoctor.bounded import decode_own_json
        key_text = json.dumps([__version__, kind, key])  # (its key's ~330 file stamps: once)
        full_key = decode_own_json(key_text)  # as it reads back
        # one file per kind and file list: a new content replaces the old entry
        names = [p for p, *_ in key] if isinstance(key, list) and all(
            isinstance(k, (list, tuple)) for k in key) else key
        where = zlib.crc32(json.dumps([kind, names]).encode())
        cache = folder / f"{kind}-{where:08x}.json"
        try:
            # line 1: {"key": …, "seal": …}; the rest: the value's JSON, sealed as text
            from envdoctor.bounded import decode_json, read_file
            head, _, value_text = read_file(cache, "a cache entry", MAX_CACHE_ENTRY).decode(
                "utf-8").partition("\n")
            stored = decode_json(head)
            if stored.get("key") == full_key and seal.same(
                    _seal(secret, key_text, value_text), stored.get("seal")):
                value = decode_own_json(value_text, "a cache entry")  # sealed: ours
                if valid is None or valid(value):
                    return value, True
        except (OSError, ValueError, TypeError, AttributeError, KeyError):
            pass
    value = build()
    if cache is not None and secret is not None and write:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            value_text = json.dumps(value)
            head = json.dumps({"key": full_key, "seal": _seal(secret, key_text, value_text)})
            # the one atomic writer: an unguessable temporary name (a symlink planted at a
            # predictable one in a shared folder would be written through), removed when the
            # write fails (a full disk) or a signal ends the run; the entry itself is replaced,
            # never followed
            from envdoctor.outputs.sink import write_file
            write_file(str(cache), f"{head}\n{value_text}", follow=False)
        except (OSError, TypeError, ValueError, BadInput):
            pass  # read-only home, or a value JSON cannot hold: build again next time
    return value, False


def load_tree(kind: str, root: Path | None = None) -> list[tuple[Path, dict[str, Any]]]:
    """Every TOML file of ``rules/<kind>``, parsed (see ``load_tree_cached``)."""
    return load_tree_cached(kind, root)[0]


def load_tree_cached(kind: str, root: Path | None = None,
                     accept: Callable[[list[tuple[Path, dict[str, Any]]]], Any] | None = None
                     ) -> tuple[list[tuple[Path, dict[str, Any]]], bool]:
    """Every TOML file of ``rules/<kind>``, parsed; cached as JSON keyed by the digest of
    every file's bytes (see ``cached_json``).

    tomllib is pure Python and parsing ~100 rule files (with their examples) was a third of
    `check --static`'s wall time; JSON is parsed in C. Any change to a file's content changes
    the key; a cache that cannot be read or written is ignored, and a file that fails to parse
    is never cached, so errors always surface. ``accept`` validates the parsed files before
    anything is cached.
    """
    files = toml_files(kind, root)

    def build() -> list[tuple[str, dict[str, Any]]]:
        parsed = [(p, load_toml(p)) for p in files]
        if accept is not None:
            accept(parsed)
        return [(str(p), d) for p, d in parsed]

    value, from_cache = cached_json(kind, file_stamps(files), build, valid=lambda v: isinstance(
        v, list) and all(isinstance(x, list) and len(x) == 2 for x in v))
    return [(Path(p), d) for p, d in value], from_cache


def load_file_cached(name: str, root: Path | None = None) -> dict[str, Any]:
    """One top-level rules file (``rules/<name>.toml``), parsed, through the same
    content-checked cache, once per process; {} when the rules folder has none."""
    return _top_file(name, str(root or rules_dir()))


@lru_cache(maxsize=16)
def _top_file(name: str, root: str) -> dict[str, Any]:
    path = Path(root) / f"{name}.toml"
    if not path.is_file():
        return {}

    def build() -> dict[str, Any]:
        return load_toml(path)

    value, _ = cached_json(name, file_stamps([path]), build, valid=lambda v: isinstance(v, dict))
    return value


def is_url(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(("https://", "http://"))
