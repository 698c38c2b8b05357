"""Pages and metadata files of one run: from the cache when fresh, else fetched under the
run's one deadline, parsed once and kept for the rest of the run (a `check` whose fixes ask
the planner ten times reads each page once)."""

from __future__ import annotations

import time

from envdoctor.suggest.index import cache
from envdoctor.suggest.index.http import Budget, FetchError, get_all
from envdoctor.suggest.index.simple import File, parse_page

MAX_METADATA = 1 << 20


class Reader:
    def __init__(self, timeout: float) -> None:
        self.budget = Budget(timeout)
        self._pages: dict[str, list[File] | FetchError] = {}
        self._meta: dict[str, str | FetchError] = {}
        self.oldest: float | None = None     # when the oldest page used was read

    def _seen(self, when: float) -> None:
        self.oldest = when if self.oldest is None else min(self.oldest, when)

    def pages(self, urls: list[str]) -> dict[str, list[File] | FetchError]:
        """Each project page's files (a 404 is []), or why it could not be read."""
        todo = []
        for url in dict.fromkeys(urls):
            if url in self._pages:
                continue
            hit = cache.load(url)
            files = [File.from_list(x) for x in hit[0]] if hit and isinstance(hit[0], list) \
                else None
            if hit is not None and files is not None and None not in files:
                self._pages[url] = [f for f in files if f is not None]
                self._seen(hit[1])
            else:
                todo.append(url)
        for url, reply in get_all(todo, self.budget).items():
            if isinstance(reply, FetchError):
                self._pages[url] = reply
                continue
            try:
                got = parse_page(reply)
            except FetchError as exc:
                self._pages[url] = exc
                continue
            self._pages[url] = got
            self._seen(time.time())
            cache.store(url, [f.to_list() for f in got])
        return {u: self._pages[u] for u in urls}

    def metadata(self, urls: list[str]) -> dict[str, str | FetchError]:
        """Core metadata files (PEP 658 ``<wheel URL>.metadata``) as text."""
        todo = []
        for url in dict.fromkeys(urls):
            if url in self._meta:
                continue
            hit = cache.load(url)
            if hit is not None and isinstance(hit[0], str):
                self._meta[url] = hit[0]
            else:
                todo.append(url)
        for url, reply in get_all(todo, self.budget, accept="*/*", limit=MAX_METADATA).items():
            if isinstance(reply, FetchError):
                self._meta[url] = reply
            elif reply.status != 200:
                self._meta[url] = FetchError(f"HTTP {reply.status}")
            else:
                text = reply.body.decode("utf-8", errors="replace")
                self._meta[url] = text
                cache.store(url, text)
        return {u: self._meta[u] for u in urls}
