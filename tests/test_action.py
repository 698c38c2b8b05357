"""action.yml (the GitHub Action) and the example GPU-runner workflow are valid and wired."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]


def _load(path: Path) -> dict:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_action_inputs_outputs_and_steps():
    action = _load(REPO / "action.yml")
    assert action["name"] and action["description"]
    inputs = action["inputs"]
    for name in ("policy", "require", "expect", "fail-on", "sarif", "junit", "upload-sarif",
                 "upload-junit", "python", "version"):
        assert name in inputs and "description" in inputs[name], name
        assert inputs[name].get("required") is False and "default" in inputs[name], name
    assert action["outputs"]["exit-code"]["value"] == "${{ steps.check.outputs.exit-code }}"
    runs = action["runs"]
    assert runs["using"] == "composite"
    steps = runs["steps"]
    for step in steps:
        assert ("run" in step) != ("uses" in step), step.get("name")
        if "run" in step:
            assert step["shell"] == "bash"
            # inputs reach scripts through env, never pasted into the script (injection)
            assert "${{" not in step["run"], step["name"]
    uses = [s["uses"] for s in steps if "uses" in s]
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    assert any(u.startswith("actions/upload-artifact@") for u in uses)
    check = next(s for s in steps if s.get("id") == "check")
    assert "-m envdoctor" in check["run"]
    for flag in ('"sarif:$SARIF"', '"junit:$JUNIT"', "--policy", "--require",
                 "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"):
        assert flag in check["run"], flag
    # every ${{ inputs.X }} used is declared
    used = set(re.findall(r"inputs\.([a-z-]+)", (REPO / "action.yml").read_text()))
    assert used <= set(inputs), used - set(inputs)
    # the last step turns the check's exit code into the step's result
    assert "exit" in steps[-1]["run"] and "steps.check.outputs.exit-code" in str(steps[-1])


def test_the_flags_the_action_passes_exist(cli):
    proc = cli("check", "--help")
    for flag in ("--format", "--report", "--policy", "--require", "--expect", "--fail-on",
                 "--static"):
        assert flag in proc.stdout, flag
    assert "github" in proc.stdout


def test_example_gpu_runner_workflow():
    wf = _load(REPO / ".github" / "workflows" / "example-gpu-runner.yml")
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` as True
    assert "workflow_dispatch" in on
    job = wf["jobs"]["train"]
    assert "self-hosted" in job["runs-on"] and "gpu" in job["runs-on"]
    steps = job["steps"]
    gate = next(i for i, s in enumerate(steps) if s.get("uses") == "./")
    train = next(i for i, s in enumerate(steps) if "torchrun" in s.get("run", ""))
    assert gate < train
    assert wf["permissions"]["security-events"] == "write"
