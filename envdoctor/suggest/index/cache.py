"""Index pages read in the last hour, kept as sealed JSON under the cache folder.

``<cache>/index/<digest of the URL>.json`` (the cache folder of the rule cache:
``$ENVDOCTOR_CACHE_DIR``, else ``$XDG_CACHE_HOME/envdoctor``; ``ENVDOCTOR_NO_CACHE`` turns it
off). Line 1 holds when the page was read and a seal (``envdoctor.seal``: a MAC under this
user's secret over URL, time and value), the rest the parsed file list. An entry older than
its lifetime (``ENVDOCTOR_INDEX_TTL`` seconds, default 3600; 0 = no cache), from the future,
unsealed or of the wrong shape is not used. The URL itself is not stored (a mirror's URL may
hold a token). JSON, never pickle.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from envdoctor.errors import BadInput
from envdoctor.outputs.sink import write_file

DEFAULT_TTL = 3600.0
MAX_ENTRY = 32 << 20


def ttl() -> float:
    from envdoctor.bounded import env
    raw = env("ENVDOCTOR_INDEX_TTL")
    try:
        return max(0.0, float(raw)) if raw else DEFAULT_TTL
    except ValueError:
        return DEFAULT_TTL


def _where(url: str) -> tuple[Path, bytes] | None:
    from envdoctor import seal
    from envdoctor.rulefiles import cache_dir, digest
    folder = cache_dir()
    if folder is None or ttl() <= 0:
        return None
    secret = seal.secret()
    if secret is None:
        return None
    return folder / "index" / f"{digest(url.encode('utf-8'))}.json", secret


def _seal(secret: bytes, url: str, fetched: float, value_text: str) -> str:
    from envdoctor import seal
    return seal.seal(secret, f"index\n{url}\n{fetched!r}\n{value_text}")


def load(url: str) -> tuple[Any, float] | None:
    """(value, when it was read) of a fresh, sealed entry for ``url``; None otherwise."""
    spot = _where(url)
    if spot is None:
        return None
    path, secret = spot
    from envdoctor import seal
    from envdoctor.bounded import InputError, decode_json, read_file
    try:
        head_text, _, value_text = read_file(path, "a cache entry", MAX_ENTRY).decode(
            "utf-8").partition("\n")
        head = decode_json(head_text)
        fetched = head.get("fetched")
        if not isinstance(fetched, float) or not seal.same(
                _seal(secret, url, fetched, value_text), head.get("seal")):
            return None
        age = time.time() - fetched
        if age < -60 or age > ttl():
            return None
        return decode_json(value_text), fetched
    except (InputError, OSError, UnicodeDecodeError, ValueError, AttributeError):
        return None


def store(url: str, value: Any) -> None:
    spot = _where(url)
    if spot is None:
        return
    path, secret = spot
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fetched = float(time.time())
        value_text = json.dumps(value)
        head = json.dumps({"fetched": fetched, "seal": _seal(secret, url, fetched, value_text)})
        write_file(str(path), f"{head}\n{value_text}", follow=False)
    except (OSError, TypeError, ValueError, BadInput):
        pass  # a read-only cache only costs the next run a request
