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
import threading

import click

from envdoctor.commands._output import check_output_paths, emit, use_color
from envdoctor.errors import BadInput

_CODE = re.compile(r"^[A-Za-z]{2,9}\d{3}$")
REPORT_TEXT_LIMIT = 256 << 10  # pasted-report parsing sees at most this much of the input
REPORT_MAX_INPUT = 2 << 20     # a bigger input is a log, not a pasted issue: no report parsing
DEFAULT_MAX_MB = 512          # a bigger file is read from its last 512 MB (~10 s)


@click.command("explain")
@click.argument("source", required=False, default="-", metavar="[FILE|-|CODE]")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]),
              default="text", show_default=True)
@click.option("--facts", "facts_file", metavar="FILE",
              help="Use a saved facts snapshot (envdoctor facts) instead of probing.")
@click.option("--no-facts", is_flag=True, help="Use the text only: probe nothing.")
@click.option("--output", "-o", metavar="FILE", help="Write the explanation to FILE.")
@click.option("--max-mb", type=click.IntRange(1), default=DEFAULT_MAX_MB, show_default=True,
              help="Read at most the last N MB of a bigger file (a crash is at the end).")
@click.option("--no-redact", is_flag=True,
              help="Keep user and host names, addresses and credentials in the quoted evidence.")
def explain(source: str, fmt: str, facts_file: str | None, no_facts: bool,
            output: str | None, max_mb: int, no_redact: bool = False) -> None:
    """Explain an error: FILE, - (stdin, the default) or a rule CODE (ETORCH001, TORCH001)."""
    check_output_paths(output, ())
    from envdoctor.outputs.sink import keep_credentials
    keep_credentials(no_redact)  # every document of the run, also those written later
    if source != "-" and _CODE.match(source) and not os.path.exists(source):
        emit(_code_doc(source.upper()), output)
        return
    if facts_file and no_facts:
        raise BadInput("--facts and --no-facts exclude each other")
    seen: list[str] = []
    ex = run(source, facts_file, no_facts, max_mb, seen)
    from envdoctor.outputs.renderers import render
    color = use_color(output) and fmt == "text"
    text = render("explain", fmt, ex, color)
    if not no_redact:  # evidence quotes the user's log, pasted into issues (--format markdown)
        from envdoctor.outputs.redact import for_data
        # names learnt from the input (a /home/NAME path) are redacted wherever they appear
        text = for_data([text, *seen]).text(text)
    emit(text, output, fmt, color=color)


def run(source: str, facts_file: str | None = None, no_facts: bool = False,
        max_mb: int | None = None, seen: list[str] | None = None):
    """Read, scan, rank; returns an ``Explanation`` (BadInput on unusable input).

    ``seen`` (if given) receives the head of the input, for redaction to learn names from."""
    from envdoctor import explain as ex_mod
    from envdoctor.explain.deadline import PatternTooSlow
    from envdoctor.rulefiles import RuleFileError

    stream = _open(source)
    head = _Tee(stream, REPORT_TEXT_LIMIT)
    used: list[str] = []

    saved = None
    if facts_file:  # read it now: a bad file is an error even if no condition needs it
        from envdoctor.pipeline import load_facts_file
        saved = load_facts_file(facts_file)

    early = _EarlyProbe() if not (no_facts or saved is not None) else None

    def facts():
        if no_facts:
            return None
        if saved is not None:
            used.append("file")
            return saved
        from envdoctor.explain.conditions import sections_needed
        used.append("live")
        needed = sections_needed(ex_mod.matched_with_conditions(result))
        if early is not None and early.thread is not None:
            return early.facts(needed)
        from envdoctor.probes import collect
        return collect(sections=needed)

    def idle(found: list) -> None:
        _warm(early is not None)
        if early is not None:
            early.start(found)

    try:
        with stream:
            first_line, notes = _skip_to_tail(stream, max_mb or DEFAULT_MAX_MB)
            result = ex_mod.scan_stream(head, first_line, idle, busy=early is not None)
        needs = bool(ex_mod.matched_with_conditions(result))
        report = None
        if needs and head.kept and result.chars <= REPORT_MAX_INPUT:
            report = ex_mod.parse_report_facts(head.text())
        # Facts come from one machine. A report pasted in the text describes the machine the
        # error happened on, so it replaces this machine's facts (mixing them would pair, say,
        # the reporter's GPU with our torch); an explicit --facts snapshot is merged under it.
        provider = None if (report is not None and saved is None) else facts
        diagnoses = ex_mod.rank_result(result, provider, report)
        if head.kept and result.chars <= REPORT_TEXT_LIMIT:  # a pasted text: read it again?
            diagnoses = ex_mod.reread(head.text(), diagnoses, provider, report) or diagnoses
            diagnoses = ex_mod.with_text_readings(head.text(), diagnoses)
    except ex_mod.NotText as exc:
        raise BadInput(f"{source}: {exc}") from None
    except RuleFileError as exc:
        raise BadInput(f"invalid signature file: {exc}") from None
    except PatternTooSlow as exc:
        raise BadInput(f"{source}: {exc}") from None
    except OSError as exc:
        raise BadInput(f"{source}: cannot read: {exc.strerror or exc}") from None
    if report is not None:
        used.append("report")
    if not (result.lines or result.chars):
        notes.append("the input is empty")
    if seen is not None:
        seen.append(head.text())
    from envdoctor.explain.render import Explanation
    return Explanation(diagnoses, lines=result.lines if result.chars else 0, chars=result.chars,
                       first_line=first_line,
                       tracebacks=result.tracebacks, facts_source="+".join(used) or "none",
                       signatures=len(ex_mod.scanner(False).signatures), notes=notes)


