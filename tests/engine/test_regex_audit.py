"""Rule patterns that would backtrack catastrophically are refused when rules load.

The audit (``engine.redos``) reads the parse tree ``re`` compiles; these tests hold it to
what Python's matcher really does: every pattern it refuses is shown to run past a deadline
on a short line, every one it accepts (and every shipped one) to finish in linear time.
"""

from __future__ import annotations

import json
import resource
import shutil
import signal
import time
from pathlib import Path

import pytest

from envdoctor.engine import redos
from envdoctor.explain.signatures import all_patterns, load_signatures
from envdoctor.rulebook.validate import validate
from tests.conftest import run_cli

RULES = Path(__file__).resolve().parents[2] / "rules"

# (pattern, a short text on which Python's re backtracks for minutes)
EXPONENTIAL = [
    (r"(x+x+)+y", "x" * 40),
    (r"(a+)+b", "a" * 40),
    (r"(a*)*b", "a" * 40),
    (r"(a|a)*b", "a" * 40),
    (r"(\w+\s?)+$", "a" * 40 + "!"),
    (r"(a|aa)*b", "a" * 60),
    (r"(?:a+|b)*c", "a" * 40),
    (r'"(?:\\.|[^"])*"', '"' + "\\" * 60),
    (r"^(\d+)+$", "1" * 40 + "x"),
    (r"(?:\s*\w+)+:", "a" * 40),
    (r"(?:a?b?)*c", "ab" * 40),
    (r"(?:a|b|ab)*c", "ab" * 40),
    (r"(?:[a-z]+|\d+|\w)+!", "a" * 40),
    (r"(\w+\.?)*@", "a" * 40),
    (r"(?s)(.|\n)*z", "\n" * 40),
    (r"(a|a){1,60}b", "a" * 40),
    (r"(?i)(?:A+|a)+b", "a" * 40),
    (r"CUDA (?=(a+)+b)", "CUDA " + "a" * 40),
    (r"(a+){3,5}b", "a" * 4000),  # a few rounds of a loop: n**5, as bad on a 4 KB line
    (r"(\w+)\1+!", "a" * 40),
]
# refused by the structural rule: alternatives under a repeat that start alike
OVERLAPPING = [r"(a|ab)*c", r"(?:ab|a)+d", r"(?:foo|foobar)*x"]
# accepted: linear for each start position (what explain's search pays is bounded by lines)
LINEAR = [r"(?:\d+\.)+\d+x", r"(a?)*b", r"\w+(?:, \w+)*", r'"(?:[^"\\]|\\.)*"', r"(\w+\s)+$",
          r"(?:foo(?:bar)?)*x", r"(?:\d{1,3}\.){3}\d{1,3}", r"(?:-\w+|\s)*$", r"(?:ab|cd)+e",
          r"(\w|\d)+y", r"(?i)(A|a)+x", r"(?:x|\S)+y", r"lib\w+\.so(?:\.\d+)*",
          r"(?:ab|\wc)+d", r"(?:[A-Za-z0-9+/=\s]|\\n|\\r){0,65536}-----END",
          r"(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\w.])",
          r"[0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(?:\1[0-9A-Fa-f]{2}){4}(?![0-9A-Fa-f:-])"]


class _Deadline(Exception):
    pass


def _runs_past(pattern: str, text: str, seconds: float) -> bool:
    """Whether re.search(pattern, text) is still running after ``seconds`` (Python's matcher
    checks for signals, so an interval timer interrupts it)."""
    def stop(*_):
        raise _Deadline

    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        import re
        re.search(pattern, text)
        return False
    except _Deadline:
        return True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("pattern,text", EXPONENTIAL, ids=[p for p, _ in EXPONENTIAL])
def test_exponential_patterns_are_refused(pattern, text):
    assert redos.problem(pattern), pattern


@pytest.mark.parametrize("pattern,text", EXPONENTIAL[:4], ids=[p for p, _ in EXPONENTIAL[:4]])
def test_the_refused_ones_really_hang(pattern, text):
    """The audit is not crying wolf: Python's re runs past a deadline on a short line."""
    assert _runs_past(pattern, text, 0.3)


@pytest.mark.parametrize("pattern", OVERLAPPING)
def test_overlapping_alternatives_under_a_repeat_are_refused(pattern):
    assert redos.problem(pattern), pattern


@pytest.mark.parametrize("pattern", LINEAR)
def test_linear_patterns_pass(pattern):
    assert redos.problem(pattern) is None
    attack = "".join(c * 200 for c in "a1.x ") + "!"  # (search makes any x+y quadratic)
    assert not _runs_past(pattern, attack, 2.0)


def test_every_shipped_pattern_passes_the_audit():
    pats = [(s.code, p.source) for s in load_signatures(RULES) for p in all_patterns(s)]
    assert len(pats) > 300
    assert [(code, src) for code, src in pats if redos.problem(src)] == []


def test_the_audit_is_cheap_for_plain_patterns():
    """Run on every cold load of the rules: most patterns skip the automaton entirely (every
    loop a single character class's own), so the audit costs a parse and a walk for them. The
    share is counted, not timed; the time bound is only a hang guard."""
    pats = [p.source for s in load_signatures(RULES) for p in all_patterns(s)]
    plain = sum(redos._simple(redos.sre_parse.parse(src)) for src in pats)
    assert plain >= 0.9 * len(pats), (plain, len(pats))
    start = time.perf_counter()
    for src in pats:
        redos.problem(src)
    assert time.perf_counter() - start < 60.0


