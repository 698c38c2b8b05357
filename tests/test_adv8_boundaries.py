"""Adversarial round 8 (tests/faults/MATRIX8.md): the boundary fixes, one test per class.

Fast tests (in-process, or one short CLI run); the real-process faults are in
tests/faults/matrix8.py, run under ``-m boundary`` by tests/faults/test_faults8.py.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from envdoctor.outputs import sanitise, sink
from envdoctor.outputs.redact import Redactor, credentials

ROOT = Path(__file__).resolve().parents[1]
GHP = "ghp_PLANTED8githubTokenZyXwVuTsRqPoNmLkJi"
HF = "hf_PLANTED8hfTokenZyXwVuTsRqPoNm"
INVISIBLE = ("\u200b", "\u200c", "\u200d", "\u2060", "\u2061", "\u00ad", "\u180e", "\u034f",
             "\u3164", "\U000e0101")
TB = ("Traceback (most recent call last):\n  File \"train.py\", line 7, in <module>\n"
      "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")


def _cli(*args: str, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), **kw.pop("env", {}))
    return subprocess.run([sys.executable, "-m", "envdoctor", *args], capture_output=True,
                          text=True, env=env, timeout=60, **kw)


# ---------------------------------------------------------------- invisible characters
@pytest.mark.parametrize("kind", ["text", "json", "junit", "markdown", "prometheus", "github",
                                  "sarif"])
@pytest.mark.parametrize("ch", INVISIBLE)
def test_every_sanitiser_spells_out_an_invisible_format_character(kind, ch):
    out = sanitise.clean(kind, f"RTX{ch}4090")
    assert ch not in out, (kind, hex(ord(ch)))


def test_an_emojis_variation_selector_is_kept():
    """envdoctor's own markdown icons carry U+FE0F (⚠️): a presentation selector stays."""
    assert sanitise.clean("markdown", "\u26a0\ufe0f warning") == "\u26a0\ufe0f warning"


def test_a_token_cut_by_a_zero_width_space_never_shows_joined():
    out = sanitise.clean("text", "ghp_PLANTED8cut\u200bZwTokenAbCdEfGhIjKlMn")
    assert "ghp_PLANTED8cutZwToken" not in out and "\\u200b" in out


# ---------------------------------------------------------------- URL passwords
@pytest.mark.parametrize("url, secret", [
    ("https://ci:PLANTED8p@ss:w0rd@pkgs.example.com/simple", ("PLANTED8p", "ss:w0rd")),
    ("https://ci:PLANTED8pa/ssw0rdXY@mirror.example.com/simple", ("PLANTED8pa", "ssw0rdXY")),
    ("git clone https://bot:12345@git.example.com/x.git", ("12345",)),
])
def test_a_url_password_holding_at_slash_or_colon_is_redacted(url, secret):
    for out in (Redactor().text(url), credentials(url)):
        assert not any(s in out for s in secret), out
        assert "example.com" in out


@pytest.mark.parametrize("url", [
    "https://registry.npmjs.org:443/@scope/pkg",          # a port, then '@' in the path
    "https://pypi.org:8080/simple/torch/ (mail admin@example.com)",
    "https://download.pytorch.org/whl/cu121",
    "ssh://git@github.com:22/org/repo.git",
])
def test_a_port_or_an_at_in_a_path_is_no_password(url):
    assert Redactor().text(url) == url
    assert credentials(url) == url


# ---------------------------------------------------------------- a token after a raw escape
@pytest.mark.parametrize("prefix", ["\x1b[31m", "\x1b[1;33m", "\x9b0m", "\x1b]0;title\x07",
                                    "\x1b(B"])
def test_a_token_glued_to_a_raw_escape_sequence_is_redacted(prefix):
    text = f"warning {prefix}{HF} more"
    assert HF not in Redactor().text(text)
    assert HF not in credentials(text)


