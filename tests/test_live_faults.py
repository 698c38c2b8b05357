"""Fault injection: fake workers that segfault, hang, print garbage, exit non-zero or print a
real error text. Each must end as the right finding, within its timeout, without a crash."""

from __future__ import annotations

import json
import sys
import time

import pytest

from envdoctor import engine
from envdoctor.facts import Facts, Status
from envdoctor.live import run_live, smoke_report
from envdoctor.live.orchestrate import use_worker_command

# A real error text (PyTorch on a GPU its wheel has no kernels for; see
# https://github.com/pytorch/pytorch/issues/31285).
NO_KERNEL = "RuntimeError: CUDA error: no kernel image is available for execution on the device"

FAKES = {
    "torch": "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)",
    "tensorflow": "import time; time.sleep(600)",
    "jax": "print('Hello, I am not JSON'); print('<html>')",
    "keras": "import sys; sys.stderr.write('Traceback (most recent call last):\\n  boom\\n'); "
             "sys.exit(3)",
    "paddle": f"import sys; sys.stderr.write({NO_KERNEL!r} + '\\n'); sys.exit(1)",
}


def fake(scripts: dict[str, str]):
    def command(name, args):
        return [sys.executable, "-c", scripts[name]]
    return command


def findings(facts: Facts) -> dict[str, object]:
    checks = engine.load_checks()
    results = engine.evaluate(facts, checks)
    return {f.code: f for f in engine.findings_of(results)}


@pytest.fixture(scope="module")
def faulty() -> tuple[Facts, float]:
    start = time.monotonic()
    with use_worker_command(fake(FAKES)):
        facts = run_live(Facts(), list(FAKES), timeout=3, progress=False)
    return facts, time.monotonic() - start


def test_every_fault_is_recorded_as_a_worker_error(faulty):
    facts, _ = faulty
    reasons = {n: lf.probe.reason for n, lf in facts.live.items()}
    assert all(facts.live[n].probe.status is Status.ERROR for n in FAKES)
    assert "killed by SIGSEGV" in reasons["torch"]
    assert "timed out after 3s" in reasons["tensorflow"]
    assert "answered no JSON" in reasons["jax"] and "Hello" in reasons["jax"]
    assert "exited with status 3" in reasons["keras"]
    assert "exited with status 1" in reasons["paddle"]


def test_the_hung_worker_is_killed_at_its_timeout(faulty):
    facts, elapsed = faulty
    # workers run concurrently: the whole batch ends shortly after the one timeout
    assert facts.live["tensorflow"].probe.seconds < 3 + 5
    assert elapsed < 3 + 10


def test_stderr_tail_and_explain_diagnosis_ride_along(faulty):
    facts, _ = faulty
    assert "boom" in facts.live["keras"].stderr_tail
    paddle = facts.live["paddle"]
    assert NO_KERNEL in paddle.stderr_tail
    assert [d.code for d in paddle.diagnoses][:1] == ["ECUDA003"]


def test_faults_become_one_live005_finding_with_evidence(faulty):
    facts, _ = faulty
    found = findings(facts)
    finding = found["LIVE005"]
    assert finding.severity.value == "error"
    failed = " ".join(finding.evidence["failed"])
    for name in FAKES:
        assert f"{name}:" in failed
    assert any("ECUDA003" in d for d in finding.evidence["diagnosis"])
    assert NO_KERNEL in finding.evidence["stderr"]["paddle"]


def test_smoke_block_marks_broken_workers_as_error(faulty):
    facts, _ = faulty
    block = smoke_report(facts)
    assert {n: b["status"] for n, b in block.items()} == {n: "error" for n in FAKES}
    assert "SIGSEGV" in block["torch"]["detail"]


def _answer(**overrides):
    data = {"protocol": 1, "name": "torch", "import_ok": True, "version": "2.5.1+cu124",
            "build": "cuda", "devices": [{"kind": "cpu", "name": "cpu"}],
            "smoke": {"status": "passed", "suite": "quick", "device": "cpu", "steps": [
                {"name": "gradient", "status": "passed", "seconds": 0.01,
                 "detail": "d/dx (x²+2x) at x=3 = 8 (expected 8)"}]}}
    data.update(overrides)
    return "import sys; sys.stdout.write(" + repr(json.dumps(data)) + ")"


