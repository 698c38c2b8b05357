"""Adversarial round 7 (tests/faults/MATRIX7.md): the boundary fixes, one test per class.

Fast tests (in-process, or one short CLI run); the real-process faults are in
tests/faults/matrix7.py, run under ``-m boundary`` by tests/faults/test_faults7.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from envdoctor import bounded
from envdoctor.cligroups import Seconds
from envdoctor.errors import BadInput

ROOT = Path(__file__).resolve().parents[1]
GHP = "ghp_PLANTED7githubTokenZyXwVuTsRqPoNmLkJi"


def _cli(*args: str, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), **kw.pop("env", {}))
    return subprocess.run([sys.executable, "-m", "envdoctor", *args], capture_output=True,
                          text=True, env=env, timeout=60, **kw)


# ---------------------------------------------------------------- click's usage errors
@pytest.mark.parametrize("args", [
    ["check", "--format", f"x\x1b]52;c;cHduZWQ=\x07{GHP}"],   # a choice: value echoed
    ["check", "--nosuch\x1b[31m"],                             # an unknown option
    [f"chek\u202e{GHP}"],                                      # an unknown command
    ["diff", "only-one.json"],                                 # a missing argument
    ["explain", "--max-mb", "0", "x"],                         # out of range
])
def test_a_usage_error_is_one_redacted_line_naming_the_help(args):
    run = _cli(*args)
    assert run.returncode == 2
    lines = [x for x in run.stderr.splitlines() if x.strip()]
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith("envdoctor: error: ") and "--help`)" in lines[0]
    assert GHP not in run.stderr and "\x1b" not in run.stderr and "\u202e" not in run.stderr


def test_a_bare_group_prints_its_help_on_stdout_and_one_line_on_stderr():
    run = _cli("rules")
    assert run.returncode == 2
    assert "Commands:" in run.stdout and "\\n" not in run.stdout
    assert run.stderr.strip().splitlines() == [
        "envdoctor: error: envdoctor rules needs a command (see `envdoctor rules --help`)"]


def test_a_token_glued_to_a_printed_escape_is_redacted():
    from envdoctor.outputs.redact import for_data
    red = for_data({})
    for glue in ("\\x07", "\\u202e", "\\n", "\\x1b]52;c;aGk=\\x07"):
        assert GHP not in red.text(f"requirement 'torch{glue}{GHP}' is malformed")
    # no token: a Windows path with printed-escape look-alikes is kept
    assert red.text("C:\\new\\x07folder") == "C:\\new\\x07folder"


# ---------------------------------------------------------------- seconds are finite
@pytest.mark.parametrize("value", ["nan", "-nan", "inf", "-inf", "1e999", "1e300", "0.1"])
def test_an_option_of_seconds_refuses_what_no_clock_can_wait(value):
    with pytest.raises(click.BadParameter):
        Seconds(min=1.0).convert(value, None, None)


def test_an_option_of_seconds_takes_a_number_of_seconds():
    assert Seconds(min=1.0).convert("2.5", None, None) == 2.5
    assert Seconds(0.5, 60.0).convert(60.0, None, None) == 60.0


def test_every_float_option_is_seconds():
    """No command keeps a plain FloatRange (which lets nan through): each float is Seconds."""
    from envdoctor.cli import cli
    ctx = click.Context(cli)
    seen = 0
    stack = [cli.get_command(ctx, n) for n in cli.list_commands(ctx)]
    while stack:
        cmd = stack.pop()
        if isinstance(cmd, click.Group):
            stack += [cmd.get_command(ctx, n) for n in cmd.list_commands(ctx)]
        for p in cmd.params:
            if isinstance(p.type, (click.types.FloatParamType, click.FloatRange)):
                assert isinstance(p.type, Seconds), f"{cmd.name} {p.name}"
                seen += 1
    assert seen >= 3


# ---------------------------------------------------------------- policy counts
def test_a_policy_with_more_requirements_than_a_machine_needs_is_refused_before_parsing():
    from envdoctor.gate import policy
    many = ["no such requirement"] * (policy.MAX_REQUIREMENTS + 1)  # never parsed
    with pytest.raises(BadInput, match="at most"):
        policy.parse_policy({"require": many}, "p.toml")
    with pytest.raises(BadInput, match="at most"):
        policy.load(None, tuple(["gpus>=1"] * (policy.MAX_REQUIREMENTS + 1)), cwd=ROOT / "rules")
    codes = {f"X{chr(65 + i // 1000 % 26)}{chr(65 + i // 26000)}{i % 1000:03d}": "r"
             for i in range(policy.MAX_IGNORES + 1)}
    with pytest.raises(BadInput, match="ignored checks"):
        policy.parse_policy({"ignore": codes}, "p.toml")


def test_a_policy_of_a_few_requirements_is_read():
    from envdoctor.gate import policy
    got = policy.parse_policy({"require": ["gpus>=1"] * 12, "ignore": {"HOST001": "r"}}, "p")
    assert len(got.requirements) == 12 and got.ignore == {"HOST001": "r"}


# ---------------------------------------------------------------- JSON keys written twice
def test_a_document_the_user_names_may_not_write_a_key_twice(tmp_path):
    doc = '{"schema_version": 1, "nvidia": {"driver_version": "560"}, "nvidia": {}}'
    with pytest.raises(bounded.InputError, match="'nvidia' appears twice"):
        bounded.decode_json(doc, unique=True)
    nested = '{"a": [{"x": 1, "x": 2}]}'
    with pytest.raises(bounded.InputError, match="'x' appears twice"):
        bounded.decode_json(nested, unique=True)
    (tmp_path / "s.json").write_text(doc)
    with pytest.raises(BadInput, match="appears twice"):
        bounded.load_json_file(str(tmp_path / "s.json"), "a facts file")
    # a tool's own output keeps json's reading (last wins): a probe must not fail on it
    assert bounded.decode_json(nested) == {"a": [{"x": 2}]}
    assert bounded.decode_json('{"a": 1, "b": {"c": 2}}', unique=True) == {"a": 1, "b": {"c": 2}}


# ---------------------------------------------------------------- URL user names
@pytest.mark.parametrize("url,secret", [
    ("https://0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c@github.com/o/r.git",
     "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c"),
    ("https://PLANTED7urlUserToken0123456789@pkgs.example.com/simple",
     "PLANTED7urlUserToken0123456789"),
])
def test_a_token_written_as_a_urls_user_name_is_redacted(url, secret):
    from envdoctor.outputs.redact import for_data
    out = for_data({}).text(f"git clone {url}")
    assert secret not in out and "<redacted>@" in out


@pytest.mark.parametrize("url", ["ssh://git@github.com/o/r", "https://user@host.example/x",
                                 "https://ci-bot@ci.example.com", "git+ssh://git@gitlab.com/x"])
def test_a_plain_user_name_in_a_url_is_kept(url):
    from envdoctor.outputs.redact import for_data
    assert for_data({}).text(url) == url


# ---------------------------------------------------------------- a signal mid-write
_WRITE_THEN_SIGNAL = """
import os, signal, sys, time
from envdoctor import terminate
from envdoctor.outputs import sink
terminate.install()
real = os.fsync
def fsync(fd):
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(5)
os.fsync = fsync
sink.write_file(sys.argv[1], "NEW\\n")
"""


def test_a_signal_while_an_output_is_written_leaves_it_whole_and_no_temporary_file(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("OLD\n")
    run = subprocess.run([sys.executable, "-c", _WRITE_THEN_SIGNAL, str(target)],
                         capture_output=True, text=True, timeout=30,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert run.returncode == 143, run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    assert target.read_text() == "OLD\n"


def test_the_write_still_replaces_the_file_whole(tmp_path):
    from envdoctor.outputs import sink
    target = tmp_path / "out.json"
    target.write_text("OLD\n")
    sink.write_file(str(target), json.dumps({"a": 1}))
    assert json.loads(target.read_text()) == {"a": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


# ---------------------------------------------------------------- a thread that crashes
_THREAD_CRASH = """
import threading
from envdoctor import cli
@cli.cli.command("boom")
def boom():
    t = threading.Thread(target=lambda: 1 / 0, name="worker-x")
    t.start()
    t.join()
cli.main(["boom"])
"""


def test_a_thread_that_crashes_is_one_line_and_exit_3_never_a_traceback(tmp_path):
    run = subprocess.run([sys.executable, "-c", _THREAD_CRASH], capture_output=True, text=True,
                         timeout=60, env=dict(os.environ, PYTHONPATH=str(ROOT),
                                              XDG_STATE_HOME=str(tmp_path)))
    assert run.returncode == 3, run.stderr
    assert "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "envdoctor: internal error in thread worker-x: ZeroDivisionError"), run.stderr
    assert list(tmp_path.rglob("envdoctor-crash-*.log"))