# ---------------------------------------------------------------- the sink's last pass
def _report_with_token_in_an_id():
    from envdoctor.engine.findings import CheckResult
    from envdoctor.facts import Facts
    from envdoctor.outputs.report import Report
    return Report(Facts.from_dict({"schema_version": 1}),
                  (CheckResult("FLEET001", f"fleet-driver-drift @ host-1#1 {GHP}", "passed"),),
                  ())


@pytest.mark.parametrize("fmt", ["json", "junit"])  # the kinds that list passed checks
def test_no_document_leaves_with_a_token_a_command_forgot_to_redact(tmp_path, fmt):
    """A field rebuilt after redaction (a fleet check id that quotes a rank's node) still
    leaves through the sink, whose last pass takes credential shapes out of every kind."""
    from envdoctor.outputs.renderers import render
    text = render("check", fmt, _report_with_token_in_an_id(), False)
    assert GHP in text  # the renderer quotes it: the sink is what stands in the way
    target = tmp_path / "out"
    sink.write(text, str(target), fmt)
    assert GHP not in target.read_text()


def test_no_redact_keeps_credentials_in_the_document(tmp_path):
    target = tmp_path / "out.txt"
    sink.keep_credentials(True)
    try:
        sink.write(f"token {GHP}\n", str(target), "text")
    finally:
        sink.keep_credentials(False)
    assert GHP in target.read_text()


def test_explain_no_redact_keeps_a_token_and_the_default_does_not(tmp_path):
    tb = tmp_path / "tb.txt"
    tb.write_text(TB.replace("device\n", f"device (login {HF})\n"))
    assert HF not in _cli("explain", str(tb), "--no-facts").stdout
    assert HF in _cli("explain", str(tb), "--no-facts", "--no-redact").stdout


# ---------------------------------------------------------------- one kind of line break
def test_a_tools_output_has_no_line_break_but_newline_and_cr():
    from envdoctor import runner
    text = runner._text("0, RTX\u2028A6000, GPU-1\x0b\x0c\x85\u2029\r\n".encode())
    assert text.splitlines() == ["0, RTX\\u2028A6000, GPU-1\\x0b\\x0c\\x85\\u2029"]


def test_a_gpu_row_holding_u2028_is_one_row(tmp_path):
    """nvidia-smi's query row with U+2028 in the name: one GPU, its name kept (spelt out)."""
    from tests.faults import matrix3 as m3
    env = m3.smi_gpu(tmp_path, "RTX\u2028A6000")
    run = _cli("facts", env={**env, "HOME": str(tmp_path)}, cwd=tmp_path)
    gpus = json.loads(run.stdout)["nvidia"]["gpus"]
    assert len(gpus) == 1 and "A6000" in gpus[0]["name"], run.stderr


# ---------------------------------------------------------------- signals the caller ignored
def _ignored_run(sig: int, tmp_path: Path) -> subprocess.Popen:
    def ignore() -> None:
        signal.signal(sig, signal.SIG_IGN)
    return subprocess.Popen([sys.executable, "-m", "envdoctor", "explain", "-", "--no-facts"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=ignore, cwd=tmp_path,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGINT, signal.SIGQUIT])
def test_a_signal_the_caller_ignored_stays_ignored(tmp_path, sig):
    """``nohup`` ignores SIGHUP, a shell without job control SIGINT and SIGQUIT for a
    background job: the run goes on and answers."""
    proc = _ignored_run(sig, tmp_path)
    try:
        time.sleep(1.0)
        proc.send_signal(sig)
        time.sleep(0.5)
        out, err = proc.communicate(TB, timeout=60)
    finally:
        proc.kill()
    assert proc.returncode in (0, 1), err
    assert "no kernel image" in out


def test_sigterm_ends_the_run_even_when_the_caller_ignored_it(tmp_path):
    proc = _ignored_run(signal.SIGTERM, tmp_path)
    try:
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 143, err
    assert err == "envdoctor: terminated by SIGTERM\n"
