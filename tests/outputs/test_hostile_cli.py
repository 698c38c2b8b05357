"""Hostile text through the real CLI, into every kind of output.

A GPU name from nvidia-smi, a worker's ImportError, a dist-info folder name, an environment
variable in a snapshot, a pasted report and a log for `explain` all carry terminal escapes
(OSC 0/2/8/52, CSI, DCS, bare ESC, C1 controls, bidi overrides), workflow commands (``::``
at a line start, ``##[`` anywhere) and HTML/Markdown. Whatever the format: no unsafe
character raw, no workflow command but envdoctor's own annotations, Markdown cells escaped,
JUnit parses, JSON parses; and the hostile text is still shown (made visible, not dropped).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.outputs.hostile import HOSTILE, commands_by_kind, honoured, raw_unsafe

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "diff" / "h100-driver-470.json"
FORMATS = ["text", "github", "markdown", "junit", "sarif", "json"]


def envdoctor(*args: str, stdin: str | None = None, env: dict[str, str] | None = None,
              timeout: float = 120) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    full.update(PYTHONPATH=str(REPO), NO_COLOR="1", **(env or {}))
    return subprocess.run([sys.executable, "-m", "envdoctor", *args], input=stdin,
                          capture_output=True, text=True, encoding="utf-8",
                          errors="surrogateescape", timeout=timeout, cwd=REPO, env=full)


def hostile_snapshot(path: Path) -> Path:
    """A real snapshot, its GPU name, a package, an env var and a worker's ImportError
    replaced by hostile text."""
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    data["nvidia"]["gpus"][0]["name"] = "NVIDIA H100 " + HOSTILE
    data["packages"]["distributions"].append({"name": "evil" + HOSTILE, "version": "1.0"})
    data["env"]["vars"] = {"EVIL_VAR": HOSTILE}
    data["live"] = {"tensorflow": {"name": "tensorflow", "import_ok": False,
                                   "import_error": "ImportError: " + HOSTILE,
                                   "probe": {"status": "error", "reason": "ImportError: "
                                             + HOSTILE, "source": "worker"}}}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def assert_safe(text: str, what: str) -> None:
    assert raw_unsafe(text) == [], what
    assert "pwned-title" in text, f"{what}: the hostile text should show, inert"


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory) -> Path:
    return hostile_snapshot(tmp_path_factory.mktemp("hostile") / "snap.json")


@pytest.fixture(scope="module")
def outputs(snapshot, tmp_path_factory) -> dict[str, str]:
    """`check --facts` once, every format: stdout text plus a --report file per format."""
    folder = tmp_path_factory.mktemp("out")
    reports = [f"--report={f}:{folder / f}" for f in FORMATS if f != "text"]
    proc = envdoctor("check", "--facts", str(snapshot), "--format", "text", *reports)
    assert proc.returncode == 1, proc.stderr
    out = {"text": proc.stdout}
    for f in FORMATS[1:]:
        out[f] = (folder / f).read_text(encoding="utf-8")
    return out


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_raw_control_in_any_format(outputs, fmt):
    if fmt == "sarif":  # findings only: no GPU name in it
        assert raw_unsafe(outputs[fmt]) == []
    else:
        assert_safe(outputs[fmt], fmt)
    if fmt in ("text", "github", "junit"):
        assert "\\x1b]0;pwned-title\\x07" in outputs[fmt]  # shown as \x1b, not deleted
    if fmt != "github":  # a CI step that prints or cats the file honours no command in it
        assert honoured(outputs[fmt]) == [], fmt


def test_github_honours_only_envdoctors_annotations(outputs):
    kinds = commands_by_kind(outputs["github"])
    assert kinds["other"] == []
    assert len(kinds["annotation"]) == len(json.loads(outputs["json"])["findings"])
    assert kinds["group"] == ["::group::envdoctor report", "::endgroup::"]
    assert "## [error]forged legacy" in outputs["github"]  # shown, not honoured


def test_github_on_stdout_too(snapshot):
    proc = envdoctor("check", "--facts", str(snapshot), env={"GITHUB_ACTIONS": "true"})
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("::error ")
    kinds = commands_by_kind(proc.stdout)
    assert kinds["other"] == [] and kinds["group"]


def test_any_format_on_stdout_under_actions_is_inert(snapshot):
    """The runner reads every line of a step's output, whatever the format."""
    for fmt in ("text", "markdown"):
        proc = envdoctor("check", "--facts", str(snapshot), "--format", fmt,
                         env={"GITHUB_ACTIONS": "true"})
        assert proc.returncode == 1, proc.stderr
        assert commands_by_kind(proc.stdout) == {"annotation": [], "group": [], "other": []}


def test_markdown_cells_are_escaped(outputs):
    md = outputs["markdown"]
    for raw in ("<script>", "<img src", "[x](javascript:", "`code`"):
        assert raw not in md, raw
    assert "&lt;script>" in md and "\\[x\\](javascript:alert(1))" in md
    row = next(ln for ln in md.splitlines() if "pwned-title" in ln)
    assert row.startswith("| ") and row.endswith(" |")
    # the hostile value stays in its cell: every | in it is escaped
    assert row.replace("\\|", "").count("|") == 4


