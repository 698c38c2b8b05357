"""Undo what GitHub, e-mail and terminals do to a pasted report, and small parsing helpers.

Every parser works on *cleaned* lines: CRLF and tabs normalised, ``>`` e-mail/quote markers,
Markdown fences, ``<details>``/``<summary>`` and other HTML tags, backticks and bullets removed.
Helpers never raise on odd input: a value that does not parse is ``None``.
"""

from __future__ import annotations

import html
import re

from packaging.version import InvalidVersion, Version

from envdoctor import bounded
from envdoctor.versions import DisplayVersion

_QUOTE = re.compile(r"^\s{0,3}(?:>\s?)+")
_FENCE = re.compile(r"^\s*(?:```|~~~)[\w+-]*\s*")
_TAG = re.compile(r"</?(?:details|summary|br|p|pre|code|b|i|strong|em|div|span|sub|sup)"
                  r"(?:\s[^<>]*)?/?>", re.IGNORECASE)
_VERSION = re.compile(r"\d+(?:\.\d+)+(?:[-.+_]?[A-Za-z0-9]+)*|\d+")


RUN = bounded.RUN
LINE = 1 << 16  # characters of one line kept (nvidia-smi --query-gpu with every field: ~10 KB)
_LONG_BLANKS = re.compile(rf"\n{{{RUN + 1},}}")


def clean(text: str) -> str:
    """The text as lines a parser can read; never raises."""
    if not isinstance(text, str):
        return ""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    ")
    text = bounded.defuse(bounded.cap_lines(text, LINE))
    text = text.replace("\ufeff", "").replace("\u00a0", " ")
    if "&" in text:
        text = html.unescape(text)
    out = []
    for line in text.split("\n"):
        line = _QUOTE.sub("", line)
        line = _TAG.sub("", line)
        # fences may open or close in the middle of a line ("```nvcc: NVIDIA ...```")
        line = _FENCE.sub("", line)
        line = re.sub(r"(?:```|~~~)+\s*$", "", line)
        out.append(line.rstrip())
    text = "\n".join(out)
    if "{'sys.platform': " in text:
        text = _ENV_DICT.sub(_env_dict_lines, text)
    if "\n" * (RUN + 1) in text:  # blank lines: a ^\s* could span them all
        text = _LONG_BLANKS.sub("\n" * RUN, text)
    return text


# mmcv's / mmdet's collect_env() printed as a Python dict on one line ("{'sys.platform': 'linux',
# 'Python': '3.8.10 …', 'NVCC': 'Cuda compilation tools, release 9.1, V9.1.85', 'PyTorch':
# '1.8.1', 'PyTorch compiling details': 'PyTorch built with:\\n  - GCC 7.3\\n  - CUDA Runtime
# 10.2…'}", open-mmlab/mmcv#1055): the same "key: value" lines its text form prints
_ENV_DICT = re.compile(r"^\{'sys\.platform': [^\n]{0,60000}$", re.MULTILINE)
_DICT_ITEM = re.compile(r"'([^'\\\n]{1,80})':\s(?:'((?:[^'\\]|\\.){0,20000})'|(True|False|None|[\d.]{1,20}))")


def _env_dict_lines(m: re.Match[str]) -> str:
    lines = []
    for item in _DICT_ITEM.finditer(m.group(0)):
        value = item.group(2) if item.group(2) is not None else item.group(3)
        value = value.replace("\\n", "\n").replace("\\'", "'").replace("\\\\", "\\")
        lines.append(f"{item.group(1)}: {value}")
    return "\n".join(lines) if lines else m.group(0)


def ver(text: object) -> Version | None:
    """The first version-looking token of ``text`` as a Version, else None."""
    if isinstance(text, Version):
        return text
    if text is None:
        return None
    s = str(text).strip().strip("`'\",;()[]")
    if not s:
        return None
    try:
        return DisplayVersion(s)  # "570.124.04" stays as the report wrote it
    except InvalidVersion:
        pass
    m = _VERSION.search(s)
    if not m:
        return None
    token = m.group(0)
    numeric = re.match(r"\d+(?:\.\d+)*", token)  # a _VERSION token starts with digits
    for candidate in (token, token.split("-")[0], token.split("+")[0],
                      numeric.group(0) if numeric else token):
        try:
            return DisplayVersion(candidate)
        except InvalidVersion:
            continue
    return None


def release(text: object) -> Version | None:
    """A Version without its local label or pre/dev parts' noise: 2.1.0+cu121 -> 2.1.0."""
    v = ver(text)
    return Version(v.base_version) if v is not None else None


def plain(value: str) -> str:
    """Strip Markdown decoration around a value: backticks, bold, quotes, trailing commas."""
    return value.strip().strip("`*_").strip().strip("'\"").strip()


MISSING = ("n/a", "na", "none", "could not collect", "no cuda", "not found", "unknown", "",
           "<fill in>", "-", "no", "null", "not installed")


def missing(value: str) -> bool:
    """collect_env and templates write these for "no value"."""
    return plain(value).lower().rstrip(".") in MISSING


def to_bool(value: str) -> bool | None:
    low = plain(value).lower()
    if low.startswith(("true", "yes", "enabled", "on")):
        return True
    if low.startswith(("false", "no", "disabled", "off")):
        return False
    return None


def mib(text: str) -> int | None:
    """``24564MiB`` / ``81559 MiB`` / ``16 GB`` / ``4Gb`` -> MiB."""
    m = re.search(r"(\d+(?:\.\d+)?)\s*(MiB|MB|GiB|GB|Gb|G)\b", text or "", re.IGNORECASE)
    if not m:
        return None
    n = float(m.group(1))
    return int(n * 1024) if m.group(2).lower().startswith("g") else int(n)
