"""Every fact name a rule reads exists in the facts model: a misspelt field is a load error
naming the file and the name, and at evaluation an error of the rule, never "not there"."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from envdoctor.engine import checks, expr, factpaths, validate
from envdoctor.engine.loader import RuleFileError, load_tree
from envdoctor.engine.views import View, resolve, section_view
from envdoctor.engine.vocabulary import names_for
from envdoctor.facts import Facts
from tests.conftest import REPO, run_cli

RULES = REPO / "rules"
MISSPELT = "host.container == 'docker' and host.disk_free_g is None"


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "rules"
    shutil.copytree(RULES, root)
    return root


def _misspell_a_check(root: Path) -> Path:
    path = next((root / "checks").rglob("HOST001.toml"))
    text = path.read_text()
    line = next(x for x in text.splitlines() if x.startswith("when = "))
    path.write_text(text.replace(line, f'when = "{MISSPELT}"'))
    return path


def test_rules_test_names_the_file_and_the_misspelt_fact(tmp_path):
    root = _copy(tmp_path)
    path = _misspell_a_check(root)
    for argv, env in ((("rules", "test"), {"ENVDOCTOR_RULES": str(root)}),
                      (("rules", "test", str(root)), {})):
        proc = run_cli(*argv, env={"ENVDOCTOR_NO_CACHE": "1", **env})
        assert proc.returncode == 1, proc.stdout + proc.stderr
        line = next(x for x in proc.stdout.splitlines() if x.startswith(str(path)))
        assert "when" in line and "host.disk_free_g" in line and "'disk_free_gb'" in line


def test_check_refuses_rules_with_a_misspelt_fact_exit_2_one_line(tmp_path):
    root = _copy(tmp_path)
    path = _misspell_a_check(root)
    proc = run_cli("check", "--static", env={"ENVDOCTOR_RULES": str(root),
                                             "ENVDOCTOR_NO_CACHE": "1"})
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert str(path) in proc.stderr and "host.disk_free_g" in proc.stderr


def test_a_signature_condition_and_its_note_are_checked(tmp_path):
    root = _copy(tmp_path)
    path = root / "signatures" / "pip" / "EPIP001.toml"
    text = path.read_text()
    path.write_text(text.replace("note = \"Python {python} is", "note = \"Python "
                                 "{host.python_versoin} is"))
    problems = validate.validate(root).problems
    assert any(p.startswith(f"{path}: conditions[0].note") and "python_versoin" in p
               for p in problems), problems
    path.write_text(text.replace('when = "python >=', 'when = "host.pyton_version >='))
    problems = validate.validate(root).problems
    assert any(p.startswith(f"{path}: conditions[0].when") and "pyton_version" in p
               for p in problems), problems


def test_an_example_with_a_misspelt_fact_key_is_a_problem(tmp_path):
    root = _copy(tmp_path)
    path = root / "requirements" / "REQ001.toml"
    path.write_text(path.read_text().replace("torch = { version", "torch = { verison", 1))
    problems = validate.validate(root).problems
    assert any(p.startswith(f"{path}: examples[0].facts") and "verison" in p
               for p in problems), problems


@pytest.mark.parametrize("source, bad", [
    (MISSPELT, "host.disk_free_g"),
    ("any(g.temperatur > 80 for g in gpus)", "g.temperatur"),
    ("nvidia.gpus[0].nme == ''", "nvidia.gpus[0].nme"),
    ("live.torch.smoke.stepz is None", "live.torch.smoke.stepz"),
    ("pkg('numpy').versoin is None", "pkg('numpy').versoin"),
    ("libraries.named('cudnn')[0].versio is None", "libraries.named('cudnn')[0].versio"),
    ("torch.version.majr == 2", "torch.version.majr"),
    ("frameworks.probe.statu == 'ok'", "frameworks.probe.statu"),
])
def test_every_step_of_a_chain_is_checked(source, bad):
    (problem,) = factpaths.problems(expr.compile_expr(source))
    assert f"unknown fact {bad}:" in problem


@pytest.mark.parametrize("source", [
    "host.container == 'docker' and host.disk_free_gb is None",
    "any(g.temperature_c > 80 for g in gpus) and nvidia.gpu_count > 0",
    "live.torch.smoke.failed and env.CUDA_VISIBLE_DEVICES == ''",
    "host.probe.status.known and torch.version.major >= 2 and python >= '3.13'",
    "len(libraries.named('cudnn')) == 0 and pkg('x').version is None and has('y')",
    "torch_archs() is not None and any(x.nonsense for x in torch_archs())",  # untyped
])
def test_real_names_pass(source):
    assert factpaths.problems(expr.compile_expr(source)) == []


def test_parse_check_rejects_a_misspelt_evidence_name():
    data = load_tree("checks")[0][1]
    broken = {**data, "evidence": {"free": "host.disk_free_g"}}
    with pytest.raises(RuleFileError, match=r"evidence\.free: .*host\.disk_free_g"):
        checks.parse_check(broken, "x.toml")


# ---------------------------------------------------------------------------- at evaluation
def _facts(**host) -> Facts:
    return checks.example_facts({"host": {"container": "docker", "disk_free_gb": 500,
                                          **host}})


def test_the_view_raises_on_an_unknown_name_never_reads_it_as_absent():
    facts = _facts(probe={"status": "ok", "unobserved": ["cpu_model"]})
    view = section_view(facts.host)
    assert isinstance(view, View)  # a section with a mark: the View path
    assert view.disk_free_gb == 500
    with pytest.raises(expr.UnknownFact, match="disk_free_g"):
        view.disk_free_g  # noqa: B018


@pytest.mark.parametrize("marked", [False, True])
def test_a_misspelt_name_is_an_error_of_the_rule_not_a_finding(marked):
    probe = {"status": "ok", "unobserved": ["cpu_model"]} if marked else {"status": "ok"}
    facts = _facts(probe=probe)
    names = names_for(facts)
    with pytest.raises(expr.UnknownFact):
        expr.evaluate(MISSPELT, names)
    check = checks.parse_check({**load_tree("checks")[0][1], "when": "True"}, "x.toml")
    bad = checks.Check(**{**check.__dict__, "when": expr.compile_expr(MISSPELT, False)})
    result = checks.evaluate_one(bad, names, "auto")
    assert result.state == "error" and result.finding is None
    assert "disk_free_g" in result.detail


def test_a_knowledge_read_of_an_unknown_path_raises():
    with pytest.raises(expr.UnknownFact):
        resolve(_facts(), "host.disk_free_g")
    assert resolve(_facts(), "host.disk_free_gb") == 500


def test_every_knowledge_function_reads_real_fact_paths():
    import ast

    from envdoctor.engine.knowledge import REGISTRY, function
    from envdoctor.engine.knowledge._reads import FirstOf
    seen = 0
    for name in REGISTRY:
        fn = function(name)
        for read in [] if isinstance(fn, FirstOf) else getattr(fn, "reads", {}).values():
            if read.function or read.path in ("intent", "origin") or \
                    read.path.startswith("live"):
                continue
            seen += 1
            assert factpaths.problems(ast.parse(read.path, mode="eval")) == [], (name, read)
    assert seen > 20


def test_a_rule_that_errs_at_evaluation_is_said_in_the_text_report():
    from envdoctor.outputs.renderers import render
    from envdoctor.pipeline import build
    check = checks.parse_check({**load_tree("checks")[0][1], "when": "True"}, "x.toml")
    bad = checks.Check(**{**check.__dict__, "when": expr.compile_expr(MISSPELT, False)})
    report = build(_facts(), checks=[bad])
    text = render("check", "text", report)
    assert f"rule error: {bad.code}" in text and "disk_free_g" in text
    assert {r.state for r in report.results} == {"error"}
