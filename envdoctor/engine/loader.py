"""Finding and loading the knowledge in ``rules/``: checks, matrices and error signatures.

``rules/`` sits at the repository root (knowledge is data) and ships inside the wheel as
``envdoctor/_rules``. ``ENVDOCTOR_RULES`` points elsewhere (tests, a team's own rules).
Loading validates every file and names the file and the field at fault.
"""

from __future__ import annotations

import json
import os
import sys
import zlib
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any


def tomllib():
    """The TOML parser (stdlib tomllib, tomli on 3.10), imported on first use: runs that hit
    the rule cache never need it."""
    if sys.version_info >= (3, 11):
        import tomllib as module
    else:  # pragma: no cover - Python 3.10
        import tomli as module
    return module

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # envdoctor/


class RuleFileError(ValueError):
    """A rule file that cannot be used; the message starts with the file and the field."""

    def __init__(self, path: Path | str, field: str, message: str):
        self.path, self.field = str(path), field
        super().__init__(f"{path}: {field}: {message}")


def rules_dir() -> Path:
    """The rules folder: $ENVDOCTOR_RULES, the copy inside the wheel, or the source tree's."""
    override = os.environ.get("ENVDOCTOR_RULES")
    if override:
        return Path(override)
    shipped = PACKAGE_DIR / "_rules"
    if shipped.is_dir():
        return shipped
    return PACKAGE_DIR.parent / "rules"


def load_toml(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            return tomllib().load(fh)
    except tomllib().TOMLDecodeError as exc:
        raise RuleFileError(path, "toml", str(exc)) from None
    except UnicodeDecodeError:
        raise RuleFileError(path, "toml", "not UTF-8 text (a binary file?)") from None
    except OSError as exc:
        raise RuleFileError(path, "file", exc.strerror or str(exc)) from None


def toml_files(kind: str, root: Path | None = None) -> list[Path]:
    folder = (root or rules_dir()) / kind
    return sorted(folder.rglob("*.toml")) if folder.is_dir() else []


def matrix(name: str, root: str | None = None) -> dict[str, Any]:
    """One matrix file (``rules/matrices/<name>.toml``) as data; {} when it does not exist."""
    return _matrices(root).get(name, {})


@lru_cache(maxsize=8)
def _matrices(root: str | None) -> dict[str, dict[str, Any]]:
    return {path.stem: data for path, data in load_tree("matrices", Path(root) if root else None)
            if path.parent.name == "matrices"}


def cache_dir() -> Path | None:
    """Where parsed rule files are cached; None when caching is off (ENVDOCTOR_NO_CACHE=1).

    ``$ENVDOCTOR_CACHE_DIR`` moves it; otherwise ``$XDG_CACHE_HOME/envdoctor``.
    """
    if os.environ.get("ENVDOCTOR_NO_CACHE"):
        return None
    if os.environ.get("ENVDOCTOR_CACHE_DIR"):
        return Path(os.environ["ENVDOCTOR_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "envdoctor"


def file_stamps(files: list[Path]) -> list[tuple[str, int, int]] | None:
    """(path, mtime_ns, size) of each file: a cache key that changes with any edit; None if
    a file cannot be stat'ed (then nothing is cached)."""
    try:
        return [(str(p), st.st_mtime_ns, st.st_size) for p in files for st in [p.stat()]]
    except OSError:
        return None


def cached_json(kind: str, key: Any, build: Callable[[], Any],
                valid: Callable[[Any], bool] | None = None) -> tuple[Any, bool]:
    """``build()``'s JSON-able value, cached as ``<cache_dir>/<kind>-<hash>.json``; -> (value,
    from_cache).

    The hash covers the envdoctor version, ``kind`` and ``key`` (JSON); key None, or caching
    off, means build every time. ``build`` validates before anything is written, so a value
    it raises on is never cached; ``valid`` rejects a cached value of the wrong shape (then it
    is rebuilt). A cache that cannot be read or written only costs time. JSON, never pickle.
    """
    folder = cache_dir()
    cache = None
    if folder is not None and key is not None:
        from envdoctor import __version__
        full_key = json.loads(json.dumps([__version__, kind, key]))  # as it reads back
        # crc32 names the file (zlib is already loaded; hashlib costs ~5 ms of start-up);
        # the full key is stored inside and compared, so a collision only costs a rebuild.
        digest = zlib.crc32(json.dumps(full_key).encode())
        cache = folder / f"{kind}-{digest:08x}.json"
        try:
            stored = json.loads(cache.read_text(encoding="utf-8"))
            if stored.get("key") == full_key and (valid is None or valid(stored["value"])):
                return stored["value"], True
        except (OSError, ValueError, TypeError, AttributeError, KeyError):
            pass
    value = build()
    if cache is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps({"key": full_key, "value": value}), encoding="utf-8")
            os.replace(tmp, cache)
        except (OSError, TypeError, ValueError):
            pass  # read-only home, or a value JSON cannot hold: build again next time
    return value, False


def load_tree(kind: str, root: Path | None = None) -> list[tuple[Path, dict[str, Any]]]:
    """Every TOML file of ``rules/<kind>``, parsed (see ``load_tree_cached``)."""
    return load_tree_cached(kind, root)[0]


def load_tree_cached(kind: str, root: Path | None = None,
                     accept: Callable[[list[tuple[Path, dict[str, Any]]]], Any] | None = None
                     ) -> tuple[list[tuple[Path, dict[str, Any]]], bool]:
    """Every TOML file of ``rules/<kind>``, parsed; cached as JSON keyed by names, sizes, mtimes.

    tomllib is pure Python and parsing ~100 rule files (with their examples) was a third of
    `check --static`'s wall time; JSON is parsed in C. Any change to a file changes the key; a
    cache that cannot be read or written is ignored, and a file that fails to parse is never
    cached, so errors always surface.
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


def is_url(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(("https://", "http://"))
