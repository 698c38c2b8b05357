"""What a new user trips on first: a mistyped command, the wrong file for --facts, an empty
snapshot, summary marks that disagree with the findings, causes quoted beside the real one,
two counts of one smoke run, and README commands a shell would misread."""

from __future__ import annotations

import json
import re

import pytest
import tomllib

from envdoctor.engine.checks import example_facts
from envdoctor.facts import SCHEMA_VERSION
from envdoctor.outputs.renderers.text import MARKS
from tests.conftest import REPO, run_cli

MACHINES = REPO / "tests" / "fixtures" / "machines"
REPORTS = REPO / "tests" / "corpus" / "reports"


# ---------------------------------------------------------------------------- commands
@pytest.mark.parametrize("argv, wrong, right", [
    (("chek",), "chek", "check"), (("explian", "x"), "explian", "explain"),
    (("rules", "lst"), "lst", "list"), (("fleet", "compar", "x"), "compar", "compare"),
])
def test_a_mistyped_command_gets_did_you_mean_exit_2(argv, wrong, right):
    proc = run_cli(*argv)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"No such command '{wrong}'. Did you mean '{right}'?" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_command_with_no_close_name_gets_no_guess():
    proc = run_cli("xyzzy")
    assert proc.returncode == 2 and "No such command 'xyzzy'." in proc.stderr
    assert "Did you mean" not in proc.stderr


# ---------------------------------------------------------------------------- --facts input
def test_facts_given_a_pasted_report_points_at_from(tmp_path):
    text = tomllib.loads((REPORTS / "014-collect-env-2.6-cu126-rtx5090d-sm120.toml")
                        .read_text())["text"]
    paste = tmp_path / "collect_env.txt"
    paste.write_text(text)
    proc = run_cli("check", "--facts", str(paste))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "is not a facts snapshot" in proc.stderr and "check --from FILE" in proc.stderr
    assert run_cli("check", "--from", str(paste)).returncode in (0, 1)  # which reads it


def test_facts_given_other_text_still_says_not_json(tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("hello, this is not a report\n")
    proc = run_cli("check", "--facts", str(other))
    assert proc.returncode == 2 and "not valid JSON" in proc.stderr
    assert "--from" not in proc.stderr


@pytest.mark.parametrize("data", [{"schema_version": 2}, {"schema_version": SCHEMA_VERSION},
                                  {"schema_version": 3, "host": {"probe": {"status": "unknown"}}},
                                  {"facts": {"schema_version": 3}, "findings": []}])
def test_a_snapshot_without_facts_is_bad_input_never_ok(tmp_path, data):
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(data))
    for argv in (("check", "--facts", str(path)), ("check", "--facts", str(path),
                                                   "--require", "gpus>=1")):
        proc = run_cli(*argv)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "snapshot has no facts" in proc.stderr and "OK" not in proc.stdout


def test_a_snapshot_whose_probes_failed_is_still_judged(tmp_path):
    path = tmp_path / "failed.json"
    path.write_text(json.dumps({"schema_version": 3, "nvidia": {
        "probe": {"status": "error", "reason": "nvidia-smi timed out"}}}))
    proc = run_cli("check", "--facts", str(path))
    assert proc.returncode in (0, 1) and "PROBE001" in proc.stdout, proc.stdout + proc.stderr


# ---------------------------------------------------------------------------- summary marks
def _marks(text: str) -> dict[str, str]:
    out = {}
    for line in text.splitlines():
        m = re.match(r"\[(.)\] ([^:]+):", line)
        if m:
            out[m.group(2)] = m.group(1)
    return out


@pytest.mark.parametrize("machine", sorted(p.name for p in MACHINES.glob("*.json")
                                           if not p.name.endswith(".expected.json")))
@pytest.mark.parametrize("intent", ["auto", "gpu"])
def test_text_marks_are_the_json_statuses(machine, intent):
    """One source of truth: each summary line's mark is its JSON status's mark."""
    args = ("check", "--facts", str(MACHINES / machine), "--expect", intent)
    text, data = run_cli(*args).stdout, json.loads(run_cli(*args, "--format", "json").stdout)
    marks = _marks(text)
    for area in data["summary"]["areas"]:
        assert marks[area["label"]] == MARKS[area["status"]][0], (area, text)


