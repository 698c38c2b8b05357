"""Every error signature in rules/signatures proves itself on its own real examples."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envdoctor.explain import diagnose_text
from envdoctor.explain.scan import Scanner
from envdoctor.explain.signatures import load_signatures, parse_signature, required_literals
from envdoctor.rulefiles import RuleFileError

SIGS = load_signatures()


def _codes(text: str) -> set[str]:
    return {d.code for d in diagnose_text(text)}


def test_there_are_at_least_60_signatures_in_every_category():
    assert len(SIGS) >= 60
    assert {s.category for s in SIGS} == {"environment", "usage", "benign", "user_code"}


@pytest.mark.parametrize("sig", SIGS, ids=[s.code for s in SIGS])
def test_signature_examples(sig):
    """Each matching example is recognised (in the full set), no non-matching one is. A
    carrier (``only_as_yield``) is recognised as the cause it yields to: alone it names none."""
    assert any(e.matches for e in sig.examples) and any(not e.matches for e in sig.examples)
    assert all(e.source for e in sig.examples) and sig.references
    names = {sig.code}
    if sig.extra.get("only_as_yield"):
        names = {str(t["code"]) for t in sig.extra["yields_to"]}
    for ex in sig.examples:
        got = _codes(ex.text)
        assert not (sig.extra.get("only_as_yield") and sig.code in got), sig.code
        if ex.matches:
            assert got & names, f"{sig.code} should match the example from {ex.source}"
        else:
            assert not got & names, f"{sig.code} must not match the example from {ex.source}"


@pytest.mark.parametrize("sig", SIGS, ids=[s.code for s in SIGS])
def test_prefilter_never_hides_a_match(sig):
    """Every line a pattern matches contains one of its prefilter literals."""
    for pat in sig.patterns + sig.anti_patterns:
        for ex in sig.examples:
            for line in ex.text.splitlines():
                if pat.regex.search(line) and pat.literals is not None:
                    assert any(lit in line.lower() for lit in pat.literals), (pat.source, line)


def _valid(**over):
    data = {"code": "ETEST001", "id": "t", "title": "t", "category": "environment",
            "patterns": ["boom happened"], "why": "w", "fix": "f",
            "references": ["https://example.org"],
            "examples": [{"matches": True, "text": "boom happened", "source": "https://e.org/1"},
                         {"matches": False, "text": "all fine", "source": "near miss"}]}
    data.update(over)
    return data


@pytest.mark.parametrize("missing", ["references", "examples", "why", "fix", "patterns",
                                     "code", "category"])
def test_a_signature_without_sources_or_examples_is_rejected(missing):
    data = _valid()
    del data[missing]
    with pytest.raises(RuleFileError, match=rf"ETEST001.toml: {missing}"):
        parse_signature(data, "rules/signatures/x/ETEST001.toml")


def test_examples_need_both_outcomes_and_a_source():
    with pytest.raises(RuleFileError, match="examples"):
        parse_signature(_valid(examples=[{"matches": True, "text": "boom happened",
                                          "source": "https://e.org"}]), "ETEST001.toml")
    with pytest.raises(RuleFileError, match=r"examples\[0\]\.source"):
        parse_signature(_valid(examples=[{"matches": True, "text": "boom happened"},
                                         {"matches": False, "text": "x", "source": "s"}]),
                        "ETEST001.toml")


def test_bad_fields_name_file_and_field():
    with pytest.raises(RuleFileError, match=r"ETEST001.toml: patterns: bad regex"):
        parse_signature(_valid(patterns=["(unclosed"]), "ETEST001.toml")
    with pytest.raises(RuleFileError, match="references"):
        parse_signature(_valid(references=["trust me"]), "ETEST001.toml")
    with pytest.raises(RuleFileError, match="category"):
        parse_signature(_valid(category="bad"), "ETEST001.toml")
    with pytest.raises(RuleFileError, match="matches the empty string"):
        parse_signature(_valid(patterns=["x*"]), "ETEST001.toml")
    with pytest.raises(RuleFileError, match=r"conditions\[0\]\.when"):
        parse_signature(_valid(conditions=[{"when": "__import__('os')"}]), "ETEST001.toml")


def test_codes_are_unique():
    assert len({s.code for s in SIGS}) == len(SIGS)


def test_required_literals():
    assert required_literals(r"CUDA out of memory\. Tried") == ("cuda out of memory. tried",)
    assert required_literals(r"(?:foo bar|baz qux) \d+") == ("baz qux ", "foo bar ")
    assert required_literals(r"\d+") is None          # nothing to filter on: scan every line
    assert required_literals(r"ab|cdef") is None      # one branch too short to filter


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["Error", "cuda", " ", "CUDA out of memory", "x", "\\", "9",
                                 "sm_120", "Tried to", ".", "é", "İ"]), max_size=12))
def test_prefilter_agrees_with_regex_on_generated_lines(parts):
    line = "".join(parts)
    for sig in SIGS:
        for pat in sig.patterns:
            if pat.literals is not None and pat.regex.search(line):
                assert any(lit in line.lower() for lit in pat.literals)


def test_scanner_with_no_prefilter_still_matches():
    sig = parse_signature(_valid(patterns=[r"\d+ \w+"]), "rules/signatures/x/ETEST001.toml")
    assert sig.patterns[0].literals is None
    import io

    from envdoctor.explain.reader import read_blocks
    result = Scanner([sig]).scan(read_blocks(io.BytesIO(b"a\n12 boo\n")))
    assert [h.line for h in result.by_code["ETEST001"].hits] == [2]


def test_anti_pattern_cancels():
    """A non-matching example that the patterns alone would match: the anti-pattern wins."""
    cases = [(s, e) for s in SIGS if s.anti_patterns for e in s.examples if not e.matches
             and any(re.search(p.source, e.text, re.MULTILINE) for p in s.patterns)]
    assert cases, "no signature demonstrates an anti-pattern"
    for sig, example in cases:
        assert sig.code not in _codes(example.text)


def test_every_condition_names_only_what_the_rules_vocabulary_defines():
    """A condition naming an unknown fact (``numpy.version`` where the vocabulary has
    ``pkg('numpy')``) is silently UNKNOWN forever, and makes ``explain`` probe every section."""
    import re

    from envdoctor.engine import expr
    from envdoctor.engine.checks import known_names
    from envdoctor.explain.conditions import sections_needed
    from envdoctor.explain.signatures import load_signatures

    bad = []
    for sig in load_signatures():
        for cond in sig.conditions:
            for src in [cond.when_source, *re.findall(r"\{([^{}]+)\}", cond.note)]:
                unknown = expr.free_names(expr.compile_expr(src, validate=False)) - known_names()
                if unknown:
                    bad.append((sig.code, src, sorted(unknown)))
        if sig.conditions:
            assert sections_needed([sig]) is not None, sig.code
    assert not bad


_PIECES = ["CUDA", "gpu", "--gpu", "(?:_ids?|-ids?)", "(?:foo|bar)", "x?", "[Ee]", "\\b", "\\d+",
           "\\s{0,3}", "(?:ab|cd)?", "(?=lib)", "[^\\n]{0,20}", "libcud(?:a|nn)\\.so", "=", "é"]


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_literals_through_alternations_never_hide_a_match(data):
    """Literal runs continue through small alternations, optional pieces, one-character classes
    and zero-width assertions: whatever a generated pattern matches holds one of its literals."""
    pattern = "".join(data.draw(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=6)))
    lits = required_literals(pattern)
    if lits is None:
        return
    line = data.draw(st.from_regex(pattern, fullmatch=False))
    if re.search(pattern, line):
        assert any(lit in line.translate(_LOWER) for lit in lits), (pattern, line, lits)


_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def test_literal_runs_pass_small_alternations():
    """'--gpu' alone reduces to 'gpu' (nearly every training-log line); through the alternation
    the run is one of four rarer strings."""
    assert required_literals(r"(?<![\w-])--gpu(?:_ids?|-ids?)=") == \
        ("--gpu-id=", "--gpu-ids=", "--gpu_id=", "--gpu_ids=")
    assert required_literals(r"\blibcud(?:a|nn)\.so\b") == ("libcuda.so", "libcudnn.so")
