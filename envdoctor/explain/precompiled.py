"""Signature regexes rebuilt from their compiled form, kept in a cache, not compiled again.

``re.compile`` parses and compiles in Python (~0.1-0.3 ms a pattern); a 100 MB log reaches
~500 of the signatures' ~2 000 patterns, and each process of a parallel scan compiles those of
its part again (~40-90 ms of CPU a process). What ``re`` hands the C engine in the end
(``_sre.compile``: the flags, the code as a list of integers, the groups) is plain data: it is
cached as JSON (``rulefiles.cached_json``: sealed, keyed by the Python build, the engine's
``MAGIC`` and the patterns), and a pattern is rebuilt from it in microseconds. Every entry was
checked when the cache was written: the rebuilt pattern equals ``re.compile``'s (a pattern's
``==`` compares its source, flags and code), so it matches exactly alike. Anything unexpected
(another interpreter, no ``_sre``, an entry that does not build) falls back to ``re.compile``.

A process that needs a few regexes (a traceback) never reads the cache: it is loaded once
LOAD_AFTER patterns have been compiled, or before a big log's scan is forked
(``explain.parallel``), so the children share it. Building it (on the first such run after
the signatures changed: every pattern compiled and checked, ~1 s) is left out when caching is
off (``ENVDOCTOR_NO_CACHE``), and in the process that had to build the signatures themselves
(a cold cache: a fresh HOME, a CI runner, the first run after an upgrade) it is only read,
never built: that run already pays for every signature, and the next one builds the table.
"""

from __future__ import annotations

import json
import re
import sys
import zlib
from array import array
from binascii import a2b_base64, b2a_base64
from collections.abc import Iterable
from typing import Any

try:  # CPython's engine and the compiler ``re`` runs before it
    import _sre  # type: ignore[import-not-found,unused-ignore]
    from re import _compiler as _re_compiler  # type: ignore[attr-defined,unused-ignore]
    from re import _parser as _re_parser  # type: ignore[attr-defined,unused-ignore]
    _CODE = "I" if array("I").itemsize == _sre.CODESIZE else "L"
    _USABLE = array(_CODE).itemsize == _sre.CODESIZE and sys.version_info >= (3, 11)
except (ImportError, AttributeError):  # pragma: no cover - not CPython
    _USABLE = False

LOAD_AFTER = 24  # compiles after which the cache is read (reading it costs ~5-10 ms)
CACHE_VERSION = 1

_sources: frozenset[str] = frozenset()
# source -> (flags, groups, code, named groups); {} when unusable
_table: dict[str, tuple[int, int, str, dict[str, int]]] | None = None
_compiled = 0
_may_build = True


def register(sources: Iterable[str], build: bool = True) -> None:
    """The patterns the cache holds (every signature's); a new set forgets a loaded table.
    ``build=False``: this process built the signatures cold, so a missing table is not built
    here (see the module's docstring)."""
    global _sources, _table, _may_build
    new = frozenset(sources)
    _may_build = build
    if new != _sources:
        _sources, _table = new, None


def compile(source: str) -> re.Pattern[str]:  # noqa: A001 - re.compile's stand-in
    """``re.compile(source)``, rebuilt from the cache when it holds the pattern."""
    global _compiled
    table = _table
    if table is None:
        _compiled += 1
        if _compiled > LOAD_AFTER and source in _sources:
            table = load()
    if table:
        entry = table.get(source)
        if entry is not None:
            try:
                return _build(source, entry)
            except Exception:  # noqa: BLE001 - a bad entry: compile as without the cache
                pass
    return re.compile(source)


def load() -> dict[str, tuple[int, int, str, dict[str, int]]]:
    """The registered patterns' entries (built and cached on a cold start; {} when the engine
    is not CPython's or nothing is registered)."""
    global _table
    if _table is not None:
        return _table
    _table = {}
    if not _USABLE or not _sources:
        return _table
    from envdoctor.rulefiles import cache_dir, cached_json, digest
    if cache_dir() is None:  # ENVDOCTOR_NO_CACHE: building the table (~1 s) would not pay
        return _table
    ordered = sorted(_sources)
    key = [CACHE_VERSION, sys.version, sys.byteorder, _sre.MAGIC, _sre.CODESIZE, len(ordered),
           digest(json.dumps(ordered).encode("utf-8", "surrogatepass"))]
    try:
        value, _ = cached_json("regexes", key, (lambda: _entries(ordered)) if _may_build
                               else _not_now, _valid)
        _table = _unpack(ordered, value)
    except Exception:  # noqa: BLE001 - no cache: every pattern is compiled as before
        _table = {}
    return _table


def _not_now() -> list[Any]:
    """The table's builder in a process that built the signatures cold: nothing is cached."""
    raise LookupError("the regex table is built by the next run, not a cold one")


def _entries(sources: list[str]) -> list[Any]:
    """What ``re.compile`` passes to ``_sre.compile`` for each pattern, in the order of
    ``sources``, as JSON: ``[meta, code, names]``: four integers a pattern in ``meta`` (flags,
    groups, where its code starts and ends in ``code``), every pattern's code (zlib, then
    base64, one after the other: a pattern is decoded only when used), and the named groups
    by pattern index. A pattern whose rebuilt form is not equal to ``re.compile``'s (or that
    fails) gets groups 0: ``re`` compiles it when it is used."""
    meta: list[int] = []
    code: list[str] = []
    size = 0
    names: dict[str, dict[str, int]] = {}
    for i, source in enumerate(sources):
        try:
            tree = _re_parser.parse(source, 0)
            packed = b2a_base64(zlib.compress(array(_CODE, _re_compiler._code(tree, 0)).tobytes(),
                                              9), newline=False).decode("ascii")
            groupindex = dict(tree.state.groupdict)
            flags, groups = tree.state.flags, tree.state.groups
            if _build(source, (flags, groups, packed, groupindex)) != re.compile(source):
                raise ValueError(source)
        except Exception:  # noqa: BLE001 - left out: compiled by re when used
            meta += [0, 0, size, size]
            continue
        meta += [flags, groups, size, size + len(packed)]
        code.append(packed)
        size += len(packed)
        if groupindex:
            names[str(i)] = groupindex
    return [" ".join(map(str, meta)), "".join(code), names]


def _unpack(sources: list[str], value: list[Any]
            ) -> dict[str, tuple[int, int, str, dict[str, int]]]:
    meta = list(map(int, value[0].split()))
    if len(meta) != 4 * len(sources):
        return {}
    code, names = value[1], value[2]
    out = {}
    for i, source in enumerate(sources):
        flags, groups, start, end = meta[4 * i:4 * i + 4]
        if groups >= 1 and 0 <= start < end <= len(code):
            out[source] = (flags, groups, code[start:end], names.get(str(i), {}))
    return out


def _build(source: str, entry: tuple[int, int, str, dict[str, int]]) -> re.Pattern[str]:
    """``_compiler.compile``'s last step: the engine's pattern from the stored parts."""
    flags, groups, packed, groupindex = entry
    indexgroup: list[str | None] = [None] * groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    code = array(_CODE, zlib.decompress(a2b_base64(packed))).tolist()
    pattern: re.Pattern[str] = _sre.compile(source, flags, code, groups - 1, dict(groupindex),
                                            tuple(indexgroup))
    return pattern


def _valid(value: Any) -> bool:
    return (isinstance(value, list) and len(value) == 3 and isinstance(value[0], str)
            and isinstance(value[1], str) and isinstance(value[2], dict)
            and all(isinstance(g, dict) and all(isinstance(k, str) and type(i) is int and i > 0
                                                for k, i in g.items())
                    for g in value[2].values()))
