"""Redaction: the one place that removes personal and secret data before anything is shared.

``check``, ``report`` and ``diff`` call ``redact_report`` / ``redact_data`` on the data (the
report's facts, findings, results and extra keys), never inside a renderer, so every output
format (text, json, markdown, junit, sarif, github) shows the same redacted values.

What goes, and what replaces it:

- credentials: the value of every environment variable whose name or value looks like one
  (``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``, ``*API_KEY*``, ``AWS_*``, ``HF_TOKEN``,
  ``WANDB_API_KEY`` …), known token shapes anywhere (``hf_…``, ``ghp_…``, ``AKIA…``, ``sk-…``,
  JWTs, PyPI and Google OAuth tokens, base64 PEM), the value after a credential-worded name
  or flag (``DB_PASS=…``, ``AccountKey=…``, ``--token …``, ``.netrc``'s ``password …``,
  ``x-api-key: …``; ``secrets.scrub``) and the password of a ``scheme://user:password@host``
  URL → ``<redacted>``; the secret values of this process's environment, and every value
  ``scrub`` found in the data, are also removed wherever they appear verbatim;
- user names and home folders: ``/home/NAME``, ``/Users/NAME``, ``C:\\Users\\NAME`` →
  ``<user>``, this process's ``$HOME`` → ``~`` and its user name → ``<user>``;
- host names: this machine's name, and the values of ``*_HOST``, ``*_ADDR``, ``HOSTNAME``
  → ``<host>``;
- GPU UUIDs and serial numbers → ``<gpu-uuid>`` / ``<redacted>``; IPv4/IPv6 → ``<ip>``;
  MAC addresses → ``<mac>``.

Values under version keys (``version``, ``driver_version`` …) are left alone, and so is any
dotted quad that the facts know as a version (cuBLAS 12.4.5.8 is not an IP address) or that
follows a version operator (``==9.10.2.21``).
"""

from __future__ import annotations

import os
import platform
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from envdoctor.lazyre import lazy
from envdoctor.secrets import (  # noqa: F401 - credentials: the sink's pass, re-exported
    PEM,
    PRINTED_ESCAPE,
    URL_AUTH,
    credentials,
    unglued_tokens,
    SECRET_VALUE,
    TOKEN_GATE,
    TOKENS,
    URL_PASSWORD,
    credential_name,
    fold_for_gates,
    line_starts,
    scrub,
    sub_lines,
)

SECRET = "<redacted>"
USER, HOST, IP, MAC, GPU_UUID = "<user>", "<host>", "<ip>", "<mac>", "<gpu-uuid>"

# Every pattern here is compiled on first use (``lazyre``), and ``Redactor._text`` tries each
# only on a text that holds what any of its matches must hold (see ``_GATES``).
HOST_NAMES = lazy(r"(^|_)(HOST|HOSTNAME|ADDR|ADDRESS|NODE|NODENAME|NODELIST)$")
ENV_NAME = lazy(r"^[A-Za-z_][A-Za-z0-9_]*$")
VERSION_KEYS = lazy(r"(^|_)(version|cuda|cudnn|hip|jaxlib|cc|nccl|glibc|kernel)$")
SECRET_KEYS = frozenset({"password", "passwd", "token", "secret", "api_key", "apikey",
                         "access_token", "auth_token", "private_key"})
# Words of envdoctor's own output that a short host name may equal ("gpu", "node"): replacing
# them everywhere would wreck the report while hiding nothing.
OUTPUT_WORDS = frozenset({"gpu", "cpu", "node", "host", "auto", "cuda", "torch", "jax", "tf",
                          "nvidia", "driver", "python", "linux", "error", "warning", "info",
                          "ok", "main", "master", "worker", "x86_64", "amd64", "arm64"})
COMMON_USERS = frozenset({"root", "user", "admin", "runner", "ubuntu", "nobody", "jovyan"})

_HOME = lazy(r"(?P<pre>/home/|/Users/|/u/)(?P<name>[^/\\\s\"':;,<>]+)"
             r"|(?P<wpre>[A-Za-z]:[\\/]Users[\\/])(?P<wname>[^\\/:*?\"<>|\r\n]+)")
