"""The second planted set (``planted.py``): 63 kinds of secret in the environment, $HOME, a fake
site-packages and torch, fake nvcc/nvidia-smi, pasted reports, error texts, saved snapshots,
argv and an internal error's message; every output of every command is searched for each value
and its first 8 characters. The shapes and the non-secrets next to them are pinned one by one
below, so a failure names what leaked.
"""

from __future__ import annotations

import re

import pytest
from planted import KEEP, S, error_text, leaked, outputs

from envdoctor import secrets
from envdoctor.outputs.redact import Redactor, for_data


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("planted")
    return outputs(tmp, True), outputs(tmp, False)


def test_no_planted_secret_in_any_default_output(both):
    red, _ = both
    found = {name: leaked(text) for name, text in red.items() if leaked(text)}
    assert found == {}


def test_the_planting_reaches_the_outputs_without_redaction(both):
    """The control: without it a pass could mean that nothing planted is ever printed."""
    red, raw = both
    reached = set().union(*(leaked(text) for text in raw.values()))
    assert len(reached) >= 35, sorted(set(S) - reached)
    assert len(red) >= 45  # every command and format ran
    assert all(text.strip() for text in red.values())


def test_versions_next_to_the_secrets_survive(both):
    red, raw = both
    for name, text in red.items():
        for value in KEEP:
            if value in raw[name]:
                assert value in text, (name, value)


@pytest.mark.parametrize("line, secret", [
    ("DefaultEndpointsProtocol=https;AccountName=st;AccountKey=Zm9vYmFyQmF6==;EndpointSuffix=x",
     "Zm9vYmFyQmF6=="),
    ("SharedAccessSignature=sv=2022&sig=p1aNt3dS%2Bv4%3D", "p1aNt3dS"),
    ("DB_PASS=DbPassValue88y", "DbPassValue88y"),
    ("MY_SERVICE_PASSWD=SvcPasswd77", "SvcPasswd77"),
    ("SERVICE_CREDENTIALS=SvcCreds11q", "SvcCreds11q"),
    ("API_KEY_2=ApiKey2Value22w", "ApiKey2Value22w"),
    ("(WANDB_API_KEY=0a1b2c3d4e5f60718293a4b5c6d7e8f901234567)", "0a1b2c3d4e5f6071"),
    ("aws_secret_access_key = Vb7/Nm3+Qw9Er1Ty5Ui2Op8As4Df6Gh0Jk3Lz7Xc", "Vb7/Nm3+"),
    ("AccessDenied for AKIAQWERTYUIOPASDF12 secret 9dKx/Lq2Rv+Tz8Wn4Yb6Hc1Jm3Pe5Sg7Uf0Ai2Bo",
     "9dKx/Lq2"),
    ("python train.py --token CmdTokValue33e77 --lr 3e-4", "CmdTokValue33e77"),
    ("python train.py --hf_token SmiProcTok-8812aa", "SmiProcTok-8812aa"),
    ("launch --password CmdPasswordValue55t", "CmdPasswordValue55t"),
    ("launch --api-key=CmdApiKeyValue44r", "CmdApiKeyValue44r"),
    ("    main(['--token', 'CmdTokValue33e77'])", "CmdTokValue33e77"),
    ("machine api.wandb.ai login user password fedcba9876543210fedcba98", "fedcba98"),
    ("  password fedcba9876543210fedcba98", "fedcba98"),
    ('{"username": "kaggler", "key": "4b1c9e7d2a6f8035b1c9e7d2a6f80351"}', "4b1c9e7d"),
    ("Authorization: Bearer WrApPeDbEaReRtOk\n    EnVaLuE6677889900\n", "EnVaLuE6677889900"),
    ('declare -x DB_PASS="DbPassValue88y"', "DbPassValue88y"),
    ("  db_password: YamlPw-5531", "YamlPw-5531"),
    ("ValueError: Invalid api_key: 'ApiKeyInMsg-7741'", "ApiKeyInMsg-7741"),
])
def test_each_new_shape_is_scrubbed(line, secret):
    out = secrets.scrub(line)
    assert secret not in out and secrets.REDACTED in out, out


