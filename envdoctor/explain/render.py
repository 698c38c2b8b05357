"""Renderers for `envdoctor explain`: text (terminal), Markdown (paste into an issue), JSON.

All three read the same ``Explanation`` so they cannot disagree. JSON is the public contract:
``{"diagnoses": [{"code", "id", "title", "category", "confidence", "evidence": [{"line",
"text"}], "why", "fix", "references"}, …]}`` best first; later versions only add keys.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from envdoctor.explain.rank import Diagnosis, primary
from envdoctor.outputs import sanitise
from envdoctor.outputs.sanitise import md_cell, md_code, md_fence, md_line, md_link

JSON_SCHEMA_VERSION = 1

VERDICT = {
    "environment": "Root cause: an environment problem",
    "usage": "Root cause: a known misuse of the framework (the install is fine)",
    "user_code": "Not an environment problem: an error in the code or data",
    "benign": "Harmless",
}
HINT = {
    "user_code": "The machine is fine; the fix is in your model, data or training code.",
    "usage": "The install is fine; the fix is in how the framework is called or configured.",
}


@dataclass
class Explanation:
    """What the renderers need: the ranked diagnoses and a few facts about the input."""

    diagnoses: list[Diagnosis]
    lines: int = 0          # the number of the last line read
    chars: int = 0
    tracebacks: int = 0
    first_line: int = 1     # > 1 when only the tail of a big file was read (--max-mb)
    facts_source: str = "none"      # live | file | report | live+report | file+report | none
    signatures: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def primary(self) -> Diagnosis | None:
        return primary(self.diagnoses)

    @property
    def ordered(self) -> list[Diagnosis]:
        """Primary first, then other errors, then harmless warnings."""
        return self.diagnoses


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def lines_read(ex: Explanation) -> int:
    return max(ex.lines - ex.first_line + 1, 0) if ex.lines else 0


def _input_line(ex: Explanation) -> str:
    parts = [f"{lines_read(ex):,} line{'' if lines_read(ex) == 1 else 's'}"]
    if ex.first_line > 1:
        parts[0] += f" (lines {ex.first_line:,}-{ex.lines:,})"
    if ex.tracebacks:
        parts.append(_plural(ex.tracebacks, "traceback"))
    facts = {"none": "text only"}.get(ex.facts_source, f"facts: {ex.facts_source}")
    return f"read {', '.join(parts)}; {facts}"


def render_text(ex: Explanation, color: bool = False) -> str:
    def style(s: str, fg: str = "", bold: bool = False) -> str:
        """envdoctor's own colours (marked; the terminal sink shows controls in the quoted
        text visibly, colour or not)."""
        return sanitise.style(s, f"{'bold ' if bold else ''}{fg}") if color else s

    out = [style("envdoctor explain", bold=True) + f" — {_input_line(ex)}", ""]
    main = ex.primary
    if main is None:
        if not ex.chars and not ex.diagnoses:
            out.append("Nothing to explain: the input is empty.")
        elif ex.diagnoses:
            out.append(style("No error recognised: only harmless warnings.", fg="green"))
        else:
            out.append(style("Nothing recognised: no known error signature matches this text.",
                             fg="yellow"))
            out.append(f"  ({ex.signatures} signatures checked. It may be an error in your own "
                       "code, or one envdoctor does not know yet.)")
    else:
        colour = {"environment": "red", "usage": "yellow", "user_code": "cyan"}[main.category]
        out.append(style(VERDICT[main.category], fg=colour, bold=True))
        out += _text_block(main, style, ex.facts_source)
    others = [d for d in ex.diagnoses if d is not main]
    if others:
        out += ["", style("Also seen:", bold=True)]
        for d in others:
            label = "harmless" if d.category == "benign" else f"{d.category}, {d.confidence}"
            first = d.evidence[0].line if d.evidence else d.first_line
            out.append(f"  {d.code}  {d.title}  [{label}; line {first}]")
            if d.category == "benign":
                out.append(f"      {d.fix.splitlines()[0] if d.fix else ''}")
    for note in ex.notes:
        if note != "the input is empty":
            out.append(f"note: {note}")
    return "\n".join(out) + "\n"


def _where(facts_source: str) -> str:
    """Whose facts a note is about: the pasted report, a saved snapshot or this machine."""
    if "report" in facts_source:
        return "From the report in the text"
    return "In the facts snapshot" if facts_source.startswith("file") else "On this machine"


def _text_block(d: Diagnosis, style: Callable[..., str], facts_source: str) -> list[str]:
    out = [f"  {style(d.code, bold=True)}  {d.title}",
           f"  confidence: {d.confidence}   category: {d.category}   id: {d.id}", "",
           "  Evidence:"]
    width = max((len(str(e.line)) for e in d.evidence), default=1)
    for e in d.evidence:
        out.append(f"    {e.line:>{width}} | {e.text}")
    if d.hits > len(d.evidence):
        out.append(f"    … {d.hits - len(d.evidence)} more matching line(s)")
    for note in d.notes:
        out.append(f"  {_where(facts_source)}: {note}")
    out += ["", "  Why: " + _indent(d.why), "", "  Fix: " + _indent(d.fix)]
    if d.category in HINT:
        out += ["", "  Hint: " + HINT[d.category]]
    out += ["", "  Source: " + d.references[0]] + [f"          {r}" for r in d.references[1:]]
    return out


def _indent(text: str) -> str:
    """Wrap a why/fix paragraph to ~96 columns under its label."""
    import textwrap
    paras = [textwrap.fill(p, 90, break_long_words=False, break_on_hyphens=False)
             for p in text.strip().split("\n")]
    return "\n".join(paras).replace("\n", "\n       ")


def render_markdown(ex: Explanation, color: bool = False) -> str:
    """Every quoted or rule text is escaped (``sanitise.md_*``): a log line holding HTML, a
    link or a table pipe shows as that text."""
    out = ["## envdoctor explain", "", f"_{md_line(_input_line(ex))}_", ""]
    main = ex.primary
    if main is None:
        out.append("**No error recognised: only harmless warnings.**" if ex.diagnoses else
                   "**Nothing recognised**: no known error signature matches this text.")
    else:
        out += [f"### {VERDICT[main.category]}", "",
                f"**{md_line(main.code)}** — {md_line(main.title)}  ",
                f"confidence: {md_line(main.confidence)} · category: {md_code(main.category)} · "
                f"id: {md_code(main.id)}", "", "Evidence:", ""]
        out += md_fence("\n".join(f"{e.line}: {e.text}" for e in main.evidence))
        out += [""]
        out += [f"> {md_line(_where(ex.facts_source))}: {md_line(n)}" for n in main.notes]
        out += ["", f"**Why.** {md_line(main.why)}", "", f"**Fix.** {md_line(main.fix)}", ""]
        if main.category in HINT:
            out += [f"_{HINT[main.category]}_", ""]
        out += ["Sources: " + ", ".join(md_link(r) for r in main.references)]
    others = [d for d in ex.diagnoses if d is not main]
    if others:
        out += ["", "### Also seen", "", "| code | what | kind | line |",
                "| --- | --- | --- | --- |"]
        for d in others:
            kind = "harmless" if d.category == "benign" else f"{d.category}, {d.confidence}"
            out.append(f"| {md_cell(d.code)} | {md_cell(d.title)} | {md_cell(kind)} | "
                       f"{d.first_line} |")
    return "\n".join(out) + "\n"


def to_dict(ex: Explanation) -> dict[str, Any]:
    main = ex.primary
    return {"schema_version": JSON_SCHEMA_VERSION,
            "primary": main.code if main else None,
            "verdict": VERDICT[main.category] if main else
            ("harmless warnings only" if ex.diagnoses else "nothing recognised"),
            "diagnoses": [d.to_dict() for d in ex.diagnoses],
            "input": {"lines": lines_read(ex), "chars": ex.chars, "tracebacks": ex.tracebacks,
                      "first_line": ex.first_line, "last_line": ex.lines},
            "facts": ex.facts_source}


def render_json(ex: Explanation, color: bool = False) -> str:
    return json.dumps(to_dict(ex), indent=2, ensure_ascii=False) + "\n"


RENDERERS: dict[str, Callable[[Explanation, bool], str]] = {
    "text": render_text, "markdown": render_markdown, "json": render_json}


# ---------------------------------------------------------------------------- rule docs
def _wrap(text: str) -> str:
    return "\n".join("  " + line for line in text.strip().splitlines())