def test_under_expect_gpu_a_cpu_only_build_is_not_green():
    args = ("check", "--facts", str(MACHINES / "cpu-laptop-cpu-wheels.json"), "--expect", "gpu")
    data = json.loads(run_cli(*args, "--format", "json").stdout)
    assert "INTENT002" in {f["code"] for f in data["findings"]}
    status = {a["label"]: a["status"] for a in data["summary"]["areas"]}
    assert status["PyTorch"] == status["TensorFlow"] == status["JAX"] == "error"
    assert status["Keras"] == "ok"  # not a CPU-only build: not about it
    auto = json.loads(run_cli("check", "--facts", str(MACHINES / "cpu-laptop-cpu-wheels.json"),
                              "--format", "json").stdout)
    assert {a["label"]: a["status"] for a in auto["summary"]["areas"]}["PyTorch"] == "ok"


def test_an_info_finding_is_not_a_green_tick(tmp_path):
    snap = example_facts({"host": {"os": "Linux"}, "nvidia": {"probe": {"status": "not_found"}},
                          "cuda": {"nvcc_path": "/usr/local/cuda/bin/nvcc", "nvcc_version": "12.4",
                                   "toolkits": [{"version": "12.4", "path": "/usr/local/cuda",
                                                 "source": "nvcc"}]}})
    path = tmp_path / "facts.json"
    path.write_text(snap.to_json())
    data = json.loads(run_cli("check", "--facts", str(path), "--format", "json").stdout)
    cuda = next(a for a in data["summary"]["areas"] if a["area"] == "cuda")
    assert cuda["status"] == "info", data["findings"]
    assert _marks(run_cli("check", "--facts", str(path)).stdout)["CUDA toolkit"] == "i"


def test_gpu_health_checks_are_not_passed_without_a_gpu():
    proc = run_cli("check", "--facts", str(MACHINES / "cpu-laptop-cpu-wheels.json"), "-v")
    states = {m.group(2): m.group(1) for m in re.finditer(r"^  (\S+)\s+([A-Z]+\d{3}) ",
                                                        proc.stdout, re.M)}
    for code in ("GPU003", "GPU004", "GPU005"):  # ECC, thermal, PCIe
        assert states[code] == "n/a", proc.stdout
    gpu = json.loads(run_cli("check", "--facts", str(MACHINES / "h200-driver580-torch-cu130.json"),
                             "--format", "json").stdout)
    assert {c["code"]: c["state"] for c in gpu["checks"]}["GPU003"] == "passed"


# ---------------------------------------------------------------------------- quoted causes
def test_a_gpu_blind_framework_gets_the_driver_reason_drv001_gives():
    from envdoctor.pipeline import diagnose
    facts = example_facts({
        "host": {"os": "Linux"},
        "nvidia": {"driver_version": "470.82.01", "gpus": [{"name": "NVIDIA A100", "cc": "8.0"}]},
        "frameworks": {"torch": {"version": "2.5.1+cu121", "cuda": "12.1"}},
        "live": {"torch": {"probe": {"status": "ok"}, "name": "torch", "import_ok": True,
                           "version": "2.5.1+cu121", "build": "cuda", "devices": []}}})
    found = {f.code: f for f in diagnose(facts).findings}
    assert "DRV001" in found and "LIVE004" in found
    assert "gave no reason" not in found["LIVE004"].title
    assert "too old" in found["LIVE004"].title and "DRV001" in found["LIVE004"].title


def test_a_failed_worker_never_quotes_tensorflows_onednn_notice():
    from envdoctor.live.orchestrate import WorkerRun
    from envdoctor.live.parse import to_live
    from envdoctor.pipeline import diagnose
    notice = ("2024-03-30 14:29:58.668656: I tensorflow/core/util/port.cc:113] oneDNN custom "
              "operations are on. You may see slightly different numerical results due to "
              "floating-point round-off errors from different computation orders. To turn "
              "them off, set the environment variable `TF_ENABLE_ONEDNN_OPTS=0`.")
    stderr = notice + "\nTraceback (most recent call last):\n  File \"<string>\", line 1\n" \
        "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory\n"
    live = to_live(WorkerRun("tensorflow", ("python",), 1, "", stderr, 2.0))
    assert "oneDNN" not in live.stderr_tail and "libcudnn.so.8" in live.stderr_tail
    assert live.diagnoses and all(d.code != "ETF008" for d in live.diagnoses)
    facts = example_facts({"host": {"os": "Linux"}})
    from dataclasses import replace
    report = diagnose(replace(facts, live={"tensorflow": live}))
    (finding,) = [f for f in report.findings if f.code == "LIVE005"]
    assert "oneDNN" not in json.dumps(finding.to_dict())


