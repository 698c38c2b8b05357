"""Policy: parsing, discovery, evaluation of each requirement kind, and the CLI gate."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from envdoctor import pipeline
from envdoctor.errors import BadInput
from envdoctor.facts import Facts, ProbeInfo, Status
from envdoctor.gate import policy

FIX = Path(__file__).parents[1] / "fixtures" / "diff"
H100 = FIX / "h100-driver-550.json"       # 8x H100 80GB, driver 550, torch 2.5.1+cu121
H100_470 = FIX / "h100-driver-470.json"   # the same node after a driver downgrade


def envdoctor(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "envdoctor", *args], check=False,
                          capture_output=True,
                          text=True, timeout=120, cwd=cwd,
                          env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "HOME": str(cwd)})


def states(facts: Facts, *reqs: str, extra: dict | None = None) -> dict[str, tuple[str, str]]:
    gate = policy.load(None, reqs, cwd=Path("/nonexistent"))
    return {r.detail.split(":")[0] if r.state == "passed" else r.finding.evidence["requirement"]:
            (r.state, r.detail if r.state == "passed" else r.finding.evidence["actual"])
            for r in policy.evaluate(gate, facts, extra)}


# ---------------------------------------------------------------------------- parsing
@pytest.mark.parametrize("text,kind", [
    ("torch>=2.4", "package"), ("transformers>=4.40,<5", "package"), ("cuda>=12.4", "cuda"),
    ("driver>=550", "driver"), ("gpus>=8", "gpus"), ("gpu_memory_gb>=80", "gpu_memory_gb"),
    ("bf16", "bf16"), ("nccl", "nccl"), ("nccl>=2.20", "nccl"), ("cudnn>=9", "cudnn"),
    ("smoke=torch,jax", "smoke"), ("shm_gb>=8", "shm_gb"), ("python>=3.10", "python"),
    ("einops", "package"),
])
def test_every_documented_requirement_parses(text, kind):
    assert policy.parse_requirement(text).kind == kind


@pytest.mark.parametrize("text,needle", [
    ("torch>>2", "malformed"), ("gpus>=eight", "gpus>=N"), ("smoke=pytorch", "'pytorch'"),
    ("gpu>=1", "did you mean gpus"), ("python", "python>=3.10"), ("driver", "driver>=550"),
    ("", "non-empty"),
    ("torch[cuda]>=2", "extras"),
])
def test_malformed_requirements_name_themselves(text, needle):
    with pytest.raises(BadInput) as exc:
        policy.parse_requirement(text)
    assert needle in exc.value.format_message()


def test_unknown_policy_key_is_named(tmp_path):
    (tmp_path / "envdoctor.toml").write_text('require = ["gpus>=1"]\nrequires = ["x"]\n')
    with pytest.raises(BadInput, match="unknown key 'requires'"):
        policy.find_policy(None, tmp_path)


def test_ignore_needs_a_reason(tmp_path):
    (tmp_path / "envdoctor.toml").write_text('ignore = { HOST001 = "" }\n')
    with pytest.raises(BadInput, match="HOST001 needs a reason"):
        policy.find_policy(None, tmp_path)


def test_discovery_order_pyproject_then_envdoctor_toml(tmp_path):
    (tmp_path / "envdoctor.toml").write_text('expect = "cpu"\n')
    assert policy.find_policy(None, tmp_path).expect == "cpu"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')  # no policy in it
    assert policy.find_policy(None, tmp_path).source == "envdoctor.toml"
    (tmp_path / "pyproject.toml").write_text('[tool.envdoctor]\nexpect = "gpu"\n')
    found = policy.find_policy(None, tmp_path)
    assert (found.expect, found.source) == ("gpu", "pyproject.toml [tool.envdoctor]")


def test_command_line_settings_win_over_the_policy():
    gate = policy.parse_policy({"expect": "gpu", "fail_on": "warning"}, "envdoctor.toml")
    assert gate.settings(None, None) == ("gpu", "warning")
    assert gate.settings("cpu", "error") == ("cpu", "error")
    assert policy.Policy().settings(None, None) == ("auto", "error")


# ---------------------------------------------------------------------------- evaluation
def test_requirements_on_an_8x_h100_node():
    facts = pipeline.load_facts_file(str(H100))
    got = states(facts, "gpus>=8", "gpus>=16", "gpu_memory_gb>=80", "bf16", "driver>=550",
                 "torch>=2.4", "numpy<2", "nccl>=2.20", "cudnn>=9", "shm_gb>=8",
                 "python>=3.12", "cuda>=12.4", "cuda>=12.1")
    assert got["gpus>=8"][0] == "passed"
    assert got["gpus>=16"] == ("fired", "8 NVIDIA GPU(s)")
    # 81559 MiB is 79.6 GiB but 85.5 GB: the datasheet's "80GB" passes gpu_memory_gb>=80
    assert got["gpu_memory_gb>=80"][0] == "passed"
    for ok in ("bf16", "driver>=550", "torch>=2.4", "numpy<2", "nccl>=2.20", "cudnn>=9",
               "shm_gb>=8", "cuda>=12.1"):
        assert got[ok][0] == "passed", (ok, got[ok])
    assert got["python>=3.12"] == ("fired", "Python 3.11.10")
    # driver supports 12.4, but torch was built with 12.1: the framework's CUDA is the limit
    assert got["cuda>=12.4"] == ("fired", "torch built with CUDA 12.1")


def test_a_bare_package_name_asks_only_that_it_is_installed():
    facts = pipeline.load_facts_file(str(H100))
    got = states(facts, "numpy", "torch", "no-such-dist-anywhere")
    assert got["numpy"][0] == "passed" and got["torch"][0] == "passed"
    assert got["no-such-dist-anywhere"] == ("fired", "no-such-dist-anywhere is not installed")


def test_a_failed_requirement_reads_as_a_sentence_and_fixes_with_a_command():
    facts = pipeline.load_facts_file(str(H100))
    gate = policy.load(None, ("numpy>=3", "torch>=9", "gpus>=16"), cwd=Path("/nonexistent"))
    fixes = {r.finding.evidence["requirement"]: r.finding
             for r in policy.evaluate(gate, facts) if r.finding}
    assert fixes["numpy>=3"].fix.startswith("pip install 'numpy>=3'")
    assert fixes["torch>=9"].fix.startswith("`envdoctor suggest torch`")
    assert fixes["gpus>=16"].fix.startswith("Run on a machine that meets gpus>=16")
    assert all(f.why.endswith(".") and "has " not in f.why for f in fixes.values())


def test_driver_and_cuda_requirements_fail_after_a_downgrade():
    facts = pipeline.load_facts_file(str(H100_470))
    got = states(facts, "driver>=550", "cuda>=12.1")
    assert got["driver>=550"] == ("fired", "driver 470.256.02")
    assert got["cuda>=12.1"] == ("fired", "driver supports CUDA 11.4")


def test_unavailable_facts_make_a_requirement_unknown_not_passed():
    facts = pipeline.load_facts_file(str(H100))
    blind = replace(facts, nvidia=replace(facts.nvidia, probe=ProbeInfo(Status.ERROR, "hung")))
    got = states(blind, "gpus>=1", "bf16", "driver>=550", "smoke=torch")
    assert {k: v[0] for k, v in got.items()} == {
        "gpus>=1": "unknown", "bf16": "unknown", "driver>=550": "unknown",
        "smoke=torch": "unknown"}


def test_smoke_requirement_reads_smoke_results():
    facts = pipeline.load_facts_file(str(H100))
    smoke = {"torch": {"status": "passed"}, "jax": {"status": "failed"}}
    got = states(facts, "smoke=torch", "smoke=torch,jax", "smoke=tensorflow",
                 extra={"smoke": smoke})
    assert got["smoke=torch"][0] == "passed"
    assert got["smoke=torch,jax"] == ("fired", "smoke jax failed")
    assert got["smoke=tensorflow"] == ("unknown", "smoke tensorflow not run")


def test_ignore_sets_a_finding_aside_with_its_reason():
    facts = pipeline.load_facts_file(str(H100_470))
    report = pipeline.diagnose(facts)
    assert "DRV001" in {f.code for f in report.findings}
    gate = policy.parse_policy({"ignore": {"DRV001": "being reimaged tonight"}},
                               "envdoctor.toml")
    out = policy.apply(report, gate)
    assert "DRV001" not in {f.code for f in out.findings}
    assert [r.state for r in out.results if r.code == "DRV001"] == ["ignored"]
    assert out.to_dict()["policy"]["ignored"][0]["reason"] == "being reimaged tonight"


# ---------------------------------------------------------------------------- the CLI gate
NO_GPU = pytest.mark.skipif(Path("/proc/driver/nvidia").exists(),
                            reason="these acceptance checks are for a machine without a GPU")


@NO_GPU
def test_gpus_requirement_fails_on_this_gpu_less_machine(cli):
    proc = cli("check", "--static", "--format", "json", "--require", "gpus>=1")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    (finding,) = [f for f in report["findings"] if f["code"] == "REQ007"]
    assert "gpus>=1" in finding["title"] and finding["severity"] == "error"
    assert finding["evidence"] == {"requirement": "gpus>=1", "actual": "0 NVIDIA GPU(s)",
                                   "policy": "--require"}


def _torch_version() -> str | None:
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


@pytest.mark.skipif(_torch_version() is None, reason="torch is not installed")
def test_torch_requirement_passes_with_torch_installed(cli):
    proc = cli("check", "--static", "--format", "json", "--require", "torch>=2.0")
    report = json.loads(proc.stdout)
    (result,) = [c for c in report["checks"] if c["code"] == "REQ001"]
    assert result["state"] == "passed", result
    assert _torch_version().split("+")[0] in result["detail"]
    assert proc.returncode == 0, proc.stdout


@pytest.mark.parametrize("args,needle", [
    (["--require", "torch>>2"], "'torch>>2' is malformed"),
    (["--require", "gpus>=many"], "'gpus>=many'"),
])
def test_malformed_requirement_exits_2_with_one_line(cli, args, needle):
    proc = cli("check", "--static", *args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1 and needle in proc.stderr


def test_policy_file_from_pyproject_in_the_current_directory(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.envdoctor]\nrequire = ["driver>=550"]\nfail_on = "warning"\n')
    proc = envdoctor("check", "--facts", str(H100), "--format", "json", cwd=tmp_path)
    data = json.loads(proc.stdout)
    assert data["summary"]["fail_on"] == "warning"
    assert data["policy"]["source"] == "pyproject.toml [tool.envdoctor]"
    assert [c["state"] for c in data["checks"] if c["code"] == "REQ004"] == ["passed"]
    assert proc.returncode == data["summary"]["exit_code"]
    proc = envdoctor("check", "--facts", str(H100_470), "--format", "json", cwd=tmp_path)
    assert proc.returncode == 1
    (finding,) = [f for f in json.loads(proc.stdout)["findings"] if f["code"] == "REQ004"]
    assert finding["references"][0] == "pyproject.toml"


def test_unknown_key_in_policy_file_exits_2_naming_it(tmp_path):
    bad = tmp_path / "gate.toml"
    bad.write_text('require = ["gpus>=1"]\nfail-on = "warning"\n')
    proc = envdoctor("check", "--static", "--policy", str(bad), cwd=tmp_path)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "'fail-on'" in proc.stderr


@NO_GPU
def test_expect_gpu_from_policy_fails_a_cpu_machine(tmp_path):
    (tmp_path / "envdoctor.toml").write_text('expect = "gpu"\n')
    proc = envdoctor("check", "--static", "--format", "json", cwd=tmp_path)
    data = json.loads(proc.stdout)
    assert data["summary"]["intent"] == "gpu"
    assert "INTENT001" in {f["code"] for f in data["findings"]}
    assert proc.returncode == 1


@pytest.mark.frameworks
@pytest.mark.skipif(_torch_version() is None, reason="torch is not installed")
def test_smoke_requirement_on_a_real_torch_smoke_run(cli):
    """A real quick smoke run of torch on the CPU meets smoke=torch; jax, not run, is unknown."""
    proc = cli("check", "--framework", "torch", "--format", "json",
               "--require", "smoke=torch", "--require", "smoke=jax")
    data = json.loads(proc.stdout)
    got = {c["id"]: c["state"] for c in data["checks"] if c["code"] == "REQ010"}
    assert got == {"require-smoke-torch": "passed", "require-smoke-jax": "unknown"}
    assert data["smoke"]["torch"]["status"] == "passed"
    (warning,) = [f for f in data["findings"] if f["code"] == "REQ010"]
    assert warning["severity"] == "warning" and "smoke=jax" in warning["title"]