@pytest.mark.parametrize("line", [
    "key = jax.random.PRNGKey(0)",                       # code in a traceback
    "    token = tokenizer(batch['text'])",
    "psql: FATAL: password authentication failed for user",
    "nvidia-cudnn-cu12==9.10.2.21 torch==2.5.1+cu121 CUDA 12.4 driver 550.54.14",
    "torch git_version: 0a1b2c3d4e5f60718293a4b5c6d7e8f901234567 (aws build)",
    "--hash=sha256:3f1a9c7e5b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f1a3c5e7b9d1f3a",
    "aws secret /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:272, unhandled system error",
    "Enter password: ",
    "api_key: <your key here>",
    "python generate.py --max-tokens 128 --use_auth_token --seed 1",
    "--xla_dump_hlo_pass_re=.* --xla_gpu_autotune_level=4",
])
def test_non_secrets_next_to_the_shapes_survive(line):
    assert secrets.scrub(line) == line


@pytest.mark.parametrize("line, secret", [
    ("redis://:RedisOnlyPw-4477@cache.corp.example:6379/0", "RedisOnlyPw"),
    ("redirect https%3A%2F%2Fsso%2Fcb%3Faccess_token%3DEncQueryTok-2288%26state%3Dx",
     "EncQueryTok"),
    ("403 Forbidden: invalid token pypi-AgEIcHlwaS5vcmcCJDBhMWIyYzNkLTRlNWYtNjA3MS04Mjkz",
     "pypi-AgEIcHlwaS5vcmcCJDBh"),
    ("RefreshError: expired ya29.a0AfB_byPlantedGoogleAccessToken0123", "ya29.a0AfB_by"),
    ("curl -H 'x-api-key: XApiKeyHdr-9917' -H \"PRIVATE-TOKEN: PrivTokHdr-2231\" https://g",
     "Hdr-"),
    ("401 for url <https://conda.anaconda.org/t/ch-8f2e1d0c-tok-4a5b/private/repodata.json>",
     "ch-8f2e1d0c"),
    ("bad client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFcEFJQkFBS0NBUUVB",
     "LS0tLS1CRUdJTiBSU0Eg"),
])
def test_each_new_token_shape_is_redacted(line, secret):
    out = Redactor().text(line)
    assert secret not in out and "<redacted>" in out, out


def test_a_secret_named_once_is_redacted_wherever_else_it_appears():
    """``--token X`` in one place and X in a path elsewhere (a snapshot, a pasted log)."""
    data = {"reason": "read with --token CmdTokValue33e77",
            "nvcc_path": "/opt/cuda-CmdTokValue33e77/bin/nvcc"}
    r = for_data(data, {})
    assert "CmdTokValue33e77" not in str(r.data(data))
    assert "/bin/nvcc" in r.data(data)["nvcc_path"]


def test_unusual_secret_names_in_the_environment_are_learnt():
    env = {"DB_PASS": "DbPassValue88y", "AZURE_STORAGE_CONNECTION_STRING": "AccountKey=abc12345",
           "SVC_CREDS": "SvcCredsValue11"}
    r = for_data({}, env)
    text = "argv: ['-o', '/out/DbPassValue88y-abc12345-SvcCredsValue11.txt']"
    assert not {"DbPassValue88y", "SvcCredsValue11"} & set(r.text(text).split("-"))
    assert "DbPass" not in r.text(text) and "SvcCreds" not in r.text(text)


def test_the_internal_error_line_on_stderr_is_redacted():
    from envdoctor.crashlog import one_line
    exc = RuntimeError(f"upload to https://u:{S['secret in crash message']}@store.example failed")
    assert S["secret in crash message"] not in one_line(exc)
    assert "store.example" in one_line(exc)


def test_every_planted_error_line_is_clean_after_scrub():
    """The error text as one string, as `explain` renders evidence: no value survives."""
    r = Redactor()
    assert leaked(r.text(error_text())) == []


def test_the_working_folder_beside_the_secrets_is_kept(both):
    """PWD and OLDPWD are planted as the run's folder: its paths are shown as they are (only
    the token inside one goes), not replaced everywhere as a "credential"."""
    red, _ = both
    text = red["bad input: a path"]
    assert re.search(r"/planted\d*/<redacted>/none\.json", text), text
    assert "<redacted>/<redacted>" not in text
