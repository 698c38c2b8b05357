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
