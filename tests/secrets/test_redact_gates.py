"""Redaction's shortcuts never change what is redacted.

``Redactor.text`` and ``secrets.scrub`` run a pattern only on the lines whose literals a match
needs (``line_starts`` + ``sub_lines``), or not at all when the text lacks them. Here every
answer is compared with the plain way: each pattern substituted over the whole text, in the
same order, with no gate. Inputs: texts built from pieces of every secret shape (keys split by
line breaks, case-folding traps such as the Kelvin sign and dotless i, addresses beside
versions), the real corpus texts, and explain's own outputs on them.
"""

from __future__ import annotations

import re
import string
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envdoctor import secrets
from envdoctor.outputs import redact
from envdoctor.outputs.redact import HOST, SECRET, USER, Redactor

ROOT = Path(__file__).resolve().parents[2]


def plain_scrub(text: str, placeholder: str = secrets.REDACTED) -> str:
    """``scrub`` without gates: every pattern over the whole text."""
    if not text:
        return text
    text = secrets.PEM.sub(placeholder, text)
    text = secrets.QUERY_SECRET.sub(lambda m: m.group("key") + placeholder, text)
    text = secrets.YAML_SECRET.sub(lambda m: m.group("key") + placeholder, text)
    text = secrets.CLI_SECRET.sub(lambda m: m.group("key") + placeholder
                                  if secrets.is_flag(m.string, m.start()) else m.group(0), text)
    text = secrets.JSON_SECRET.sub(lambda m: m.group("key") + m.group("vq") + placeholder
                                   + m.group("vq"), text)
    text = secrets.WEBHOOK.sub(lambda m: m.group("key") + placeholder, text)
    text = secrets.USERINFO.sub(lambda m: placeholder + m.group("host"), text)
    text = secrets.CONDA_TOKEN.sub(lambda m: m.group("key") + placeholder, text)
    text = secrets.NETRC.sub(lambda m: m.group("key") + placeholder, text)
    unsure = secrets.fold_for_gates(text) is None  # a case trap: every line
    text = "".join(  # a context gate: only on lines that name AWS or a key id
        secrets.AWS_SECRET.sub(lambda m: placeholder if secrets.aws_key_shaped(m.group(0))
                               else m.group(0), line)
        if unsure or any(w in line.lower() for w in secrets.AWS_GATE) else line
        for line in text.splitlines(keepends=True))
    text = secrets.AUTH_HEADER.sub(lambda m: m.group("key") + placeholder, text)
    return secrets.BEARER.sub(lambda m: m.group("key") + placeholder, text)


def plain_text(r: Redactor, value: str) -> str:
    """``Redactor._text`` without gates or line-wise runs."""
    out = plain_scrub(value, SECRET)
    for literal, placeholder in sorted(r.literals, key=lambda p: -len(p[0])):
        if placeholder in (USER, HOST):
            out = re.sub(rf"(?<![\w.-]){re.escape(literal)}(?![\w-])", placeholder, out)
        else:
            out = out.replace(literal, placeholder)
    out = redact.URL_AUTH.sub(lambda m: m.group("scheme") + SECRET + "@", out)
    out = redact._KV_SECRET.sub(lambda m: f"{m.group(1)}={SECRET}", out)
    out = redact._TOKENS.sub(SECRET, out)
    out = redact.unglued_tokens(out)
    out = redact._HOME.sub(lambda m: (m.group("pre") or m.group("wpre")) + USER, out)
    out = redact._GPU_UUID.sub(redact.GPU_UUID, out)
    out = redact._MAC.sub(redact.MAC, out)
    out = redact._IPV4.sub(lambda m: m.group(0) if m.group(0) in r.versions else redact.IP, out)
    return redact._IPV6.sub(redact.IP, out)


def redactor() -> Redactor:
    r = Redactor()
    r.add("gpunode7", HOST, minimum=2)
    r.add("n7", HOST, minimum=2)
    r.add("mlsecretuser", USER)
    r.add("/home/mlsecretuser", "~")
    r.add("S3cretValue!", SECRET)
    r.versions.add("12.4.5.8")
    return r


