"""probes -> facts -> rules -> findings -> report: the one flow every command runs.

``collect`` gets the facts (probe this machine, replay a saved snapshot, or parse a pasted
report) and runs the live workers and smoke kernels on them; ``build`` owns everything after:
rules, then the policy, then the summary and the smoke block, then redaction, and returns the
report frozen. ``check`` and ``report`` are ``build(collect(...))`` with different renderers;
nothing after ``build`` changes the report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from envdoctor.errors import BadInput
from envdoctor.facts import SECTIONS, Facts, FactsError
from envdoctor.outputs.report import Report

if TYPE_CHECKING:
    from envdoctor.engine.checks import Check
    from envdoctor.gate.policy import Policy


def read_snapshot(path: str, *, judged: bool = True) -> tuple[Facts, Any]:
    """A saved snapshot (or a whole `check --format json` output) and its JSON as read, read
    once through the bounded reader (size, depth, numbers; ``-`` and pipes allowed) and decoded
    into the facts model; BadInput naming the file and the field on failure.

    A pasted report given where a snapshot belongs is named as such (with the option that
    reads it)."""
    from envdoctor.bounded import load_json_file
    try:
        data = load_json_file(path, "a facts file")  # size, depth, FIFO and device capped
    except BadInput as exc:
        if "not valid JSON" in str(exc) and _looks_like_report(path):
            raise BadInput(f"{path}: is not a facts snapshot (it looks like a pasted report: "
                           f"use `check --from FILE`)") from None
        raise
    _READ[path] = data
    return facts_of(data, path, judged=judged), data


def facts_of(data: Any, path: str, *, judged: bool = True) -> Facts:
    """A snapshot's JSON decoded into the facts model; BadInput names the file and the field.
    A snapshot that observed nothing is bad input where it is ``judged`` (a verdict on it would
    say OK about a machine nobody looked at); `diff` only compares, so a sparse one is fine."""
    try:
        facts = Facts.from_dict(data)
    except FactsError as exc:
        raise BadInput(f"{path}: {exc}") from None
    if judged and not has_facts(facts):
        raise BadInput(f"{path}: snapshot has no facts (no section was observed: "
                       f"{', '.join(SECTIONS)} are all missing or unknown)")
    # probed elsewhere or earlier: the header says it is a replayed snapshot, not this machine
    return replace(facts, origin="replay") if facts.origin == "live" else facts


_READ: dict[str, Any] = {}  # each snapshot's JSON, for the blocks beside its facts (no 2nd read)


def load_facts_file(path: str, *, judged: bool = True) -> Facts:
    """Read a saved snapshot (or a whole `check --format json` output); BadInput on failure."""
    return read_snapshot(path, judged=judged)[0]


def has_facts(facts: Facts) -> bool:
    """Whether any section answered (ok, not found, failed, skipped) or a live worker ran."""
    from envdoctor.facts import Status
    return bool(facts.live) or any(getattr(facts, name).probe.status is not Status.UNKNOWN
                                   for name in SECTIONS)


def _looks_like_report(path: str) -> bool:
    """A regular file whose text the report parsers recognise (``check --from`` reads it)."""
    from envdoctor.bounded import InputError, read_file
    from envdoctor.parsers import parse_text
    try:  # a regular file only: a pipe was read once already, do not guess
        text = read_file(path, "a facts file").decode("utf-8", "replace")
    except InputError:
        return False
    return parse_text(text) is not None


def saved_smoke(path: str) -> dict[str, Any] | None:
    """The ``smoke`` block of a saved `check --format json` output, if the file is one."""
    data = _READ.get(path)
    if data is None:
        from envdoctor.bounded import InputError, decode_json, read_file
        try:
            data = decode_json(read_file(path, "a facts file"), unique=True)
        except InputError:
            return None
    smoke = data.get("smoke") if isinstance(data, dict) else None
    return smoke if isinstance(smoke, dict) else None


def load_checks() -> list[Check]:
    from envdoctor.engine import checks
    from envdoctor.rulefiles import RuleFileError
    try:
        return checks.load_checks()
    except RuleFileError as exc:
        raise BadInput(f"invalid rule file: {exc}") from None


class _Preload:
    """Load the checks in a thread while the probes wait on their subprocesses (nvcc,
    ldconfig): the import and the cache read overlap with I/O instead of following it.
    The result (or the error) is handed over on ``get``, so nothing changes but the time."""

    def __init__(self) -> None:
        import threading
        self.box: dict[str, Any] = {}
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.box["checks"] = load_checks()
        except BaseException as exc:  # handed to the main thread by get()
            self.box["error"] = exc

    def get(self) -> list[Check]:
        self.thread.join()
        if "error" in self.box:
            raise self.box["error"]
        return self.box["checks"]


# ---------------------------------------------------------------------------- collect
def collect(*, report_file: str | None = None, facts_file: str | None = None,
            live: bool = False, frameworks: str | None = None, timeout: float | None = None,
            suite: str = "quick", smoke: bool = True, root: str | None = None) -> Facts:
    """The facts of one run: a pasted report, a saved snapshot, or this machine's probes
    (then, with ``live``, the framework workers and smoke kernels too). ``root`` (``--root``)
    is the tree the static probes read system files under."""
    if root is not None:
        if report_file or facts_file:
            raise BadInput("--root reads a machine's files: it excludes --facts and --from")
        if live:
            raise BadInput("--root needs --static (the framework workers run on this machine)")
        from envdoctor.probes import collect as probe_root
        return probe_root(root=root_dir(root))
    if report_file and facts_file:
        raise BadInput("--facts and --from exclude each other: give a snapshot or a pasted report")
    if report_file:
        from envdoctor.parsers import load_report_file
        return load_report_file(report_file)
    if facts_file:
        return load_facts_file(facts_file)
    from envdoctor.probes import collect as probe
    if not live:
        return probe()

    from envdoctor.live.cli import live_options, run_for_check
    options = live_options(frameworks, timeout)  # a bad --framework: exit 2 before probing
    return run_for_check(probe(), options, suite, smoke)


def root_dir(text: str) -> Path:
    """``--root DIR`` checked: an existing folder (BadInput, one line, otherwise)."""
    import os
    path = Path(os.path.abspath(os.path.expanduser(text)))
    if not text:
        raise BadInput("--root: give a folder (the root of an image or a mounted disk)")
    if not path.exists():
        raise BadInput(f"--root {text}: no such folder")
    if not path.is_dir():
        raise BadInput(f"--root {text}: not a folder")
    return path


# ---------------------------------------------------------------------------- build
def preload_checks() -> _Preload:
    """Start loading the checks now (pass the result to ``build(checks=...)``)."""
    return _Preload()


def build(facts: Facts, *, intent: str = "auto", fail_on: str = "error",
          policy: Policy | None = None, redact: bool = False,
          extra: Mapping[str, Any] | None = None,
          checks: Sequence[Check] | _Preload | None = None) -> Report:
    """The report, built once and frozen, in this order: checks -> smoke block -> policy
    (requirements, ignores) -> findings and summary -> redaction.

    ``extra`` holds blocks a caller already has (the ``smoke`` block of a replayed check
    JSON); the run's own smoke results win over it.
    """
    from envdoctor.engine import checks as engine
    blocks: dict[str, Any] = dict(extra or {})
    more_areas = []
    if facts.live:
        from envdoctor.live import smoke_report
        from envdoctor.live.cli import smoke_areas
        own = smoke_report(facts)
        if own or "smoke" not in blocks:
            blocks["smoke"] = own
        more_areas = smoke_areas(facts)
    if isinstance(checks, _Preload):
        checks = checks.get()
    facts = diagnosed(facts)
    results = engine.evaluate(facts, list(checks) if checks is not None else load_checks(),
                              intent)
    if policy is not None and not policy.empty:
        from envdoctor.gate.policy import judge
        results, block = judge(policy, facts, results, blocks)
        blocks["policy"] = block
    found = engine.findings_of(results)
    if facts.origin == "report":  # an extension's own report of the CUDA that built its ops
        from envdoctor.engine.text_findings import extension_build
        found = extension_build(facts, found)
    if facts.diagnoses:  # a pasted text's own error lines: one engine, one cause one finding
        from envdoctor.engine.text_findings import merge
        found = merge(facts, found, {r.code for r in results if r.state == "passed"})
    if facts.origin == "report":  # say which findings rest on facts a person only wrote
        from envdoctor.engine.text_findings import annotate_stated
        found = annotate_stated(facts, found)
    report = Report.build(facts, results, found, intent, fail_on,
                          extra=blocks, more_areas=more_areas)
    if redact:
        from envdoctor.outputs.redact import redact_report
        report = redact_report(report)
    return report


def diagnosed(facts: Facts) -> Facts:
    """The facts the checks judge: each failed probe's text read by the error signatures
    (``envdoctor.live.failures``), so a failure that names a known state is that diagnosis."""
    from envdoctor.live.failures import with_probe_diagnoses
    return with_probe_diagnoses(facts)


def diagnose(facts: Facts, intent: str = "auto", fail_on: str = "error") -> Report:
    """The report of the checks alone (no policy, no redaction): for tests and ``diff``."""
    return build(facts, intent=intent, fail_on=fail_on)