def test_the_smoke_count_is_one_count_in_check_and_report():
    from envdoctor.live import smoke_lines
    from envdoctor.outputs.renderers.markdown import render_bug_report
    from envdoctor.pipeline import build
    steps = [{"name": f"s{i}", "status": "passed", "seconds": 0.1} for i in range(7)] + \
        [{"name": "bf16", "status": "skipped", "detail": "no bf16 on CPU"},
         {"name": "nccl", "status": "skipped", "detail": "one GPU"}]
    facts = example_facts({"host": {"os": "Linux"}, "live": {"torch": {
        "probe": {"status": "ok"}, "name": "torch", "import_ok": True, "version": "2.13.0",
        "build": "cpu", "smoke": {"status": "passed", "suite": "quick", "device": "cpu",
                                  "steps": steps}}}})
    ((_, _, detail),) = smoke_lines(facts)
    assert detail.startswith("7/7 steps passed")
    text = render_bug_report(build(facts))
    row = next(line for line in text.splitlines() if line.startswith("| torch |"))
    assert detail in row and "9 step" not in text


# ---------------------------------------------------------------------------- README
README = (REPO / "README.md").read_text(encoding="utf-8")
DOCS = [README, (REPO / "rules" / "README.md").read_text(encoding="utf-8")]
UNQUOTED = re.compile(r"[A-Za-z_][\w.\-\[\]]*(>=|<=|>|<)[\w.*]")


def _shell_lines(text: str) -> list[str]:
    """Lines a reader pastes into a shell: shell code blocks, and inline code that runs
    envdoctor (or passes --require)."""
    lines, block = [], None
    for line in text.splitlines():
        if line.startswith("```"):
            block = None if block is not None else line[3:].strip()
            continue
        if block in ("bash", "sh", "console", "shell"):
            lines.append(line.split("  #", 1)[0])
        elif block is None:
            lines += [c for c in re.findall(r"`([^`]+)`", line)
                      if c.startswith("envdoctor ") or "--require " in c]
    return lines


def _unquoted(line: str) -> str:
    return re.sub(r"'[^']*'|\"[^\"]*\"", "''", line)


def test_readme_commands_quote_every_comparison():
    lines = [line for doc in DOCS for line in _shell_lines(doc)]
    assert any("--require" in line for line in lines) and len(lines) > 20
    bad = [line for line in lines if UNQUOTED.search(_unquoted(line))]
    assert bad == []
    assert UNQUOTED.search(_unquoted("envdoctor check --require gpus>=8"))  # the check bites
    assert not UNQUOTED.search(_unquoted("envdoctor check --require 'gpus>=8' < in.txt"))


@pytest.mark.parametrize("command", ["check", "report", "fleet"])
def test_help_quotes_its_requirement_examples(command):
    text = run_cli(command, "--help").stdout
    flat = " ".join(text.split())
    assert "'gpus>=8'" in flat and "'torch>=2.4'" in flat
    assert not re.search(r"(?<!')\b(gpus>=8|torch>=2\.4)\b(?!')", flat)


def test_readme_shows_the_schema_versions_of_the_code():
    from envdoctor.outputs.report import REPORT_SCHEMA_VERSION
    shown = [int(v) for v in re.findall(r'"facts_schema_version": (\d+)', README)]
    nested = [int(v) for v in re.findall(r'"facts": \{ "schema_version": (\d+)', README)]
    assert shown and nested and set(shown + nested) == {SCHEMA_VERSION}
    assert f'"schema_version": {REPORT_SCHEMA_VERSION},' in README


def test_readme_shows_no_path_of_the_machine_it_was_made_on():
    assert str(REPO) not in README and not re.search(r"/work/|/home/[a-z]", README)
