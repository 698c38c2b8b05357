"""Regressions found in the pre-release review: each test failed before its fix.

Bad input to `rules test` and `check`, redaction that ate versions or missed what `explain`
quotes, wording that named the wrong GPU architecture, CPU-only builds under --expect gpu,
and the Markdown facts table.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import REPO, run_cli

from envdoctor import pipeline
from envdoctor.engine.vocabulary import names_for
from envdoctor.facts import Facts
from envdoctor.outputs.redact import Redactor
from envdoctor.outputs.summary import summarize

MACHINES = REPO / "tests" / "fixtures" / "machines"


def cpu_only_frameworks_of(facts):
    return names_for(facts)["cpu_only_frameworks"]()


def _one_error_line(proc) -> None:
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("envdoctor: error:"), proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


# ------------------------------------------------------------------ rules test on bad input
def test_rules_test_on_a_binary_file_names_it_instead_of_crashing(tmp_path: Path):
    binary = tmp_path / "x.toml"
    binary.write_bytes(b"code = \"\xd0\xff\x00\"\n")
    proc = run_cli("rules", "test", str(binary))
    assert proc.returncode == 1, proc.stderr  # a problem in a rule file, not a crash (3)
    assert f"{binary}: toml: not UTF-8 text" in proc.stdout
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr


def test_rules_test_on_a_folder_without_rules_is_bad_input(tmp_path: Path):
    proc = run_cli("rules", "test", str(tmp_path))
    assert proc.returncode == 2  # before: "0 checks, 0 examples: all good", exit 0
    _one_error_line(proc)
    assert "no rule files" in proc.stderr


def test_rules_test_accepts_a_folder_of_check_files():
    proc = run_cli("rules", "test", str(REPO / "rules" / "checks" / "gpu"))
    assert proc.returncode == 0, proc.stdout
    checks = int(proc.stdout.strip().splitlines()[-1].split()[0])
    assert checks == len(list((REPO / "rules" / "checks" / "gpu").glob("*.toml")))


def test_facts_and_from_exclude_each_other():
    snap = str(MACHINES / "h200-driver580-torch-cu130.json")
    proc = run_cli("check", "--facts", snap, "--from", snap)
    assert proc.returncode == 2
    _one_error_line(proc)
    assert "--facts and --from" in proc.stderr


# ------------------------------------------------------------------ redaction
def test_versions_after_an_operator_are_not_ip_addresses():
    r = Redactor()
    text = r.text("pip install 'nvidia-cudnn-cu12==9.10.2.21' MASTER_ADDR=10.0.0.1 at 192.168.1.4")
    assert "nvidia-cudnn-cu12==9.10.2.21" in text
    assert "10.0.0.1" not in text and "192.168.1.4" not in text


def test_a_fix_keeps_its_four_part_wheel_versions_in_redacted_output():
    """``nvidia-cudnn-cu12==9.3.0.75`` looks like an IPv4 address; redaction must keep it."""
    proc = run_cli("check", "--facts", str(MACHINES / "mixed-cu12-cu13-wheels.json"),
                   "--format", "json")
    report = json.loads(proc.stdout)
    assert report["redacted"] is True
    (pkg002,) = [f for f in report["findings"] if f["code"] == "PKG002"]
    assert "nvidia-cudnn-cu12==9.3.0.75" in pkg002["fix"]
    assert "nvidia-cublas-cu12==12.5.3.2" in pkg002["fix"]
    assert "<ip>" not in pkg002["fix"]


def test_explain_redacts_the_lines_it_quotes(tmp_path: Path):
    log = tmp_path / "crash.txt"
    log.write_text('Traceback (most recent call last):\n'
                   '  File "/home/alice/proj/train.py", line 3, in <module>\n'
                   '    x = torch.load("/home/alice/ckpt.pt")\n'
                   '_pickle.UnpicklingError: Weights only load failed. '
                   'token=hf_abcdefghijklmnopqrstu1234 Unsupported global: GLOBAL '
                   'numpy.core.multiarray._reconstruct\n', encoding="utf-8")
    for fmt in ("text", "markdown", "json"):
        proc = run_cli("explain", "--no-facts", "--format", fmt, str(log))
        assert proc.returncode == 0, proc.stderr
        assert "Unsupported global" in proc.stdout  # the evidence is still quoted
        assert "hf_abcdefghijklmnopqrstu1234" not in proc.stdout, fmt
    kept = run_cli("explain", "--no-facts", "--no-redact", str(log))
    assert "hf_abcdefghijklmnopqrstu1234" in kept.stdout


# ------------------------------------------------------------------ verdicts and wording
def test_gpu001_why_names_the_missing_arch_not_blackwell():
    facts = pipeline.load_facts_file(str(MACHINES / "gtx1080ti-torch-cu130.json"))
    (gpu001,) = [f for f in pipeline.diagnose(facts).findings if f.code == "GPU001"]
    assert "sm_61" in gpu001.why
    assert "sm_120 is not compatible" not in gpu001.why


def test_expect_gpu_names_cpu_only_builds_on_a_cpu_machine():
    facts = pipeline.load_facts_file(str(MACHINES / "cpu-laptop-cpu-wheels.json"))
    assert cpu_only_frameworks_of(facts)  # torch +cpu and friends
    gpu = {f.code: f for f in pipeline.diagnose(facts, intent="gpu").findings}
    assert {"INTENT001", "INTENT002"} <= set(gpu)
    assert gpu["INTENT002"].severity.value == "error"
    torch = facts.frameworks.torch
    assert f"torch {torch.version} (CPU-only build)" in gpu["INTENT002"].title
    auto = {f.code for f in pipeline.diagnose(facts).findings}
    assert not {"INTENT001", "INTENT002"} & auto


def test_cuda_builds_are_not_called_cpu_only():
    facts = pipeline.load_facts_file(str(MACHINES / "h200-driver580-torch-cu130.json"))
    assert cpu_only_frameworks_of(facts) == []


def test_unknown_frameworks_line_says_unknown():
    lines = {a.area: a for a in summarize(Facts(), [])}
    assert lines["frameworks"].status == "unknown"
    assert lines["frameworks"].detail.startswith("unknown")


def test_markdown_facts_table_reads_cleanly():
    from envdoctor.outputs.renderers.markdown import _facts_tables
    facts = pipeline.load_facts_file(str(MACHINES / "cpu-laptop-cpu-wheels.json"))
    assert facts.host.glibc.startswith("glibc-")  # the fact carries its own prefix
    table = "\n".join(_facts_tables(facts))
    assert f", {facts.host.glibc})" in table and "glibc glibc-" not in table
    assert "| NVIDIA driver | not found: " in table  # not "not_found no NVIDIA driver …"
