"""Refresh rules/matrices from copies of their upstream sources, as a reviewable diff.

A sources directory holds ``sources.toml`` (one ``[[source]]`` per file: ``kind``, ``file``,
``url``, ``date`` and optionally ``fields``, the only cells taken from that file when another
source states the rest of a row better) and the files themselves: recorded excerpts in
tests/data/refresh, or what the scheduled workflow (.github/workflows/refresh-matrices.yml)
downloaded. Each kind has a reader (``extract``, ``pypi``) that turns the text into the cells
it states; ``compare`` sets those
cells against the shipped matrices and ``render`` prints one line per changed cell with its
source URL; ``apply`` writes them (``--write``), each changed cell with its own ``*_source``.

    python -m envdoctor.matrices.refresh --sources DIR [--rules DIR] [--write] [--diff FILE]

Only what a source states is compared: a field no reader extracts (a torchvision pairing that
no exact pin states, a note) is left as it is, a jax release the data lacks is reported for
review, not invented, and a new row from a source that does not say it is confirmed (a PyPI
listing) is written ``confirmed = false``. Kinds: the readers of ``extract`` (test-infra's
build matrix, RELEASE.md, TF's tested configurations, the CUDA release notes, the JAX
changelog and install page) and of ``pypi`` (a PEP 691 project page, a wheel's core metadata).
Nothing here touches the network; the workflow downloads, this reads files.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from envdoctor.bounded import MAX_INPUT, MAX_TOML, InputError, decode_toml, read_file
from envdoctor.matrices.refresh.extract import READERS, Cell

__all__ = ["Cell", "Change", "RefreshError", "apply", "compare", "load_sources", "render"]


class RefreshError(ValueError):
    """A sources directory or matrix that cannot be read (bad input: exit 2)."""


@dataclass(frozen=True)
class Change:
    """What a source says about a cell and what the shipped matrix holds there.

    ``kind``: "changed" (the row is there, the value differs), "new-row" (no row with that
    key), "review" (a release the data has no row for and the source gives no range for)."""

    cell: Cell
    old: Any
    kind: str


def load_sources(directory: Path) -> list[Cell]:
    """Every cell the sources of ``directory`` state, in manifest order."""
    manifest = directory / "sources.toml"
    try:
        entries = decode_toml(read_file(manifest, "a sources manifest", MAX_TOML),
                              "a sources manifest").get("source", [])
    except InputError as exc:
        raise RefreshError(f"cannot read {manifest}: {exc}") from None
    cells: list[Cell] = []
    for entry in entries:
        reader = READERS.get(str(entry.get("kind")))
        if reader is None or not entry.get("file") or not entry.get("url"):
            raise RefreshError(f"{manifest}: a source needs kind (one of {', '.join(READERS)}), "
                               f"file and url: {entry}")
        path = directory / str(entry["file"])
        try:
            text = read_file(path, "a recorded source", MAX_INPUT).decode("utf-8")
        except (InputError, UnicodeDecodeError) as exc:
            raise RefreshError(f"cannot read source {path}: {exc}") from None
        fields = entry.get("fields")
        if fields is not None and not (isinstance(fields, list)
                                       and all(isinstance(f, str) for f in fields)):
            raise RefreshError(f"{manifest}: fields is a list of cell names: {entry}")
        try:
            got = reader(text, str(entry["url"]))
        except SyntaxError as exc:
            raise RefreshError(f"{path}: not the expected source ({exc.msg})") from None
        cells += [replace(c, date=str(entry.get("date", ""))) for c in got
                  if fields is None or c.field in fields]
    return cells


def _matrix(rules: Path, name: str) -> dict[str, Any]:
    path = rules / "matrices" / f"{name}.toml"
    try:
        return decode_toml(read_file(path, "a matrix file", MAX_TOML), "a matrix file")
    except InputError as exc:
        raise RefreshError(f"cannot read {path}: {exc}") from None


def _row(rows: list[dict[str, Any]], key: tuple[str, str]) -> dict[str, Any] | None:
    return next((r for r in rows if str(r.get(key[0])) == key[1]), None)


def _value(row: dict[str, Any], field: str) -> Any:
    if field == "confirmed":
        return row.get("confirmed", True) is not False
    head, _, sub = field.partition(".")
    value = row.get(head)
    return value.get(sub) if sub and isinstance(value, dict) else value


def _ver(text: Any) -> Version | None:
    try:
        return Version(str(text))
    except InvalidVersion:
        return None


def _jax_release(cell: Cell, rows: list[dict[str, Any]]) -> Change | None:
    """A jax release newer than every row's ``last`` is a row to review; older ones are
    inside the data's ranges (or before its first row) and say nothing new."""
    v = _ver(cell.key[1])
    lasts = [x for r in rows if (x := _ver(r.get("last"))) is not None]
    if v is None or not lasts or v <= max(lasts):
        return None
    return Change(cell, None, "review")


