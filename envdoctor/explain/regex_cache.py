"""Signature regexes compiled once per rules change, not once per process.

``re.compile`` is Python code: parsing a pattern and generating the regex engine's code costs
~0.15 ms a signature pattern, so a log that touches a hundred signatures pays ~40 ms of its
budget just compiling (a plain traceback touches a few: well under 1 ms). The engine's code is
plain data (a list of ints, the group names), so it is cached as JSON by
``engine.loader.cached_json`` (sealed, keyed by the Python version, the regex engine's MAGIC
number and a digest of every pattern's source; never pickle) and handed to ``_sre.compile``,
the same call ``re.compile`` ends with. The pattern it returns is the one ``re.compile`` gives
(tests compare them), and any surprise (another Python, a cache that does not fit) falls back
to ``re.compile``.

The first COMPILE_DIRECT patterns of a process are compiled as usual, so a short input never
reads the cache (~250 KB of JSON, a few ms).
"""

from __future__ import annotations

import re
import sys
from typing import Any

COMPILE_DIRECT = 16
_parts: dict[str, list[Any]] | None = None
_compiled = 0


def compile_pattern(source: str) -> re.Pattern[str]:
    """``re.compile(source)``, from the cached engine code once a process compiles many."""
    global _compiled
    _compiled += 1
    if _compiled > COMPILE_DIRECT:
        parts = _cached_parts().get(source)
        if parts is not None:
            try:
                return from_parts(source, parts)
            except Exception:  # noqa: BLE001 - another engine, a bad entry: compile as usual
                pass
    return re.compile(source)


def engine_parts(source: str) -> list[Any]:
    """What ``re.compile(source)`` hands to ``_sre.compile``: flags, code, groups, names."""
    try:  # Python 3.11+
        from re import _compiler, _parser  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover - Python 3.10
        import sre_compile as _compiler  # type: ignore[no-redef]
        import sre_parse as _parser  # type: ignore[no-redef]
    p = _parser.parse(source, 0)
    code = _compiler._code(p, 0)
    groupindex = dict(p.state.groupdict)
    indexgroup: list[str | None] = [None] * p.state.groups
    for name, i in groupindex.items():
        indexgroup[i] = name
    return [p.state.flags, list(code), p.state.groups - 1, groupindex, indexgroup]


def from_parts(source: str, parts: list[Any]) -> re.Pattern[str]:
    import _sre
    flags, code, groups, groupindex, indexgroup = parts
    if isinstance(code, str):  # as cached: the code's bytes, base64
        code = _ints(code)
    return _sre.compile(source, flags, code, groups, groupindex, tuple(indexgroup))


def _packed(code: list[int]) -> str:
    """Engine code as base64 of its native 32-bit words: JSON reads one string per pattern
    (~1 ms for every pattern) where a list of ~56,000 numbers costs ~3 ms."""
    import base64
    from array import array
    return base64.b64encode(array("I", code).tobytes()).decode("ascii")


def _ints(packed: str) -> list[int]:
    import binascii
    from array import array
    words = array("I")
    words.frombytes(binascii.a2b_base64(packed))
    return words.tolist()


def _cached_parts() -> dict[str, list[Any]]:
    global _parts
    if _parts is None:
        _parts = {}
        try:
            _parts = _load()
        except Exception:  # noqa: BLE001 - no cache: every pattern is compiled as usual
            _parts = {}
    return _parts


def _load() -> dict[str, list[Any]]:
    import _sre

    from envdoctor.engine.loader import cache_dir, cached_json, digest
    from envdoctor.explain.signatures import all_patterns, load_signatures
    if cache_dir() is None:  # caching is off: building it would cost more than it saves
        return {}
    sources = sorted({p.source for sig in load_signatures() for p in all_patterns(sig)})
    key = [sys.version, _sre.MAGIC, _sre.CODESIZE, sys.byteorder,
           digest("\n".join(sources).encode())]

    def build() -> dict[str, list[Any]]:
        out = {}
        for source in sources:
            parts = engine_parts(source)
            parts[1] = _packed(parts[1])
            if _same(from_parts(source, parts), re.compile(source)):
                out[source] = parts
        return out

    value, _ = cached_json("regex-code", key, build, _valid)
    return value


def _same(a: re.Pattern[str], b: re.Pattern[str]) -> bool:
    return (a.pattern, a.flags, a.groups, a.groupindex) == (b.pattern, b.flags, b.groups,
                                                             b.groupindex)


def _valid(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(v, list) and len(v) == 5 and isinstance(v[1], str) for v in value.values())