# ---------------------------------------------------------------- a user's rules copy
def _rules_copy(tmp_path: Path, pattern: str) -> tuple[Path, Path]:
    """A small rules folder (one check, one signature) whose signature has ``pattern``."""
    root = tmp_path / "rules"
    (root / "checks" / "host").mkdir(parents=True)
    shutil.copy(next(RULES.glob("checks/*/HOST001.toml")), root / "checks" / "host")
    (root / "signatures" / "torch").mkdir(parents=True)
    sig = root / "signatures" / "torch" / "ETORCH001.toml"
    text = (RULES / "signatures" / "torch" / "ETORCH001.toml").read_text()
    sig.write_text(text.replace("patterns = [", "patterns = [" + json.dumps(pattern) + ", ", 1))
    return root, sig


@pytest.mark.parametrize("pattern", [p for p, _ in EXPONENTIAL] + OVERLAPPING)
def test_validate_names_file_rule_and_pattern(tmp_path, pattern):
    root, sig = _rules_copy(tmp_path, pattern)
    problems = validate(root).problems
    assert len(problems) == 1, problems
    assert str(sig) in problems[0] and "ETORCH001" in problems[0]
    assert repr(pattern) in problems[0] and "catastrophic" in problems[0]


@pytest.mark.parametrize("pattern", [r"(x+x+)+y", r"(\w+\s?)+$", r"(a|a)*b"])
def test_rules_test_exits_1_and_explain_exits_2_without_hanging(tmp_path, pattern):
    root, sig = _rules_copy(tmp_path, pattern)
    env = {"ENVDOCTOR_RULES": str(root), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    tested = run_cli("rules", "test", str(root), env=env, timeout=60)
    assert tested.returncode == 1, tested.stdout + tested.stderr
    assert str(sig) in tested.stdout and "ETORCH001" in tested.stdout
    line = tmp_path / "log.txt"
    line.write_text("x" * 40 + "\n" + "a" * 40 + "!\n")  # 41-byte lines that would hang it
    explained = run_cli("explain", str(line), env=env, timeout=60)  # raises if it hangs
    assert explained.returncode == 2, explained.stdout + explained.stderr
    err = explained.stderr.strip().splitlines()
    assert len(err) == 1 and str(sig) in err[0] and "ETORCH001" in err[0]
    assert "Traceback" not in explained.stderr


def test_a_good_pattern_in_the_copy_still_loads(tmp_path):
    root, _ = _rules_copy(tmp_path, r"lib\w+\.so(?:\.\d+)*: cannot open")
    assert validate(root).problems == []


def test_a_slow_pattern_the_audit_lets_through_is_stopped_by_explains_deadline(tmp_path):
    """Defence in depth: ``x*x*x*y`` is cubic, not exponential (the audit passes it), and
    takes minutes on a 4 KB line; explain's per-search time bound stops it: one line, exit 2."""
    pattern = r"CUDA x*x*x*y"
    assert redos.problem(pattern) is None
    root, sig = _rules_copy(tmp_path, pattern)
    env = {"ENVDOCTOR_RULES": str(root), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "ENVDOCTOR_MATCH_BUDGET": "1"}
    log = tmp_path / "log.txt"
    log.write_text("CUDA " + "x" * 4000 + "\n")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = run_cli("explain", str(log), "--no-facts", env=env, timeout=120)  # raises on a hang
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and "ETORCH001" in err[0] and repr(pattern) in err[0], err
    assert cpu < 10  # CPU seconds (a loaded machine stretches the wall clock, not this)


def test_regexes_in_matrices_and_schemas_are_audited_too(tmp_path):
    """PYTORCH_CUDA_ALLOC_CONF's value patterns (matched on pasted text) and the schemas'."""
    root = tmp_path / "rules"
    shutil.copytree(RULES, root)
    torch = root / "matrices" / "torch.toml"
    torch.write_text(torch.read_text().replace(
        "max_split_size_mb = '\\d+'", "max_split_size_mb = '(\\d+)+MB'", 1))
    schema = root / "schemas" / "check.schema.json"
    data = json.loads(schema.read_text())
    data.setdefault("$defs", {})["bad"] = {"type": "string", "pattern": "^(a|a)*$"}
    schema.write_text(json.dumps(data))
    problems = [p for p in validate(root).problems if "catastrophic" in p]
    assert any(str(torch) in p and "alloc_conf.keys.max_split_size_mb" in p
               and "'(\\\\d+)+MB'" in p for p in problems), problems
    assert any(str(schema) in p and "'^(a|a)*$'" in p for p in problems), problems
    assert len(problems) == 2


def test_a_pattern_nested_too_deep_to_audit_is_refused_not_a_crash(tmp_path):
    deep = "(" * 400 + "a+" + ")+" * 400 + "b"
    assert "nested too deeply" in (redos.problem(deep) or "")
    root, sig = _rules_copy(tmp_path, deep)
    problems = validate(root).problems
    assert len(problems) == 1 and str(sig) in problems[0] and "ETORCH001" in problems[0]
