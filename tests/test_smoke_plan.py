"""The one smoke plan and the pieces every worker shares, without any framework: the plan runner,
version clean-up, the self-check judges (on recorded real output), and how the parent reads what
a worker printed (on recorded real stderr)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envdoctor.facts import Status
from envdoctor.live.orchestrate import WorkerRun
from envdoctor.live.parse import to_live
from envdoctor.workers import _common as c
from envdoctor.workers import mindspore as ms_worker
from envdoctor.workers import paddle as paddle_worker

DATA = Path(__file__).resolve().parent / "data" / "workers"


def read(name: str) -> str:
    return (DATA / name).read_text()


# ---------------------------------------------------------------------------- the plan
def test_a_step_left_out_is_reported_not_supported_and_the_order_is_the_plans():
    suite = c.Suite("quick")
    suite.plan({"gradient": lambda: c.check_gradient(8.0), "tensor": lambda: "ok",
                "compile": c.Skip("runs with --smoke full")})
    steps = suite.result("cpu")["steps"]
    assert [s["name"] for s in steps] == list(c.PLAN_STEPS)
    by_name = {s["name"]: s for s in steps}
    assert by_name["tensor"]["status"] == by_name["gradient"]["status"] == "passed"
    assert by_name["compile"] == {"name": "compile", "status": "skipped", "seconds": 0.0,
                                  "detail": "runs with --smoke full"}
    assert by_name["save_load"]["detail"] == c.UNSUPPORTED
    assert suite.result("cpu")["status"] == "passed"


def test_unsupported_says_what_the_framework_has_instead():
    assert c.unsupported("its build features are recorded") == \
        "not supported by this framework: its build features are recorded"
    assert isinstance(c.unsupported(), c.Skip)


def test_a_step_outside_the_plan_is_a_worker_bug():
    with pytest.raises(ValueError, match="outside the plan"):
        c.Suite("quick").plan({"speed": lambda: "fast"})


def test_a_failing_plan_step_fails_the_suite():
    suite = c.Suite("quick")
    suite.plan({"gradient": lambda: c.check_gradient(6.0)})
    assert suite.result("cpu")["status"] == "failed"


@pytest.mark.parametrize("raw, text", [
    ("False", None), ("None", None), ("0", None), ("", None), (False, None), (None, None),
    ("12.6", "12.6"), ("9.5.1", "9.5.1"), ((9, 1, 2), "9.1.2"), ("2.13.0+cpu", "2.13.0+cpu"),
    ("v1.2", "v1.2"), ("cuda", None)])
def test_version_fields_that_are_not_versions_are_dropped(raw, text):
    assert c.version_text(raw) == text


def test_the_mlp_data_and_operands_are_fixed_and_numpy_free():
    a, b = c.operands()
    assert len(a) == len(b) == c.MATMUL_N and all(isinstance(v, float) for v in a[0])
    assert c.operands() == (a, b)
    data = c.mlp_data()
    assert len(data["x"]) == 64 and len(data["x"][0]) == 8 and len(data["w1"][0]) == 16
    assert c.transpose(data["w2"]) == [[row[0] for row in data["w2"]]]


# ---------------------------------------------------------------------------- self-checks
def test_paddle_run_check_passes_on_its_success_line():
    assert paddle_worker.judge_run_check(read("paddle-3.3.1-run_check.stdout")) == \
        "paddle.utils.run_check(): PaddlePaddle works well on 1 CPU."


def test_paddle_run_check_without_the_success_line_fails():
    partial = "Running verify PaddlePaddle program ... \nPaddlePaddle works well on 1 CPU.\n"
    with pytest.raises(c.StepFailed, match="no success line .*works well on 1 CPU"):
        paddle_worker.judge_run_check(partial)


def test_mindspore_run_check_is_judged_by_what_it_prints():
    assert "installed on platform [CPU] successfully" in ms_worker.judge_run_check(
        read("mindspore-2.10.0-run_check.stdout"))


def test_mindspore_run_check_that_caught_its_own_error_fails_the_step():
    # run_check() returned None here too: only its output says it failed
    with pytest.raises(c.StepFailed, match="running check failed: 'NoneType' object is not"):
        ms_worker.judge_run_check(read("mindspore-2.10.0-run_check-failed.stdout"))
    with pytest.raises(c.StepFailed, match="no success line"):
        ms_worker.judge_run_check("")


def test_printed_by_captures_and_echoes(capsys):
    value, text = c.printed_by(lambda: print("hello") or 3)
    assert (value, text) == (3, "hello\n")
    assert capsys.readouterr().err == "hello\n"


# ---------------------------------------------------------------------------- the parent
def answer(name: str, **extra) -> str:
    data = {"protocol": 1, "name": name, "import_ok": True, "version": "2.10.0", "build": "cpu",
            "smoke": {"status": "passed", "suite": "quick", "device": "CPU", "steps": []}}
    data.update(extra)
    return json.dumps(data) + "\n"


def run(name: str, stdout: str, stderr: str) -> WorkerRun:
    return WorkerRun(name, ("python", "-m", f"envdoctor.workers.{name}"), 0, stdout, stderr, 2.0)


def test_an_import_warning_that_names_a_problem_becomes_a_warning_fact():
    lf = to_live(run("mindspore", answer("mindspore"), read("mindspore-2.10.0-numpy-2.4.6.stderr")))
    assert lf.probe.status is Status.OK and lf.diagnoses == ()
    assert [d.code for d in lf.warnings] == ["ENUMPY001"]
    assert "Numpy init failed" in lf.stderr_tail


@pytest.mark.parametrize("name, stderr", [
    ("tensorflow", "tensorflow-2.21.0-cpu.stderr"),      # oneDNN / cuda-not-found chatter
    ("torch", "torch-2.13.0-without-numpy.stderr"),      # torch runs without NumPy
])
def test_harmless_stderr_of_a_healthy_worker_is_no_warning(name, stderr):
    lf = to_live(run(name, answer(name), read(stderr)))
    assert lf.warnings == () and lf.stderr_tail == ""


def test_a_dependency_missing_inside_the_import_is_not_the_framework_missing():
    err = "ModuleNotFoundError: No module named 'numpy'"
    failed = answer("paddle", import_ok=False, import_error=err,
                    smoke={"status": "error", "suite": "quick", "device": "", "steps": []})
    assert to_live(run("paddle", failed, err)).probe.status is Status.OK
    absent = answer("paddle", import_ok=False, import_error="ModuleNotFoundError: No module "
                    "named 'paddle'", smoke={"status": "error", "suite": "quick", "device": "",
                                             "steps": []})
    assert to_live(run("paddle", absent, "")).probe.status is Status.NOT_FOUND


def test_paddles_cpu_cuda_false_no_longer_breaks_the_answer():
    # what the worker sends after finish() cleaned it: built_cuda dropped, the answer kept
    lf = to_live(run("paddle", answer("paddle", built_cuda=c.version_text("False")), ""))
    assert lf.probe.status is Status.OK and lf.built_cuda is None


# ---------------------------------------------------------------------------- options, summary
@pytest.mark.parametrize("given, names", [
    ("mx", ("mxnet",)), ("paddlepaddle,ms", ("paddle", "mindspore")),
    ("pytorch,tf,jax", ("torch", "tensorflow", "jax")), ("MX, mxnet", ("mxnet",))])
def test_framework_aliases(given, names):
    from envdoctor.live.cli import live_options
    assert live_options(given, None).frameworks == names


def test_a_paddle_only_box_names_paddle_in_the_summary():
    from packaging.version import Version

    from envdoctor.facts import Facts, FrameworkFacts, PaddleBuild, ProbeInfo
    from envdoctor.outputs.summary import summarize
    fw = FrameworkFacts(probe=ProbeInfo(Status.OK),
                        paddle=PaddleBuild(version=Version("3.3.1"), distribution="paddlepaddle"))
    lines = {line.area: line for line in summarize(Facts(frameworks=fw), [])}
    assert lines["paddle"].detail == "3.3.1 from paddlepaddle (CPU-only build)"
    assert "frameworks" not in lines  # no "none installed" line next to it
    empty = {line.area: line for line in summarize(
        Facts(frameworks=FrameworkFacts(probe=ProbeInfo(Status.OK))), [])}
    assert "PaddlePaddle" in empty["frameworks"].detail and "MXNet" in empty["frameworks"].detail
