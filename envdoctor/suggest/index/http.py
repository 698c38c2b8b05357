"""Bounded HTTP GETs for the index reader: one deadline for every request of a run, a size cap
per body, http(s) only, urllib only.

A package index is another party's server: it may be down (a closed port answers at once),
slow (a socket that never sends), or hostile (an endless body). So every request of one run
shares one ``Budget``; requests run on daemon threads the caller waits for until the deadline
and no longer, so a server that drips one byte a second cannot stretch the run; a body is read
in pieces and refused past ``MAX_BODY`` bytes.
"""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from http.client import HTTPException
from typing import Any
from urllib.parse import urlsplit, urlunsplit

MAX_BODY = 8 << 20       # bytes of one index page or metadata file
MAX_PARALLEL = 8         # requests in flight at once
ACCEPT_SIMPLE = ("application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2,"
                 " text/html;q=0.01")


class FetchError(Exception):
    """A page that could not be read: one line on why (the URL is said by the caller)."""


@dataclass(frozen=True)
class Reply:
    """One answer: the final URL (after redirects), status, content type and body."""

    url: str
    status: int
    content_type: str
    body: bytes


class Budget:
    """The one deadline every request of a run shares."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds

    def left(self) -> float:
        return max(0.0, self.deadline - time.monotonic())


def redact(url: str) -> str:
    """``url`` without user and password: what may be printed or stored (a mirror's token in
    ``https://user:token@host/simple`` is a credential)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def _basic_auth(url: str) -> str | None:
    import base64
    from urllib.parse import unquote
    parts = urlsplit(url)
    if parts.username is None:
        return None
    pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
    return "Basic " + base64.b64encode(pair).decode("ascii")


class _Redirects(urllib.request.HTTPRedirectHandler):
    """Redirects to http(s) only, at most five."""

    max_redirections = 5

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> Any:
        if urlsplit(newurl).scheme not in ("http", "https"):
            raise FetchError(f"redirected to a non-HTTP address ({urlsplit(newurl).scheme}:)")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _opener() -> urllib.request.OpenerDirector:
    return urllib.request.build_opener(_Redirects())


def get(url: str, budget: Budget, accept: str = ACCEPT_SIMPLE, limit: int = MAX_BODY) -> Reply:
    """One GET within ``budget``; a 404 is a Reply (the index does not have that project),
    anything else that is not a 2xx answer is a FetchError."""
    from envdoctor import __version__
    from envdoctor.bounded import InputError, read_stream
    if urlsplit(url).scheme not in ("http", "https"):
        raise FetchError("not an http(s) address")
    if budget.left() <= 0:
        raise FetchError(f"no answer within the {budget.seconds:g} s deadline")
    req = urllib.request.Request(redact(url), headers={
        "Accept": accept, "Accept-Encoding": "identity",
        "User-Agent": f"envdoctor/{__version__} (suggest --online)"})
    auth = _basic_auth(url)
    if auth:   # as pip does for user:password@ in an index URL; never sent on to a redirect
        req.add_unredirected_header("Authorization", auth)
    try:
        with _opener().open(req, timeout=max(budget.left(), 0.05)) as resp:
            size = resp.headers.get("Content-Length", "")
            if size.isdigit() and int(size) > limit:
                raise FetchError(f"the answer is larger than {limit >> 20} MB")
            try:
                body = read_stream(resp, limit, "the answer", budget.deadline)
            except InputError as exc:
                raise FetchError(str(exc).replace("the answer: ", "the answer is ")
                                 if "larger" in str(exc) else
                                 f"no answer within the {budget.seconds:g} s deadline") from None
            return Reply(resp.geturl(), resp.status, resp.headers.get("Content-Type", ""), body)
    except urllib.error.HTTPError as exc:
        if exc.code in (404, 410):
            return Reply(url, exc.code, "", b"")
        raise FetchError(f"HTTP {exc.code}") from None
    except urllib.error.URLError as exc:
        raise FetchError(_why(exc.reason)) from None
    except (OSError, HTTPException, ValueError) as exc:
        raise FetchError(_why(exc)) from None


def _why(reason: object) -> str:
    if isinstance(reason, TimeoutError) or "timed out" in str(reason):
        return "timed out"
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    text = str(getattr(reason, "strerror", None) or reason).splitlines()
    return (text[0] if text else type(reason).__name__)[:120]


def get_all(urls: list[str], budget: Budget, accept: str = ACCEPT_SIMPLE,
            limit: int = MAX_BODY) -> dict[str, Reply | FetchError]:
    """Every URL fetched in parallel, each answer or its error; what has not answered when the
    deadline passes is a FetchError, and its thread (a daemon) is left behind."""
    out: dict[str, Reply | FetchError] = {}
    lock, done = threading.Lock(), threading.Event()
    gate = threading.Semaphore(MAX_PARALLEL)
    todo = list(dict.fromkeys(urls))

    def one(url: str) -> None:
        with gate:
            try:
                got: Reply | FetchError = get(url, budget, accept, limit)
            except FetchError as exc:
                got = exc
            except Exception as exc:  # noqa: BLE001 - a server must never crash the run
                got = FetchError(_why(exc))
        with lock:
            out[url] = got
            if len(out) == len(todo):
                done.set()

    if not todo:
        return out
    for url in todo:
        threading.Thread(target=one, args=(url,), daemon=True, name="envdoctor-index").start()
    done.wait(budget.left() + 0.05)
    with lock:
        late = FetchError(f"no answer within the {budget.seconds:g} s deadline")
        return {u: out.get(u, late) for u in todo}
