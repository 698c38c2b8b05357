"""Redaction by name and by shape: what a credential is named or looks like, and the names
and texts beside them that are not credentials (the working folder, switches, key paths)."""

from __future__ import annotations

import pytest

from envdoctor import secrets
from envdoctor.outputs.redact import Redactor, for_data, looks_secret
from envdoctor.probes import envvars
from tests.conftest import run_cli

HEX = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
TELEGRAM = "7123456789:AA" + "Hk3mPq9Rt2Vw5Xy8Zb1Cd4Ef7Gh0Ij3Kl"[:33]


@pytest.mark.parametrize("name,value", [
    ("PWD", "/work/proj"), ("OLDPWD", "/srv/data"), ("KEYBOARD", "us"),
    ("XKB_KEYBOARD_LAYOUT", "de"), ("TOKENIZERS_PARALLELISM", "false"),
    ("HF_HUB_DISABLE_IMPLICIT_TOKEN", "1"), ("HF_HUB_DISABLE_TELEMETRY", "1"),
    ("PASSWORD_STORE_DIR", "/home/jo/.password-store"), ("SSH_AUTH_SOCK", "/tmp/ssh-XYZ/agent.42"),
    ("GPG_AGENT_INFO", "/run/user/1000/gnupg/S.gpg-agent:0:1"), ("KUBECONFIG", "/etc/kube/cfg"),
    ("TLS_KEY_PATH", "/etc/ssl/private/server.key"), ("SSL_KEYFILE", "/etc/ssl/k.pem"),
    ("JUPYTER_TOKEN_FILE", "~/.jupyter/token"), ("AWS_SHARED_CREDENTIALS_FILE", "/srv/aws/creds"),
    ("XDG_SESSION_TYPE", "wayland"), ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus"),
    ("XAUTHORITY", "/run/user/1000/gdm/Xauthority"), ("GOPRIVATE", "github.com/acme/*"),
    ("GIT_ASKPASS", "/usr/lib/git-core/git-gui--askpass"), ("WANDB_DISABLE_CODE", "true"),
])
def test_names_that_merely_sound_like_credentials_are_not_redacted(name, value):
    assert not looks_secret(name, value) and not envvars.looks_secret(name, value)
    shown = for_data({}, {name: value}).data({name: value})[name]
    assert "<redacted>" not in shown  # (a user or host name in it goes, as anywhere)
    if "/home/" not in value and "ADDRESS" not in name:
        assert shown == value


@pytest.mark.parametrize("name,value", [
    ("DB_PWD", "Pw-7731x"), ("MYSQL_PWD", "/startswithslash"), ("HF_TOKEN", "hf_" + "a" * 30),
    ("GITHUBTOKEN", "abc123def456"), ("DBPASSWORD", "x9y8z7w6"), ("DB_PASSWORD", "/abc/def"),
    ("SSL_KEYFILE", "-----BEGIN PRIVATE KEY-----"), ("TLS_KEY_PATH", "hunter2 hunter2"),
    ("AWS_SECRET_ACCESS_KEY", "9dKx/Lq2Rv+Tz8Wn4Yb6Hc1Jm3Pe5Sg7Uf0Ai2Bo"), ("SESSION", "s3ss10n"),
    ("HTTP_COOKIE", "sid=abcdef"), ("KAGGLE_KEY", HEX), ("AZURE_STORAGE_CONNECTION_STRING", "x"),
    ("GITHUB_PAT", "x1y2z3"), ("TOKEN_PATH", "not a path"), ("API_KEY_2", "ApiKey2Value22w"),
    ("HF_HUB_DISABLE_IMPLICIT_TOKEN", "hf_" + "b" * 30),  # a token is a token, whatever the name
    ("SLACK_WEBHOOK", f"https://hooks.slack.com/services/T024BE7LD/B08Q3HF5R9N/{HEX[:24]}"),
    ("PROXY", "svc:ProxPw-3391@proxy.corp.example:8080"),
])
def test_credentials_by_name_or_shape_still_are(name, value):
    assert looks_secret(name, value) and envvars.looks_secret(name, value)
    assert for_data({}, {name: value}).data({name: value}) == {name: "<redacted>"}


