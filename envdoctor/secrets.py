"""What a credential looks like, in one place for the env probe and for output redaction.

Kept free of other envdoctor imports but ``lazyre``: `explain` redacts its output and must not
pay for the probes package (and `envdoctor.facts`) just to learn these patterns. Every pattern
is compiled on first use (``lazyre.lazy``), and each is tried only on a text that holds the
literals any match of it must contain (``scrub``'s gates), because Python's regex engine
tries a pattern without a literal prefix at every position of a long text (~5-20 ms per
200 KB each).
"""

from __future__ import annotations

import re
from typing import Any

from envdoctor.lazyre import lazy

# Token shapes, by issuer: Hugging Face, GitHub, GitLab (personal, deploy, runner, CI job,
# feed tokens), AWS key ids, OpenAI/Anthropic ``sk-``, Stripe secret/restricted keys and
# webhook secrets, Slack (bot, user, app, refresh, config tokens), Google API keys and OAuth
# access tokens, PyPI, npm, Docker Hub (personal and organisation access tokens), SendGrid,
# Databricks, Twilio API keys, Telegram bot tokens, base64 PEM and JWTs. Lengths are lower
# bounds, not exact: a key of an older or newer issue is still one. Each alternative starts
# with a literal of ``TOKEN_GATE`` (Telegram's with digits, gated by its ":AA").
TOKENS = lazy(
    r"\b(?:hf_[A-Za-z0-9]{10,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}"
    r"|gl(?:pat|dt|rt|cbt|ptt|ft|soat)-[A-Za-z0-9_-]{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|sk-[A-Za-z0-9_-]{20,}|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,}"
    r"|xox[abeoprs]-[A-Za-z0-9-]{10,}|xoxe\.xox[bp]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,}"
    r"|AIza[0-9A-Za-z_-]{30,}|ya29\.[0-9A-Za-z_-]{20,}|pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{20,}"
    r"|npm_[A-Za-z0-9]{30,}|dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}"
    r"|SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}"
    r"|dapi[0-9a-f]{32}(?:-\d{1,2})?|SK[0-9a-fA-F]{32}|\d{6,12}:AA[A-Za-z0-9_-]{30,40}"
    r"|LS0tLS1CRUdJTi[A-Za-z0-9+/=]{16,}"  # a base64-encoded PEM block
    r"|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)?)")
TOKEN_GATE = ("hf_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gldt-",
              "glrt-", "glcbt-", "glptt-", "glft-", "glsoat-", "AKIA", "ASIA", "sk-", "sk_live_",
              "sk_test_", "rk_live_", "rk_test_", "whsec_", "xox", "xapp-", "AIza", "ya29.",
              "pypi-AgEI", "npm_", "dckr_", "SG.", "dapi", "SK", ":AA", "LS0tLS1CRUdJT", "eyJ")
# ``user:password@host`` written without a scheme: a proxy setting (``proxy=svc:pw@proxy:3128``),
# a mistyped ``--index-url``, ``git clone user:pw@host:repo``. The host must look like one (a
# dotted name, or a name before ":port" or ":path"); not ``git@github.com:org/repo`` (no
# password), ``mailto:a@b.org``, ``cuda:0@…``, C++ ``std::x@GLIBCXX`` or an IPv6 address.
USERINFO = lazy(
    r"(?<![\w.:/%+~@-])(?P<value>(?!(?:mailto|sip|sips|tel|urn|xmpp|news|data|cuda|cpu|gpu|mps"
    r"|xla|xpu|hip|npu|tpu|meta|device|rocm|std)\b)[A-Za-z0-9._~%+-]{1,128}"
    r":[^\s:/@'\"<>()\[\]{},;|]{1,256})"
    r"(?P<host>@(?:localhost\b|[A-Za-z0-9][A-Za-z0-9-]{0,62}"
    r"(?:(?:\.[A-Za-z0-9-]{1,63}){1,8}|(?=:[\w~./-]))))")
