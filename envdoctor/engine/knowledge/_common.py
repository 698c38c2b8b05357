"""What the knowledge functions share that is not matrix data (that is ``envdoctor.matrices``;
version parsing is ``envdoctor.versions``)."""

from __future__ import annotations


def counted(items: list[str]) -> list[str]:
    """Repeated entries once, with their count: eight identical B200s read as
    ``"8 × NVIDIA B200 (sm_100)"``, not eight times the same text. Order kept."""
    counts: dict[str, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return [item if n == 1 else f"{n} × {item}" for item, n in counts.items()]
