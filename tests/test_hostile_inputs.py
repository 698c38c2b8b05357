"""Hostile files through the real CLI, for every command that reads one.

Each input (a FIFO nobody writes to, a symlink to /dev/zero, a directory, a sparse 1 GB file,
nesting far past any real snapshot, numbers no measurement has, NaN, the wrong JSON kind at a
field, a deleted working folder) must end as bad input: exit 2 and one line on stderr naming
the file, no traceback, within a time limit and an address-space limit (``ulimit -v``), so a
hang, a whole-file read or a recursion is a failure, not a slow pass.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import REPO

# Slow real-process matrix: off in the default run, `.ci/run` runs it with -m boundary.
pytestmark = pytest.mark.boundary

FIXTURES = REPO / "tests" / "fixtures"
MEMORY_KB = 1 << 20          # 1 GiB of address space: a 1 GB file read whole does not fit
LIMIT_S = 45


def envdoctor(*args: str, cwd: Path = REPO, env: dict[str, str] | None = None,
              stdin: str | None = None) -> tuple[subprocess.CompletedProcess[str], float]:
    """`python -m envdoctor ARGS` under ``ulimit -v``, with its wall time."""
    full = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(REPO), **(env or {}))
    argv = ["sh", "-c", f'ulimit -v {MEMORY_KB}; exec "$0" -m envdoctor "$@"', sys.executable,
            *args]
    start = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=LIMIT_S, env=full,
                          cwd=cwd, input=stdin)
    return proc, time.monotonic() - start


def bad_input(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    """Exit 2, one line on stderr that names what it was told, nothing else."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr + proc.stdout
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("envdoctor: error:"), \
        proc.stderr[-2000:]
    for needle in needles:
        assert needle in proc.stderr, proc.stderr


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A real snapshot of this machine (`envdoctor facts`), to be spoilt one field at a time."""
    out = tmp_path_factory.mktemp("snap") / "good.json"
    proc = subprocess.run([sys.executable, "-m", "envdoctor", "facts", "--output", str(out)],
                          capture_output=True, text=True, timeout=120, cwd=REPO,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text())


# ---------------------------------------------------------------- what a file can be instead
def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _folder(path: Path) -> None:
    path.mkdir()


def _sparse(path: Path) -> None:
    with open(path, "wb") as fh:
        fh.truncate(1 << 30)  # 1 GB of holes: instant, and no disk used


NOT_FILES: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (_fifo, ""), "dev-zero": (_zero, "device"), "folder": (_folder, "directory"),
    "sparse-1g": (_sparse, "larger than"),
}
# (command line with {} for the file, a FIFO is waited for as a stream FIFO_WAIT seconds)
READERS = {
    "check --facts": ("check", "--static", "--facts", "{}"),
    "check --from": ("check", "--from", "{}"),
    "diff": ("diff", "{}", "{good}"),
    "fleet compare": ("fleet", "compare", "{}"),
    "report --facts": ("report", "--static", "--facts", "{}"),
    "explain FILE": ("explain", "{}"),
    "suggest --facts": ("suggest", "torch", "--facts", "{}"),
    "check --policy": ("check", "--static", "--facts", "{good}", "--policy", "{}"),
}


def _args(template: tuple[str, ...], path: Path, good: Path) -> list[str]:
    return [a.replace("{}", str(path)).replace("{good}", str(good)) for a in template]


@pytest.mark.parametrize("kind", NOT_FILES)
@pytest.mark.parametrize("command", READERS)
def test_what_is_not_a_file_is_refused_without_reading_it(tmp_path, snapshot, kind, command):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(snapshot))
    make, needle = NOT_FILES[kind]
    if kind == "sparse-1g" and command in ("explain FILE", "check --from"):
        needle = "binary"  # read as a stream; 1 GB of NULs is not text
    if kind == "folder" and command == "fleet compare":
        needle = "no snapshot files"  # a folder of snapshots is what compare takes
    path = tmp_path / "input.json"
    make(path)
    proc, seconds = envdoctor(*_args(READERS[command], path, good))
    bad_input(proc, path.name, needle)
    assert seconds < 30


# ---------------------------------------------------------------- JSON and text past any limit
DEEP = '{"schema_version": 3, "host": ' + "[" * 200000


@pytest.mark.parametrize("command", ["check --facts", "check --from", "diff", "fleet compare",
                                     "report --facts", "suggest --facts"])
@pytest.mark.parametrize("text,needle", [
    (DEEP, ""),
    ('{"schema_version": 3, "host": {"ram_total_gb": NaN}}', ""),
    ('{"schema_version": 3, "host": {"ram_total_gb": 1' + "0" * 400 + "}}", ""),
    ('{"schema_version": 3, "host": {"ram_total_gb": 1e999}}', ""),
])
def test_nesting_and_numbers_past_the_limits_are_bad_input(tmp_path, snapshot, command, text,
                                                           needle):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(snapshot))
    path = tmp_path / "hostile.json"
    path.write_text(text)
    proc, _ = envdoctor(*_args(READERS[command], path, good))
    if command == "check --from":  # a pasted report: no JSON limit is an internal error either
        bad_input(proc, path.name)
    else:
        bad_input(proc, path.name, needle)


def _gpu(**fields):
    def spoil(data: dict) -> None:
        data["nvidia"]["probe"]["status"] = "ok"
        data["nvidia"]["gpus"] = [{"index": 0, "name": "NVIDIA H100 80GB HBM3",
                                   "memory_total_mb": 81559, **fields}]
    return spoil


SPOILT = {
    "memory of 10**30 digits": (_gpu(memory_total_mb=10 ** 30), "memory_total_mb"),
    "memory as text": (_gpu(memory_total_mb="80 GB"), "memory_total_mb: expected an integer, "
                                                      "got a string"),
    "memory as a bool": (_gpu(memory_total_mb=True), "memory_total_mb: expected an integer"),
    "gpus as an object": (lambda d: d["nvidia"].__setitem__("gpus", {"0": {}}),
                          "nvidia.gpus: expected a list, got an object"),
    "a section as a list": (lambda d: d.__setitem__("host", [1, 2]),
                            "$.host: expected an object, got a list"),
    "a 5000-digit version": (lambda d: d["nvidia"].__setitem__("driver_version", "5" * 5000),
                             "driver_version"),
    "a version of 5000 parts": (lambda d: d["host"].__setitem__("python_version",
                                                               ".".join(["1"] * 2500)),
                                "python_version"),
}


@pytest.mark.parametrize("spoilt", SPOILT)
@pytest.mark.parametrize("command", ["check --facts", "diff", "fleet compare"])
def test_a_field_of_the_wrong_kind_is_bad_input_naming_the_field(tmp_path, snapshot, spoilt,
                                                                  command):
    spoil, needle = SPOILT[spoilt]
    data = json.loads(json.dumps(snapshot))
    spoil(data)
    path = tmp_path / "spoilt.json"
    path.write_text(json.dumps(data))
    good = tmp_path / "good.json"
    good.write_text(json.dumps(snapshot))
    args = _args(READERS[command], path, good)
    if command == "check --facts":
        args += ["--require", "gpu_memory_gb>=80"]
    proc, _ = envdoctor(*args)
    bad_input(proc, path.name, needle)


@pytest.mark.parametrize("requirement", ["gpu_memory_gb>=" + "9" * 400,
                                         "torch>=1." + "1" * 5000, "gpus>=" + "1" * 30])
def test_requirements_with_absurd_numbers_are_bad_input(tmp_path, snapshot, requirement):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(snapshot))
    proc, _ = envdoctor("check", "--facts", str(good), "--require", requirement)
    bad_input(proc, "--require")


# ---------------------------------------------------------------- fleet rank snapshots
def _rank(rank: int, facts: dict | None = None, **fields) -> dict:
    payload = {"payload_version": 1,
               "layout": {"rank": rank, "node": "n0", "host": "h0", "local_rank": rank,
                          "node_rank": 0},
               "binding": {"device": "cpu", "torch": "2.4.0", "device_count": 0},
               "env": {"NCCL_DEBUG": "INFO"}, "clock": 1000.0 + rank,
               "seconds": {"barrier": 0.1},
               "node": {"facts": facts, "extra": {}} if facts is not None else None}
    payload.update(fields)
    return payload


@pytest.mark.parametrize("fields,needle", [
    ({"seconds": {"barrier": "slow"}}, "payload.seconds.barrier: expected a number"),
    ({"clock": "noon"}, "payload.clock: expected a number, got a string"),
    ({"clock": True}, "payload.clock: expected a number, got true or false"),
    ({"binding": [1, 2]}, "payload.binding: expected an object, got a list"),
    ({"live": {"seconds": "x"}}, "payload.live.seconds: expected a number"),
    ({"bench": {"local": [1], "device": "cuda:0"}}, "payload.bench.local: expected an object"),
    ({"env": {"A": 1}}, "payload.env.A: expected a string"),
    ({"layout": {"rank": "0", "node": "n0"}}, "payload.layout.rank: expected an integer"),
])
def test_rank_snapshots_of_the_wrong_kind_are_bad_input(tmp_path, snapshot, fields, needle):
    (tmp_path / "rank0.json").write_text(json.dumps(_rank(0, snapshot, **fields)))
    (tmp_path / "rank1.json").write_text(json.dumps(_rank(1)))
    proc, _ = envdoctor("fleet", "compare", str(tmp_path))
    bad_input(proc, "rank0.json", needle)


def test_well_formed_rank_snapshots_still_compare(tmp_path, snapshot):
    for rank in (0, 1):
        (tmp_path / f"rank{rank}.json").write_text(json.dumps(_rank(rank, snapshot)))
    proc, _ = envdoctor("fleet", "compare", str(tmp_path))
    assert proc.returncode in (0, 1), proc.stderr


# ---------------------------------------------------------------- policies and pyproject.toml
TOMLS = {
    "a 120000-part dotted key": ("[tool.envdoctor]\nrequire = []\n" + "a" + ".a" * 120000
                                 + " = 1\n", "dotted parts"),
    "nested arrays": ("[tool.envdoctor]\nrequire = " + "[" * 100000 + "\n", "nested"),
    "nested tables": ("[tool.envdoctor]\nrequire = " + "{a = " * 30000 + "\n", "nested"),
    "a 5000-digit integer": ("[tool.envdoctor]\nrequire = []\nx = " + "9" * 5000 + "\n",
                             "digits"),
    "an integer past 64 bits": ("[tool.envdoctor]\nrequire = []\nx = 1" + "0" * 25 + "\n",
                                "64 bits"),
    "inf": ("[tool.envdoctor]\nrequire = []\nx = inf\n", "not finite"),
    "a 5000-digit version": ('[tool.envdoctor]\nrequire = ["torch>=1.' + "1" * 5000 + '"]\n',
                             "characters"),
}


@pytest.mark.parametrize("name", TOMLS)
def test_hostile_pyproject_is_bad_input_in_bounded_time(tmp_path, snapshot, name):
    text, needle = TOMLS[name]
    (tmp_path / "pyproject.toml").write_text(text)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(snapshot))
    proc, seconds = envdoctor("check", "--static", "--facts", str(good), cwd=tmp_path)
    bad_input(proc, "pyproject.toml", needle)
    assert seconds < 20
    proc, _ = envdoctor("check", "--static", "--facts", str(good), "--policy",
                        str(tmp_path / "pyproject.toml"))
    bad_input(proc, "pyproject.toml", needle)


def test_discovery_skips_a_folder_named_like_a_policy(tmp_path, snapshot):
    """A folder named pyproject.toml cannot carry a policy: no policy, no error."""
    _folder(tmp_path / "pyproject.toml")
    _folder(tmp_path / "envdoctor.toml")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(snapshot))
    proc, seconds = envdoctor("check", "--static", "--facts", str(good), "--format", "json",
                              cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    assert not json.loads(proc.stdout).get("policy")
    assert seconds < 20


@pytest.mark.parametrize("name", ["pyproject.toml", "envdoctor.toml"])
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_discovery_refuses_a_fifo_or_device_in_bounded_time(tmp_path, snapshot, kind, name):
    """A FIFO or device under a policy's name may be meant to carry it: ignoring it would
    silently drop the policy, reading it would hang, so it is one line and exit 2."""
    NOT_FILES[kind][0](tmp_path / name)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(snapshot))
    proc, seconds = envdoctor("check", "--static", "--facts", str(good), cwd=tmp_path)
    bad_input(proc, name, "pipe" if kind == "fifo" else "device")
    assert seconds < 20


def test_a_big_pyproject_that_carries_no_policy_is_ignored(tmp_path, snapshot):
    with open(tmp_path / "pyproject.toml", "wb") as fh:
        fh.write(b"[project]\nname = 'x'\n")
        fh.truncate(1 << 30)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(snapshot))
    proc, _ = envdoctor("check", "--static", "--facts", str(good), cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr


# ---------------------------------------------------------------- the process itself
@pytest.mark.parametrize("args", [
    ("check", "--static"), ("check", "--static", "--facts", "{good}"),
    ("report", "--static", "--facts", "{good}"), ("diff", "{good}", "{good}"),
    ("rules", "list"),
])
def test_a_deleted_working_folder_is_no_crash(tmp_path, snapshot, args):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(snapshot))
    gone = tmp_path / "gone"
    gone.mkdir()
    argv = [a.replace("{good}", str(good)) for a in args]
    script = 'cd "$1" && rmdir "$1" && shift && exec "$0" -m envdoctor "$@"'
    proc = subprocess.run(["sh", "-c", script, sys.executable, str(gone), *argv],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, NO_COLOR="1", PYTHONPATH=str(REPO)))
    assert not gone.exists()
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr


# ---------------------------------------------------------------- the rule cache and rules
@pytest.mark.parametrize("kind", NOT_FILES)
def test_a_planted_cache_entry_costs_a_rebuild_not_a_hang(tmp_path, snapshot, kind):
    cache = tmp_path / "cache"
    good = tmp_path / "good.json"
    good.write_text(json.dumps(snapshot))
    env = {"ENVDOCTOR_CACHE_DIR": str(cache)}
    first, _ = envdoctor("check", "--static", "--facts", str(good), "--format", "json", env=env)
    assert first.returncode in (0, 1), first.stderr
    entries = sorted(cache.glob("*.json"))
    assert entries
    for entry in entries:
        entry.unlink()
        NOT_FILES[kind][0](entry)
    again, seconds = envdoctor("check", "--static", "--facts", str(good), "--format", "json",
                               env=env)
    assert again.returncode == first.returncode, again.stderr
    assert json.loads(again.stdout)["findings"] == json.loads(first.stdout)["findings"]
    assert seconds < 30


@pytest.mark.parametrize("kind", [*NOT_FILES, "deep", "dotted"])
def test_a_planted_rule_file_is_named_not_read(tmp_path, snapshot, kind):
    rules = tmp_path / "rules"
    shutil.copytree(REPO / "rules", rules)
    planted = rules / "checks" / "host" / "zz-planted.toml"
    if kind == "deep":
        planted.write_text("a = " + "[" * 100000 + "\n")
    elif kind == "dotted":
        planted.write_text("a" + ".a" * 120000 + " = 1\n")
    else:
        NOT_FILES[kind][0](planted)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(snapshot))
    proc, seconds = envdoctor("check", "--static", "--facts", str(good),
                              env={"ENVDOCTOR_RULES": str(rules), "ENVDOCTOR_NO_CACHE": "1"})
    bad_input(proc, "zz-planted.toml")
    assert seconds < 30


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "sparse-1g"])
def test_rules_test_of_a_path_that_is_no_rule_file_is_bad_input(tmp_path, kind):
    """`rules test PATH` must not pass (exit 0) on a FIFO or device it never read, nor call
    an oversized file a rule problem: it is bad input, one line, in bounded time."""
    make, needle = NOT_FILES[kind]
    make(tmp_path / "r.toml")
    proc, seconds = envdoctor("rules", "test", str(tmp_path / "r.toml"))
    bad_input(proc, "r.toml", needle or "pipe")
    assert seconds < 20