def _warm(probes: bool) -> None:
    """Import what the rest of ``explain`` runs (ranking, rendering, redaction and, when
    facts may be probed, the probes): done while the second process of a big log's scan
    finishes (``explain.parallel``), these ~0.1 s cost no wall time. Imports only: the
    answer is the same whether this runs or not."""
    import envdoctor.explain.conditions
    import envdoctor.explain.rank
    import envdoctor.explain.render
    import envdoctor.outputs.redact
    import envdoctor.outputs.renderers  # noqa: F401
    if probes:
        import envdoctor.engine.expr
        import envdoctor.probes  # noqa: F401


class _EarlyProbe:
    """Probes started while a big log's scan is still running in the second process.

    When the part of the log this process scanned already matched signatures with
    conditions, facts will be probed (the whole scan matches at least those), for at least
    the sections those conditions read: they are probed now, in a thread (the probes mostly
    wait for files and commands), and ``facts`` adds any section the whole scan needs beyond
    them. Each probe fills its own section, so the snapshot is the one a single ``collect``
    of the needed sections gives."""

    def __init__(self) -> None:
        self.thread: threading.Thread | None = None
        self.sections: tuple[str, ...] | None = ()
        self.value: list = []

    def start(self, found: list) -> None:
        from envdoctor.explain.conditions import sections_needed
        with_conditions = [sig for sig in found if sig.conditions]
        if not with_conditions:
            return
        from envdoctor.probes import collect
        self.sections = sections_needed(with_conditions)
        self.thread = threading.Thread(
            target=lambda: self.value.append(collect(sections=self.sections)),
            name="early-probes", daemon=True)
        self.thread.start()

    def facts(self, needed: tuple[str, ...] | None):
        from envdoctor.explain.conditions import SECTIONS
        from envdoctor.probes import collect
        assert self.thread is not None
        self.thread.join()
        if not self.value:  # the thread failed: probe as without it
            return collect(sections=needed)
        got = self.value[0]
        have = set(SECTIONS if self.sections is None else self.sections)
        missing = tuple(sec for sec in (SECTIONS if needed is None else needed)
                        if sec not in have)
        if missing:
            more = collect(sections=missing)
            got = got.with_sections({sec: getattr(more, sec) for sec in missing})
        return got


def _skip_to_tail(stream, max_mb: int) -> tuple[int, list[str]]:
    """For a regular file over ``max_mb``, seek to its last ``max_mb`` MB.

    The skipped part's newlines are counted (a C-speed ``bytes.count`` per 8 MB) so line
    numbers stay those of the file. Pipes and small files are read whole.
    """
    try:
        size = os.fstat(stream.fileno()).st_size
        seekable = stream.seekable() and stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (OSError, AttributeError, ValueError):
        return 1, []
    cap = max_mb << 20
    if not seekable or size <= cap:
        return 1, []
    skip, newlines = size - cap, 0
    while stream.tell() < skip:
        piece = stream.read(min(8 << 20, skip - stream.tell()))
        if not piece:
            break
        newlines += piece.count(b"\n")
    return newlines + 1, [f"the input is {size / (1 << 20):.0f} MB: only its last {max_mb} MB "
                          f"were read (from line {newlines + 1}; see --max-mb)"]


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

    def fileno(self) -> int:  # for explain.parallel: a big regular file is split by offset
        return self.stream.fileno()

    def tell(self) -> int:
        return self.stream.tell()


def _open(source: str):
    """The input as a binary stream, through the bounded reader: stdin, a pipe, or a regular
    file (a directory, a device or a FIFO nobody writes to is one line, exit 2)."""
    from envdoctor.bounded import open_input
    if source == "-":
        if sys.stdin is None:
            raise BadInput("no input: give a FILE or pipe text on stdin")
        if sys.stdin.isatty():
            from envdoctor.outputs.stderr import say
            say("envdoctor explain: reading the error text from stdin "
                "(end with Ctrl-D; or give a FILE)")
    try:
        return open_input(source, "a log or a traceback")  # a FIFO or device never hangs us
    except BadInput as exc:
        if "is a directory" in exc.format_message():
            raise BadInput(f"{source}: is a directory; give a log file or pipe the text on "
                           "stdin") from None
        raise


def _code_doc(code: str) -> str:
    """`explain CODE`: the rule's documentation, from the same printer as `rules show`."""
    from envdoctor.rulebook import catalog
    from envdoctor.rulefiles import RuleFileError
    try:
        doc = catalog.find(code)
    except RuleFileError as exc:
        raise BadInput(f"invalid rule file: {exc}") from None
    if doc is None:
        raise BadInput(f"{code}: no such signature, check, requirement or fleet rule code "
                       f"(and no such file)")
    return catalog.render(doc)
