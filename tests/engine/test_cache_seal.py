"""The rule cache is sealed with a per-user secret: a forged cache never changes a verdict.

An attacker who can write the cache folder (a shared ENVDOCTOR_CACHE_DIR, a cache restored
by CI) but not read this user's 0600 key can edit every entry and recompute any digest that
needs no key; the gate must still fail a broken machine.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from envdoctor import rulefiles as loader
from envdoctor import seal
from tests.conftest import REPO, run_cli

BROKEN = REPO / "tests" / "fixtures" / "machines" / "driver470-torch-cu121.json"  # DRV001


@pytest.fixture
def dirs(tmp_path, monkeypatch):
    cache, state = tmp_path / "cache", tmp_path / "state"
    monkeypatch.setenv("ENVDOCTOR_CACHE_DIR", str(cache))
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.delenv("ENVDOCTOR_NO_CACHE", raising=False)
    monkeypatch.delenv("ENVDOCTOR_RULES", raising=False)
    return cache, state


def _env(dirs) -> dict[str, str]:
    cache, state = dirs
    return {"ENVDOCTOR_CACHE_DIR": str(cache), "XDG_STATE_HOME": str(state)}


def _gate(dirs) -> subprocess.CompletedProcess[str]:
    return run_cli("check", "--from", str(BROKEN), "--format", "json", env=_env(dirs))


def _codes(proc) -> set[str]:
    return {f["code"] for f in json.loads(proc.stdout)["findings"]}


def _checks_entry(cache: Path) -> Path:
    (entry,) = cache.glob("checks-*.json")
    return entry


def _silence(entry: Path, reseal) -> None:
    """Turn every check off in the cached copy and seal it again with ``reseal``."""
    head, _, value_text = entry.read_text(encoding="utf-8").partition("\n")
    stored = json.loads(head)
    value = json.loads(value_text)
    for _path, data in value:
        data["severity"] = "off"
    value_text = json.dumps(value)
    key_text = json.dumps(stored["key"])
    stored["seal"] = reseal(key_text, value_text)
    entry.write_text(f"{json.dumps(stored)}\n{value_text}", encoding="utf-8")


def test_a_forged_cache_is_ignored_and_the_gate_still_fails(dirs):
    first = _gate(dirs)
    assert first.returncode == 1 and "DRV001" in _codes(first), first.stderr
    entry = _checks_entry(dirs[0])
    # what an attacker can compute: the unkeyed digest the seal used to be
    _silence(entry, lambda k, v: loader.digest(f"{k}\n{v}".encode()))
    forged = entry.read_text()
    again = _gate(dirs)
    assert again.returncode == 1 and _codes(again) == _codes(first)
    assert again.stdout == first.stdout
    assert entry.read_text() != forged  # rebuilt from rules/ and sealed again


def test_the_forgery_would_silence_the_gate_if_it_were_trusted(dirs):
    """The test above can fail: the same edit sealed with the user's own key is trusted."""
    assert _gate(dirs).returncode == 1
    key = seal.secret()
    assert key is not None
    _silence(_checks_entry(dirs[0]), lambda k, v: seal.seal(key, f"{k}\n{v}"))
    assert _gate(dirs).returncode == 0


def test_a_cache_from_another_user_or_machine_is_not_trusted(dirs, tmp_path, monkeypatch):
    root = REPO / "rules"
    first, cached = loader.load_tree_cached("checks", root)
    assert cached is False and loader.load_tree_cached("checks", root)[1] is True
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "other-user"))  # another secret
    assert loader.load_tree_cached("checks", root) == (first, False)
    assert loader.load_tree_cached("checks", root)[1] is True  # resealed with the new key


def test_the_key_is_private_and_made_once(dirs):
    key = seal.secret()
    path = seal.key_path()
    assert key is not None and len(key) == seal.KEY_BYTES
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert seal.secret() == key
    assert [p.name for p in path.parent.iterdir()] == ["cache.key"]  # no temporary left


def test_processes_racing_to_make_the_key_agree(dirs):
    code = "from envdoctor import seal; print(seal.secret().hex())"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                              env=env) for _ in range(6)]
    keys = {p.communicate(timeout=60)[0].strip() for p in procs}
    assert len(keys) == 1 and len(next(iter(keys))) == 2 * seal.KEY_BYTES
    assert bytes.fromhex(keys.pop()) == seal.secret()


def _make_key(dirs) -> Path:
    assert seal.secret() is not None
    return seal.key_path()


def _loosen(path: Path) -> None:
    path.chmod(0o644)


def _symlink(path: Path) -> None:
    real = path.with_name("elsewhere")
    path.rename(real)
    path.symlink_to(real)


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _open_folder(path: Path) -> None:
    path.parent.chmod(0o755)


def _short(path: Path) -> None:
    path.write_bytes(b"x" * 5)


def _other_owner(path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give the key to another user")
    os.chown(path, 65534, 65534)


@pytest.mark.parametrize("spoil", [_loosen, _symlink, _fifo, _open_folder, _short, _other_owner],
                         ids=["mode-0644", "symlink", "fifo", "folder-0755", "short", "owner"])
def test_an_untrustworthy_key_means_no_cache_and_correct_output(dirs, spoil):
    cache, _ = dirs
    first = _gate(dirs)
    assert first.returncode == 1
    spoil(_make_key(dirs))
    assert seal.secret() is None
    root = REPO / "rules"
    assert loader.load_tree_cached("checks", root)[1] is False
    assert loader.load_tree_cached("checks", root)[1] is False  # not trusted, even when fresh
    # the forged entry an attacker left is not used either
    _silence(_checks_entry(cache), lambda k, v: loader.digest(f"{k}\n{v}".encode()))
    again = _gate(dirs)
    assert again.returncode == 1 and again.stdout == first.stdout