def test_the_working_folder_appears_verbatim_in_every_line():
    env = {"PWD": "/work/proj-42", "OLDPWD": "/srv/data-7", "HOME": "/root"}
    r = for_data({"env": env}, env)
    text = ('File "/work/proj-42/train.py", line 3\nPWD=/work/proj-42 OLDPWD=/srv/data-7\n'
            "cd /srv/data-7 && ls")
    assert r.text(text) == text
    assert secrets.scrub("declare -x PWD=\"/work/proj-42\"") == "declare -x PWD=\"/work/proj-42\""
    # a password named PWD in a connection string is still one
    assert "Odbc-Pw-5" not in secrets.scrub("Server=db;Uid=ml;Pwd=Odbc-Pw-5;")
    assert "Pw-9" not in secrets.scrub("DB_PWD=/Pw-9")


def test_explain_shows_the_working_folder_of_the_traceback(tmp_path):
    proj = tmp_path / "proj-under-test"
    proj.mkdir()
    log = proj / "err.log"
    log.write_text("Traceback (most recent call last):\n"
                   f'  File "{proj}/train.py", line 3, in <module>\n'
                   f"OSError: {proj}/lib/libcudnn.so.9: cannot open shared object file: "
                   "No such file or directory\n")
    proc = run_cli("explain", str(log), "--no-facts", env={"PWD": str(proj), "OLDPWD": str(proj)})
    assert proc.returncode in (0, 1), proc.stderr
    assert f"{proj}/lib/libcudnn.so.9" in proc.stdout
    assert "<redacted>" not in proc.stdout


# ---------------------------------------------------------------- token shapes
SHAPES = [
    # (text as it appears, the secret part, context that must survive)
    ("post to https://hooks.slack.com/services/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 "
     "failed: 404", "Xq7pLm2Nb4Vc6Zr8Ts0Wy1Ad", "hooks.slack.com/services/"),
    ("slack_sdk: invalid_auth xoxb-2048123456-4096123456-Bq7Wr5Ty3Ui1Op9As8Df",
     "Bq7Wr5Ty3Ui1Op9As8Df", "invalid_auth"),
    ("SLACK_APP_TOKEN=xapp-1-A08Q3HF5R9N-8812345678901-" + HEX + HEX, HEX, "SLACK_APP_TOKEN"),
    ("token xoxe.xoxp-1-Mi0yLTEyMzQ1Njc4OTAxMjM0LTU2Nzg5MDEyMzQ1Ng expired",
     "Mi0yLTEyMzQ1Njc4OTAxMjM0", "expired"),
    ("requests.post('https://discord.com/api/webhooks/1234567890123456789/AbCdEf-GhIjKl_MnOp"
     "QrStUvWxYz0123456789AbCdEfGhIjKlMnOpQrStUvWx')", "AbCdEf-GhIjKl_MnOpQrStUvWxYz",
     "discord.com/api/webhooks/"),
    ("https://discordapp.com/api/webhooks/987654321098765432/ZyXwVuTsRqPoNmLkJiHgFeDcBa98765",
     "ZyXwVuTsRqPoNmLkJiHg", "discordapp.com/api/webhooks/"),
    ("Teams webhook https://contoso.webhook.office.com/webhookb2/9f8e7d6c-5b4a-3c2d-1e0f-"
     "a1b2c3d4e5f6@72f988bf-86f1-41af-91ab-2d7cd011db47/IncomingWebhook/4b3c2d1e0f9a8b7c6d5e4f3a"
     "2b1c0d9e/0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d returned 400",
     "4b3c2d1e0f9a8b7c6d5e4f3a", "webhook.office.com/webhookb2/"),
    (f"telegram.error.InvalidToken: {TELEGRAM} was rejected", TELEGRAM[11:], "InvalidToken"),
    (f"GET https://api.telegram.org/bot{TELEGRAM}/sendMessage 401", TELEGRAM[11:],
     "api.telegram.org/bot"),
    (f"databricks: 403 for token dapi{HEX}-2 on workspace", f"dapi{HEX}", "workspace"),
    ("pip install --index-url deploy:IdxPw-4471@pypi.corp.example/simple torch", "IdxPw-4471",
     "@pypi.corp.example/simple"),
    ("git clone builder:GitPw-7720@git.corp.example:ml/train.git", "GitPw-7720",
     "@git.corp.example:ml/train.git"),
    ("git clone builder:GitPw-7721@gitbox:ml/train.git", "GitPw-7721", "@gitbox:ml/train.git"),
    ("proxy=svc:ProxPw-3391@proxy.corp.example:8080", "ProxPw-3391", "@proxy.corp.example:8080"),
    ("npm ERR! 401 for npm_" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y", "Ab1Cd2Ef3Gh4Ij5Kl6",
     "npm ERR!"),
    ("stripe.error.AuthenticationError: sk_live_51Hx" + "Q" * 24, "sk_live_51Hx", "stripe"),
    ("sendgrid 401: SG.Ab1Cd2Ef3Gh4Ij5Kl6Mn7O.Pq8Rs9Tu0Vw1Xy2Za3Bc4De5Fg6Hi7Jk8Lm9No0Pq1Rs2T",
     "Ab1Cd2Ef3Gh4Ij5Kl6Mn7O", "sendgrid 401"),
    (f"twilio: 20003 for SK{HEX}", HEX, "twilio"),
    ("gitlab deploy token gldt-Zx9Cv8Bn7Mm6Lk5Jh4Gf3Ds", "Zx9Cv8Bn7Mm6Lk5Jh4Gf", "gitlab"),
    ("anthropic key sk-ant-api03-Zq8_Xw7-Vu6Ts5Rq4Po3Nm2Lk1Jh0GfEdCbA9z8y7x6", "Zq8_Xw7-Vu6Ts5",
     "anthropic"),
    ("docker login: TORCH_HOME=/data/dckr_pat_Zq8Xw7Vu6Ts5Rq4Po3Nm2Lk1J/hub", "Zq8Xw7Vu6Ts5Rq4",
     "/hub"),
    ("org token dckr_oat_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Q rejected", "Ab1Cd2Ef3Gh4Ij5", "rejected"),
    ("cache at /x/npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1W/pkg", "Ab1Cd2Ef3Gh4Ij5Kl6", "/pkg"),
    ("maps key AIzaSyQ1w2E3r4T5y6U7i8O9p0A-s_D1f2G3h4 denied", "SyQ1w2E3r4T5y6U7", "denied"),
    ("maps key AIzaSyQ1w2E3r4T5y6U7i8O9p0A-s_D1f2G3h4J5 denied", "SyQ1w2E3r4T5y6U7", "denied"),
]


