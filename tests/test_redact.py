"""Redaction: planted secrets never reach any output of `check` or `report`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from envdoctor import pipeline
from envdoctor.outputs.redact import for_data, looks_secret, redact_data, redact_report

REPO = Path(__file__).resolve().parents[1]
FIX = Path(__file__).parent / "fixtures" / "diff"

USER = "mlopsuser7"
HOST = "gpu-node-042.corp.example.net"
SECRETS = {
    "HF_TOKEN": "hf_QwErTyUiOpAsDfGhJkLzXcVbNm123456",
    "WANDB_API_KEY": "3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e4b6d8f01",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
    "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7ZXAMPLE",
    "GITHUB_TOKEN": "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "OPENAI_API_KEY": "sk-proj-Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1",
}
URL_PASSWORD = "S3cretPassw0rd"
IP = "10.42.7.19"
MAC = "3c:fd:fe:a1:b2:c3"
UUID = "GPU-7a3c1f2e-5b6d-4e7f-8a9b-0c1d2e3f4a51"
# every string that must not appear in any redacted output
PLANTED = [*SECRETS.values(), URL_PASSWORD, USER, HOST, HOST.split(".")[0], IP, MAC, UUID,
           UUID.split("-", 1)[1]]


def planted_snapshot(tmp_path: Path) -> Path:
    """A real-shaped snapshot (8x H100 node) with secrets where real ones end up."""
    data = json.loads((FIX / "h100-driver-550.json").read_text())
    home = f"/home/{USER}"
    data["host"]["python_executable"] = f"{home}/miniconda3/envs/train/bin/python"
    data["nvidia"]["gpus"][0]["uuid"] = UUID
    for dist in data["packages"]["distributions"]:
        dist["location"] = f"{home}/miniconda3/envs/train/lib/python3.11/site-packages"
    data["env"]["vars"].update({
        **SECRETS,
        "PIP_INDEX_URL": f"https://deploy:{URL_PASSWORD}@pypi.corp.example.net/simple",
        "MASTER_ADDR": HOST,
        "NCCL_COMM_ID": f"{IP}:29500",
        "NCCL_DEBUG_FILE": f"/tmp/nccl.{MAC}.log",
        "XLA_FLAGS": f"--xla_dump_to={home}/dumps",
        "CUDA_HOME": f"{home}/cuda-12.4",
    })
    path = tmp_path / "planted.json"
    path.write_text(json.dumps(data))
    return path


def planted_environ(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ, NO_COLOR="1", HOME=f"/home/{USER}", USER=USER, LOGNAME=USER,
               HOSTNAME=HOST, MASTER_ADDR=IP, CUDA_HOME=f"/home/{USER}/cuda",
               TF_API_TOKEN=SECRETS["HF_TOKEN"], **SECRETS)
    env["PYTORCH_KERNEL_CACHE_PATH"] = f"/home/{USER}/.cache/torch/{MAC}"
    env.pop("GITHUB_ACTIONS", None)
    return env


def envdoctor(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "envdoctor", *args], check=False,
                          capture_output=True,
                          text=True, timeout=180, env=env, cwd=cwd)


def all_outputs(tmp_path: Path, source: list[str], env: dict[str, str],
                extra: tuple[str, ...] = (), report_source: list[str] | None = None
                ) -> dict[str, str]:
    """Every format of `check` (stdout + --report files) and of `report`, as text."""
    out: dict[str, str] = {}
    formats = ["json", "markdown", "junit", "sarif", "github", "text"]
    reports = [f"--report={f}:{tmp_path / ('check.' + f)}" for f in formats]
    proc = envdoctor(["check", *source, "--format", "text", *reports, *extra], env, tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    out["check stdout"] = proc.stdout + proc.stderr
    for f in formats:
        out[f"check --report {f}"] = (tmp_path / f"check.{f}").read_text()
    for f in ("markdown", "json"):
        proc = envdoctor(["report", *(source if report_source is None else report_source),
                          "--format", f, *extra], env, tmp_path)
        assert proc.returncode == 0, proc.stderr
        out[f"report {f}"] = proc.stdout + proc.stderr
    return out


def leaks(outputs: dict[str, str]) -> list[tuple[str, str]]:
    return [(name, secret) for name, text in outputs.items() for secret in PLANTED
            if secret in text]


def test_no_planted_secret_in_any_output_of_a_replayed_snapshot(tmp_path):
    snap = planted_snapshot(tmp_path)
    env = planted_environ(tmp_path)
    outputs = all_outputs(tmp_path, ["--facts", str(snap)], env)
    assert len(outputs) == 9
    assert leaks(outputs) == []
    # the facts are still there, only the secrets are gone
    data = json.loads(outputs["check --report json"])
    assert data["facts"]["host"]["python_executable"] == \
        "~/miniconda3/envs/train/bin/python"
    assert data["facts"]["env"]["vars"]["HF_TOKEN"] == "<redacted>"
    assert data["facts"]["env"]["vars"]["NCCL_COMM_ID"] == "<ip>:29500"
    assert data["facts"]["nvidia"]["gpus"][0]["uuid"] == "<gpu-uuid>"
    assert data["facts"]["nvidia"]["driver_version"] == "550.54.15"
    assert data["redacted"] is True


def test_no_planted_secret_in_any_output_of_a_live_check(tmp_path):
    env = planted_environ(tmp_path)
    outputs = all_outputs(tmp_path, ["--static"], env)
    assert len(outputs) == 9
    assert leaks(outputs) == []
    data = json.loads(outputs["check --report json"])
    assert data["facts"]["env"]["vars"]["MASTER_ADDR"] == "<ip>"


def test_no_redact_keeps_them(tmp_path):
    """The planted values really reach the renderers: without redaction they show."""
    snap = planted_snapshot(tmp_path)
    outputs = all_outputs(tmp_path, ["--facts", str(snap)], planted_environ(tmp_path),
                          extra=("--no-redact",))
    found = {secret for _, secret in leaks(outputs)}
    assert {SECRETS["HF_TOKEN"], UUID, IP, MAC, HOST, URL_PASSWORD} <= found


# ---------------------------------------------------------------------------- units
@pytest.mark.parametrize("name,value,secret", [
    ("HF_TOKEN", "x" * 30, True), ("WANDB_API_KEY", "abc123", True),
    ("AWS_REGION", "us-east-1", True), ("MY_PASSWORD", "p", True),
    ("NCCL_DEBUG", "INFO", False), ("CUDA_VISIBLE_DEVICES", "0,1", False),
    ("SOME_URL", "https://u:p4ss@host/x", True), ("NOTE", "ghp_" + "a" * 30, True),
])
def test_looks_secret(name, value, secret):
    assert looks_secret(name, value) is secret


def test_versions_are_not_addresses():
    data = {"libraries": [{"name": "cublas", "version": "12.4.5.8"}],
            "title": "cuBLAS 12.4.5.8 on 10.0.0.1"}
    out = redact_data(data, environ={})
    assert out["libraries"][0]["version"] == "12.4.5.8"
    assert out["title"] == "cuBLAS 12.4.5.8 on <ip>"


@pytest.mark.parametrize("text,expected", [
    ("/home/jane/venv/bin/python", "/home/<user>/venv/bin/python"),
    (r"C:\Users\Jane Doe\AppData", r"C:\Users\<user>\AppData"),
    ("fe80::1ff:fe23:4567:890a%eth0", "<ip>%eth0"),
    ("c10::Error from std::runtime_error", "c10::Error from std::runtime_error"),
    ("created 2025-01-14T09:12:03+00:00", "created 2025-01-14T09:12:03+00:00"),
    ("git+https://bob:tok3n@github.com/x.git", "git+https://<redacted>@github.com/x.git"),
    ("MIG-GPU-7a3c1f2e-5b6d-4e7f-8a9b-0c1d2e3f4a51/1/0", "MIG-<gpu-uuid>"),
])
def test_text_patterns(text, expected):
    assert for_data({}, environ={}).text(text) == expected


def test_report_object_is_redacted_in_one_place():
    facts = pipeline.load_facts_file(str(FIX / "h100-driver-550.json"))
    report = pipeline.diagnose(facts)
    out = redact_report(report, environ={})
    assert all(g.uuid == "<gpu-uuid>" for g in out.facts.nvidia.gpus)
    assert [f.code for f in out.findings] == [f.code for f in report.findings]
    assert report.facts.nvidia.gpus[0].uuid.startswith("GPU-")  # the original is untouched


def test_a_key_named_by_a_token_is_redacted_and_kept_apart():
    """A secret can be the *name* of a field (an environment variable named by a pasted
    token, a JSON config keyed by it): keys go through redaction as values do, and two keys
    that redact alike stay two entries."""
    from envdoctor.outputs.redact import redact_data
    gh = "ghp_" + "K" * 36
    hf = "hf_" + "Q" * 34
    out = redact_data({"env": {"vars": {gh: "1", hf: "2", "CUDA_VISIBLE_DEVICES": "0"}}})
    keys = list(out["env"]["vars"])
    assert gh not in str(out) and hf not in str(out)
    assert len(keys) == 3 and "CUDA_VISIBLE_DEVICES" in keys
