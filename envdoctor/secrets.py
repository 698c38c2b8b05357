"""What a credential looks like, in one place for the env probe and for output redaction.

Kept free of other envdoctor imports: `explain` redacts its output and must not pay for the
probes package (and `envdoctor.facts`) just to learn these patterns.
"""

from __future__ import annotations

import re

SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSW|CREDENTIAL|API_?KEY|ACCESS_?KEY|PRIVATE|AUTH",
                         re.IGNORECASE)
SECRET_VALUE = re.compile(
    r"\b(hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|AKIA[0-9A-Z]{16}"
    r"|sk-[A-Za-z0-9_-]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+)"
    r"|://[^/\s:@]+:[^/\s@]+@")
REDACTED = "<redacted>"

# Secrets inside a value that is otherwise worth keeping (a TF_CONFIG cluster spec, a URL, a
# quoted error line). Every pattern is linear: bounded repeats, disjoint alternatives.
_SECRET_WORDS = (r"token|secret|passw(?:or)?d?|private[_-]?key|api[_-]?key|access[_-]?key"
                 r"|auth|credential|signature|session|cookie|client[_-]?secret")
# "auth_token": "…" / 'private_key': '…' in JSON or a Python dict repr
JSON_SECRET = re.compile(
    r"""(?i)(?P<key>(?P<q>["'])[\w.-]{0,40}?(?:""" + _SECRET_WORDS + r""")[\w.-]{0,40}(?P=q)"""
    r"""\s{0,8}:\s{0,8})(?P<vq>["'])(?P<value>(?:[^"'\\\n]|\\.){1,8192})(?P=vq)""")
# ?X-Amz-Signature=… &sig=… &token=… key=… in URLs, query strings and key=value lists
QUERY_SECRET = re.compile(
    r"(?i)(?P<key>(?<![\w-])(?:x-amz-signature|x-amz-credential|x-amz-security-token"
    r"|x-goog-signature|x-goog-credential|signature|sig|token|access_token|refresh_token"
    r"|id_token|key|api_?key|apikey|secret|password|passwd|pwd|auth|session|credential"
    r"|client_secret)=)(?P<value>[^\s&;,'\"#<>)\]}]{1,4096})")
# Authorization: Bearer …  /  'Authorization': 'Basic …'  /  bare "Bearer eyJ…"
AUTH_HEADER = re.compile(
    r"(?i)(?P<key>\b(?:proxy-)?authorization[\"']?\s{0,8}[:=]\s{0,8}[\"']?\s{0,8}"
    r"(?:(?:bearer|basic|token|digest|negotiate|aws4-hmac-sha256)\s{1,8})?)"
    r"(?P<value>[^\s\"',;}]{1,4096})")
BEARER = re.compile(r"(?i)(?P<key>\bbearer\s{1,8})(?P<value>[A-Za-z0-9._~+/=-]{8,4096})")
# a PEM block, also with JSON's literal \n between its lines; unterminated blocks go too
PEM = re.compile(r"-----BEGIN [A-Z0-9 ]{1,40}-----(?:[A-Za-z0-9+/=\s]|\\n|\\r){0,65536}"
                 r"(?:-----END [A-Z0-9 ]{1,40}-----)?")


def scrub(text: str, placeholder: str = REDACTED) -> str:
    """``text`` with every embedded secret replaced and everything else kept."""
    if not text:
        return text
    if "-----BEGIN " in text:
        text = PEM.sub(placeholder, text)
    if "=" in text:
        text = QUERY_SECRET.sub(lambda m: m.group("key") + placeholder, text)
    if ":" in text:
        text = JSON_SECRET.sub(lambda m: m.group("key") + m.group("vq") + placeholder
                               + m.group("vq"), text)
    low = text.lower()
    if "authorization" in low:
        text = AUTH_HEADER.sub(lambda m: m.group("key") + placeholder, text)
    if "bearer" in low:
        text = BEARER.sub(lambda m: m.group("key") + placeholder, text)
    return text