@pytest.mark.parametrize("text,secret,context", SHAPES, ids=[s[2][:24] for s in SHAPES])
def test_each_token_shape_is_redacted_and_its_context_kept(text, secret, context):
    out = Redactor().text(text)
    assert secret not in out and "<redacted>" in out, out
    assert context in out, out


@pytest.mark.parametrize("text", [
    "pip install torch==2.1.0+cu121@https://download.pytorch.org/whl/cu121",
    "git clone git@github.com:org/repo.git",
    "mylib @ file:///opt/wheels/mylib-1.0-py3-none-any.whl",
    "contact jane.doe@example.com or mailto:ops@example.com",
    "tensor on cuda:0@step 1200", "listening on [fe80::1ff:fe23:4567:890a]:8080",
    "undefined symbol: _ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE@GLIBCXX_3.4.21",
    "std::runtime_error@GLIBCXX_3.4 c10::Error@c10", "at 12:30 on node-3", "ratio 1:2@x",
    "ssh git@gitlab.example:group/project.git", "image registry.example:5000/ml/train@sha256",
])
def test_things_that_look_a_little_like_userinfo_are_kept(text):
    assert "<redacted>" not in Redactor().text(text)


def test_an_env_dump_of_the_non_secrets_is_kept_as_it_is():
    text = ("HF_HUB_DISABLE_IMPLICIT_TOKEN=1 TOKENIZERS_PARALLELISM=false "
            "SSH_AUTH_SOCK=/tmp/ssh-x/agent.1 PASSWORD_STORE_DIR=/srv/pass KEYBOARD=us "
            "PWD=/work/proj OLDPWD=/work")
    assert Redactor().text(text) == text
    assert "Tok-991x" not in Redactor().text("HF_TOKEN=Tok-991x DB_PWD=Tok-991x")
