"""GitHub Actions workflow commands: one annotation per finding, then the text report folded.

``::error title=TITLE::MESSAGE`` (``warning`` and ``notice`` for the other severities) shows
on the run's summary page and, with ``file=``, on the policy file. The commands are built
with ``sanitise.command`` (escaped as the Actions toolkit does: ``%``, CR, LF in data; also
``:`` and ``,`` in properties); the folded text goes through ``sanitise.github_log``, so a
``::`` or ``##[`` in the report's data (a pasted GPU name) is never honoured.
https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands
"""

from __future__ import annotations

from envdoctor.outputs.renderers import text
from envdoctor.outputs.renderers.sarif import _policy_file
from envdoctor.outputs.report import Report
from envdoctor.outputs.sanitise import command, escape_data, escape_property, github_log

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}
__all__ = ["escape_data", "escape_property", "render"]


def render(report: Report, color: bool = False) -> str:
    where = _policy_file(report)
    lines = []
    for f in report.findings:
        props = {"file": where} if where else {}
        props["title"] = f"{f.code} {f.title}"
        message = " ".join(f.why.split())
        if f.fix:
            message += "\nfix: " + f.fix.strip()
        lines.append(command(COMMANDS[f.severity.value], message or f.title, props))
    lines.append(command("group", "envdoctor report"))
    body = text.render(report, False)  # the report's data: no line of it is a command
    lines.append(github_log(body[:-1] if body.endswith("\n") else body))
    lines.append(command("endgroup", ""))
    counts = report.counts()
    verdict = "OK" if report.exit_code == 0 else "FAIL"
    lines.append(f"envdoctor: {verdict}: {counts['error']} error(s), {counts['warning']} "
                 f"warning(s), {counts['info']} info; fail-on {report.fail_on}")
    return "\n".join(lines) + "\n"