# (not the shell's PWD=/a/folder)
_KV_SECRET = lazy(r"(?i)\b(password|passwd|pwd(?!=[\"']?[/~])|token|secret|api[_-]?key"
                  r"|access[_-]?key|auth)=([^\s&;,'\"]+)")
# Token shapes: one list for the env probe and here (``secrets.TOKENS``).
_TOKENS = TOKENS
# "host:port" items in an environment value (TF_CONFIG's cluster spec, NCCL/Gloo peers)
_HOST_PORT = lazy(r"(?<![\w./-])([A-Za-z][\w-]{0,62}(?:\.[\w-]{1,63}){0,8})(:\d{2,5})"
                  r"(?![\w.])")
_GPU_UUID = lazy(r"\b(?:GPU|MIG)-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                 r"[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b(?:/\d+/\d+)?")
_MAC = lazy(r"(?<![0-9A-Fa-f:-])[0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(?:\1[0-9A-Fa-f]{2}){4}"
            r"(?![0-9A-Fa-f:-])")
# Not after a version operator: `nvidia-cudnn-cu12==9.10.2.21` in a fix command is a version.
_IPV4 = lazy(r"(?<![\w.])(?<![=<>~!]=)"
             r"(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\w.])")
_IPV6 = lazy(r"(?i)(?<![\w:])(?:(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}"
             r"|(?:[0-9a-f]{1,4}:){1,6}:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})(?![\w:])")


# A dotted quad that a library or "version" names just before it is that library's version
# ("cuDNN 9.10.2.21", "TensorRT: 8.6.1.6", "driver version 10.2.0.1"), not an address.
_VERSION_BEFORE = lazy(r"(?i)(?:\bcudnn|\bcublas\w{0,2}|\bcuda|\bnccl|\btensorrt|\btrt"
                       r"|\bcusparse\w{0,2}|\bcufft|\bcurand|\bnvjitlink|\bversion|\bver\.?|\brelease)"
                       r"\s{0,2}[:=]?\s{0,2}v?$")


def _named_version(m: re.Match[str]) -> bool:
    return _VERSION_BEFORE.search(m.string[max(0, m.start() - 24):m.start()]) is not None


# Gates of the patterns above: any match holds one of these literals (case-sensitive ones
# looked up in the text, _KV_SECRET's in ``fold_for_gates``) or, for the address shapes, a
# match of a small pattern with a literal first character, which Python's regex engine finds
# at C speed where the full pattern (a lookbehind first) is tried at every position.
_TOKEN_GATE = TOKEN_GATE
_KV_GATE = ("password=", "passwd=", "pwd=", "token=", "secret=", "key=", "auth=")
_HOME_GATE = ("/home/", "/u/", "Users")          # "/Users/", "C:\\Users\\" hold "Users"
_UUID_GATE = ("GPU-", "MIG-")
_MAC_GATE = lazy(r":[0-9A-Fa-f]{2}:|-[0-9A-Fa-f]{2}-")       # the same separator each time
_IPV4_GATE = lazy(r"\.\d{1,3}\.\d{1,3}\.")                  # the middle of a.b.c.d
_IPV6_GATE = lazy(r"(?i):[0-9a-f]{1,4}:[0-9a-f]{1,4}:|::")    # eight groups, or "::"

_MEMO_MAX, _MEMO_LONGEST = 4096, 4096  # bounded: hostile inputs must not grow the memo
# values of a report (paths, reasons, env values) teach the redactor the secrets they name;
# a whole pasted log (explain's input head) does not: its quoted lines are scrubbed anyway
_LEARN_LONGEST = 8192


@dataclass
class Redactor:
    """Knows what to remove (literals from this machine and the data) and removes it."""

    literals: list[tuple[str, str]] = field(default_factory=list)  # (value, placeholder)
    versions: set[str] = field(default_factory=set)  # dotted quads that are versions
    # text() results, valid while literals and versions (which only grow) keep their sizes:
    # a report repeats the same strings (paths, names) across facts, findings and renderers.
    _memo: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    _memo_stamp: tuple[int, int] = field(default=(0, 0), repr=False, compare=False)

    def add(self, value: Any, placeholder: str, minimum: int = 3) -> None:
        if isinstance(value, str) and len(value.strip()) >= minimum:
            self.literals.append((value.strip(), placeholder))

    # ------------------------------------------------------------------ text
    def text(self, value: str) -> str:
        """One string with every secret, name and address replaced."""
        stamp = (len(self.literals), len(self.versions))
        if stamp != self._memo_stamp:
            self._memo, self._memo_stamp = {}, stamp
        done = self._memo.get(value)
        if done is None:
            done = self._text(value)
            if len(self._memo) < _MEMO_MAX and len(value) <= _MEMO_LONGEST:
                self._memo[value] = done
        return done

    def _text(self, value: str) -> str:
        out = scrub(value, SECRET)  # secrets inside values: JSON keys, URLs, headers, PEM
        for literal, placeholder in sorted(self.literals, key=lambda p: -len(p[0])):
            if literal in out:
                if placeholder == USER or placeholder == HOST:
                    name = re.compile(rf"(?<![\w.-]){re.escape(literal)}(?![\w-])")
                    out = (name.sub(placeholder, out) if "\n" in literal else
                           sub_lines(name, placeholder, out, line_starts(out, (literal,))))
                else:
                    out = out.replace(literal, placeholder)
        # Each pattern below never matches across a line break and treats one as the text's
        # edge, so it runs only on the lines its gate finds (``sub_lines``).
        if "://" in out and "@" in out:
            out = sub_lines(URL_AUTH, lambda m: m.group("scheme") + SECRET + "@", out,
                            line_starts(out, ("://",)))
        if "=" in out:
            low = fold_for_gates(out)
            out = (_KV_SECRET.sub(_kv_secret, out) if low is None else
                   sub_lines(_KV_SECRET, _kv_secret, out, line_starts(low, _KV_GATE)))
        out = sub_lines(_TOKENS, SECRET, out, line_starts(out, _TOKEN_GATE))
        if ("\\" in out or "\x1b" in out or "\x9b" in out or "\x9d" in out) and \
                any(t in out for t in _TOKEN_GATE):
            out = unglued_tokens(out)
        out = sub_lines(_HOME, lambda m: (m.group("pre") or m.group("wpre")) + USER, out,
                        line_starts(out, _HOME_GATE))
        out = sub_lines(_GPU_UUID, GPU_UUID, out, line_starts(out, _UUID_GATE))
        out = sub_lines(_MAC, MAC, out, line_starts(out, near=_MAC_GATE))
        out = sub_lines(_IPV4, lambda m: m.group(0) if m.group(0) in self.versions
                        or _named_version(m) else IP, out, line_starts(out, near=_IPV4_GATE))
        if ":" in out:
            out = sub_lines(_IPV6, IP, out, line_starts(out, near=_IPV6_GATE))
        return out

    # ------------------------------------------------------------------ data
    def data(self, value: Any, key: str = "") -> Any:
        """JSON-like data, walked with each value's key as context."""
        if isinstance(value, str):  # the leaves first: most nodes are strings
            if key and _version_key(key):
                return value
            return self.text(value)
        if isinstance(value, (dict, Mapping)):
            out: dict[Any, Any] = {}
            for k, v in value.items():
                out[self._key(k, out)] = self._item(str(k), v)
            return out
        if isinstance(value, (list, tuple)):
            return [self.data(v, key) for v in value]
        return value

    def _key(self, key: Any, taken: Mapping[Any, Any]) -> Any:
        """A mapping's key without the secrets in it (an environment variable, a JSON key can
        be named by a token): the key stays what it was to the value's context (``_item``);
        two keys that redact alike are kept apart (``<redacted>#2``)."""
        if not isinstance(key, str) or not key:
            return key
        clean = scrub(key, SECRET)
        if any(t in clean for t in _TOKEN_GATE):
            clean = _TOKENS.sub(SECRET, clean)
        if clean == key:
            return key
        n, out = 1, clean
        while out in taken:
            n += 1
            out = f"{clean}#{n}"
        return out

    def _item(self, key: str, value: Any) -> Any:
        low = key.lower()
        if isinstance(value, str) and value:
            if "uuid" in low:
                return GPU_UUID
            if "serial" in low:
                return SECRET
            if (key.isupper() and ENV_NAME.match(key) and looks_secret(key, value)) \
                    or low in SECRET_KEYS or _TOKENS.fullmatch(value.strip()):
                return SECRET
            if key.isupper() and HOST_NAMES.search(key) and value.strip():
                ip = _IPV4.fullmatch(value.strip()) or _IPV6.fullmatch(value.strip())
                return IP if ip else HOST
            if key.isupper() and ENV_NAME.match(key) and ":" in value:
                value = _HOST_PORT.sub(lambda m: HOST + m.group(2), value)  # TF_CONFIG cluster
        return self.data(value, key)


def _kv_secret(m: re.Match[str]) -> str:
    return f"{m.group(1)}={SECRET}"


# Home folders that name nobody: a system folder some services, sandboxes and CI runners use
# as $HOME (HOME=/tmp on a batch node). Rewriting them to "~" would hide no one and would
# corrupt every path under them, a rule's own "sudo rm /tmp/libtpu_lockfile" included.
SHARED_HOMES = frozenset({"", "/", "/root", "/tmp", "/var/tmp", "/dev/shm", "/nonexistent",
                          "/var/empty", "/dev/null", "/srv", "/opt", "/usr", "/var", "/run",
                          "/var/run", "/etc", "/bin", "/sbin", "/proc", "/sys", "/dev",
                          "/workspace", "/app", "/data", "/home"})


def looks_secret(name: str, value: str) -> bool:
    """A credential by its name (HF_TOKEN, AWS_SECRET_ACCESS_KEY …; not PWD, SSH_AUTH_SOCK
    or a switch: ``secrets.credential_name``) or by its value's shape."""
    return bool(credential_name(name, value) or SECRET_VALUE.search(value))


def for_data(data: Any, environ: Mapping[str, str] | None = None) -> Redactor:
    """A redactor that knows this machine's names and secrets and those found in ``data``."""
    environ = os.environ if environ is None else environ
    r = Redactor()
    for name, value in environ.items():
        if looks_secret(name, value) and not value.isdigit():
            r.add(value, SECRET, minimum=6)
    home = (environ.get("HOME") or environ.get("USERPROFILE") or "").rstrip("/\\")
    if home not in SHARED_HOMES and len(home) > 3:
        r.add(home, "~")
    users = {environ.get(k, "") for k in ("USER", "LOGNAME", "USERNAME", "SUDO_USER")}
    hosts = {environ.get(k, "") for k in ("HOSTNAME", "COMPUTERNAME")}
    try:
        hosts.add(platform.node())
    except OSError:
        pass
    _walk_for_literals(data, users, hosts, r)
    for user in users:
        if user and user.lower() not in COMMON_USERS:
            r.add(user, USER)
    for host in hosts:
        if host and host.lower() not in ("localhost", "localhost.localdomain"):
            r.add(host, HOST, minimum=2)  # any real length: "n1", "gpu-node-0017.cluster…"
            short = host.split(".")[0]
            if short.lower() not in OUTPUT_WORDS:
                r.add(short, HOST, minimum=2)
    _local_addresses(r)
    return r


def _walk_for_literals(value: Any, users: set[str], hosts: set[str], r: Redactor,
                       key: str = "") -> None:
    """Collect names that appear in one place (a home path) so they go everywhere else too."""
    if isinstance(value, str):
        if key and _version_key(key) and _IPV4.fullmatch(value):
            r.versions.add(value)
        for start in line_starts(value, _HOME_GATE):  # a home path stays on one line
            end = value.find("\n", start)
            for m in _HOME.finditer(value, start, len(value) if end == -1 else end):
                users.add(m.group("name") or m.group("wname"))
        if key.isupper() and HOST_NAMES.search(key) and not _IPV4.fullmatch(value.strip()):
            for part in re.split(r"[,\s]+", value):
                hosts.add(part.split(":")[0])
        if key.isupper() and ENV_NAME.match(key) and looks_secret(key, value):
            r.add(value, SECRET, minimum=6)
        if len(value) <= _LEARN_LONGEST and ("=" in value or "--" in value
                                              or "password" in value):  # a secret named once
            for found in _secret_values(value):
                r.add(found, SECRET, minimum=8)
    elif isinstance(value, (dict, Mapping)):
        for k, v in value.items():
            _walk_for_literals(v, users, hosts, r, str(k))
    elif isinstance(value, (list, tuple)):
        for v in value:
            _walk_for_literals(v, users, hosts, r, key)


def _secret_values(text: str) -> list[str]:
    """The values that ``scrub`` removes from ``text`` (a ``--token X``, a ``key=X``), to be
    removed wherever else they appear (a path, a URL); not versions or placeholders."""
    found: list[str] = []
    scrub(text, SECRET, found)
    return [v for v in found if "<" not in v and not v.replace(".", "").isdigit()]


@lru_cache(maxsize=1024)
def _version_key(key: str) -> bool:
    """Is this a key whose values are versions (kept as they are)? Keys repeat: cached."""
    return VERSION_KEYS.search(key.lower()) is not None


def _local_addresses(r: Redactor) -> None:
    """This machine's own MAC (and, off Linux, IP) addresses, wherever they appear verbatim.

    IP and MAC shapes are redacted by pattern anyway; this adds the exact local values. On Linux
    the MACs come from /sys/class/net, which costs nothing, instead of importing psutil (~20 ms
    of a 0.3 s `check --static`).
    """
    from envdoctor.bounded import read_proc
    sysfs = "/sys/class/net"
    if os.path.isdir(sysfs):
        for iface in os.listdir(sysfs):
            mac = (read_proc(os.path.join(sysfs, iface, "address"), 256) or "").strip()
            if mac and mac != "00:00:00:00:00:00":
                r.add(mac, MAC, minimum=7)
        return
    try:
        import psutil
        for addrs in psutil.net_if_addrs().values():
            for a in addrs:
                if a.address and a.address not in ("127.0.0.1", "::1"):
                    r.add(a.address.split("%")[0], MAC if len(a.address) == 17 and
                          a.address.count(":") == 5 else IP, minimum=7)
    except Exception:  # noqa: BLE001 - no psutil or no permission: patterns still apply
        pass


def redact_data(data: Any, environ: Mapping[str, str] | None = None) -> Any:
    """Redacted copy of JSON-like data (a facts snapshot, a report's dict)."""
    return for_data(data, environ).data(data)


def _redacted_facts(facts: Any, plain: dict[str, Any], r: Redactor) -> Any:
    """``facts`` with the fields redaction changed decoded again; the others are kept as they
    are (most sections hold no name, path or address)."""
    changed = {name: value for name, value in r.data(plain).items()
               if value != plain.get(name)}
    return facts.with_sections_from_dict(changed)


def redact_report(report: Any, environ: Mapping[str, str] | None = None) -> Any:
    """A redacted copy of a ``Report``: facts, findings, results, summary and extra keys."""
    from envdoctor.engine.findings import CheckResult, Finding, Severity
    from envdoctor.outputs.report import Report
    from envdoctor.outputs.summary import AreaLine

    plain = report.to_dict()
    r = for_data(plain, environ)

    def finding(f: Finding) -> Finding:
        d = r.data(f.to_dict())
        return Finding(code=f.code, id=f.id, severity=Severity(f.severity), title=d["title"],
                       why=d["why"], fix=d["fix"], references=tuple(d["references"]),
                       evidence=d["evidence"], area=f.area, about=f.about)

    mapped: dict[int, Finding] = {}

    def same(f: Finding) -> Finding:
        if id(f) not in mapped:
            mapped[id(f)] = finding(f)
        return mapped[id(f)]

    facts = _redacted_facts(report.facts, plain["facts"], r)
    results = tuple(CheckResult(x.code, x.id, x.state, same(x.finding) if x.finding else None,
                                r.text(x.detail)) for x in report.results)
    findings = tuple(same(f) for f in report.findings)
    areas = tuple(AreaLine(a.area, a.label, a.status, r.text(a.detail)) for a in report.areas)
    extra = r.data(dict(report.extra))
    extra["redacted"] = True
    return Report(facts, results, findings, report.intent, report.fail_on, areas, extra)
