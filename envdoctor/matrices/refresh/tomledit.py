"""Line edits of a matrix file that keep its comments, order and notes: a changed cell
replaces its own line (with a ``<field>_source`` line naming where the value comes from), a
new row is a new ``[[table]]`` block next to the newest row of its table."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

from envdoctor.bounded import MAX_TOML, InputError, decode_toml, read_file
from envdoctor.outputs.sink import write_file

if TYPE_CHECKING:
    from envdoctor.matrices.refresh import Change

_HEADER = re.compile(r"^\s*\[")


def _line(text: str) -> dict[str, Any] | None:
    """One ``key = value`` line of a matrix file as TOML; None when it is not one."""
    try:
        return decode_toml(text, "a matrix line")
    except InputError:
        return None


def toml_value(value: Any) -> str:
    """A TOML literal of a cell: true/false, "string", ["list"], { inline = "table" }."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(str(value), ensure_ascii=True)


def _blocks(lines: list[str], table: str) -> list[tuple[int, int]]:
    """(start, end) line ranges of every ``[[table]]`` block."""
    out, start = [], None
    for i, line in enumerate(lines):
        if _HEADER.match(line):
            if start is not None:
                out.append((start, i))
                start = None
            if line.strip() == f"[[{table}]]":
                start = i
    if start is not None:
        out.append((start, len(lines)))
    return out


def _field_line(lines: list[str], lo: int, hi: int, field: str) -> int | None:
    pat = re.compile(rf"^{re.escape(field)}\s*=")
    return next((i for i in range(lo, hi) if pat.match(lines[i])), None)


def _block_of(lines: list[str], table: str, key: tuple[str, str]) -> tuple[int, int] | None:
    for lo, hi in _blocks(lines, table):
        at = _field_line(lines, lo, hi, key[0])
        if at is None:
            continue
        got = (_line(lines[at]) or {}).get(key[0])
        if got is not None and str(got) == key[1]:
            return lo, hi
    return None


def _end_of_fields(lines: list[str], lo: int, hi: int) -> int:
    """The line after the block's last key line (trailing blanks and comments stay after)."""
    end = lo + 1
    for i in range(lo + 1, hi):
        if lines[i].strip() and not lines[i].lstrip().startswith("#"):
            end = i + 1
    return end


def _set(lines: list[str], lo: int, hi: int, ch: Change) -> None:
    cell = ch.cell
    head, _, sub = cell.field.partition(".")
    at = _field_line(lines, lo, hi, head)
    if head == "confirmed":
        if cell.value and at is not None:
            del lines[at]
        elif not cell.value and at is None:
            lines.insert(_end_of_fields(lines, lo, hi), "confirmed = false")
        return
    value: Any = cell.value
    if sub:
        current = (_line(lines[at]) or {}).get(head, {}) if at is not None else {}
        value = {**current, sub: cell.value}
    new = [f"{head} = {toml_value(value)}", f"{head}_source = {toml_value(cell.source)}"]
    src = _field_line(lines, lo, hi, f"{head}_source")
    if src is not None:
        del lines[src]
        if at is not None and src < at:
            at -= 1
        hi -= 1
    if at is None:
        end = _end_of_fields(lines, lo, hi)
        lines[end:end] = new
    else:
        lines[at:at + 1] = new


def _key_version(lines: list[str], block: tuple[int, int], key: str) -> Version | None:
    at = _field_line(lines, block[0], block[1], key)
    got = (_line(lines[at]) or {}).get(key) if at is not None else None
    try:
        return Version(str(got)) if got is not None else None
    except InvalidVersion:
        return None


def _new_block(lines: list[str], table: str, key: tuple[str, str], cells: list[Change]) -> None:
    """A new row beside the newest one of its table (the tables run newest first or last)."""
    fields: dict[str, Any] = {key[0]: key[1]}
    for ch in cells:
        head, _, sub = ch.cell.field.partition(".")
        if sub:
            fields.setdefault(head, {})[sub] = ch.cell.value
        elif head != "confirmed":
            fields[head] = ch.cell.value
    block = [f"[[{table}]]", *(f"{k} = {toml_value(v)}" for k, v in fields.items()),
             f"source = {toml_value(cells[0].cell.source)}"]
    stated = [ch.cell.value for ch in cells if ch.cell.field == "confirmed"]
    if not all(stated) or not stated:   # unconfirmed, or no source says it is confirmed
        block.append("confirmed = false")
    block.append('note = "Added by envdoctor.matrices.refresh from the source above; fields no '
                 'source states (companion pairings …) are left out: review."')
    blocks = _blocks(lines, table)
    if not blocks:
        lines += ["", *block]
        return
    first, last = (_key_version(lines, blocks[0], key[0]),
                   _key_version(lines, blocks[-1], key[0]))
    if first is not None and last is not None and last > first:  # oldest first: append
        end = _end_of_fields(lines, *blocks[-1])
        lines[end:end] = ["", *block]
    else:
        lines[blocks[0][0]:blocks[0][0]] = [*block, ""]


def _date(lines: list[str], date: str) -> None:
    """The file's [meta] data_as_of moves to the newest source date that changed it."""
    meta = next(((lo, hi) for lo, hi in _meta_block(lines)), None)
    if not date or meta is None:
        return
    at = _field_line(lines, *meta, "data_as_of")
    old = str((_line(lines[at]) or {}).get("data_as_of", "")) if at is not None else ""
    if date > old:
        line = f"data_as_of = {toml_value(date)}"
        if at is None:
            lines.insert(meta[0] + 1, line)
        else:
            lines[at] = line


def _meta_block(lines: list[str]) -> list[tuple[int, int]]:
    start = next((i for i, line in enumerate(lines) if line.strip() == "[meta]"), None)
    if start is None:
        return []
    end = next((i for i in range(start + 1, len(lines)) if _HEADER.match(lines[i])), len(lines))
    return [(start, end)]


def edit_file(path: Path, changes: list[Change]) -> None:
    """Apply ``changes`` to one matrix file; ``InputError`` when it cannot be read or the
    result would not parse (nothing is written then)."""
    lines = read_file(path, "a matrix file", MAX_TOML).decode("utf-8", "replace").splitlines()
    new_rows: dict[tuple[str, tuple[str, str]], list[Change]] = {}
    for ch in changes:
        if ch.kind == "new-row":
            new_rows.setdefault((ch.cell.table, ch.cell.key), []).append(ch)
            continue
        found = _block_of(lines, ch.cell.table, ch.cell.key)
        if found is not None:
            _set(lines, *found, ch)
    for (table, key), cells in new_rows.items():
        _new_block(lines, table, key, cells)
    _date(lines, max((ch.cell.date for ch in changes), default=""))
    text = "\n".join(lines) + "\n"
    decode_toml(text, "a matrix file")   # never write a file that no longer parses
    write_file(str(path), text)