# the secret part of a webhook URL (Slack, Discord, Microsoft Teams) or a Telegram bot URL:
# whoever holds it can post as the integration
_WEBHOOK = (r"(?P<key>\bhooks\.slack\.com/(?:services|workflows|triggers)/"
            r"|\bdiscord(?:app)?\.com/api/webhooks/|\.webhook\.office\.com/webhookb2/"
            r"|\bapi\.telegram\.org/(?:file/)?bot)(?P<value>[A-Za-z0-9_.:@%+/-]{8,512})")
WEBHOOK = lazy(_WEBHOOK, re.IGNORECASE)
WEBHOOK_GATE = ("hooks.slack.com", "discord", "webhook.office.com", "api.telegram.org")
# The password of a URL's user info, as users write it: pip and git want '@', '/' and ':' in it
# percent-encoded, but a raw one is common (``https://ci:p@ss/w0rd@host``) and the password
# then runs to the last '@' of the URL, not the first. A user part's ':' followed by a port
# (``host:8080/@scope/pkg``) is no password.
URL_PASSWORD = (r"[^/\s:@]*:(?!\d{1,5}(?![^/?#\s'\"<>]))[^\s'\"<>]{1,256}")
SECRET_VALUE = lazy(TOKENS.pattern + r"|://" + URL_PASSWORD + r"@|(?i:"
                    + _WEBHOOK.replace("?P<key>", "").replace("?P<value>", "") + ")"
                    + "|" + USERINFO.pattern.replace("?P<value>", "").replace("?P<host>", ""))

# ---------------------------------------------------------------- credential names
# A variable's name says its value is a credential when one of its words (split at "_", "-",
# "." and camel case) is a credential word, or a compound ending in one (GITHUBTOKEN,
# DBPASSWORD); PWD only after another word (DB_PWD, MYSQL_PWD: the shell's PWD and OLDPWD are
# folders); SESSION and COOKIE only as the last word (XDG_SESSION_TYPE is "wayland").
_CRED_WORDS = frozenset("""
TOKEN TOKENS SECRET SECRETS PASSWORD PASSWORDS PASSWD PASS PASSPHRASE CREDENTIAL CREDENTIALS
CRED CREDS APIKEY ACCESSKEY PRIVATEKEY SECRETKEY AUTH OAUTH AUTHTOKEN AUTHKEY AUTHORIZATION
PRIVATE KEY KEYS SIGNATURE SAS CONNSTR PAT JSESSIONID SESSIONID KEYFILE KEYTAB KEYRING KEYSTORE
""".split())
_CRED_ENDS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "APIKEY", "ACCESSKEY",
              "PRIVATEKEY", "SECRETKEY", "CREDENTIALS", "CREDENTIAL")
_CRED_PAIRS = (("CONNECTION", "STRING"), ("CONN", "STR"))
_LAST_ONLY = frozenset({"SESSION", "COOKIE", "COOKIES"})
_CRED_PREFIXES = ("AWS_", "AZURE_CLIENT")
# ... unless the name is about where the credential is (a key file, an agent's socket, a
# password store) and the value is a path: a path to a key is not the key
_PATH_WORDS = frozenset({"PATH", "PATHS", "FILE", "FILES", "DIR", "DIRS", "DIRECTORY", "SOCK",
                         "SOCKET", "HOME", "STORE", "KEYFILE", "KEYTAB", "KEYRING", "KEYSTORE",
                         "INFO", "CONFIG", "LOCATION"})
