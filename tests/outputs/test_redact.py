"""Redactor behaviour that the secrets suite (tests/secrets) does not pin down."""

from __future__ import annotations


def test_a_literal_added_after_a_first_call_is_still_redacted():
    """text() remembers its answers; learning a new name or version must forget them."""
    from envdoctor.outputs.redact import HOST, IP, Redactor
    r = Redactor()
    line = "ran on gpu-node-17 at 10.1.2.3"
    assert "gpu-node-17" in r.text(line)
    r.add("gpu-node-17", HOST)
    assert "gpu-node-17" not in r.text(line) and HOST in r.text(line)
    assert IP in r.text("driver 10.1.2.3")
    r.versions.add("10.1.2.3")
    assert r.text("driver 10.1.2.3") == "driver 10.1.2.3"


def test_a_redacted_report_decodes_only_what_changed_and_equals_a_full_decode(tmp_path):
    """``redact_report`` re-decodes the changed sections only; the facts must be the ones a
    whole ``Facts.from_dict`` of the redacted JSON gives, and the untouched sections are the
    very objects of the original report."""
    from dataclasses import replace
    from pathlib import Path

    from envdoctor import pipeline
    from envdoctor.facts import Facts
    from envdoctor.outputs.redact import for_data, redact_report

    fixture = Path(__file__).parents[1] / "fixtures" / "diff" / "h100-driver-470.json"
    facts = pipeline.load_facts_file(str(fixture))
    facts = replace(facts, host=replace(facts.host, python_executable="/home/alice/venv/bin/python"))
    report = pipeline.diagnose(facts)
    environ = {"USER": "alice", "HOME": "/home/alice", "HOSTNAME": "gpu-node-17"}
    redacted = redact_report(report, environ)
    plain = report.to_dict()
    whole = Facts.from_dict(for_data(plain, environ).data(plain["facts"]))
    assert redacted.facts.to_dict() == whole.to_dict()
    assert "alice" not in str(redacted.facts.to_dict())
    assert redacted.facts.host != report.facts.host
    assert redacted.facts.cuda is report.facts.cuda


def test_a_home_that_is_a_shared_system_folder_is_not_rewritten():
    """A batch node or sandbox with HOME=/tmp (the TPU VM this was seen on): "/tmp/…" names
    nobody, and rewriting it to "~/…" turned a rule's ``sudo rm /tmp/libtpu_lockfile`` into a
    wrong path. A real home folder is still rewritten."""
    from envdoctor.outputs.redact import for_data
    fix = "remove the stale lock (`sudo rm /tmp/libtpu_lockfile`)"
    for home in ("/tmp", "/tmp/", "/var/tmp", "/root", "/"):
        assert for_data({}, {"HOME": home}).text(fix) == fix, home
    assert for_data({}, {"HOME": "/srv/alice"}).text("/srv/alice/x.py") == "~/x.py"
