"""The rules engine: checks as data over facts that know what they do not know.

``checks`` loads and evaluates checks; ``expr`` is the three-valued expression language;
``views`` applies the fact states; ``vocabulary`` is what rules can name; ``knowledge`` holds
the knowledge functions (one explicit registry). Below the engine: ``envdoctor.rulefiles``
reads and caches rule files, ``envdoctor.matrices`` holds the matrix look-ups; above it,
``envdoctor.rulebook`` validates and documents every kind of rule.

``from envdoctor import engine; engine.load_checks()`` keeps working: the names of
``engine.checks`` are forwarded on first use, so importing a submodule of this package loads
nothing else.
"""

from __future__ import annotations

from typing import Any

# The public names of ``engine.checks`` (anything else, e.g. a submodule, is not forwarded:
# the import system asks for submodules through this hook too).
FORWARDED = frozenset({
    "CODE_RE", "Check", "Example", "INTENTS", "REQUIRED", "SEVERITIES",
    "area_of_family", "evaluate", "evaluate_one", "example_facts", "fill", "findings_of",
    "known_names", "load_checks", "parse_check", "run_examples", "supersede",
})


def __getattr__(name: str) -> Any:
    if name not in FORWARDED:
        raise AttributeError(f"module 'envdoctor.engine' has no attribute {name!r}")
    from envdoctor.engine import checks
    return getattr(checks, name)