_PATH_VALUE = lazy(r"(?:~|\.{1,2}|[A-Za-z]:)?[\\/][^\s\"'<>|*?]{0,4096}")
# a switch (HF_HUB_DISABLE_IMPLICIT_TOKEN=1) holds no credential, whatever it is named
_FLAG_VALUES = frozenset({"", "0", "1", "true", "false", "yes", "no", "on", "off"})
_CAMEL = lazy(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD_SPLIT = lazy(r"[\W_]+")


def credential_name(name: str, value: str = "") -> bool:
    """Is the value of the variable (or key) ``name`` a credential by its name? ``value``
    answers the exceptions: a switch's 0/1/true/false, or a path under a name about where a
    credential lives (SSH_AUTH_SOCK, PASSWORD_STORE_DIR, TLS_KEY_FILE)."""
    if value.strip().lower() in _FLAG_VALUES:
        return False
    words = [w for w in _WORD_SPLIT.split(_CAMEL.sub("_", name).upper()) if w]
    if not words:
        return False
    upper = "_".join(words)
    hit = upper.startswith(_CRED_PREFIXES) or any(
        w in _CRED_WORDS or w.endswith(_CRED_ENDS) or w.startswith("PASSW")
        or (w == "PWD" and i > 0) or (w in _LAST_ONLY and i == len(words) - 1)
        for i, w in enumerate(words)) or any(
        (a, b) in _CRED_PAIRS for a, b in zip(words, words[1:], strict=False))
    if not hit:
        return False
    if (words[-1] in _PATH_WORDS or any(w in _PATH_WORDS for w in words if w.startswith("KEY"))
            ) and _path_value(value):
        return False
    return True


def _path_value(value: str) -> bool:
    """A file-system path (or a list of them), holding no token or URL credentials."""
    value = value.strip()
    return bool(value) and _PATH_VALUE.fullmatch(value) is not None and "://" not in value \
        and "@" not in value and SECRET_VALUE.search(value) is None

REDACTED = "<redacted>"

# Secrets inside a value that is otherwise worth keeping (a TF_CONFIG cluster spec, a URL, a
# quoted error line). Every pattern is linear: bounded repeats, disjoint alternatives.
_SECRET_WORDS = (r"token|secret|passw(?:or)?d?|private[_-]?key|api[_-]?key|access[_-]?key"
                 r"|auth|credential|signature|session|cookie|client[_-]?secret")
# "auth_token": "…" / 'private_key': '…' in JSON or a Python dict repr
JSON_SECRET = lazy(
    r"""(?i)(?P<key>(?P<q>["'])(?:[\w.-]{0,40}?(?:""" + _SECRET_WORDS + r""")[\w.-]{0,40}|key)"""
    r"""(?P=q)"""
    r"""\s{0,8}:\s{0,8})(?P<vq>["'])(?P<value>(?:[^"'\\\n]|\\.){1,8192})(?P=vq)""")
# ?X-Amz-Signature=… &sig=… &token=… key=… in URLs, query strings, key=value lists and env
# dumps: any name that ends in a credential word (AccountKey, DB_PASS, WANDB_API_KEY,
# aws_secret_access_key, API_KEY_2, x-amz-security-token). Spaces around "=" (an INI file) only
# where the value is not code (``key = jax.random.PRNGKey(0)`` in a traceback stays); "%3D"
# is "=" in a URL-encoded URL inside another (an OAuth redirect).
_KEY_END = (r"signature|sig|token|secret|password|passwd|pass|(?<=[_.-])pwd"
            r"|(?<![\w.-])pwd(?![ \t]{0,4}=[ \t]{0,4}[\"']?[/~])|auth|session|credentials?"
            r"|creds|key")
QUERY_SECRET = lazy(
    r"(?i)(?P<key>(?:" + _KEY_END + r")(?:[_-]?\d{1,3})?"
    r"(?:=|%3[dD]|[ \t]{1,4}=[ \t]{1,4}(?![\w.]{0,64}[(\[]))[\"']?)"
    r"(?P<value>(?!(?i:0|1|true|false|yes|no|on|off)(?![^\s&;,'\"#<>)\]}]))"  # a switch
    r"[^\s&;,'\"#<>)\]}]{1,4096})")
# "password: …" in a YAML or INI file, a settings dump or an error message: the strong words
# only (a bare "token:" or "key:" is too often prose), never a placeholder or a structure
YAML_SECRET = lazy(
    r"(?i)(?P<key>(?:password|passwd|secret|api[_-]?key|access[_-]?key|private[_-]?key"
    r"|auth[_-]?token|access[_-]?token)[\"']?:[ \t]{1,4}[\"']?)"
    r"(?P<value>(?![<\[{(])[^\s'\",;}]{4,4096})")
# a command-line flag and its value, as argv or a shell line quotes it: ``--token abc``,
# ``--hf_token abc``, ``['--api-key', 'abc']`` (the ``--flag=value`` form is QUERY_SECRET's).
# The pattern finds the word and its value; ``is_flag`` checks that the word ends a flag name
# (a scan back of at most 64 characters, so the pattern itself starts at its literal words).
CLI_SECRET = lazy(
    r"(?i)(?P<key>(?:token|secret|passw(?:or)?d|pass|pwd|api[_-]?key|access[_-]?key"
    r"|private[_-]?key|auth|credentials?|key)(?:[ \t]{1,4}|[\"'],[ \t]{0,4}[\"']))"
    r"(?P<value>(?!-)[^\s'\"]{1,4096})")


def is_flag(text: str, start: int) -> bool:
    """Does the name that ends with the word at ``start`` begin with "-" (``--hf_token``)?"""
    i, stop = start, max(0, start - 64)
    while i > stop and (text[i - 1].isalnum() or text[i - 1] in "_-"):
        i -= 1
    if i == stop and i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_-"):
        return False  # a name longer than any flag
    return text.startswith("-", i)


# a .netrc entry: ``machine api.wandb.ai login user password KEY`` (one line or one per line)
NETRC = lazy(r"(?im)(?P<key>(?:\bmachine[ \t]{1,8}\S{1,256}[ \t]{1,8}(?:login[ \t]{1,8}"
             r"\S{1,256}[ \t]{1,8})?|^[ \t]{0,16})password[ \t]{1,8})(?P<value>\S{1,4096})")
# an AWS secret access key (40 base64 characters, mixed case and digits) on a line that names
# AWS or a key id: gated on those words, as gitleaks does; git hashes (hex) never qualify
AWS_SECRET = lazy(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
AWS_GATE = ("aws", "akia", "asia", "secret")


def aws_key_shaped(value: str) -> bool:
    """Upper and lower case and digits, few slashes: a hex hash, a word run or a path
    (``/pytorch/torch/lib/c10d/ProcessGroupNCCL``) is not a key."""
    return (not (value.islower() or value.isupper()) and any(c.isdigit() for c in value)
            and not value.startswith("/") and value.count("/") <= 3)
# Authorization: Bearer …  /  'Authorization': 'Basic …'  /  bare "Bearer eyJ…"; the API-key
# headers too (x-api-key, api-key, x-goog-api-key, PRIVATE-TOKEN, x-auth-token,
# Ocp-Apim-Subscription-Key), as a pasted curl command shows them
AUTH_HEADER = lazy(
    r"(?i)(?P<key>\b(?:(?:proxy-)?authorization|api-key|auth-token|access-token|private-token"
    r"|subscription-key)[\"']?\s{0,8}[:=]\s{0,8}[\"']?\s{0,8}"
    r"(?:(?:bearer|basic|token|digest|negotiate|aws4-hmac-sha256)\s{1,8})?)"
    r"(?P<value>[^\s\"',;}]{1,4096}(?:\r?\n[ \t]{1,32}[A-Za-z0-9._~+/=-]{8,4096}(?![^\r\n]))?)")
# its value, and a rest that a wrapped line carried on alone to the next line
HEADER_GATE = ("authorization", "api-key", "auth-token", "access-token", "private-token",
               "subscription-key")
# a conda channel's token, which conda puts in the URL path: https://conda.anaconda.org/t/TOKEN/…
CONDA_TOKEN = lazy(r"(?i)(?P<key>\banaconda\.(?:org|com|cloud)/t/)(?P<value>[^/\s'\"<>]{6,256})")
BEARER = lazy(r"(?i)(?P<key>\bbearer\s{1,8})(?P<value>[A-Za-z0-9._~+/=-]{8,4096}"
              r"(?:\r?\n[ \t]{1,32}[A-Za-z0-9._~+/=-]{8,4096}(?![^\r\n]))?)")
# a PEM block, also with JSON's literal \n between its lines; unterminated blocks go too
PEM = lazy(r"-----BEGIN [A-Z0-9 ]{1,40}-----(?:[A-Za-z0-9+/=\s]|\\n|\\r){0,65536}"
                 r"(?:-----END [A-Z0-9 ]{1,40}-----)?")


# Gates: literals of which every match of a pattern holds one, looked up in ``fold_for_gates``
# of the text. QUERY_SECRET's and CLI_SECRET's keys all end in one of these words (password,
# passwd -> "pass"; signature -> "sig"; credentials, creds -> "cred" …).
QUERY_GATE = ("sig", "token", "secret", "pass", "pwd", "auth", "session", "cred", "key")
CLI_GATE = QUERY_GATE
YAML_GATE = ("passw", "secret", "key", "token")
# JSON_SECRET's key holds one of _SECRET_WORDS (api key, access key, private key -> "key" or
# "private"; passwd, password -> "passw"; client secret -> "secret").
JSON_GATE = ("token", "secret", "passw", "private", "key", "auth", "credential", "signature",
             "session", "cookie")

# Characters that a case-insensitive ASCII letter in a pattern matches besides ASCII letters
# (re's IGNORECASE: dotted/dotless i, long s, Kelvin sign), or whose str.lower() holds an
# ASCII letter: with one of them in a text, a gate on its lower() could miss a match.
CASE_TRAPS = ("\u0130", "\u0131", "\u017f", "\u212a")


def fold_for_gates(text: str) -> str | None:
    """``text.lower()`` for literal gates of case-insensitive patterns, position for position;
    None when such a gate could miss a match (a CASE_TRAPS character): run the pattern."""
    if not text.isascii() and any(c in text for c in CASE_TRAPS):
        return None
    return text.lower()


def gate(low: str | None, literals: tuple[str, ...]) -> bool:
    """May a pattern gated by ``literals`` match the text that ``low`` folds? (True if unsure.)"""
    return low is None or any(lit in low for lit in literals)


def line_starts(text: str, literals: tuple[str, ...] = (), near: Any = None) -> list[int]:
    """Where the lines of ``text`` begin that hold one of ``literals`` (none holds a line
    break) or a match of the pattern ``near`` (whose matches never hold one): sorted, each
    line once. C-level finds, one per hit line and literal."""
    if "\n" not in text:  # one line (most strings of a report): one C-level check
        hit = any(lit in text for lit in literals) or (near is not None and
                                                        near.search(text) is not None)
        return [0] if hit else []
    starts: set[int] = set()
    for lit in literals:
        pos = text.find(lit)
        while pos != -1:
            starts.add(text.rfind("\n", 0, pos) + 1)
            end = text.find("\n", pos)
            pos = -1 if end == -1 else text.find(lit, end + 1)
    if near is not None:
        m = near.search(text)
        while m is not None:
            starts.add(text.rfind("\n", 0, m.start()) + 1)
            end = text.find("\n", m.start())
            m = None if end == -1 else near.search(text, end + 1)
    return sorted(starts)


def sub_lines(pattern: Any, repl: Any, text: str, starts: list[int], span: int = 0) -> str:
    """``pattern.sub(repl, text)``, run on the lines that begin at ``starts`` (and the
    ``span`` lines after each) only.

    The same answer as on the whole text for a pattern whose every match begins on a line in
    ``starts`` (a gate found what the match holds there) and ends at most ``span`` line breaks
    later, and whose lookarounds (``\\b``, ``(?<![\\w.])`` …) take a line break as they take
    the text's edge. Python's regex engine tries a pattern without a literal prefix at every
    position, so this turns ~5-20 ms a pattern over a 200 KB report into a few short lines.
    """
    if not starts:
        return text
    if len(starts) > max(len(text) >> 7, 16):  # lines everywhere: one pass is cheaper
        return pattern.sub(repl, text)
    out: list[str] = []
    done = 0
    i = 0
    while i < len(starts):
        start = end = starts[i]
        while True:  # this window: its lines and the span after each, merged
            end = text.find("\n", end)
            for _ in range(span):
                if end == -1:
                    break
                end = text.find("\n", end + 1)
            end = len(text) if end == -1 else end
            i += 1
            if i == len(starts) or starts[i] > end:
                break
            end = starts[i]
        out.append(text[done:start])
        out.append(pattern.sub(repl, text[start:end]))
        done = end
    out.append(text[done:])
    return "".join(out)


def scrub(text: str, placeholder: str = REDACTED, found: list[str] | None = None) -> str:
    """``text`` with every embedded secret replaced and everything else kept; ``found`` (if
    given) receives each value replaced, so a caller can redact it wherever else it appears."""
    if not text:
        return text

    def keep_key(m: re.Match[str]) -> str:
        if found is not None:
            found.append(m.group("value"))
        return m.group("key") + placeholder

    if "-----BEGIN " in text:
        text = PEM.sub(placeholder, text)
    low = fold_for_gates(text)
    if ("=" in text or "%3" in text) and gate(low, QUERY_GATE):  # matches stay on one line
        new = (QUERY_SECRET.sub(keep_key, text) if low is None else
               sub_lines(QUERY_SECRET, keep_key, text, line_starts(low, QUERY_GATE)))
        if new is not text:
            text, low = new, fold_for_gates(new)
    if ":" in text and gate(low, YAML_GATE):  # one line too
        new = (YAML_SECRET.sub(keep_key, text) if low is None else
               sub_lines(YAML_SECRET, keep_key, text, line_starts(low, YAML_GATE)))
        if new is not text:
            text, low = new, fold_for_gates(new)
    if "-" in text and gate(low, CLI_GATE):  # one line too
        def flag_value(m: re.Match[str]) -> str:
            return keep_key(m) if is_flag(m.string, m.start()) else m.group(0)
        new = (CLI_SECRET.sub(flag_value, text) if low is None else
               sub_lines(CLI_SECRET, flag_value, text, line_starts(low, CLI_GATE)))
        if new is not text:
            text, low = new, fold_for_gates(new)
    if ":" in text and gate(low, JSON_GATE):  # begins on its key's line, its \s{0,8} twice
        def key_quotes(m: re.Match[str]) -> str:
            if found is not None:
                found.append(m.group("value"))
            return m.group("key") + m.group("vq") + placeholder + m.group("vq")
        new = (JSON_SECRET.sub(key_quotes, text) if low is None else
               sub_lines(JSON_SECRET, key_quotes, text, line_starts(low, JSON_GATE), 16))
        if new is not text:
            text, low = new, fold_for_gates(new)
    if gate(low, WEBHOOK_GATE):
        new = (WEBHOOK.sub(keep_key, text) if low is None else
               sub_lines(WEBHOOK, keep_key, text, line_starts(low, WEBHOOK_GATE)))
        if new is not text:
            text, low = new, fold_for_gates(new)
    if "@" in text and ":" in text:  # user:password@host without a scheme; on one line
        def userinfo(m: re.Match[str]) -> str:
            if found is not None:
                found.append(m.group("value"))
            return placeholder + m.group("host")
        new = sub_lines(USERINFO, userinfo, text, line_starts(text, ("@",)))
        if new is not text:
            text, low = new, fold_for_gates(new)
    if gate(low, ("anaconda",)):
        new = (CONDA_TOKEN.sub(keep_key, text) if low is None else
               sub_lines(CONDA_TOKEN, keep_key, text, line_starts(low, ("anaconda",))))
        if new is not text:
            text, low = new, fold_for_gates(new)
    if gate(low, ("password",)):  # a .netrc line
        new = (NETRC.sub(keep_key, text) if low is None else
               sub_lines(NETRC, keep_key, text, line_starts(low, ("password",))))
        if new is not text:
            text, low = new, fold_for_gates(new)
    if len(text) >= 40 and gate(low, AWS_GATE):
        def aws(m: re.Match[str]) -> str:
            v = m.group(0)
            if not aws_key_shaped(v):
                return v
            if found is not None:
                found.append(v)
            return placeholder
        new = (AWS_SECRET.sub(aws, text) if low is None else
               sub_lines(AWS_SECRET, aws, text, line_starts(low, AWS_GATE)))
        if new is not text:
            text, low = new, fold_for_gates(new)
    if gate(low, HEADER_GATE):
        new = AUTH_HEADER.sub(keep_key, text)
        if new is not text:
            text, low = new, fold_for_gates(new)
    if gate(low, ("bearer",)):
        text = BEARER.sub(keep_key, text)
    return text


# ``scheme://user:password@`` (redis://:password@host has no user), and a token written as
# the user name with no password, as git and pip document it (``https://<token>@github.com``,
# ``https://<token>@pkgs.example.com/simple``): a user part of 16 or more characters holding
# a digit is taken for one (``git@``, ``user@``, ``ci-bot@`` stay)
URL_AUTH = lazy(r"(?<![A-Za-z0-9+.-])(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)"
                r"(?:" + URL_PASSWORD
                + r"|(?=[A-Za-z0-9._~%+-]{0,256}\d)[A-Za-z0-9._~%+-]{16,256})@")
# the printed form of a control character or an escape (``\x07``, ``\u202e``, ``\n``): an
# error line that quotes a value with ``!r`` glues what follows to a word (``\x07ghp_…``), and
# the token shapes need a word boundary before their prefix
# ... and so does a raw escape sequence of a coloured log (``\x1b[31mhf_…``: the SGR's final
# ``m`` is a word character), a C1 CSI or an OSC (a title, a hyperlink) right before a token
PRINTED_ESCAPE = lazy(r"\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[abfnrtv0])"
                      r"|(?:\x1b\[|\x9b)[0-?]{0,64}[ -/]{0,8}[@-~]"
                      r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c\n]{0,512}(?:\x07|\x1b\\|\x9c)?"
                      r"|\x1b[ -/]{1,4}[0-~]|\x1b[@-Z\\-_]")


def credentials(text: str) -> str:
    """``text`` without the credential shapes no output may carry, whatever the command
    redacted: a token's shape (also glued to an escape), a URL's password or token user, a
    private key. Context-free and precise (no names, no addresses): the sink's last pass over
    every document (``outputs.sink.write``; ``outputs.redact`` re-exports it)."""
    out = text
    if "://" in out and "@" in out:
        out = sub_lines(URL_AUTH, lambda m: m.group("scheme") + REDACTED + "@", out,
                        line_starts(out, ("://",)))
    out = sub_lines(TOKENS, REDACTED, out, line_starts(out, TOKEN_GATE))
    if ("\\" in out or "\x1b" in out or "\x9b" in out or "\x9d" in out) and \
            any(t in out for t in TOKEN_GATE):
        out = unglued_tokens(out)
    if "-----BEGIN " in out:
        out = PEM.sub(REDACTED, out)
    return out


def unglued_tokens(text: str) -> str:
    """``text`` with each token that a printed escape (``\\x07ghp_…``) or a raw escape
    sequence (``\\x1b[31mhf_…``) glues to a word replaced: the token shapes are searched in a
    copy whose escapes are blanks of the same length, and what they find is replaced in
    ``text``."""
    shadow = PRINTED_ESCAPE.sub(lambda m: " " * len(m.group(0)), text)
    if shadow == text:
        return text
    parts: list[str] = []
    done = 0
    for m in TOKENS.finditer(shadow):
        parts += [text[done:m.start()], REDACTED]
        done = m.end()
    if not parts:
        return text
    parts.append(text[done:])
    return "".join(parts)
