"""Every rule of every kind, in one metadata model, with one documentation printer.

Checks (facts -> finding), error signatures (text -> diagnosis), requirements (a policy's
``--require``) and fleet rules (the nodes of a fleet -> drift, odd ones out) differ in what
they match, not in what they are: a code, an id, a family, a severity per intent, a title,
why, fix, references and examples. ``RuleDoc`` is that common shape; ``render`` is the one
printer behind ``envdoctor rules show CODE`` and ``envdoctor explain CODE``, so both print the
same text for every code.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

KINDS = ("check", "signature", "requirement", "fleet")


@dataclass(frozen=True)
class RuleDoc:
    kind: str
    code: str
    id: str
    family: str
    severity: tuple[tuple[str, str], ...]   # (intent or outcome, severity)
    title: str
    why: str
    fix: str
    references: tuple[str, ...]
    examples: tuple[str, ...]               # one line per example
    details: tuple[tuple[str, str], ...]    # kind-specific sections: (heading, text)
    path: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "code": self.code, "id": self.id, "family": self.family,
                "severity": dict(self.severity), "title": self.title,
                "references": list(self.references), "path": self.path}


def family_of(code: str) -> str:
    m = re.match(r"[A-Z]+", code)
    return m.group(0) if m else ""


def check_doc(check: Any) -> RuleDoc:
    from envdoctor.engine.checks import INTENTS
    details = [("When", check.when_source.strip())]
    if check.confirmed is not None:
        details.append(("Confirmed", "reported as a warning, not an error, when its matrix "
                        "cells are unconfirmed"))
    if check.applies_source:
        details.append(("Applies when", check.applies_source.strip()))
    if check.supersedes:
        details.append(("Supersedes", ", ".join(check.supersedes)))
    examples = tuple(f"{'fires' if e.fires else 'quiet'}: {e.name or '-'}"
                     + (f" [--expect {e.intent}]" if e.intent != "auto" else "")
                     for e in check.examples)
    return RuleDoc("check", check.code, check.id, family_of(check.code),
                   tuple((i, check.severity_for(i)) for i in INTENTS), check.title, check.why,
                   check.fix, tuple(check.references), examples,
                   (("Area", check.area), *details), check.path)


def signature_doc(sig: Any) -> RuleDoc:
    details = [("Category", f"{sig.category}, confidence {sig.confidence}, root-cause rank "
                            f"{sig.root_cause_rank}"),
               ("Recognised by (regex, per line)", "\n".join(p.source for p in sig.patterns))]
    if sig.anti_patterns:
        details.append(("Not claimed when the text contains",
                        "\n".join(p.source for p in sig.anti_patterns)))
    if sig.conditions:
        details.append(("Sharpened by facts", "\n".join(f"when {c.when_source}: {c.note}"
                                                        for c in sig.conditions)))
    examples = tuple(f"{'matches' if e.matches else 'no match'}: {e.source}"
                     for e in sig.examples)
    return RuleDoc("signature", sig.code, sig.id, family_of(sig.code[1:]) if
                   sig.code.startswith("E") else family_of(sig.code),
                   (("diagnosis", sig.confidence),), sig.title, sig.why, sig.fix,
                   tuple(sig.references), examples, tuple(details), sig.path)


def requirement_doc(rule: Any) -> RuleDoc:
    examples = tuple(f"{'met' if e.met else 'not met'}: {e.require}" for e in rule.examples)
    return RuleDoc("requirement", rule.code, rule.id, "REQ",
                   (("not met", "error"), ("unknown", "warning")), rule.title, rule.why,
                   rule.fix, tuple(rule.references), examples,
                   (("Requirement", f"{rule.kind} ({rule.value})"),), rule.path)


def fleet_doc(rule: Any) -> RuleDoc:
    """A fleet rule in the common shape: what it judges (kind, scope, aspect) is its detail."""
    how = {"drift": "the known values differ between subjects",
           "duplicate": "one value is held by two or more subjects",
           "outlier": f"a number below {rule.below} x the fleet median",
           "predicate": f"a value {rule.op} {rule.value!r}" if rule.op not in ("true", "nonempty")
           else f"a value that is {rule.op}"}[rule.kind]
    examples = tuple(f"{'fires' if e['fires'] else 'quiet'}: {e.get('name') or e['values']}"
                     for e in rule.examples)
    return RuleDoc("fleet", rule.code, rule.id, "FLEET", (("fleet", rule.severity),),
                   rule.title, rule.why, rule.fix, tuple(rule.references), examples,
                   (("Judges", f"{rule.kind} of {rule.aspect} per {rule.scope}: {how}"),),
                   rule.path)


def load_docs(root: Path | None = None) -> list[RuleDoc]:
    """Every rule's documentation: checks, signatures, requirements and fleet rules
    (RuleFileError on a bad file)."""
    from envdoctor.engine.checks import load_checks
    from envdoctor.engine.requirements import load_requirements
    from envdoctor.explain.signatures import load_signatures
    from envdoctor.fleet.rules import load_rules
    docs = [check_doc(c) for c in load_checks(root)]
    docs += [signature_doc(s) for s in load_signatures(root)]
    docs += [requirement_doc(r) for r in load_requirements(root)]
    docs += [fleet_doc(r) for r in load_rules(root)]
    return sorted(docs, key=lambda d: (KINDS.index(d.kind), d.code))


def find(code: str, root: Path | None = None) -> RuleDoc | None:
    """The rule with this code (any case) or id; signatures are searched first when the code
    starts with E (they are what `explain` names)."""
    wanted, rid = code.strip().upper(), code.strip().lower()
    for doc in load_docs(root):
        if doc.code == wanted or doc.id == rid:
            return doc
    return None


def render(doc: RuleDoc) -> str:
    """The documentation of one rule: the same text for `rules show` and `explain CODE`."""
    sev = ", ".join(f"{k}={v}" for k, v in doc.severity)
    out = [f"{doc.code}  {doc.title}", f"{doc.kind} {doc.id}   family: {doc.family}   "
           f"severity: {sev}", "", "Why:", _indent(doc.why), "", "Fix:", _indent(doc.fix)]
    for heading, text in doc.details:
        out += ["", f"{heading}:", _indent(text)]
    out += ["", "References:", *(f"  {r}" for r in doc.references)]
    out += ["", f"Examples ({len(doc.examples)}):", *(f"  {e}" for e in doc.examples)]
    out += ["", f"File: {doc.path}"]
    return "\n".join(out) + "\n"


def _indent(text: str) -> str:
    return textwrap.indent(text.strip(), "  ")
