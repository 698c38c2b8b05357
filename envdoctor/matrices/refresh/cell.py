"""One value a recorded source states for one matrix cell (shared by every reader)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Cell:
    """One value a source states for one matrix row: ``file`` (rules/matrices/<file>.toml),
    the row's ``table`` and its ``key`` field and value, the ``field`` (``pypi.linux_x86_64``
    for an inline-table entry), the ``value`` and the ``source`` URL it comes from."""

    file: str
    table: str
    key: tuple[str, str]
    field: str
    value: Any
    source: str
    date: str = ""      # the source's date (sources.toml), for the file's data_as_of
    # from a listing (every release an index has): it speaks for a row that cites the same
    # source (``source`` / ``<field>_source``) and adds a row only newer than every row of its
    # table; older releases, and rows whose cell another source gives, are the data's choice
    listing: bool = False
