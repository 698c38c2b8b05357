"""One project page of a PyPI-style simple index, read into its files.

PEP 691 JSON (``application/vnd.pypi.simple.v1+json``) first, PEP 503 HTML otherwise; from
each file: its name, URL, ``requires-python``, whether it is yanked (PEP 592) and whether its
core metadata is served next to it (PEP 658 / PEP 714: ``core-metadata``, formerly
``dist-info-metadata``). JSON goes through the bounded decoder (nesting and number limits), so
a hostile page is an error, never a crash; HTML through ``html.parser``, which never raises on
bad markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from envdoctor.suggest.index.http import FetchError, Reply

MAX_FILES = 100_000      # files of one project page that are read


@dataclass(frozen=True)
class File:
    filename: str
    url: str
    requires_python: str | None = None
    yanked: bool = False
    metadata: bool = False      # core metadata at ``url + ".metadata"``

    def to_list(self) -> list[Any]:
        return [self.filename, self.url, self.requires_python, self.yanked, self.metadata]

    @classmethod
    def from_list(cls, item: Any) -> File | None:
        """A cached entry back; None when it does not have the shape ``to_list`` writes."""
        if not (isinstance(item, list) and len(item) == 5 and all(
                isinstance(x, str) for x in item[:2]) and isinstance(item[2], (str, type(None)))
                and isinstance(item[3], bool) and isinstance(item[4], bool)):
            return None
        return cls(item[0], item[1], item[2], item[3], item[4])


def _flag(value: Any) -> bool:
    """PEP 691 / 714: ``true``, or a dict of hashes, or a reason string: present / yanked."""
    return bool(value) and value is not False


def parse_page(reply: Reply) -> list[File]:
    """The files a project page lists; [] for a 404. FetchError when the page is neither a
    PEP 691 JSON document nor HTML with links."""
    if reply.status in (404, 410):
        return []
    ctype = reply.content_type.split(";")[0].strip().lower()
    if ctype.endswith("json"):
        return _json_files(reply)
    return _html_files(reply)


def _json_files(reply: Reply) -> list[File]:
    from envdoctor.bounded import InputError, decode_json
    try:
        doc = decode_json(reply.body, "a simple-index page")
    except InputError as exc:
        raise FetchError(f"not a readable PEP 691 page ({exc})") from None
    files = doc.get("files") if isinstance(doc, dict) else None
    if not isinstance(files, list):
        raise FetchError("not a PEP 691 project page (no files list)")
    out = []
    for item in files[:MAX_FILES]:
        if not isinstance(item, dict):
            continue
        name, url = item.get("filename"), item.get("url")
        if not isinstance(name, str) or not isinstance(url, str):
            continue
        rp = item.get("requires-python")
        meta = item.get("core-metadata", item.get("dist-info-metadata", False))
        out.append(File(name, urljoin(reply.url, url), rp if isinstance(rp, str) else None,
                        _flag(item.get("yanked", False)), _flag(meta)))
    return out


class _Links(HTMLParser):
    """The ``<a>`` elements of a PEP 503 page with their data- attributes and text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[dict[str, str | None], str]] = []
        self._open: dict[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a" and len(self.links) < MAX_FILES:
            self._open, self._text = dict(attrs), []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._open is not None:
            self.links.append((self._open, "".join(self._text).strip()))
            self._open = None


def _html_files(reply: Reply) -> list[File]:
    parser = _Links()
    try:
        parser.feed(reply.body.decode("utf-8", errors="replace"))
        parser.close()
    except (AssertionError, ValueError):  # html.parser's few hard failures
        raise FetchError("not a readable simple-index page (bad HTML)") from None
    if not parser.links and b"<a" not in reply.body.lower():
        raise FetchError("not a simple-index page (no links)")
    out = []
    for attrs, text in parser.links:
        href = attrs.get("href")
        if not href:
            continue
        url = urljoin(reply.url, href)
        path_name = unquote(urlsplit(url).path.rsplit("/", 1)[-1])
        name = text if text.endswith((".whl", ".tar.gz", ".zip")) else path_name
        meta = attrs.get("data-core-metadata", attrs.get("data-dist-info-metadata"))
        out.append(File(name, url.split("#", 1)[0],
                        attrs.get("data-requires-python") or None,
                        "data-yanked" in attrs, meta is not None and meta != "false"))
    return out
