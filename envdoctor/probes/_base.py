"""What every probe shares: a trail of what it ran and read, and safe file reading."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from envdoctor import runner
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
        """Read at most ``limit`` bytes of a text file; None when it is missing or unreadable."""
        self.ran.append(f"read {path}")
        try:
            with open(path, "rb") as fh:
                return fh.read(limit).decode("utf-8", errors="replace")
        except OSError:
            return None

    def info(self, status: Status, reason: str = "", source: str = "") -> ProbeInfo:
        return ProbeInfo(status=status, reason=reason, ran=tuple(self.ran), source=source)
