"""GitHub Actions workflow commands: one annotation per finding, then the text report folded.

``::error title=TITLE::MESSAGE`` (``warning`` and ``notice`` for the other severities) shows
on the run's summary page and, with ``file=``, on the policy file. Escaping follows the
Actions toolkit (``%``, CR, LF in data; also ``:`` and ``,`` in properties):
https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands
"""

from __future__ import annotations

from envdoctor.outputs.renderers import text
from envdoctor.outputs.renderers.sarif import _policy_file
from envdoctor.outputs.report import Report

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def render(report: Report, color: bool = False) -> str:
    where = _policy_file(report)
    lines = []
    for f in report.findings:
        props = [f"title={escape_property(f'{f.code} {f.title}')}"]
        if where:
            props.insert(0, f"file={escape_property(where)}")
        message = " ".join(f.why.split())
        if f.fix:
            message += "\nfix: " + f.fix.strip()
        lines.append(f"::{COMMANDS[f.severity.value]} {','.join(props)}::"
                     f"{escape_data(message or f.title)}")
    lines.append("::group::envdoctor report")
    body = text.render(report, False)
    # a line of the folded text must not be read as a workflow command
    lines += [("  " + ln if ln.startswith("::") else ln) for ln in body.splitlines()]
    lines.append("::endgroup::")
    counts = report.counts()
    verdict = "OK" if report.exit_code == 0 else "FAIL"
    lines.append(f"envdoctor: {verdict}: {counts['error']} error(s), {counts['warning']} "
                 f"warning(s), {counts['info']} info; fail-on {report.fail_on}")
    return "\n".join(lines) + "\n"
