"""Hostile strings and the checks every sink must pass, shared by the sanitiser's unit tests
and the end-to-end tests through the real CLI.

``honoured`` reads a log as the GitHub Actions runner does (its ``ActionCommandManager``):
lines end at CR, LF or CRLF; a line whose text, after leading white space, starts with
``::`` is a workflow command; a line holding ``##[`` anywhere is a legacy one.
"""

from __future__ import annotations

import re

# Every escape a terminal acts on, and the characters that fool a reader
HOSTILE = ("\x1b]0;pwned-title\x07"          # OSC 0: window title
           "\x1b]2;pwned-title2\x1b\\"       # OSC 2 ended by ST
           "\x1b[2J\x1b[H"                   # CSI: clear the screen, cursor home
           "\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07"   # OSC 8 hyperlink
           "\x1b]52;c;cm0gLXJmIH4=\x07"      # OSC 52: write the clipboard
           "\x1bP1$qm\x1b\\"                 # DCS
           "\x1b"                            # a bare ESC
           "\x9b31m\x9d0;c1-title\x9c\x85"   # C1: CSI, OSC, ST, NEL
           "\u202eevil\u202c\u2066iso\u2069\u200f"  # bidi override, isolate, mark
           "\u2028\r\x08\x7f"                # line separator, CR, backspace, DEL
           "\U000e0069\U000e0067\U000e006e"    # tag characters (invisible "ign")
           "to\u200bken\u2060\u00ad\ufeff"        # zero-width space, word joiner, soft hyphen
           "|<script>alert(1)</script><img src=x onerror=alert(1)>"
           "[x](javascript:alert(1))![i](https://evil.example/p.png)`code`**b**"
           "\n::error title=forged::forged annotation"
           "\n  ::add-mask::forged-indent"
           "\n\u3000::stop-commands::forged-wide-space"
           "\r::set-output name=x::forged-cr"
           "\n##[error]forged legacy ##[group]forged inline"
           "\n&lt;b&gt;entity&amp;\n")

# Characters no sink may write raw (tab and newline are fine)
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e"
                    "\u2066-\u2069\ud800-\udfff\ufffe\uffff\U000e0000-\U000e007f"
                    # invisible format characters: zero-width space/joiners, word joiner, soft
                    # hyphen, fillers, variation selectors supplement
                    "\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d"
                    "\u2060-\u2065\u206a-\u206f\u3164\uffa0\ufeff\ufff9-\ufffb"
                    "\U0001d173-\U0001d17a\U000e0100-\U000e01ef]")

ANNOTATION = re.compile(r"::(error|warning|notice)( (file|title)=[^:,]*(,(file|title)=[^:,]*)*)?::")


def raw_unsafe(text: str) -> list[str]:
    """The unsafe characters found raw in ``text`` (empty: safe for a terminal)."""
    return sorted({f"U+{ord(c):04X}" for c in UNSAFE.findall(text)})


def honoured(log: str) -> list[str]:
    """The lines of ``log`` the Actions runner would act on as workflow commands."""
    out = []
    for line in re.split(r"\r\n|\r|\n", log):
        if line.lstrip().startswith("::") or "##[" in line:
            out.append(line)
    return out


def commands_by_kind(log: str) -> dict[str, list[str]]:
    """The honoured lines as annotations, groups and anything else ("other" must be empty;
    the caller counts the annotations against the findings: a forged one adds to them)."""
    out: dict[str, list[str]] = {"annotation": [], "group": [], "other": []}
    for line in honoured(log):
        if "##[" not in line and ANNOTATION.match(line):
            out["annotation"].append(line)
        elif line in ("::group::envdoctor report", "::endgroup::"):
            out["group"].append(line)
        else:
            out["other"].append(line)
    return out
