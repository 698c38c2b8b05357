"""Adversarial round 9 (tests/faults/MATRIX9.md): the boundary fixes, one test per class.

Fast tests (in-process, or one short real process); the real-process faults are in
tests/faults/matrix9.py, run under ``-m boundary`` by tests/faults/test_faults9.py.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- a folder is never a pattern
def test_a_folder_named_with_glob_characters_is_taken_literally(tmp_path):
    from envdoctor.bounded import matching
    (tmp_path / "img[1]/lib").mkdir(parents=True)
    (tmp_path / "img[1]/lib/libcuda.so.1").touch()
    (tmp_path / "img1/lib").mkdir(parents=True)
    (tmp_path / "img1/lib/libcuda.so.9").touch()    # what img[1] matches as a pattern
    assert matching(tmp_path / "img[1]/lib", "libcuda.so*") == [
        str(tmp_path / "img[1]/lib/libcuda.so.1")]
    assert matching(tmp_path / "*", "lib/*") == []


def test_conda_prefix_holding_wildcards_walks_nothing(tmp_path, monkeypatch):
    from envdoctor.probes import cuda
    from envdoctor.probes._base import Trail
    (tmp_path / "env-a/conda-meta").mkdir(parents=True)
    (tmp_path / "env-a/conda-meta/cudatoolkit-11.8.0-h1.json").touch()
    monkeypatch.setenv("CONDA_PREFIX", str(tmp_path / "env-*"))
    assert cuda.conda_toolkits(Trail()) == []
    monkeypatch.setenv("CONDA_PREFIX", str(tmp_path / "env-a"))
    assert [str(t.version) for t in cuda.conda_toolkits(Trail())] == ["11.8.0"]


def test_a_listing_is_bounded_so_a_snapshot_reads_back(tmp_path, monkeypatch):
    from envdoctor.bounded import MAX_LISTED
    from envdoctor.facts.serialize import MAX_ITEMS
    from envdoctor.probes import cuda
    from envdoctor.probes._base import Trail
    meta = tmp_path / "conda-meta"
    meta.mkdir()
    for i in range(MAX_LISTED + 50):
        (meta / f"cudatoolkit-11.{i}-h1.json").touch()
    monkeypatch.setenv("CONDA_PREFIX", str(tmp_path))
    trail = Trail()
    assert len(cuda.conda_toolkits(trail)) == MAX_LISTED
    assert len(trail.ran) <= MAX_LISTED * 3 < MAX_ITEMS


def test_no_probe_or_worker_globs_but_through_the_reader():
    """``bounded.matching`` is the one listing: a glob elsewhere takes its folder for a
    pattern (``glob.glob(prefix + ...)``) or lists without a bound (``Path.glob``)."""
    bad = []
    for path in sorted((ROOT / "envdoctor").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == "envdoctor/bounded.py":
            continue
        text = path.read_text(encoding="utf-8")
        for n, line in enumerate(text.splitlines(), 1):
            code = line.split("#", 1)[0]
            if re.search(r"\bglob\.i?glob\(", code) or (
                    rel.startswith(("envdoctor/probes/", "envdoctor/workers/"))
                    and re.search(r"\.r?glob\(", code)):
                bad.append(f"{rel}:{n}: {line.strip()}")
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------- cache writes in a shared folder
@pytest.fixture()
def cache_env(tmp_path, monkeypatch):
    monkeypatch.setenv("ENVDOCTOR_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.delenv("ENVDOCTOR_NO_CACHE", raising=False)
    (tmp_path / "c").mkdir()
    victim = tmp_path / "victim"
    victim.write_text("VICTIM\n")
    return tmp_path / "c", victim


def test_a_symlink_planted_at_the_caches_temporary_name_is_not_written_through(cache_env):
    from envdoctor import rulefiles
    folder, victim = cache_env
    kind, key = "adv9", ["k"]
    stem = f"{kind}-{zlib.crc32(json.dumps([kind, key]).encode()):08x}"
    (folder / f"{stem}.{os.getpid()}.tmp").symlink_to(victim)   # the name it used to write
    assert rulefiles.cached_json(kind, key, lambda: {"x": 1}) == ({"x": 1}, False)
    assert victim.read_text() == "VICTIM\n"
    assert rulefiles.cached_json(kind, key, lambda: {"x": 2}) == ({"x": 1}, True)


def test_an_index_cache_entry_planted_as_a_symlink_is_replaced_not_followed(cache_env):
    from envdoctor.suggest.index import cache
    _, victim = cache_env
    url = "https://pypi.org/simple/torch/"
    spot = cache._where(url)
    assert spot is not None
    spot[0].parent.mkdir(parents=True, exist_ok=True)
    spot[0].symlink_to(victim)
    cache.store(url, {"files": []})
    assert victim.read_text() == "VICTIM\n"
    assert not spot[0].is_symlink()
    assert cache.load(url)[0] == {"files": []}


_FULL_DISK = """
import resource, sys
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
from envdoctor import rulefiles
value, _ = rulefiles.cached_json("adv9", ["k"], lambda: {"x": "y" * 100000})
print(len(value["x"]))
"""


def test_a_cache_write_a_full_disk_stops_leaves_no_temporary_file(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), ENVDOCTOR_CACHE_DIR=str(tmp_path / "c"),
               XDG_STATE_HOME=str(tmp_path / "state"), PYTHONDONTWRITEBYTECODE="1")
    env.pop("ENVDOCTOR_NO_CACHE", None)
    proc = subprocess.run([sys.executable, "-c", _FULL_DISK], capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "100000"
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == []


# ---------------------------------------------------------------- an EOFError is no Ctrl-C
_RAISE = """
import sys
import envdoctor.commands.explain as e
def boom(*a, **k):
    raise {exc}("marshal data too short")
e.run = boom
from envdoctor.cli import main
main(["explain", sys.argv[1]])
"""


def test_an_eoferror_inside_a_command_is_a_crash_not_an_abort(tmp_path):
    (tmp_path / "tb.txt").write_text("RuntimeError: CUDA error: out of memory\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(tmp_path),
               XDG_STATE_HOME=str(tmp_path / "state"))
    proc = subprocess.run([sys.executable, "-c", _RAISE.format(exc="EOFError"),
                           str(tmp_path / "tb.txt")], capture_output=True, text=True, env=env,
                          timeout=60)
    assert proc.returncode == 3, proc.stderr
    lines = [x for x in proc.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "internal error: EOFError" in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_keyboard_interrupt_inside_a_command_is_still_an_abort(tmp_path):
    (tmp_path / "tb.txt").write_text("RuntimeError: CUDA error: out of memory\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", _RAISE.format(exc="KeyboardInterrupt"),
                           str(tmp_path / "tb.txt")], capture_output=True, text=True, env=env,
                          timeout=60)
    assert proc.returncode == 130, proc.stderr
    assert "envdoctor: aborted" in proc.stderr
