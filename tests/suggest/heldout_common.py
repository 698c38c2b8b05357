"""What the held-out batches 5-11 (tests/suggest/test_heldout5..11.py) share: scoring a batch's
labelled answers offline and against its local index, the judge's table of the wheels an index
fixture lists, the isolation of an `--online` run from this machine's pip and proxy settings,
the unreachable-index check and the per-platform report. Each batch keeps its own labels, judge,
snapshot and fixture; only this machinery is common (it was copied from batch to batch)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
Row = dict[str, Any]
Case = tuple[Row, str, bool]


def expected(row: Row, framework: str, keep: bool) -> str:
    """The label of a `suggest` (``expect``) or `suggest --keep` (``expect_keep``) answer."""
    return str(row["expect_keep" if keep else "expect"][framework])


def figures(cases: Iterable[Case], answer: Callable[..., Any], judge: Callable[..., Any],
            platform_of: Callable[[Row], str]) -> tuple[Counter[str], Counter[str], list[str]]:
    """(right, total) per platform over every labelled answer, and the wrong ones."""
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    wrong: list[str] = []
    for row, fw, keep in cases:
        key = platform_of(row)
        total[key] += 1
        try:
            verdict = judge(row, fw, expected(row, fw, keep), answer(row, fw, keep))
        except Exception as exc:  # noqa: BLE001 - a crash is a wrong answer
            verdict = f"error: {type(exc).__name__}: {str(exc)[:160]}"
        if verdict is None:
            right[key] += 1
        else:
            wrong.append(f"{row['name']} {fw}{' keep' if keep else ''}: {verdict}")
    return right, total, wrong


def online_figures(cases: list[tuple[Row, str]], label: str, answer: Callable[..., Any],
                   judge: Callable[..., Any], cell: Callable[..., Any],
                   serving: Callable[[str], AbstractContextManager[Any]],
                   flavour: str = "json") -> tuple[int, int, list[str]]:
    """(right, total, wrong) of the `--online` answers (labels under ``label``) against the
    batch's local index served in ``flavour`` (PEP 691 JSON or PEP 503 HTML)."""
    from envdoctor.suggest.index import Online
    right, wrong = 0, []
    with serving(flavour) as index:
        online = Online(index.url, index.torch_root, 10)
        for row, fw in cases:
            try:
                verdict = judge(row, fw, row[label][fw], answer(row, fw, online=online), cell)
            except Exception as exc:  # noqa: BLE001
                verdict = f"error: {type(exc).__name__}: {str(exc)[:160]}"
            if verdict is None:
                right += 1
            else:
                wrong.append(f"{row['name']} {fw} --online: {verdict}")
    return right, len(cases), wrong


def cell_table(cells: Iterable[tuple[str, ...]]) -> Callable[[str, str, str, str], str | None]:
    """The judge's table for `--online` answers: "confirmed" for a (version, variant,
    platform, cpXY) wheel the fixture lists (extra key fields, such as a macOS floor, ignored),
    else None."""
    listed = {tuple(c[:4]) for c in cells}

    def cell(version: str, variant: str, platform: str, cp: str) -> str | None:
        return "confirmed" if (version, variant, platform, cp) in listed else None
    return cell


def isolate_online(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An `--online` run that reads only the local index: its own cache, no pip config, no
    index URL or proxy from this machine's environment."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    for name in ("ENVDOCTOR_CACHE_DIR", "PIP_INDEX_URL", "http_proxy", "https_proxy",
                 "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)


def unreachable_index_answers_from_shipped_data(facts: Any, name: str, tmp_path: Path) -> None:
    """An index nobody listens on: within 15 s, the shipped data's commands, one line more,
    the same exit code."""
    import socket
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(facts.to_dict()), "utf-8")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {k: v for k, v in os.environ.items()
           if not k.lower().endswith("_proxy") and k not in ("PIP_INDEX_URL",
                                                             "ENVDOCTOR_CACHE_DIR")}
    env.update(PYTHONPATH=str(ROOT), NO_COLOR="1", PIP_CONFIG_FILE=os.devnull,
               XDG_CACHE_HOME=str(tmp_path / "cache"), XDG_STATE_HOME=str(tmp_path / "st"))
    base = [sys.executable, "-m", "envdoctor", "suggest", "--facts", str(path),
            "torch", "jax", "tensorflow"]
    shipped = subprocess.run(base, capture_output=True, text=True, env=env, timeout=120,
                             cwd=ROOT)
    start = time.monotonic()
    got = subprocess.run([*base, "--online", "--index-url", f"http://127.0.0.1:{port}/simple",
                          "--torch-index-url", f"http://127.0.0.1:{port}/whl"],
                         capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    took = time.monotonic() - start
    assert took < 15 and "Traceback" not in got.stderr
    assert got.returncode == shipped.returncode, got.stderr

    def commands(out: str) -> list[str]:
        return [line for line in out.splitlines() if line.strip().startswith("$ ")]
    assert commands(got.stdout) == commands(shipped.stdout)
    new_notes = [line for line in (got.stdout + got.stderr).splitlines()
                 if line.startswith("Note:") and line not in shipped.stdout + shipped.stderr]
    assert len(new_notes) == 1, new_notes


def vkey(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


def report(offline: Callable[[], tuple[Counter[str], Counter[str], list[str]]],
           online: Callable[[], tuple[int, int, list[str]]], verbose: bool) -> None:
    """Print a batch's per-platform figures and its `--online` figure (``python -m
    tests.suggest.test_heldoutN [-v]``; ``-v`` lists every wrong answer first)."""
    r, t, w = offline()
    online_right, online_total, online_wrong = online()
    if verbose:
        for line in [*w, *online_wrong]:
            print(f"  WRONG {line}")
    for k in sorted(t):
        print(f"{k:22s} {r[k]:3d}/{t[k]}")
    print(f"{'all':22s} {sum(r.values()):3d}/{sum(t.values())}")
    print(f"{'--online (fixture)':22s} {online_right:3d}/{online_total}")


# ------------------------------------------------------------------ the index fixtures
def wheel_cells(pages: dict[str, list[dict]], plat_of: dict[str, str],
                pypi_variant: Callable[[Any, str], str]) -> set[tuple[str, str, str, str]]:
    """(version, variant, platform, cpXY) of every non-yanked final torch wheel a fixture's
    pages list (``whl/<variant>/torch`` and PyPI's ``simple/torch``, whose variant
    ``pypi_variant(version, platform)`` names): what the judge counts as installable when it
    judges `--online` answers."""
    from packaging.utils import parse_wheel_filename
    cells: set[tuple[str, str, str, str]] = set()
    for path, files in pages.items():
        if not path.endswith("/torch"):
            continue
        folder = path.split("/")[1] if path.startswith("whl/") else "pypi"
        for f in files:
            if not f["filename"].endswith(".whl"):
                continue
            _, version, _, tags = parse_wheel_filename(f["filename"])
            if f["yanked"] or version.is_prerelease:
                continue
            tag = next(iter(tags))
            platform = plat_of[tag.platform]
            variant = pypi_variant(version, platform) if folder == "pypi" else folder
            cells.add((version.base_version, variant, platform, tag.interpreter))
    return cells


def serve(index_class: Any, pages: Callable[[], dict[str, list[dict]]], flavour: str
          ) -> Iterator[Any]:
    """Run heldout5_index's server (``index_class``) with a fixture's ``pages`` until the
    ``with`` block ends (the body of each fixture's ``serving``)."""
    index = index_class(flavour)
    index.pages = pages()
    index.start()
    try:
        yield index
    finally:
        index.stop()