def _cites(row: dict[str, Any], cell: Cell) -> bool:
    """Whether the row names the cell's source for that field (or as the row's source)."""
    head = cell.field.partition(".")[0]
    return cell.source in (row.get(f"{head}_source"), row.get("source"))


def _newest(cell: Cell, rows: list[dict[str, Any]]) -> bool:
    """Whether the cell's row would be newer than every row of its table."""
    v = _ver(cell.key[1])
    keys = [x for r in rows if (x := _ver(r.get(cell.key[0]))) is not None]
    return v is not None and (not keys or v > max(keys))


def compare(cells: list[Cell], rules: Path) -> list[Change]:
    """The cells whose value the shipped matrices under ``rules`` do not hold."""
    out: list[Change] = []
    cache: dict[str, dict[str, Any]] = {}
    for cell in cells:
        data = cache.setdefault(cell.file, _matrix(rules, cell.file))
        rows = list(data.get(cell.table, []))
        if cell.file == "jax" and cell.field == "released":
            if (change := _jax_release(cell, rows)) is not None:
                out.append(change)
            continue
        row = _row(rows, cell.key)
        if cell.listing and not (_cites(row, cell) if row is not None else _newest(cell, rows)):
            continue
        if row is None:
            out.append(Change(cell, None, "new-row"))
        elif _value(row, cell.field) != cell.value:
            out.append(Change(cell, _value(row, cell.field), "changed"))
    return out


def _show(value: Any) -> str:
    from envdoctor.matrices.refresh.tomledit import toml_value
    return "(absent)" if value is None else toml_value(value)


def render(changes: list[Change]) -> str:
    """One line per changed cell: file, row, field, old -> new, and the source it comes from."""
    lines = []
    for ch in changes:
        c = ch.cell
        where = f"rules/matrices/{c.file}.toml [[{c.table}]] {c.key[0]} = {_show(c.key[1])}"
        if ch.kind == "review":
            lines.append(f"{where}: released {c.value}, not in the data (review: add a row "
                         f"with its Python range)  # {c.source}")
        else:
            lines.append(f"{where}: {c.field}: {_show(ch.old)} -> {_show(c.value)}  "
                         f"# {c.source}")
    return "\n".join(lines) + ("\n" if lines else "")


def apply(changes: list[Change], rules: Path) -> list[Path]:
    """Write the changed and new cells into the matrix files under ``rules``; "review"
    changes are left to a person. Returns the files written; ``RefreshError`` when a matrix
    file cannot be read or would no longer parse."""
    from envdoctor.matrices.refresh.tomledit import edit_file

    by_file: dict[str, list[Change]] = {}
    for ch in changes:
        if ch.kind != "review":
            by_file.setdefault(ch.cell.file, []).append(ch)
    written = []
    for name, items in by_file.items():
        path = rules / "matrices" / f"{name}.toml"
        try:
            edit_file(path, items)
        except InputError as exc:
            raise RefreshError(f"cannot edit {path}: {exc}") from None
        written.append(path)
    return written