def test_a_failed_step_names_its_error_and_gets_the_diagnosis():
    smoke = {"status": "failed", "suite": "quick", "device": "cuda:0", "steps": [
        {"name": "tensor", "status": "failed", "seconds": 0.1, "detail": NO_KERNEL}]}
    with use_worker_command(fake({"torch": _answer(smoke=smoke)})):
        facts = run_live(Facts(), ["torch"], timeout=20, progress=False)
    torch = facts.live["torch"]
    assert torch.probe.status is Status.OK
    assert torch.smoke.status == "failed"
    assert [d.code for d in torch.diagnoses][:1] == ["ECUDA003"]
    found = findings(facts)
    assert "LIVE005" not in found
    # a failure whose text names a known cause is that diagnosis, with its fix (one finding)
    assert "SMOKE001" not in found
    assert NO_KERNEL in " ".join(found["SMOKE003"].evidence["failed"])
    assert "ECUDA003" in found["SMOKE003"].title
    assert "arch list" in found["SMOKE003"].fix


def test_a_failed_step_that_names_nothing_known_stays_smoke001():
    smoke = {"status": "failed", "suite": "quick", "device": "cuda:0", "steps": [
        {"name": "matmul", "status": "failed", "seconds": 0.1,
         "detail": "max abs error 3.2 against the float64 reference"}]}
    with use_worker_command(fake({"torch": _answer(smoke=smoke)})):
        facts = run_live(Facts(), ["torch"], timeout=20, progress=False)
    found = findings(facts)
    assert "SMOKE003" not in found
    assert "max abs error" in " ".join(found["SMOKE001"].evidence["failed"])


def test_a_tpu_held_by_another_process_is_that_diagnosis():
    """Recorded on a Cloud TPU v5e VM (jax 0.10.2, libtpu 0.0.42.1): a second program while
    another held the chip. The smoke run fails in JAX's backend start; the finding is ETPU002
    with its own fix (stop the holder), not a generic kernel failure nor "libtpu is missing"."""
    from pathlib import Path
    recorded = (Path(__file__).parent / "data" / "tpu" /
                "second-process-jax-0.10.2.txt").read_text()
    error = recorded.strip().splitlines()[-1]
    assert error.startswith("RuntimeError: Unable to initialize backend 'tpu'")
    smoke = {"status": "failed", "suite": "quick", "device": "cpu", "steps": [
        {"name": "suite", "status": "failed", "seconds": 0.0, "detail": error}]}
    answer = _answer(name="jax", version="0.10.2", build="tpu", smoke=smoke,
                     gpu_error=error)
    with use_worker_command(fake({"jax": answer})):
        facts = run_live(Facts(), ["jax"], timeout=20, progress=False)
    found = findings(facts)
    assert set(found) & {"SMOKE001", "SMOKE003"} == {"SMOKE003"}
    finding = found["SMOKE003"]
    assert "ETPU002" in finding.title and "ETPU001" not in finding.title
    assert "kill <pid>" in finding.fix and "/tmp/libtpu_lockfile" in finding.fix


def test_json_of_the_wrong_shape_is_a_worker_error():
    bad = _answer(devices="all of them")
    with use_worker_command(fake({"torch": bad, "jax": "print('{\"protocol\": 99}')"})):
        facts = run_live(Facts(), ["torch", "jax"], timeout=20, progress=False)
    assert "does not fit the facts" in facts.live["torch"].probe.reason
    assert "protocol 99" in facts.live["jax"].probe.reason


def test_a_worker_that_cannot_start_is_a_worker_error():
    with use_worker_command(lambda name, args: ["/nonexistent/python", "-c", "pass"]):
        facts = run_live(Facts(), ["jax"], timeout=5, progress=False)
    assert facts.live["jax"].probe.status is Status.ERROR
    assert "could not start" in facts.live["jax"].probe.reason


def test_a_good_answer_with_framework_noise_on_stdout_still_parses():
    noisy = "print('framework banner'); " + _answer()[len("import sys; "):]
    with use_worker_command(fake({"torch": "import sys; " + noisy})):
        facts = run_live(Facts(), ["torch"], timeout=20, progress=False)
    assert facts.live["torch"].probe.status is Status.OK
    assert facts.live["torch"].smoke.steps[0].detail.endswith("(expected 8)")


def test_the_recorded_tpu_check_names_the_holder_not_a_kernel_failure():
    """``check --framework jax --format json`` recorded on the same TPU v5e VM while another
    program held the chip, replayed: one error, SMOKE003 with ETPU002, and exit 1."""
    from pathlib import Path

    from conftest import run_cli
    snapshot = Path(__file__).parent / "data" / "tpu" / "second-process-check.json"
    result = run_cli("check", "--facts", str(snapshot), "--format", "json")
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    errors = [f for f in data["findings"] if f["severity"] == "error"]
    assert [f["code"] for f in errors] == ["SMOKE003"]
    assert "ETPU002" in errors[0]["title"] and "kill <pid>" in errors[0]["fix"]
