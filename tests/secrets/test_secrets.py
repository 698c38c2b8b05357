"""Planted secrets never reach any default output of any command, in any format.

Thirty kinds of secret and personal data are planted where real ones end up: environment
variables (read by the env probe), a saved snapshot (``--facts``, ``diff``, ``report``), a
pasted report (``check --from``) and an error text (``explain``). Every output format of every
command is grepped for every planted value. The ``--no-redact`` control shows that the values
do reach the outputs when redaction is off, so a pass is not an accident of what is printed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "tests" / "fixtures" / "diff" / "h100-driver-550.json"

USER = "mlsecretuser9"
HOST = "n7"  # short host names are host names too
LONG_HOST = "gpu-node-0042.train.corp.example.net"
IP = "10.42.7.19"
MAC = "3c:fd:fe:a1:b2:c3"
UUID = "GPU-7a3c1f2e-5b6d-4e7f-8a9b-0c1d2e3f4a51"

# kind -> (where it is planted, the secret value that must never be printed)
ENV_SECRETS = {
    "hf token": ("HF_TOKEN", "hf_QwErTyUiOpAsDfGhJkLzXcVbNm123456"),
    "wandb key": ("WANDB_API_KEY", "3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e4b6d8f01"),
    "aws secret": ("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY"),
    "aws key id": ("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7ZXAMPLE"),
    "github token": ("GITHUB_TOKEN", "ghp_16C7e42F292c6912E7710c838347Ae178B4a"),
    "openai key": ("OPENAI_API_KEY", "sk-proj-Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0"),
    "tf_config auth_token": ("TF_CONFIG", "tfcfgAuthTok3nValue77"),
    "private_key in TF json": ("TF_XLA_FLAGS", "tfPrivKeyValue0123456"),
    "presigned signature": ("NCCL_TOPO_FILE", "a1b2c3d4e5f60718293a4b5c6d7e8f90amzsig"),
    "presigned credential": ("NCCL_TOPO_FILE", "AKIAPRESIGNEDCRED0042"),
    "token query value": ("PYTORCH_KERNEL_CACHE_PATH", "qryTokenValue4242"),
    "url password": ("PIP_INDEX_URL", "S3cretPassw0rdInUrl"),
    "gitlab token": ("CUDA_CACHE_PATH", "glpat-xxxxxxxxxxxxxxxxxxxx1234"),
    "slack token": ("NCCL_DEBUG_FILE", "xoxb-123456789012-abcdefghijkl"),
    "google api key": ("JAX_PLATFORMS", "AIzaSyA1234567890abcdefghijklmnopqrstuv"),
    "jwt": ("TORCH_HOME", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlMTIz"),
    "sas sig": ("XLA_FLAGS", "sasSigValue9876543210abcd"),
    "key= value": ("NCCL_NET_PLUGIN", "keyParamValue5555"),
    "master addr host": ("MASTER_ADDR", LONG_HOST),
    "tf_config cluster host": ("TF_CONFIG", "worker-host-17.corp.example.net"),
    "home user": ("CUDA_HOME", USER),
}
TEXT_SECRETS = {
    "bearer header": "BearerTok3nValue9988776655",
    "basic header": "dXNlcjpiYXNpY3NlY3JldDQ0",
    "pem body": "MIIEpAIBAAKCAQEAplantedPEMbodyLINE",
    "password= pair": "pwPairValue31337",
    "db url password": "DbUrlPassw0rd42",
    "key= in url": "urlKeyValue2468",
    "x-goog-signature": "googSigValue13579abcdef",
}
DATA_SECRETS = {"ip": IP, "mac": MAC, "gpu uuid": UUID, "short host": HOST}


def planted_environ() -> dict[str, str]:
    v = {kind: value for kind, (_, value) in ENV_SECRETS.items()}
    return {
        "HF_TOKEN": v["hf token"], "WANDB_API_KEY": v["wandb key"],
        "AWS_SECRET_ACCESS_KEY": v["aws secret"], "AWS_ACCESS_KEY_ID": v["aws key id"],
        "GITHUB_TOKEN": v["github token"], "OPENAI_API_KEY": v["openai key"],
        "TF_CONFIG": json.dumps({"cluster": {"worker": [f"{v['tf_config cluster host']}:2222"]},
                                 "task": {"type": "worker", "index": 0},
                                 "auth_token": v["tf_config auth_token"]}),
        "TF_XLA_FLAGS": json.dumps({"private_key": v["private_key in TF json"]}),
        "NCCL_TOPO_FILE": ("https://bucket.s3.amazonaws.com/topo.xml?X-Amz-Algorithm=AWS4-HMAC"
                           f"-SHA256&X-Amz-Credential={v['presigned credential']}%2F20240101"
                           f"&X-Amz-Signature={v['presigned signature']}"),
        "PYTORCH_KERNEL_CACHE_PATH": f"https://cache.example.com/k?token={v['token query value']}",
        "PIP_INDEX_URL": f"https://deploy:{v['url password']}@pypi.example.com/simple",
        "CUDA_CACHE_PATH": f"/cache/{v['gitlab token']}",
        "NCCL_DEBUG_FILE": f"/logs/{v['slack token']}/nccl.%h.log",
        "JAX_PLATFORMS": v["google api key"],
        "TORCH_HOME": f"/models/{v['jwt']}",
        "XLA_FLAGS": f"--xla_dump_to=https://acct.blob.core.windows.net/d?sv=2022&sig={v['sas sig']}",
        "NCCL_NET_PLUGIN": f"plugin;key={v['key= value']}",
        "MASTER_ADDR": LONG_HOST,
        "CUDA_HOME": f"/home/{USER}/cuda-12.4",
        "NCCL_SOCKET_IFNAME": f"eth0,{MAC}",
        "NCCL_COMM_ID": f"{IP}:29500",
    }


def planted_snapshot(tmp_path: Path) -> Path:
    data = json.loads(SNAPSHOT.read_text())
    data["host"]["python_executable"] = f"/home/{USER}/miniconda3/envs/train/bin/python"
    data["nvidia"]["gpus"][0]["uuid"] = UUID
    data["env"]["vars"].update(planted_environ())
    data["env"]["vars"]["SLURMD_NODENAME"] = HOST  # named once, redacted everywhere
    data["env"]["vars"]["NCCL_IB_HCA"] = f"mlx5_0 on {HOST}"
    path = tmp_path / "planted.json"
    path.write_text(json.dumps(data))
    return path


def planted_text() -> str:
    t = TEXT_SECRETS
    return (
        "Traceback (most recent call last):\n"
        f'  File "/home/{USER}/train.py", line 12, in <module>\n'
        "    model = AutoModel.from_pretrained(name, token=token)\n"
        f"requests.exceptions.HTTPError: 401 Client Error for url: https://huggingface.co/api/m"
        f"?key={t['key= in url']}&X-Goog-Signature={t['x-goog-signature']} "
        f"(headers: {{'Authorization': 'Bearer {t['bearer header']}'}})\n"
        f"curl -H 'Authorization: Basic {t['basic header']}' https://{LONG_HOST}/v1\n"
        f"DATABASE_URL=postgres://svc:{t['db url password']}@{IP}:5432/db password={t['password= pair']}\n"
        "-----BEGIN RSA PRIVATE KEY-----\n"
        f"{t['pem body']}\n"
        "-----END RSA PRIVATE KEY-----\n"
        f"NCCL WARN NET/Socket : peer {IP}<49152> on {MAC} {UUID}\n"
        "RuntimeError: CUDA error: out of memory (while uploading to https://api.example.com/u"
        f"?key={t['key= in url']} with Authorization: Bearer {t['bearer header']} as {USER} "
        f"from {IP})\n"
    )


PLANTED = {**{k: v for k, (_, v) in ENV_SECRETS.items()}, **TEXT_SECRETS, **DATA_SECRETS}


def run(args: list[str], env_extra: dict[str, str] | None = None, stdin: str | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), **(env_extra or {}))
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-m", "envdoctor", *args], capture_output=True,
                          text=True, env=env, input=stdin, timeout=240, cwd=cwd)


def leaks(text: str) -> list[str]:
    found = []
    for kind, value in PLANTED.items():
        if kind == "short host":
            import re
            if re.search(rf"(?<![\w.-]){value}(?![\w-])", text):
                found.append(kind)
        elif value in text:
            found.append(kind)
    return found


def all_outputs(proc: subprocess.CompletedProcess, tmp_path: Path) -> str:
    files = "".join(p.read_text(errors="replace") for p in sorted(tmp_path.glob("out.*")))
    return proc.stdout + proc.stderr + files


CHECK_FORMATS = ["text", "json", "markdown", "junit", "sarif", "github"]
REPORT_SPECS = [f"{f}:{{d}}/out.{f}" for f in CHECK_FORMATS]


def test_enough_kinds_planted():
    assert len(PLANTED) >= 25


@pytest.fixture
def snapshot(tmp_path):
    return planted_snapshot(tmp_path)


@pytest.mark.parametrize("fmt", CHECK_FORMATS)
def test_check_facts_every_format(tmp_path, snapshot, fmt):
    reports = [x for spec in REPORT_SPECS for x in ("--report", spec.format(d=tmp_path))]
    proc = run(["check", "--facts", str(snapshot), "--format", fmt, "-v", *reports])
    assert proc.returncode in (0, 1), proc.stderr
    assert leaks(all_outputs(proc, tmp_path)) == []


def test_check_static_env_probe_every_format(tmp_path):
    reports = [x for spec in REPORT_SPECS for x in ("--report", spec.format(d=tmp_path))]
    proc = run(["check", "--static", "--format", "json", *reports], planted_environ())
    assert proc.returncode in (0, 1), proc.stderr
    out = all_outputs(proc, tmp_path)
    assert leaks(out) == []
    assert "TF_CONFIG" in out  # the variable is kept, only its secrets go


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_report_from_snapshot(snapshot, fmt):
    proc = run(["report", "--facts", str(snapshot), "--format", fmt])
    assert proc.returncode == 0, proc.stderr
    assert leaks(proc.stdout + proc.stderr) == []


def test_report_static_env(tmp_path):
    proc = run(["report", "--static"], planted_environ())
    assert proc.returncode == 0, proc.stderr
    assert leaks(proc.stdout + proc.stderr) == []


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_diff(tmp_path, snapshot, fmt):
    proc = run(["diff", str(snapshot), str(SNAPSHOT), "--format", fmt])
    assert proc.returncode == 0, proc.stderr
    assert leaks(proc.stdout + proc.stderr) == []


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_explain_every_format(tmp_path, fmt):
    error = tmp_path / "error.txt"
    error.write_text(planted_text())
    proc = run(["explain", str(error), "--no-facts", "--format", fmt])
    assert proc.returncode == 0, proc.stderr
    assert leaks(proc.stdout + proc.stderr) == []


def test_explain_with_planted_facts(tmp_path, snapshot):
    error = tmp_path / "error.txt"
    error.write_text(planted_text())
    proc = run(["explain", str(error), "--facts", str(snapshot), "--format", "json"])
    assert proc.returncode == 0, proc.stderr
    assert leaks(proc.stdout + proc.stderr) == []


def test_check_from_pasted_report(tmp_path):
    paste = tmp_path / "issue.txt"
    paste.write_text("+---------------------------------------------------------------+\n"
                     "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n"
                     + planted_text())
    proc = run(["check", "--from", str(paste), "--format", "json", "-v"])
    assert proc.returncode in (0, 1), proc.stderr
    assert leaks(proc.stdout + proc.stderr) == []


def test_facts_redacted_by_default(tmp_path):
    proc = run(["facts"], planted_environ())
    assert proc.returncode == 0, proc.stderr
    assert leaks(proc.stdout) == []
    json.loads(proc.stdout)  # still a snapshot `check --facts` can replay


def test_no_redact_control_shows_the_planting_reaches_outputs(tmp_path, snapshot):
    """Without this, a test above could pass only because nothing planted is ever printed."""
    proc = run(["facts", "--no-redact"], planted_environ())
    # names and addresses come back; credentials are never even recorded by the env probe
    assert {"master addr host", "home user"} <= set(leaks(proc.stdout))
    assert "tf_config auth_token" not in leaks(proc.stdout)
    error = tmp_path / "error.txt"
    error.write_text(planted_text())
    proc = run(["explain", str(error), "--no-facts", "--no-redact", "--format", "markdown"])
    assert "bearer header" in leaks(proc.stdout) or "pem body" in leaks(proc.stdout) \
        or "key= in url" in leaks(proc.stdout)
    proc = run(["diff", str(snapshot), str(SNAPSHOT), "--no-redact", "--format", "json"])
    assert leaks(proc.stdout)
