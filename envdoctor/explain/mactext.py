"""Readings of a text's own macOS facts: the macOS release a binary was built for (or needs)
against the release the text says runs."""
from __future__ import annotations

import re

MAX_TEXT = 1 << 20

_VER = r"(\d{2}(?:\.\d{1,2}){0,2})(?![\d.]*\d)"
_MAC = r"(?:macOS|Mac OS X|OS X|MacOS)"
# what a build needs, in words or from its metadata: "built for macOS 15.0", "requires macOS
# 15 or later", "minimum deployment target is macOS 14.0", LSMinimumSystemVersion = 15.0,
# otool's "minos 15.0"
_NEEDS = (
    re.compile(rf"(?i)\b(?:built|compiled|linked|made) (?:for|against|targeting) {_MAC} ?{_VER}"),
    re.compile(rf"(?i)\b(?:requires?|required|needs?|minimum(?: system)?(?: version| deployment"
               rf" target)?(?: is| of)?|deployment target(?: is| of)?|only (?:supports?|runs? on))"
               rf" {_MAC} ?{_VER}"),
    re.compile(rf"(?:LSMinimumSystemVersion\W{{1,6}}|\bminos\s{{1,6}}){_VER}"),
)
# every macOS release the text states ("macOS 14.8.4", "Sonoma 14.5", "ProductVersion: 14.7",
# "macOS-14.8-arm64"): the running one is among them
_STATED = (
    re.compile(rf"(?i)\b{_MAC}[ -]?{_VER}"),
    re.compile(rf"(?i)\b(?:Ventura|Sonoma|Sequoia|Monterey|Big Sur|Tahoe)[ (]{{1,2}}{_VER}"),
    re.compile(rf"ProductVersion:\s{{0,8}}{_VER}"),
    re.compile(rf"(?i)\b{_MAC} version\W{{0,6}}{_VER}"),
    re.compile(rf"(?i)(?<![\d.]){_VER} \((?:Ventura|Sonoma|Sequoia|Monterey|Big Sur|Tahoe)\)"),
)


def _key(v: str) -> tuple[int, ...]:
    parts = [int(p) for p in v.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def built_newer_reason(text: str) -> str | None:
    """The note when the text states the macOS release a binary was built for or needs, and
    another, older release it runs (one of the releases it states that is not a 'needs' one);
    None otherwise (nothing needed, nothing else stated, or every other release is newer)."""
    head = text[:MAX_TEXT]
    needed: dict[str, None] = {}
    spans: list[tuple[int, int]] = []
    for rx in _NEEDS:
        for m in rx.finditer(head):
            needed.setdefault(m.group(1), None)
            spans.append(m.span(1))
    if not needed:
        return None
    running: dict[str, None] = {}
    for rx in _STATED:
        for m in rx.finditer(head):
            if any(a <= m.start(1) < b for a, b in spans):
                continue
            running.setdefault(m.group(1), None)
    if not running:
        return None
    need = max(needed, key=_key)
    have = min(running, key=_key)
    if _key(have) >= _key(need):
        return None
    return (f"The text says the binary is built for (or needs) macOS {need} and states macOS "
            f"{have} running: the older release lacks what it links against.")