def test_junit_and_json_parse(outputs):
    root = ET.fromstring(outputs["junit"])
    assert root.tag == "testsuites" and int(root.get("tests")) > 0
    data = json.loads(outputs["json"])
    gpu = data["facts"]["nvidia"]["gpus"][0]["name"]
    assert gpu == "NVIDIA H100 " + HOSTILE  # the data kept exactly, escaped
    assert json.loads(outputs["sarif"])["version"] == "2.1.0"


def test_report_and_facts_markdown_and_json(snapshot):
    md = envdoctor("report", "--facts", str(snapshot))
    assert md.returncode == 0, md.stderr
    assert_safe(md.stdout, "report markdown")
    assert "<script>" not in md.stdout  # the embedded snapshot JSON too (\u003c)
    js = envdoctor("report", "--facts", str(snapshot), "--format", "json")
    assert js.returncode == 0, js.stderr
    assert raw_unsafe(js.stdout) == [] and json.loads(js.stdout)["kind"] == "envdoctor-report"


def test_diff_text_and_json(snapshot):
    for fmt in ("text", "json"):
        proc = envdoctor("diff", str(FIXTURE), str(snapshot), "--format", fmt)
        assert proc.returncode == 0, proc.stderr
        assert raw_unsafe(proc.stdout) == [], fmt
        if fmt == "json":
            json.loads(proc.stdout)


def test_pasted_report_from_stdin(tmp_path):
    paste = ("PyTorch version: 2.6.0+cu126\nIs debug build: False\n"
             "CUDA used to build PyTorch: 12.6\nOS: Ubuntu 24.10 (x86_64)\n"
             "Python version: 3.12.9 (main) [GCC 11.2.0] (64-bit runtime)\n"
             "Is CUDA available: True\n"
             f"GPU models and configuration: GPU 0: NVIDIA GeForce RTX 5090 {HOSTILE}\n"
             f"Nvidia driver version: 570.124.04\n"
             "Versions of relevant libraries:\n"
             f"[pip3] torch==2.6.0{HOSTILE}\n")
    for fmt in FORMATS:
        proc = envdoctor("check", "--from", "-", "--format", fmt, stdin=paste)
        assert proc.returncode in (0, 1), (fmt, proc.stderr)
        assert raw_unsafe(proc.stdout + proc.stderr) == [], fmt
        if fmt == "github":
            assert commands_by_kind(proc.stdout)["other"] == []
        elif fmt in ("json", "sarif"):
            json.loads(proc.stdout)
        elif fmt == "junit":
            ET.fromstring(proc.stdout)


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_explain_quotes_the_log_visibly(tmp_path, fmt):
    log = tmp_path / "train.log"
    log.write_text("Traceback (most recent call last):\n"
                   '  File "train.py", line 3, in <module>\n'
                   f"torch.OutOfMemoryError: CUDA out of memory. {HOSTILE.splitlines()[0]}\n"
                   f"RuntimeError: CUDA error: out of memory \x9b2J\u202e <b>x</b> | ``` \n",
                   encoding="utf-8")
    proc = envdoctor("explain", str(log), "--no-facts", "--format", fmt)
    assert proc.returncode == 0, proc.stderr
    assert raw_unsafe(proc.stdout) == [], proc.stdout
    if fmt == "text":
        assert "\\x9b2J" in proc.stdout  # a C1 CSI is shown, not quoted raw
    if fmt == "json":
        quoted = json.loads(proc.stdout)["diagnoses"][0]["evidence"]
        assert any("\x9b2J\u202e <b>x</b>" in e["text"] for e in quoted)  # exactly the log
    if fmt == "markdown":
        assert "<b>" not in proc.stdout.split("```")[0]


def test_a_hostile_path_in_an_error_line(tmp_path):
    name = tmp_path / "x\x1b]0;pwned\x07\u202e.json"
    proc = envdoctor("check", "--facts", str(name))
    assert proc.returncode == 2
    assert raw_unsafe(proc.stderr) == [] and len(proc.stderr.splitlines()) == 1
    assert "\\x1b]0;pwned" in proc.stderr


def test_colour_on_a_terminal_keeps_envdoctors_styles_only(snapshot):
    """Under a pseudo-terminal the verdict is coloured; the escapes in the GPU name are not
    passed through (they show as \\x1b), colour or not."""
    pty = pytest.importorskip("pty")
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "GITHUB_ACTIONS")}
    env.update(TERM="xterm-256color", PYTHONPATH=str(REPO))
    main, sub = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "envdoctor", "check", "--facts",
                             str(snapshot)], stdout=sub, stderr=subprocess.DEVNULL, env=env,
                            cwd=REPO)
    os.close(sub)
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    assert proc.wait(timeout=120) == 1
    os.close(main)
    out = b"".join(chunks).decode("utf-8").replace("\r\n", "\n")  # the tty's own CRLF
    assert "\x1b[1;31mFAIL: " in out  # envdoctor's own colour
    escapes = set(re.findall(r"\x1b\[[0-9;]*m", out))
    assert escapes and all(re.fullmatch(r"\x1b\[[0-9;]*m", e) for e in escapes)
    assert out.count("\x1b") == sum(out.count(e) for e in escapes)  # no other escape at all
    assert "\\x1b]0;pwned-title\\x07" in out and raw_unsafe(out.replace("\x1b", "")) == []
