"""One test walks rules/checks and runs every check's own examples (must fire / must not)."""

from __future__ import annotations

import pytest

from envdoctor import engine
from envdoctor.rulefiles import RuleFileError

CHECKS = engine.load_checks()


def test_there_are_checks():
    assert len(CHECKS) >= 6


@pytest.mark.parametrize("check", CHECKS, ids=[c.code for c in CHECKS])
def test_check_examples(check):
    assert engine.run_examples(check) == []


@pytest.mark.parametrize("missing", ["references", "examples", "why", "fix"])
def test_a_check_without_sources_or_examples_is_rejected(missing):
    data = {"code": "TEST001", "id": "t", "severity": "error", "title": "t", "when": "True",
            "why": "w", "fix": "f", "references": ["https://example.org"],
            "examples": [{"fires": True, "facts": {}}, {"fires": False, "facts": {}}]}
    del data[missing]
    with pytest.raises(RuleFileError, match=missing):
        engine.parse_check(data, "rules/checks/x/TEST001.toml")


def test_references_must_be_urls():
    data = {"code": "TEST001", "id": "t", "severity": "error", "title": "t", "when": "True",
            "why": "w", "fix": "f", "references": ["trust me"],
            "examples": [{"fires": True, "facts": {}}, {"fires": False, "facts": {}}]}
    with pytest.raises(RuleFileError, match="references"):
        engine.parse_check(data, "x.toml")


def test_examples_must_include_both_outcomes():
    data = {"code": "TEST001", "id": "t", "severity": "error", "title": "t", "when": "True",
            "why": "w", "fix": "f", "references": ["https://example.org"],
            "examples": [{"fires": True, "facts": {}}]}
    with pytest.raises(RuleFileError, match="examples"):
        engine.parse_check(data, "x.toml")


def test_a_wrong_example_is_reported():
    data = {"code": "TEST001", "id": "t", "severity": "error", "title": "t",
            "when": "host.cpu_count > 4", "why": "w", "fix": "f",
            "references": ["https://example.org"],
            "examples": [{"fires": True, "facts": {"host": {"cpu_count": 2}}},
                         {"fires": False, "facts": {"host": {"cpu_count": 1}}}]}
    problems = engine.run_examples(engine.parse_check(data, "x.toml"))
    assert len(problems) == 1 and "expected to fire" in problems[0]


def test_bad_expression_names_file_and_field():
    data = {"code": "TEST001", "id": "t", "severity": "error", "title": "t",
            "when": "__import__('os')", "why": "w", "fix": "f",
            "references": ["https://example.org"],
            "examples": [{"fires": True, "facts": {}}, {"fires": False, "facts": {}}]}
    with pytest.raises(RuleFileError, match=r"x\.toml: when"):
        engine.parse_check(data, "x.toml")


def test_rules_test_command_function_finds_no_problem():
    """The same function as `envdoctor rules test`: every check and matrix file, every example."""
    from envdoctor.rulebook.validate import validate
    from envdoctor.rulefiles import rules_dir
    outcome = validate(rules_dir())
    checks, problems = outcome.checks, outcome.problems
    assert problems == [] and len(checks) >= 40


def test_rules_test_reports_file_and_field(tmp_path):
    from envdoctor.rulebook.validate import validate
    bad = tmp_path / "checks" / "x"
    bad.mkdir(parents=True)
    (bad / "TEST001.toml").write_text('code = "TEST001"\nid = "t"\nseverity = "error"\n'
                                      'title = "t"\nwhen = "True"\nwhy = "w"\nfix = "f"\n'
                                      'references = []\nexamples = []\n')
    outcome = validate(tmp_path)
    checks, problems = outcome.checks, outcome.problems
    assert checks == [] and problems == [f"{bad / 'TEST001.toml'}: references: must be a "
                                         "non-empty list of URLs (sources)"]
