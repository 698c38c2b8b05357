"""Whole-machine snapshots: each yields exactly the finding codes stored beside it.

tests/fixtures/machines/<name>.json is a full facts snapshot (schema_version 1, every section
probed); <name>.expected.json holds the intent and the exact codes. Clean machines must yield no
error or warning.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envdoctor import pipeline
from envdoctor.cli import main
from envdoctor.facts import SCHEMA_VERSION

FOLDER = Path(__file__).parent / "fixtures" / "machines"
NAMES = sorted(p.name[: -len(".expected.json")] for p in FOLDER.glob("*.expected.json"))
CLEAN = {"h200-driver580-torch-cu130", "cpu-laptop-cpu-wheels", "apple-silicon-torch-mps"}


def expected(name: str) -> dict:
    return json.loads((FOLDER / f"{name}.expected.json").read_text())


def test_there_are_enough_machines():
    assert len(NAMES) >= 12
    assert CLEAN <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_machine_yields_exactly_its_findings(name):
    want = expected(name)
    facts = pipeline.load_facts_file(str(FOLDER / f"{name}.json"))
    assert facts.schema_version == SCHEMA_VERSION
    report = pipeline.diagnose(facts, intent=want["intent"])
    assert sorted(f.code for f in report.findings) == sorted(want["codes"])


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_clean_machines_have_no_error_or_warning(name):
    report = pipeline.diagnose(pipeline.load_facts_file(str(FOLDER / f"{name}.json")))
    assert [f.code for f in report.findings if f.severity.value in ("error", "warning")] == []


def test_every_section_of_a_fixture_was_probed():
    """Fixtures are whole machines, not partial examples: no section is `unknown`."""
    for name in NAMES:
        data = json.loads((FOLDER / f"{name}.json").read_text())
        for section in ("host", "nvidia", "cuda", "libraries", "packages", "frameworks", "env"):
            assert data[section]["probe"]["status"] in ("ok", "not_found"), (name, section)


def test_cli_replays_a_fixture_with_exit_code(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["check", "--facts", str(FOLDER / "driver470-torch-cu121.json"), "--format", "json"])
    assert exc.value.code == 1
    assert [f["code"] for f in json.loads(capsys.readouterr().out)["findings"]] == ["DRV001"]