PIECES = [
    "\n", "\r\n", " ", "  ", "\t", "\n\n", "\"", "'", ":", "=", "&", "?", "@", ",", ";", "/", "-",
    "token", "TOKEN", "Token=", "api_key", "API-KEY", "x-amz-signature=", "X-Goog-Credential=",
    "client_secret=", "passwd=", "pwd=", "auth=", "sig=", "session=", "key=", "secret",
    "\"auth_token\"", "'private_key'", "\"api-key\"\n  :\n \"", "\"cookie\" : \"v\\\"x\"",
    "Authorization", "authorization: Bearer ", "Proxy-Authorization=\n", "bearer\n",
    "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0", "Basic dXNlcjpwYXNz",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\\n", "-----END RSA PRIVATE KEY-----",
    "hf_QwErTyUiOpAsDfGhJk", "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "AKIAIOSFODNN7ZXAMPLE",
    "sk-proj-Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1", "xoxb-1234567890-abc", "glpat-xxxxxxxxxxxxxxxxxxxx",
    "AIzaSyA1234567890abcdefghijklmnopqrstuv", "https://", "user:pa55@host", "git+ssh://",
    "/home/", "/Users/bob", "C:\\Users\\alice\\", "/u/carol", "mlsecretuser", "gpunode7", "n7",
    "n7.corp", "S3cretValue!", "GPU-7a3c1f2e-5b6d-4e7f-8a9b-0c1d2e3f4a51", "MIG-", "/1/0",
    "3c:fd:fe:a1:b2:c3", "3c-fd-fe-a1-b2-c3", ":fe:", "10.42.7.19", "12.4.5.8", "==9.10.2.21",
    "1.2.3", ".4.", "fe80::1", "2001:db8:0:0:0:0:0:1", "::", "a:b:c", "\u212a", "\u0131",
    "\u017f", "\u0130", "to\u212aen=", "\u017fecret=", "\u0131d_token=", "Authori\u017fation:",
    "\u2026", "\u00e9", "—", "0", "9", "x", "_",
    "hooks.slack.com/services/", "T0ABC1234/B0DEF5678/", "discord.com/api/webhooks/",
    "acme.webhook.office.com/webhookb2/", "api.telegram.org/bot", "123456789:AAH",
    "svc:pw@proxy:3128", "proxy=", "git clone ", "mailto:", "cuda:0@", "git@github.com:",
    "std::x@GLIBCXX", "dapi0123456789abcdef0123456789abcdef", "xapp-1-A0", "npm_", "SG.",
]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_gated_redaction_equals_plain(parts):
    text = "".join(parts)
    assert secrets.scrub(text) == plain_scrub(text)
    r = redactor()
    assert r._text(text) == plain_text(r, text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), min_size=40, max_size=400))
def test_gated_redaction_equals_plain_on_long_texts(parts):
    """Long texts: many gate lines, merged windows, and the one-pass fallback."""
    text = "".join(parts)
    r = redactor()
    assert r._text(text) == plain_text(r, text)


def _corpus_texts() -> list[str]:
    from envdoctor.rulefiles import load_toml
    return [load_toml(p)["text"] for p in sorted((ROOT / "tests/corpus/explain").glob("*.toml"))]


def test_gated_redaction_equals_plain_on_the_corpus_and_explain_outputs():
    from envdoctor.explain import diagnose_text
    from envdoctor.explain.render import Explanation
    from envdoctor.outputs.renderers import render
    texts = _corpus_texts()
    whole = "\n".join(texts)
    diagnoses = diagnose_text(whole)
    ex = Explanation(diagnoses, lines=whole.count("\n") + 1, chars=len(whole), first_line=1,
                     tracebacks=0, facts_source="none", signatures=0, notes=[])
    outputs = [render("explain", fmt, ex, False) for fmt in ("text", "markdown", "json")]
    r = redact.for_data([whole, *outputs])
    for text in [*texts, whole, *outputs]:
        assert secrets.scrub(text) == plain_scrub(text)
        assert r._text(text) == plain_text(r, text)


def test_case_traps_are_every_character_that_folds_onto_an_ascii_letter():
    """fold_for_gates trusts str.lower() unless a CASE_TRAPS character is in the text: every
    other character is matched by no case-insensitive ASCII letter and lowers to no ASCII
    letter (checked over all of Unicode)."""
    letter = re.compile("[a-z]", re.IGNORECASE)
    found = set()
    for code in range(0x80, sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF:
            continue
        ch = chr(code)
        if letter.fullmatch(ch) or any(c in string.ascii_letters for c in ch.lower()):
            found.add(ch)
    assert found == set(secrets.CASE_TRAPS)


def test_gates_are_needed():
    """A gate that found nothing skips its pattern; one that found the literal runs it."""
    assert secrets.line_starts("a\nb token=x\nc", ("token=",)) == [2]
    assert secrets.line_starts("no secrets here", ("token=",)) == []
    assert secrets.scrub("url?token=abc") == "url?token=<redacted>"
    assert secrets.fold_for_gates("to\u212aen") is None  # Kelvin sign: no shortcut
    for trap in ("x to\u212aen=abc", "x \u017fecret=abc", "a\n\"\u017fecret\" : \"v\""):
        assert secrets.scrub(trap) == plain_scrub(trap) != trap


@pytest.mark.parametrize("line, kept", [
    ("you might not have a CUDA gpu. cuDNN 9.10.2.21, CUDA 12.4", "9.10.2.21"),
    ("TensorRT: 8.6.1.6", "8.6.1.6"),
    ("cudnn version 8.9.2.26 found", "8.9.2.26"),
])
def test_a_dotted_quad_a_library_names_is_its_version(line, kept):
    from envdoctor.outputs.redact import Redactor
    assert kept in Redactor()._text(line)


@pytest.mark.parametrize("line", ["connect to 10.2.0.1 failed", "MASTER_ADDR 192.168.1.20",
                                  "NCCL INFO NET/Socket : Using [0]eth0:10.1.2.3<0>"])
def test_addresses_stay_redacted(line):
    from envdoctor.outputs.redact import Redactor
    assert "<ip>" in Redactor()._text(line)
