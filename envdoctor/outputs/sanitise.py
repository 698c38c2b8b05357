"""One sanitiser per kind of output, applied once, where text leaves envdoctor (the sink).

Everything envdoctor prints quotes outside text: a GPU name from nvidia-smi, a worker's
ImportError, a dist-info folder name, a pasted report, a snapshot value. Renderers format it
as it is; the sink (``envdoctor.outputs.sink``) passes each document through the sanitiser of
its kind, after redaction:

``terminal``  text, explain, diff, stderr lines, crash logs: control characters, escape
              sequences (CSI, OSC 0/2/8/52, DCS, bare ESC), C1 controls (0x9b is a CSI),
              bidi overrides and isolates, line separators, invisible format characters
              (zero-width space/joiner, word joiner, soft hyphen, tags), lone surrogates and
              non-characters are written visibly (``\\x1b``, ``\\x9b``, ``\\u202e``), never
              deleted in silence;
              and no line reads as a GitHub workflow command (a log is ``cat`` in CI steps):
              ``::`` at a line start (after any blank) or after a blank or mark inside a
              line (a prefixing renderer moves it to a start) becomes ``: :``, ``##[``
              ``## [``.
``github``    the same, but for envdoctor's own commands (an annotation, a group): renderers
              write those with ``command`` and pass outside text through ``github_log``; the
              sink lets no other command through (``stop-commands``, ``add-mask`` ...).
``markdown``  the terminal rule for the document; the data in it is escaped by the renderer
              with ``md_text``, ``md_cell``, ``md_code`` and ``md_fence`` (only the renderer
              knows which text is a table cell); no raw ``<`` of the data stays, not even in
              a code block.
``xml``       JUnit: unsafe characters spelled out (which removes every character XML 1.0
              forbids: C0 but tab, newline and CR; surrogates; U+FFFE, U+FFFF); command
              markers as character references (the parsed text is unchanged).
``json``      JSON, SARIF: the same characters, and ``##[``, as ``\\uXXXX`` escapes (they only
              stand inside strings): valid JSON, the same values, safe on a terminal and in a log.
``reason``    NHC and node-problem-detector (``--format nhc``/``npd``): at most one line of
              at most ``REASON_MAX`` printable ASCII characters, with no quote, backtick,
              ``$``, backslash or ``!`` (NHC's ``die`` evals the message inside single quotes
              and Slurm stores it as ``Reason="..."``), so it can be pasted into ``scontrol
              update ... reason="..."`` as it is. NPD cuts its message at 80 bytes.
``prometheus`` the node exporter textfile format: the terminal rule (a ``.prom`` file is
              ``cat`` in CI too); label values were already escaped by the renderer
              (``prom_label``), so nothing unsafe is left for the rule to spell out.

envdoctor's own colours are written with ``style``, which marks them with a per-process random
token that no input can contain; the terminal sink turns only marked colours into escape
sequences.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

# Private-use characters: not word characters (no redaction pattern matches them), not
# whitespace (no wrapping splits them), and unknowable to the input.
MARK = "\x00" + "".join(chr(0xE000 + b) for b in os.urandom(12)) + "\x00"

KINDS = {"text": "terminal", "github": "github", "markdown": "markdown", "junit": "xml",
         "sarif": "json", "json": "json", "nhc": "reason", "npd": "reason",
         "prometheus": "prometheus"}

_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f"     # C0 but tab and newline; DEL; C1 (0x9b is a CSI)
    "\u061c\u200e\u200f"               # bidi marks
    "\u2028-\u202e\u2066-\u2069"       # line/paragraph separators, bidi embeddings/overrides
    # invisible format characters: a zero-width space, joiner or word joiner inside a word
    # hides it from a reader and from every search (a token cut by one, a code that reads as
    # another); soft hyphen, combining grapheme joiner, Mongolian and Khmer invisibles, Hangul
    # fillers, invisible math operators, deprecated format controls. Variation selectors
    # U+FE00-FE0F stay (an emoji's presentation: envdoctor's own icons carry U+FE0F); their
    # supplement (U+E0100-E01EF, no glyph of any script) does not
    "\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2065"
    "\u206a-\u206f\u3164\uffa0\U0001d173-\U0001d17a"
    "\ud800-\udfff"                    # lone surrogates (not encodable, not XML)
    "\ufeff\ufff9-\ufffb\ufffe\uffff"   # BOM, interlinear annotations, non-characters
    "\U000e0000-\U000e007f"            # tag characters: invisible ASCII look-alikes
    "\U000e0100-\U000e01ef]")           # variation selectors supplement (hidden bytes)
_OWN_SGR = re.compile(r"\[[0-9;]*m")
_SGR = {"bold": 1, "dim": 2, "red": 31, "green": 32, "yellow": 33, "cyan": 36}


def _visible(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str) -> str:
    """``text`` with every unsafe character spelled out; tab and newline are kept."""
    return _UNSAFE.sub(lambda m: _visible(m.group()), text)


# ---------------------------------------------------------------------------- own markup
def style(text: str, spec: str) -> str:
    """``text`` in envdoctor's colours (``"bold red"``); only the terminal sink with colour on
    turns the marks into escape sequences, otherwise they are dropped."""
    codes = ";".join(str(_SGR[w]) for w in spec.split() if w in _SGR)
    body = text.rstrip("\n")
    if not codes or not body:
        return text
    return f"{MARK}[{codes}m{body}{MARK}[0m{text[len(body):]}"  # the reset before a newline


def command(name: str, message: str, properties: dict[str, str] | None = None) -> str:
    """One of envdoctor's own workflow commands, escaped as the Actions toolkit does: ``%``,
    CR and LF in the message, also ``:`` and ``,`` in properties; nothing in it is raw."""
    props = ",".join(f"{k}={_no_legacy(visible(escape_property(v)))}"
                     for k, v in (properties or {}).items())
    data = _MID_COMMAND.sub(": :", _no_legacy(visible(escape_data(message))))
    return f"::{name}{' ' + props if props else ''}::{data}"


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github_log(text: str) -> str:
    """Outside text for a GitHub Actions log: no line of it can be read as a workflow
    command, whatever it holds (the runner trims leading blanks before ``::``, and honours
    ``##[`` anywhere). Renderers put the report's data through it; only the renderer knows
    which of its lines are its own commands (``command``)."""
    return inert(visible(text))


def inert(text: str) -> str:
    """Every line of ``text`` unreadable as a workflow command (stdout of any kind under
    GitHub Actions is read by the runner too)."""
    return "\n".join(_inert(line) for line in text.split("\n"))


def _inert(line: str) -> str:
    line = _no_legacy(line)
    start = _BLANKS.match(line).end()  # type: ignore[union-attr]
    if line.startswith("::", start):
        line = f"{line[:start]}: :{line[start + 2:]}"
    return _MID_COMMAND.sub(": :", line)


# ``::name`` after a blank or a mark, inside a line: a renderer that prefixes or wraps lines
# (``5: ``, ``> ``, an indent) can move it to a line start. ``std::vector`` and ``a::b`` stay.
_MID_COMMAND = re.compile(r"(?<![\w:])::(?=[A-Za-z])")


# ---------------------------------------------------------------------------- sinks
def _shown(text: str, color: bool = False) -> str:
    """Unsafe characters spelled out; envdoctor's marked colours kept (``color``) or dropped."""
    if MARK not in text:
        return visible(text)
    parts = text.split(MARK)
    out = [visible(parts[0])]
    for part in parts[1:]:
        own = _OWN_SGR.match(part)
        if own:
            if color:
                out.append("\x1b" + own.group())
            part = part[own.end():]
        out.append(visible(part))
    return "".join(out)


def terminal(text: str, color: bool = False) -> str:
    """Text for a terminal, or a log someone will ``cat`` in a CI step: nothing unsafe stays
    raw, and no line reads as a workflow command (the runner reads every line of a step)."""
    return inert(_shown(text, color))


_BREAKS = re.compile(r"\r\n|[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def flat(text: object) -> str:
    """A value for one line of a line-oriented document (a check's detail, a finding's title, a
    diff row): every line break in it written as ``\\n`` (``\\r``, ...), so a GPU name, a
    hostname or an environment value from outside can never start a line of its own (a forged
    ``[✓] All checks passed``, or ``::error`` at a line start). Renderers call it on the data
    they put in one line; the sink spells out what else is unsafe."""
    return _BREAKS.sub(lambda m: "\\n" if m.group() in ("\n", "\r\n") else _visible(m.group()),
                       str(text))


def has_break(text: str) -> bool:
    return _BREAKS.search(text) is not None


def one_line(text: str) -> str:
    """An error or note line for stderr: terminal-safe, and a newline in a quoted value is
    shown as ``\\n`` (the message stays one line; no quoted text starts a line of its own)."""
    return terminal(text).replace("\n", "\\n")


_LEGACY = re.compile(r"##\[")
_BLANKS = re.compile(r"\s*")


def _no_legacy(line: str) -> str:
    """``##[cmd]`` is honoured anywhere in a line: ``##[`` becomes ``## [``."""
    return _LEGACY.sub("## [", line)


# the commands envdoctor writes, and nothing but escaped text in them
_OWN_COMMAND = re.compile(r"::(?:(?:error|warning|notice)(?: (?:file|title)=[^:,]*"
                          r"(?:,(?:file|title)=[^:,]*)*)?::.*|group::.*|endgroup::)")


def github(text: str) -> str:
    """GitHub Actions log text: terminal-safe, and every line that is not one of the
    commands envdoctor writes (an annotation, a group) is made inert (``github_log``): a
    ``stop-commands``, ``add-mask`` or ``set-output`` can never get through, wherever it
    came from."""
    return "\n".join(line if _OWN_COMMAND.fullmatch(line) and "##[" not in line
                     else _inert(line) for line in _shown(text).split("\n"))


_XML_COMMAND = re.compile(r"^(\s*):(?=:)", re.M)


def xml(text: str) -> str:
    """An XML document: unsafe characters spelled out (which also removes every character XML
    1.0 forbids), and workflow-command markers written as character references, so a CI log
    that shows the file honours none while the parsed text stays exactly the same."""
    text = _LEGACY.sub("#&#35;[", _shown(text))
    return _XML_COMMAND.sub(r"\1&#58;", text)


_JSON_UNSAFE = re.compile(_UNSAFE.pattern.replace("\x0b-\x1f", "\x0b\x0c\x0e-\x1f"))


def json(text: str) -> str:
    """A JSON document: unsafe characters and ``##[`` (only ever inside strings) as ``\\uXXXX``
    escapes: valid JSON, the same values, inert in a terminal and in a CI log."""
    text = _LEGACY.sub("#\\\\u0023[", text.replace(MARK, ""))  # the same string, inert in a log
    return _JSON_UNSAFE.sub(lambda m: _json_escape(m.group()), text)


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a surrogate pair, as JSON spells a character beyond the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


# ---------------------------------------------------------------------------- one reason line
REASON_MAX = 80  # node-problem-detector's default max_output_length (bytes); ASCII: one each
_REASON_KEEP = re.compile(r"[A-Za-z0-9 .,:;_+\-=/@()\[\]<>%#?~^*]")
_REASON_DROP = frozenset("'\"`")


def _reason_char(ch: str) -> str:
    if _REASON_KEEP.fullmatch(ch):
        return ch
    if ch in _REASON_DROP:
        return ""
    if ch.isspace():
        return " "
    import unicodedata
    ascii_form = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
    if ascii_form and all(_REASON_KEEP.fullmatch(c) for c in ascii_form):
        return ascii_form  # é -> e, the fi ligature -> fi
    return "?"


def reason(text: str) -> str:
    """One short line a scheduler can store and a shell can quote: printable ASCII without
    quotes, backticks, ``$``, backslashes or ``!`` (each unsafe character is ``?``, a quote is
    dropped, an accented letter loses its accent), whitespace collapsed, at most
    ``REASON_MAX`` characters (a longer one ends in ``...``). Empty stays empty (NHC's
    healthy run prints nothing)."""
    line = " ".join("".join(_reason_char(ch) for ch in text.replace(MARK, "")).split())
    if len(line) > REASON_MAX:
        line = line[:REASON_MAX - 3].rstrip() + "..."
    return line + "\n" if line else ""


def prometheus(text: str) -> str:
    """A node exporter textfile: terminal-safe, no colour (see ``prom_label``)."""
    return terminal(text)


def prom_label(value: object) -> str:
    """A label value of the Prometheus text format: unsafe characters spelled out, blanks
    collapsed, made inert for a log, then ``\\`` and ``"`` escaped as the format requires
    (a newline cannot remain after the collapse)."""
    text = inert(visible(" ".join(("" if value is None else str(value)).split())))
    return text.replace("\\", "\\\\").replace('"', '\\"')


SINKS: dict[str, Callable[[str], str]] = {"terminal": terminal, "github": github,
                                           "markdown": terminal, "xml": xml, "json": json,
                                           "reason": reason, "prometheus": prometheus}


def clean(kind: str, text: str, color: bool = False) -> str:
    """``text`` made safe for its kind (a ``--format`` name or a sink kind)."""
    kind = KINDS.get(kind, kind)
    if kind == "terminal":
        return terminal(text, color)
    return SINKS[kind](text)


# ---------------------------------------------------------------------------- Markdown data
_MD_INLINE = re.compile(r"[\\`*_\[\]|~]")
_MD_HTML = re.compile(r"<|&(?=#?\w+;)")  # a tag or an entity; a lone > or & is inert
_MD_LEADING = re.compile(r"^([ \t]*)(?:([#>+=-])|(\d+)([.)]))", re.M)


def md_text(value: object) -> str:
    """Outside text as Markdown that shows exactly that text: HTML and Markdown syntax
    (emphasis, links, images, code, tables) are escaped, and it starts no block."""
    return _MD_LEADING.sub(_md_leading, _md_inline(value))


def _md_inline(value: object) -> str:
    text = "" if value is None else str(value)
    text = _MD_HTML.sub(lambda m: "&lt;" if m.group() == "<" else "&amp;", text)
    return _MD_INLINE.sub(lambda m: "\\" + m.group(), text)


def _md_leading(m: re.Match[str]) -> str:
    if m.group(2):
        return f"{m.group(1)}\\{m.group(2)}"
    return f"{m.group(1)}{m.group(3)}\\{m.group(4)}"


def md_line(value: object) -> str:
    """``md_text`` on one line: a newline in the value cannot start a new block."""
    return md_text(" ".join(("" if value is None else str(value)).split()))


def md_cell(value: object) -> str:
    """A table cell: one line, escaped (a cell starts no block); empty shows as a dash."""
    return _md_inline(" ".join(("" if value is None else str(value)).split())) or "—"


def md_code(value: object) -> str:
    """Inline code (literal, fit for a table cell): fenced by more backticks than it holds."""
    text = " ".join(("" if value is None else str(value)).split()).replace("|", "\\|")
    if not text:
        return "—"
    fence = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_fence(value: str, info: str = "") -> list[str]:
    """A code block showing ``value`` verbatim: fenced by more backticks than any run inside,
    so the value cannot close it. A value holding ``<`` is a ``<pre>`` block with ``<`` and
    ``&`` as entities instead: it shows the same text, and no tag stands raw in the file (a
    viewer that does not render Markdown, or a sanitiser that reads it, sees no HTML)."""
    if "<" in value:
        body = value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return ["<pre>", *body.splitlines(), "</pre>"]
    fence = "`" * max(3, max((len(r) for r in re.findall(r"`+", value)), default=0) + 1)
    return [fence + info, *value.splitlines(), fence]


def md_link(ref: str) -> str:
    """A reference: an http(s) autolink when it is a plain URL, else inline code."""
    if re.fullmatch(r"https?://[^\s<>`\"'\\]+", ref):
        return f"<{ref}>"
    return md_code(ref)
