"""One rules core: every kind of rule validated and documented the same way, a cache that is
checked against the rules' content, and a missing rules folder that is bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from envdoctor import rulefiles as loader
from envdoctor.engine.schemas import problems
from envdoctor.rulebook import catalog, validate
from tests.conftest import REPO, run_cli

RULES = REPO / "rules"


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "rules"
    shutil.copytree(RULES, root)
    return root


def test_shipped_rules_pass_every_kind():
    outcome = validate.validate(RULES)
    assert outcome.problems == []
    assert len(outcome.checks) >= 50 and len(outcome.signatures) >= 60
    assert len(outcome.requirements) == 11 and len(outcome.matrices) >= 8


def test_a_signature_example_that_stops_matching_fails_naming_the_file(tmp_path):
    root = _copy(tmp_path)
    path = root / "signatures" / "torch" / "ETORCH001.toml"
    text = path.read_text()
    line = next(x for x in text.splitlines() if x.startswith("patterns = "))
    path.write_text(text.replace(line, "patterns = ['no such error text xyzzy']"))
    proc = run_cli("rules", "test", str(root))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{path}: examples[" in proc.stdout and "expected to match" in proc.stdout


def test_a_malformed_matrix_fails_naming_the_file(tmp_path):
    root = _copy(tmp_path)
    path = root / "matrices" / "cudnn.toml"
    path.write_text(path.read_text().replace('[[release]]', '[[release]]\nmin_cc = 7.5', 1))
    outcome = validate.validate(root)
    assert any(p.startswith(f"{path}: ") for p in outcome.problems), outcome.problems
    path.write_text("release = 3\n")  # a table gone, another of the wrong type
    assert any(p.startswith(f"{path}: schema:") for p in validate.validate(root).problems)


def test_a_requirement_example_that_is_wrong_fails(tmp_path):
    root = _copy(tmp_path)
    path = root / "requirements" / "REQ007.toml"
    path.write_text(path.read_text().replace("met = false", "met = true"))
    problems_ = validate.validate(root).problems
    assert problems_ and all(p.startswith(str(path)) for p in problems_)


def test_kind_schemas_accept_every_shipped_file_and_reject_a_broken_one():
    jsonschema = pytest.importorskip("jsonschema")
    for kind, folder in (("check", "checks"), ("signature", "signatures"),
                         ("requirement", "requirements"), ("fleet", "fleet")):
        schema = json.loads((RULES / "schemas" / f"{kind}.schema.json").read_text())
        for path in sorted((RULES / folder).rglob("*.toml")):
            data = loader.load_toml(path)
            jsonschema.validate(data, schema)  # the reference implementation agrees
            assert problems(data, schema) == [], path
        broken = {**loader.load_toml(next((RULES / folder).rglob("*.toml"))), "code": "bad"}
        assert problems(broken, schema) and not jsonschema.Draft202012Validator(
            schema).is_valid(broken)


def test_matrix_schemas_hold_for_every_matrix():
    jsonschema = pytest.importorskip("jsonschema")
    for path in sorted((RULES / "matrices").glob("*.toml")):
        schema = json.loads((RULES / "schemas" / "matrices" / f"{path.stem}.schema.json")
                            .read_text())
        data = loader.load_toml(path)
        jsonschema.validate(data, schema)
        assert problems(data, schema) == [], path


# ---------------------------------------------------------------------------- one printer
def test_rules_show_and_explain_print_the_same_text_for_every_kind():
    docs = catalog.load_docs()
    kinds = {d.kind for d in docs}
    assert kinds == {"check", "signature", "requirement", "fleet"}
    sample = [next(d for d in docs if d.kind == k) for k in sorted(kinds)]
    for doc in sample:
        shown = run_cli("rules", "show", doc.code)
        explained = run_cli("explain", doc.code)
        assert shown.returncode == explained.returncode == 0, shown.stderr + explained.stderr
        assert shown.stdout == explained.stdout == catalog.render(doc)
        assert doc.title in shown.stdout and doc.references[0] in shown.stdout


def test_every_code_of_every_kind_has_its_documentation():
    docs = catalog.load_docs()
    assert len({d.code for d in docs}) == len(docs)  # codes are unique across kinds
    for doc in docs:
        text = catalog.render(doc)
        assert text.startswith(f"{doc.code}  {doc.title}") and "File: " in text
        assert catalog.find(doc.code) == doc


def test_rules_list_covers_every_kind():
    proc = run_cli("rules", "list", "--format", "json")
    entries = json.loads(proc.stdout)
    kinds = {entry["kind"] for entry in entries}
    assert kinds == {"check", "signature", "requirement", "fleet"}
    text = run_cli("rules", "list").stdout
    assert any(line.startswith("FLEET017 ") for line in text.splitlines())
    fleet = sum(entry["kind"] == "fleet" for entry in entries)
    assert fleet == len(list((RULES / "fleet").glob("*.toml")))
    assert text.rstrip().splitlines()[-1].endswith(f", {fleet} fleet rules")


def test_fleet_rules_are_shown_and_explained_like_every_other_kind():
    shown, explained = run_cli("rules", "show", "FLEET017"), run_cli("explain", "FLEET017")
    check = run_cli("rules", "show", "HOST001").stdout
    assert shown.returncode == explained.returncode == 0, shown.stderr + explained.stderr
    assert shown.stdout == explained.stdout
    heads = [[line.split(":")[0] for line in text.splitlines() if line.endswith(":")]
             for text in (shown.stdout, check)]
    assert heads[0][:2] == heads[1][:2] == ["Why", "Fix"]  # the same printer, the same shape
    assert {"References", "File"} <= {line.split(":")[0] for line in shown.stdout.splitlines()}
    assert shown.stdout.splitlines()[1].startswith("fleet fleet-ranks-missed-barrier")


def test_rules_test_of_the_fleet_folder_agrees_with_the_whole(tmp_path):
    whole = validate.validate(RULES)
    alone = validate.validate(RULES / "fleet")
    assert whole.problems == alone.problems == []
    assert [r.code for r in whole.fleet] == [r.code for r in alone.fleet]
    assert len(alone.fleet) == len(list((RULES / "fleet").glob("*.toml")))


@pytest.mark.parametrize("how", ["example", "aspect", "schema"])
def test_a_broken_fleet_rule_fails_rules_test_naming_it(tmp_path, how):
    root = _copy(tmp_path)
    path = root / "fleet" / "driver_drift.toml"
    text = path.read_text()
    if how == "example":
        text = text.replace("fires = false", "fires = true", 1) + \
            '\n[[examples]]\nfires = false\nvalues = ["1", "2"]\n'
    elif how == "aspect":
        text = text.replace('aspect = "', 'aspect = "no_such_', 1)
    else:
        text += "\nsevrity = 'error'\n"
    path.write_text(text)
    for argv, env in ((("rules", "test"), {"ENVDOCTOR_RULES": str(root)}),
                      (("rules", "test", str(root / "fleet")), {})):
        proc = run_cli(*argv, env={"ENVDOCTOR_NO_CACHE": "1", **env})
        assert proc.returncode == 1, (how, proc.stdout, proc.stderr)
        assert any(line.startswith(f"{path}: ") for line in proc.stdout.splitlines()), \
            proc.stdout


# ---------------------------------------------------------------------------- rules folder
@pytest.mark.parametrize("setup", ["missing", "empty", "file"])
def test_a_missing_or_empty_rules_folder_is_exit_2_with_one_line(setup, tmp_path):
    target = tmp_path / "rules"
    if setup == "empty":
        target.mkdir()
    elif setup == "file":
        target.write_text("x")
    for argv in (("check", "--static"), ("explain", "ETORCH001"), ("rules", "list")):
        proc = run_cli(*argv, env={"ENVDOCTOR_RULES": str(target)})
        assert proc.returncode == 2, (argv, proc.stdout, proc.stderr)
        assert proc.stderr.count("\n") == 1 and f"ENVDOCTOR_RULES={target}" in proc.stderr


# ---------------------------------------------------------------------------- the cache
@pytest.fixture
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("ENVDOCTOR_NO_CACHE", raising=False)
    monkeypatch.delenv("ENVDOCTOR_CACHE_DIR", raising=False)
    return tmp_path / "cache" / "envdoctor"


def _entry(folder: Path, kind: str) -> Path:
    (entry,) = folder.glob(f"{kind}-*.json")
    return entry


def test_an_edited_cache_entry_is_discarded_and_never_changes_a_verdict(tmp_path, private_cache):
    root = _copy(tmp_path)
    first, cached = loader.load_tree_cached("checks", root)
    assert cached is False
    entry = _entry(private_cache, "checks")
    text = entry.read_text()
    # turn DRV001's error into "off" in the cached copy only, keeping the seal
    edited = text.replace('"severity": "error"', '"severity": "off"', 1)
    assert edited != text
    entry.write_text(edited)
    again, cached = loader.load_tree_cached("checks", root)
    assert cached is False and again == first  # rebuilt from the rule files
    assert loader.load_tree_cached("checks", root)[1] is True  # and trusted once resealed


def test_a_corrupt_cache_entry_is_rebuilt(tmp_path, private_cache):
    root = _copy(tmp_path)
    first, _ = loader.load_tree_cached("checks", root)
    _entry(private_cache, "checks").write_bytes(b"\x00garbage")
    assert loader.load_tree_cached("checks", root) == (first, False)


def test_the_cache_follows_content_not_clocks(tmp_path, private_cache):
    import os
    root = _copy(tmp_path)
    loader.load_tree_cached("checks", root)
    path = next((root / "checks").rglob("HOST001.toml"))
    os.utime(path, (1, 1))  # an old clock, the same bytes: still valid
    assert loader.load_tree_cached("checks", root)[1] is True
    path.write_text(path.read_text().replace(
        'severity = { auto = "warning", gpu = "error", cpu = "warning" }', 'severity = "error"'))
    os.utime(path, (1, 1))  # new bytes under an old clock: read again
    tree, cached = loader.load_tree_cached("checks", root)
    assert cached is False
    assert dict((p.name, d) for p, d in tree)["HOST001.toml"]["severity"] == "error"


def test_fill_says_none_for_an_empty_list_and_unknown_for_an_unknown_value():
    from envdoctor.engine.checks import fill
    template = "What the error text matched: {diagnosis}. Seen: {seen}. Driver: {driver}."
    got = fill(template, {"diagnosis": [], "seen": ["a", "b"], "driver": None})
    assert got == "What the error text matched: none. Seen: a, b. Driver: unknown."


def test_signature_schema_rejects_an_unknown_context_key(tmp_path):
    from envdoctor.engine.schemas import load_schema, problems, schema_path
    schema = load_schema(str(schema_path("signature")))
    context = {"text": ["libcudnn"], "fix": "pip install x"}
    base = {"code": "EX001", "id": "x", "title": "t", "why": "w", "fix": "f",
            "patterns": ["libcudnn"], "references": ["https://example.org"],
            "examples": [{"matches": True, "text": "a"}, {"matches": False, "text": "b"}]}
    assert not [p for p in problems({**base, "context": [context]}, schema) if "context" in p]
    bad = problems({**base, "context": [{**context, "fixx": "typo"}]}, schema)
    assert any("context" in p for p in bad)
