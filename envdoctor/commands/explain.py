"""`envdoctor explain [FILE|-|CODE]`: name the root cause of an error from its text.

Reads a traceback, a whole log or a pasted issue as a stream (see envdoctor/explain/reader).
Exit codes: 0 the input was read (whether or not anything was recognised), 2 bad input (a
missing path, a directory, a binary file, an unknown CODE, a bad --facts file), 3 internal error.
"""

from __future__ import annotations

import os
import re
import stat
import sys

import click

from envdoctor.errors import BadInput

_CODE = re.compile(r"^[A-Za-z]{2,9}\d{3}$")
REPORT_TEXT_LIMIT = 4 << 20   # pasted-report parsing sees at most this much of the input


@click.command("explain")
@click.argument("source", required=False, default="-", metavar="[FILE|-|CODE]")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]),
              default="text", show_default=True)
@click.option("--facts", "facts_file", metavar="FILE",
              help="Use a saved facts snapshot (envdoctor facts) instead of probing.")
@click.option("--no-facts", is_flag=True, help="Use the text only: probe nothing.")
@click.option("--output", "-o", metavar="FILE", help="Write the explanation to FILE.")
def explain(source: str, fmt: str, facts_file: str | None, no_facts: bool,
            output: str | None) -> None:
    """Explain an error: FILE, - (stdin, the default) or a rule CODE (ETORCH001, TORCH001)."""
    from envdoctor.commands.check import emit, use_color
    if source != "-" and _CODE.match(source) and not os.path.exists(source):
        emit(_code_doc(source.upper()), output)
        return
    if facts_file and no_facts:
        raise BadInput("--facts and --no-facts exclude each other")
    ex = run(source, facts_file, no_facts)
    from envdoctor.explain.render import RENDERERS
    emit(RENDERERS[fmt](ex, use_color(output) and fmt == "text"), output)


def run(source: str, facts_file: str | None = None, no_facts: bool = False):
    """Read, scan, rank; returns an ``Explanation`` (BadInput on unusable input)."""
    from envdoctor import explain as ex_mod
    from envdoctor.explain.render import Explanation
    from envdoctor.knowledge import RuleFileError

    stream = _open(source)
    head = _Tee(stream, REPORT_TEXT_LIMIT)
    used: list[str] = []

    saved = None
    if facts_file:  # read it now: a bad file is an error even if no condition needs it
        from envdoctor.pipeline import load_facts_file
        saved = load_facts_file(facts_file)

    def facts():
        if no_facts:
            return None
        if saved is not None:
            used.append("file")
            return saved
        from envdoctor.explain.conditions import sections_needed
        from envdoctor.probes import collect
        used.append("live")
        return collect(sections=sections_needed(ex_mod.matched_with_conditions(result)))

    try:
        with stream:
            result = ex_mod.scan_stream(head)
        needs = bool(ex_mod.matched_with_conditions(result))
        report = ex_mod.parse_report_facts(head.text()) if head.kept and needs else None
        diagnoses = ex_mod.rank_result(result, facts, report)
    except ex_mod.NotText as exc:
        raise BadInput(f"{source}: {exc}") from None
    except RuleFileError as exc:
        raise BadInput(f"invalid signature file: {exc}") from None
    except OSError as exc:
        raise BadInput(f"{source}: cannot read: {exc.strerror or exc}") from None
    if report is not None:
        used.append("report")
    notes = [] if result.lines or result.chars else ["the input is empty"]
    return Explanation(diagnoses, lines=result.lines if result.chars else 0, chars=result.chars,
                       tracebacks=result.tracebacks, facts_source="+".join(used) or "none",
                       signatures=len(ex_mod.scanner().signatures), notes=notes)


class _Tee:
    """A read-through wrapper that keeps the first ``limit`` bytes for the report parsers."""

    def __init__(self, stream, limit: int):
        self.stream, self.limit, self.buf, self.kept = stream, limit, bytearray(), False

    def read(self, n: int = -1) -> bytes:
        data = self.stream.read(n)
        if len(self.buf) < self.limit:
            self.buf += data[: self.limit - len(self.buf)]
            self.kept = self.kept or bool(data)
        return data

    def text(self) -> str:
        return bytes(self.buf).decode("utf-8", errors="replace")


def _open(source: str):
    if source == "-":
        if sys.stdin is None:
            raise BadInput("no input: give a FILE or pipe text on stdin")
        return getattr(sys.stdin, "buffer", sys.stdin)
    try:
        st = os.stat(source)
    except FileNotFoundError:
        raise BadInput(f"{source}: no such file") from None
    except OSError as exc:
        raise BadInput(f"{source}: cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise BadInput(f"{source}: is a directory; give a log file or pipe the text on stdin")
    try:
        return open(source, "rb")
    except OSError as exc:
        raise BadInput(f"{source}: cannot read: {exc.strerror or exc}") from None


def _code_doc(code: str) -> str:
    from envdoctor.explain.render import render_check_doc, render_signature_doc
    from envdoctor.explain.signatures import load_signatures
    from envdoctor.knowledge import RuleFileError
    try:
        for sig in load_signatures():
            if sig.code == code:
                return render_signature_doc(sig)
        from envdoctor import engine
        for check in engine.load_checks():
            if check.code == code:
                return render_check_doc(check)
    except RuleFileError as exc:
        raise BadInput(f"invalid rule file: {exc}") from None
    raise BadInput(f"{code}: no such signature or check code (and no such file)")
