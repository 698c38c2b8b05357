"""Node names as compressed host lists, the way Slurm writes them: ``gpu[001-040,043]``.

A finding about 300 nodes names them in one short phrase instead of 300 names; the JSON keeps
every name. Names are split into a prefix, a trailing number (its zero padding kept) and
grouped by prefix and width; names without a trailing number are listed as they are. The
text is cut after ``limit`` ranges with the count of nodes, so a scattered set of 5 000 nodes
is still one short phrase.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_TAIL = re.compile(r"^(.*?)(\d+)$")


def _ranges(numbers: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for n in sorted(set(numbers)):
        if out and n == out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def compress(names: Iterable[str], limit: int = 6, count: bool = True) -> str:
    """``["gpu001", "gpu002", "gpu003", "gpu007", "login"]`` → ``gpu[001-003,007], login``;
    more than ``limit`` ranges in all: the first ``limit``, then ``…``; ``count``: add
    ``(N nodes)`` after more than 3 names."""
    names = list(dict.fromkeys(names))
    groups: dict[tuple[str, int], list[int]] = {}
    plain: list[str] = []
    for name in names:
        m = _TAIL.match(name)
        if not m:
            plain.append(name)
            continue
        digits = m.group(2)
        width = len(digits) if digits.startswith("0") and len(digits) > 1 else 0
        groups.setdefault((m.group(1), width), []).append(int(digits))
    for (prefix, width), numbers in list(groups.items()):  # gpu09999, gpu10000: one run
        if width:
            wide = groups.get((prefix, 0), [])
            joined = [n for n in wide if len(str(n)) >= width]
            if joined:
                numbers += joined
                rest = [n for n in wide if len(str(n)) < width]
                if rest:
                    groups[(prefix, 0)] = rest
                else:
                    del groups[(prefix, 0)]
    parts: list[str] = []
    shown = 0
    cut = False
    for (prefix, width), numbers in groups.items():
        ranges = _ranges(numbers)
        if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
            if shown >= limit:
                cut = True
                break
            parts.append(f"{prefix}{ranges[0][0]:0{width}d}")
            shown += 1
            continue
        room = limit - shown
        if room <= 0:
            cut = True
            break
        text = ",".join(f"{a:0{width}d}" if a == b else f"{a:0{width}d}-{b:0{width}d}"
                        for a, b in ranges[:room])
        if len(ranges) > room:
            text += ",…"
            cut = True
        parts.append(f"{prefix}[{text}]")
        shown += min(len(ranges), room)
        if cut:
            break
    for name in plain:
        if shown >= limit:
            cut = True
            break
        parts.append(name)
        shown += 1
    text = ", ".join(parts)
    if cut and not text.endswith(",…]"):
        text += " …"
    if count and (cut or len(names) > 3):
        text += f" ({len(names)} nodes)"
    return text
