"""What every probe shares: a trail of what it ran and read, and safe file reading."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from envdoctor import runner
from envdoctor.bounded import read_text
from envdoctor.facts import ProbeInfo, Status


class Trail:
    """Records the commands a probe ran and the files it read, for ``ProbeInfo.ran``."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    def run(self, argv: Sequence[str], timeout: float = 5.0) -> runner.CommandResult:
        result = runner.run(argv, timeout)
        self.ran.append(result.shown)
        return result

    def read(self, path: str | Path, limit: int = 1 << 20) -> str | None:
        """At most ``limit`` bytes of a regular text file, lines capped (``bounded``); None
        when it is missing, unreadable or not a regular file (a FIFO never blocks us)."""
        self.ran.append(f"read {path}")
        return read_text(path, limit)

    def info(self, status: Status, reason: str = "", source: str = "") -> ProbeInfo:
        return ProbeInfo(status=status, reason=reason, ran=tuple(self.ran), source=source)
