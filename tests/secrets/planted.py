"""A second planted set: credentials where real machines and real pasted texts hold them.

Kept apart from ``test_secrets.py`` (whose set the redaction was tuned on): shapes and places
that set does not try. Every secret is planted in one or more *places* (the environment, files
in ``$HOME``, a fake ``site-packages`` and a fake ``torch``, fake ``nvcc``/``nvidia-smi`` on
``PATH``, a pasted ``check --from`` report, an ``explain`` input, saved snapshots for
``--facts``/``diff``/``fleet compare``, argv and the message of an internal error), then every
output of every command is searched for the value and for its first 8 characters.

``python tests/secrets/planted.py`` prints the table: per output, secrets planted where it can
see them, how many reach it without redaction (``--no-redact``), and how many leak by default.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "tests" / "fixtures" / "diff" / "h100-driver-550.json"

# kind -> the secret value (what must never be printed, nor its first 8 characters)
S = {
    "hf token": "hf_xTqLmNbVcZaSdFgHjKlPoIuYtReWq9876",
    "openai project key": "sk-proj-4fGh7JkL9mNpQr2StUvWxYz0AbCdEfGhIjKlMnOp",
    "anthropic key": "sk-ant-api03-Zq8_Xw7-Vu6Ts5Rq4Po3Nm2Lk1Jh0GfEdCbA9z8y7x6w5v4u3tAA",
    "github oauth": "gho_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78",
    "github pat": "github_pat_11AZQ7XYA0kLmNoPqRsTuV_WxYz0123456789abcdefGHIJKLMNopqrstuvWXYZ01",
    "github app token in remote": "ghs_Qw12Er34Ty56Ui78Op90As12Df34Gh56Jk78",
    "gitlab token in remote": "glpat-Zx9Cv8Bn7Mm6Lk5Jh4Gf",
    "slack bot": "xoxb-2048-4096-Bq7Wr5Ty3Ui1Op9As8Df",
    "slack user": "xoxp-1111-2222-3333-Qm4Nb6Vc8Xz0",
    "aws key id": "AKIAQWERTYUIOPASDF12",
    "aws secret key": "9dKx/Lq2Rv+Tz8Wn4Yb6Hc1Jm3Pe5Sg7Uf0Ai2Bo",
    "aws secret in credentials file": "Vb7/Nm3+Qw9Er1Ty5Ui2Op8As4Df6Gh0Jk3Lz7Xc",
    "gcp private key body": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjGcpPlantedKeyBody",
    "gcp private_key_id": "7c3e9a1b5d2f4e6a8c0b1d3f5e7a9c2b4d6f8e01",
    "azure account key": "Zm9vYmFyQmF6UXV4QXp1cmVBY2NvdW50S2V5MTIzNDU2Nzg5MA==",
    "azure sas sig": "p1aNt3dSaSs1gNaTuRe%2Bv4Lu3%3D",
    "jwt": "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJwbGFudGVkIn0.UGxhbnRlZFNpZ25hdHVyZQ",
    "openssh key body": "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQPlantedOpenSSHBody",
    "wandb key env": "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567",
    "wandb key netrc": "fedcba9876543210fedcba9876543210fedcba98",
    "kaggle key": "4b1c9e7d2a6f8035b1c9e7d2a6f80351",
    "pip index password": "PipIdxPw-7731",
    "pip extra index token": "pypi-AgEIcHlwaS5vcmcCJGExYjJjM2Q0",
    "uv index password": "UvIdxPw_9902",
    "conda channel token": "ch-8f2e1d0c-tok-4a5b",
    "hf endpoint password": "HfMirrPw.4410",
    "proxy password": "Pr0xyPw!55",
    "service passwd": "SvcPasswdValue77x",
    "db pass": "DbPassValue88y",
    "data secret": "DataSecretValue99z",
    "service credentials": "SvcCredsValue11q",
    "api key 2": "ApiKey2Value22w",
    "--token in command": "CmdTokValue33e77",
    "--api-key= in command": "CmdApiKeyValue44r",
    "--password in command": "CmdPasswordValue55t",
    "wrapped bearer": "WrApPeDbEaReRtOkEnVaLuE6677889900",
    "url-encoded password": "Enc%40Pw%21123",
    "basic auth base64": "c3ZjOlBsYW50ZWRCYXNpY1B3NDQ=",
    "secret in nvidia-smi process": "SmiProcTok-8812aa",
    "secret in collect_env": "CeEnvTok-5521bb",
    "hf token in a path": "hf_PathTokQw12Er34Ty56Ui78Op90",
    "token in fake torch error": "hf_TorchErrTok12Ab34Cd56Ef78Gh90",
    "secret in crash message": "CrashMsgSecret-6603",
    "secret in nvcc error": "NvccLicPw-3319",
    "redis url, empty user": "RedisOnlyPw-4477",
    "url-encoded query key": "EncQueryTok-2288",
    "pypi token": "pypi-AgEIcHlwaS5vcmcCJDBhMWIyYzNkLTRlNWYtNjA3MS04MjkzLWE0YjVjNmQ3ZThmOQ",
    "google oauth access token": "ya29.a0AfB_byPlantedGoogleAccessToken0123456789",
    "x-api-key header": "XApiKeyHdrValue-9917",
    "gitlab private-token header": "PrivTokHdrValue-2231",
    "base64 kubeconfig key": "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFcEFJQkFBS0NBUUVB",
    "slack webhook": "Wh00kSl4ckPlantedSecret9",
    "slack app token": "xapp-1-A0PLANT3XY-8812345678901-4f2a9c7e1b3d5f6a8c0e2b4d6f8a0c1e",
    "discord webhook": "DiScOrDpLaNtEd_ToKeN-0123456789abcdefGHIJKLmnopqrstuvWXYZ0123456",
    "teams webhook": "7e6d5c4b3a29180f7e6d5c4b3a29180f",
    "telegram bot token": "7123456789:AAHk3mPq9Rt2Vw5Xy8Zb1Cd4Ef7Gh0Ij3Kl",
    "databricks token": "dapi0f1e2d3c4b5a69788796a5b4c3d2e1f0-2",
    "proxy password without scheme": "NoSchemePw-5150",
    "git password without scheme": "GitNoSchPw-6161",
    "npm token": "npm_Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Y",
    "stripe live key": "sk_live_51HxPlantedStripeKey0123456789",
    "sendgrid key": "SG.PlAnTeDsEnDgRiDkEy01.Pq8Rs9Tu0Vw1Xy2Za3Bc4De5Fg6Hi7Jk8Lm9No0Pq1Rs2T",
    "gitlab deploy token": "gldt-PlantedDeployTok3n0123",
}
# what must survive every output (a redaction that eats these is a defect)
KEEP = ("9.10.2.21", "12.4", "550.54.14")


def _gcp_json() -> str:
    return json.dumps({
        "type": "service_account", "project_id": "planted-proj",
        "private_key_id": S["gcp private_key_id"],
        "private_key": "-----BEGIN PRIVATE KEY-----\n" + S["gcp private key body"]
                       + "\nQm9keUxpbmUy\n-----END PRIVATE KEY-----\n",
        "client_email": "trainer@planted-proj.iam.gserviceaccount.com"})


def _slack() -> str:
    return f"https://hooks.slack.com/services/T0PLANT01/B0PLANT02/{S['slack webhook']}"


def _discord() -> str:
    return f"https://discord.com/api/webhooks/1234567890123456789/{S['discord webhook']}"


def _teams() -> str:
    return ("https://contoso.webhook.office.com/webhookb2/9f8e7d6c-5b4a-3c2d-1e0f-a1b2c3d4e5f6@"
            f"72f988bf-86f1-41af-91ab-2d7cd011db47/IncomingWebhook/{S['teams webhook']}/"
            "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d")


def _azure() -> str:
    return ("DefaultEndpointsProtocol=https;AccountName=plantedstore;AccountKey="
            f"{S['azure account key']};EndpointSuffix=core.windows.net")


def environ(tmp: Path) -> dict[str, str]:
    """Secrets in the environment of the envdoctor process (names a real setup uses)."""
    return {
        "HF_TOKEN": S["hf token"], "OPENAI_API_KEY": S["openai project key"],
        "ANTHROPIC_API_KEY": S["anthropic key"], "GH_TOKEN": S["github oauth"],
        "GITHUB_PAT": S["github pat"], "SLACK_BOT_TOKEN": S["slack bot"],
        "SLACK_USER_TOKEN": S["slack user"], "AWS_ACCESS_KEY_ID": S["aws key id"],
        "AWS_SECRET_ACCESS_KEY": S["aws secret key"],
        "AZURE_STORAGE_CONNECTION_STRING": _azure(),
        "GOOGLE_CREDENTIALS_JSON": _gcp_json(),
        "WANDB_API_KEY": S["wandb key env"], "KAGGLE_USERNAME": "plantedkaggler",
        "KAGGLE_KEY": S["kaggle key"],
        "PIP_INDEX_URL": f"https://deploy:{S['pip index password']}@pypi.corp.example/simple",
        "PIP_EXTRA_INDEX_URL": f"https://__token__:{S['pip extra index token']}@pkgs.example/",
        "UV_INDEX_URL": f"https://ci:{S['uv index password']}@uv.corp.example/simple",
        "HF_ENDPOINT": f"https://mirror:{S['hf endpoint password']}@hf-mirror.corp.example",
        "HTTPS_PROXY": f"http://svc:{S['proxy password']}@proxy.corp.example:3128",
        "https_proxy": f"http://svc:{S['proxy password']}@proxy.corp.example:3128",
        "MY_SERVICE_PASSWD": S["service passwd"], "DB_PASS": S["db pass"],
        "DATA_SECRET": S["data secret"], "SERVICE_CREDENTIALS": S["service credentials"],
        "API_KEY_2": S["api key 2"],
        "SLACK_WEBHOOK_URL": _slack(), "SLACK_APP_TOKEN": S["slack app token"],
        "DISCORD_WEBHOOK": _discord(), "TEAMS_WEBHOOK_URL": _teams(),
        "TELEGRAM_BOT_TOKEN": S["telegram bot token"], "DATABRICKS_TOKEN": S["databricks token"],
        "NPM_TOKEN": S["npm token"], "STRIPE_API_KEY": S["stripe live key"],
        "SENDGRID_API_KEY": S["sendgrid key"], "CI_DEPLOY_PASSWORD": S["gitlab deploy token"],
        "http_proxy": f"svc:{S['proxy password without scheme']}@proxy.corp.example:8080",
        # what is not a secret, beside them: the working folders, switches, a key's path
        "PWD": str(tmp), "OLDPWD": str(tmp / "previous"), "TOKENIZERS_PARALLELISM": "false",
        "HF_HUB_DISABLE_IMPLICIT_TOKEN": "1", "SSH_AUTH_SOCK": str(tmp / "agent.sock"),
        # allowlisted names (recorded by the env probe) holding secrets inside their values
        "XLA_FLAGS": f"--xla_dump_to=/tmp/x --api-key={S['--api-key= in command']}",
        "TORCHINDUCTOR_CACHE_DIR": f"/mnt/cache/{S['hf token in a path']}/inductor",
        "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
        "TORCH_CUDA_ARCH_LIST": "9.0",
        "NCCL_NET_PLUGIN": f"https://plugins:{S['url-encoded password']}@nccl.corp.example/p",
        "TF_CONFIG": json.dumps({"cluster": {"worker": ["w0:2222"]},
                                 "task": {"type": "worker", "index": 0},
                                 "credentials": _azure()}),
    }


def home_files(home: Path) -> None:
    """Where credentials live in a real $HOME (envdoctor must not read them into outputs)."""
    (home / ".kaggle").mkdir(parents=True, exist_ok=True)
    (home / ".kaggle" / "kaggle.json").write_text(
        json.dumps({"username": "plantedkaggler", "key": S["kaggle key"]}))
    (home / ".netrc").write_text(
        f"machine api.wandb.ai\n  login user\n  password {S['wandb key netrc']}\n")
    (home / ".config" / "pip").mkdir(parents=True, exist_ok=True)
    (home / ".config" / "pip" / "pip.conf").write_text(
        f"[global]\nindex-url = https://deploy:{S['pip index password']}@pypi.corp.example/s\n")
    (home / ".condarc").write_text(
        f"channels:\n  - https://conda.anaconda.org/t/{S['conda channel token']}/private\n")
    (home / ".cache" / "huggingface").mkdir(parents=True, exist_ok=True)
    (home / ".cache" / "huggingface" / "token").write_text(S["hf token"])
    (home / ".aws").mkdir(exist_ok=True)
    (home / ".aws" / "credentials").write_text(
        f"[default]\naws_access_key_id = {S['aws key id']}\n"
        f"aws_secret_access_key = {S['aws secret in credentials file']}\n")


def site_packages(tmp: Path) -> Path:
    """A fake site-packages (on PYTHONPATH) whose path holds a token, with a torch that fails
    to import naming a path with a token (its message reaches the live facts)."""
    site = tmp / S["hf token in a path"] / "site-packages"
    torch = site / "torch"
    torch.mkdir(parents=True, exist_ok=True)
    (torch / "__init__.py").write_text(
        "raise OSError('/mnt/models/" + S["token in fake torch error"]
        + "/libtorch_cuda.so: cannot open shared object file: No such file or directory')\n")
    dist = site / "torch-2.5.1+cu121.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1+cu121\n")
    (dist / "top_level.txt").write_text("torch\n")
    (dist / "direct_url.json").write_text(json.dumps(
        {"url": f"https://oauth2:{S['gitlab token in remote']}@gitlab.example/org/torch.git",
         "vcs_info": {"vcs": "git", "commit_id": "a" * 40}}))
    return site


def fake_tools(tmp: Path) -> Path:
    """nvcc and nvidia-smi on PATH that fail, printing what real ones print next to secrets."""
    bindir = tmp / "tools" / "bin"
    bindir.mkdir(parents=True, exist_ok=True)
    nvcc = bindir / "nvcc"
    nvcc.write_text("#!/bin/sh\necho \"nvcc fatal : license server https://lic:"
                    + S["secret in nvcc error"] + "@lic.corp.example/ unreachable\" >&2\nexit 1\n")
    smi = bindir / "nvidia-smi"
    smi.write_text("#!/bin/sh\necho \"Failed to initialize NVML: Driver/library version mismatch"
                   " (python train.py --hf_token " + S["secret in nvidia-smi process"]
                   + ")\" >&2\nexit 18\n")
    for p in (nvcc, smi):
        p.chmod(0o755)
    return bindir


def pasted_report() -> str:
    """A collect_env + nvidia-smi + pip list paste, as issues hold them, with secrets inside."""
    return (
        "Collecting environment information...\n"
        "PyTorch version: 2.5.1+cu121\nIs debug build: False\nCUDA used to build PyTorch: 12.1\n"
        "OS: Ubuntu 22.04.4 LTS (x86_64)\nPython version: 3.11.9 (main) [GCC 11.4.0] (64-bit "
        "runtime)\nIs CUDA available: True\nCUDA runtime version: 12.4.131\n"
        "GPU models and configuration: GPU 0: NVIDIA H100 80GB HBM3\n"
        "Nvidia driver version: 550.54.14\ncuDNN version: Probably one of the following:\n"
        "/usr/lib/x86_64-linux-gnu/libcudnn.so.9.10.2\n"
        "Versions of relevant libraries:\n[pip3] numpy==1.26.4\n[pip3] torch==2.5.1\n"
        f"[pip3] mylib @ git+https://oauth2:{S['gitlab token in remote']}@gitlab.example/o/mylib\n"
        f"[pip3] nvidia-cudnn-cu12==9.10.2.21\n"
        f"[conda] pytorch 2.5.1 py3.11_cuda12.1 https://conda.anaconda.org/t/"
        f"{S['conda channel token']}/private\n"
        f"HF_TOKEN={S['secret in collect_env']}\n"
        "+-----------------------------------------------------------------------------+\n"
        "| NVIDIA-SMI 550.54.14    Driver Version: 550.54.14    CUDA Version: 12.4     |\n"
        "| Processes:                                                                  |\n"
        f"|    0   N/A  N/A   4242  C  python train.py --hf_token "
        f"{S['secret in nvidia-smi process']}  1024MiB |\n"
        "+-----------------------------------------------------------------------------+\n"
        + error_text())


def error_text() -> str:
    """Tracebacks and log lines that carry credentials in the ways real ones do."""
    return (
        "Traceback (most recent call last):\n"
        '  File "/opt/train/run.py", line 40, in <module>\n'
        "    subprocess.run(cmd, check=True)\n"
        "subprocess.CalledProcessError: Command '['git', 'clone', 'https://x-access-token:"
        f"{S['github app token in remote']}@github.com/org/private.git']' returned non-zero "
        "exit status 128.\n"
        f"fatal: unable to access 'https://oauth2:{S['gitlab token in remote']}@gitlab.example"
        "/org/repo.git/': Could not resolve host: gitlab.example\n"
        "Traceback (most recent call last):\n"
        '  File "/opt/train/launch.py", line 12, in <module>\n'
        f"    main(['--token', '{S['--token in command']}'])\n"
        "RuntimeError: CUDA error: out of memory while running python train.py --token "
        f"{S['--token in command']} --api-key={S['--api-key= in command']} --password "
        f"{S['--password in command']}\n"
        "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: "
        f"https://api.example.com/v1 Authorization: Bearer {S['wrapped bearer'][:16]}\n"
        f"    {S['wrapped bearer'][16:]}\n"
        f"ValueError: bad connection string {_azure()}\n"
        f"ValueError: cannot load credentials {_gcp_json()}\n"
        f"aws_secret_access_key = {S['aws secret in credentials file']}\n"
        f"machine api.wandb.ai login user password {S['wandb key netrc']}\n"
        f"wandb: ERROR api_key not configured (WANDB_API_KEY={S['wandb key env']})\n"
        f"kaggle.json: {{\"username\": \"plantedkaggler\", \"key\": \"{S['kaggle key']}\"}}\n"
        "OSError: https://hf-mirror.corp.example/api/models: 401 with token "
        f"{S['hf token']} (jwt {S['jwt']})\n"
        f"openai.AuthenticationError: Incorrect API key provided: {S['openai project key']}.\n"
        f"anthropic.AuthenticationError: invalid x-api-key {S['anthropic key']}\n"
        f"slack_sdk.errors.SlackApiError: invalid_auth for {S['slack bot']} / {S['slack user']}\n"
        f"botocore.exceptions.ClientError: AccessDenied for {S['aws key id']} secret "
        f"{S['aws secret key']}\n"
        "pip._vendor.urllib3.exceptions.ProxyError: Cannot connect to proxy http://svc:"
        f"{S['proxy password']}@proxy.corp.example:3128\n"
        f"ERROR: Could not find a version that satisfies torch from https://deploy:"
        f"{S['pip index password']}@pypi.corp.example/simple and https://__token__:"
        f"{S['pip extra index token']}@pkgs.example/ and https://ci:{S['uv index password']}"
        f"@uv.corp.example/simple\n"
        f"huggingface_hub.errors.HfHubHTTPError: https://mirror:{S['hf endpoint password']}"
        "@hf-mirror.corp.example/api: 500\n"
        f"urllib.error.URLError: https://svc:{S['url-encoded password']}@files.corp.example/x\n"
        f"curl: (22) -H 'Authorization: Basic {S['basic auth base64']}' failed\n"
        f"azure.core.exceptions.ClientAuthenticationError: https://acct.blob.core.windows.net"
        f"/c/b?sv=2022-11-02&se=2025&sr=b&sp=r&sig={S['azure sas sig']}\n"
        f"github.GithubException: 401 Bad credentials for {S['github oauth']} and "
        f"{S['github pat']}\n"
        f"psycopg2.OperationalError: password authentication failed (DB_PASS={S['db pass']}, "
        f"MY_SERVICE_PASSWD={S['service passwd']}, DATA_SECRET={S['data secret']}, "
        f"SERVICE_CREDENTIALS={S['service credentials']}, API_KEY_2={S['api key 2']})\n"
        f"redis.exceptions.AuthenticationError: redis://:{S['redis url, empty user']}"
        "@cache.corp.example:6379/0 invalid password\n"
        "oauthlib.oauth2.rfc6749.errors.InvalidGrantError: redirect https%3A%2F%2Fsso.example"
        f"%2Fcb%3Faccess_token%3D{S['url-encoded query key']}%26state%3Dxyz\n"
        f"CondaHTTPError: HTTP 401 UNAUTHORIZED for url <https://conda.anaconda.org/t/"
        f"{S['conda channel token']}/private/linux-64/repodata.json>\n"
        f"curl -H 'x-api-key: {S['x-api-key header']}' -H \"PRIVATE-TOKEN: "
        f"{S['gitlab private-token header']}\" https://gitlab.example/api/v4 failed: 401\n"
        f"kubernetes.config.ConfigException: bad client-key-data: {S['base64 kubeconfig key']}\n"
        f"twine: HTTPError: 403 Forbidden: invalid or non-existent token {S['pypi token']}\n"
        f"google.auth.exceptions.RefreshError: expired {S['google oauth access token']}\n"
        f"slack_sdk.webhook.client: 404 no_team for {_slack()}\n"
        f"slack_bolt: invalid app token {S['slack app token']}\n"
        f"discord.errors.NotFound: 404 Unknown Webhook ({_discord()})\n"
        f"pymsteams.TeamsWebhookException: 400 for {_teams()}\n"
        f"telegram.error.InvalidToken: The token `{S['telegram bot token']}` was rejected\n"
        f"databricks.sdk.errors.PermissionDenied: invalid token {S['databricks token']}\n"
        f"ProxyError: cannot connect, proxy=svc:{S['proxy password without scheme']}"
        "@proxy.corp.example:8080\n"
        f"fatal: could not read from builder:{S['git password without scheme']}"
        "@git.corp.example:ml/train.git\n"
        f"npm ERR! code E401: Unable to authenticate, token {S['npm token']}\n"
        f"stripe.error.AuthenticationError: Invalid API Key provided: {S['stripe live key']}\n"
        f"python_http_client.exceptions.UnauthorizedError: 401 for {S['sendgrid key']}\n"
        f"remote: HTTP Basic: Access denied for {S['gitlab deploy token']}\n"
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        f"{S['openssh key body']}\n"
        "-----END OPENSSH PRIVATE KEY-----\n"
        "torch._C._cuda_init: RuntimeError: CUDA driver initialization failed, you might not "
        "have a CUDA gpu. cuDNN 9.10.2.21, CUDA 12.4, driver 550.54.14\n"
        "  sha256:3f1a9c7e5b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f1a3c5e7b9d1f3a\n"
    )


def snapshot(tmp: Path, name: str = "planted", host: str = "node-a") -> Path:
    """A saved snapshot (another machine's, or an older envdoctor's) holding secrets."""
    data = json.loads(SNAPSHOT.read_text())
    data["host"]["python_executable"] = f"/opt/{S['hf token in a path']}/bin/python"
    data["cuda"]["nvcc_path"] = f"/opt/cuda-{S['--token in command']}/bin/nvcc"
    env = dict(environ(tmp))
    env["HOSTNAME"] = host
    env["NCCL_DEBUG"] = "INFO" if host == "node-a" else "WARN"
    data["env"]["vars"].update(env)
    data["env"]["probe"]["reason"] = f"read with token={S['--token in command']}"
    path = tmp / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


CRASH = ("import sys\nsys.argv=['envdoctor']+sys.argv[1:]\nimport envdoctor.pipeline as p\n"
         "def boom(*a, **k):\n    raise RuntimeError('upload to https://u:"
         + S["secret in crash message"] + "@store.corp.example failed')\n"
         "p.build = boom\np.diagnose = boom\nfrom envdoctor.cli import run\nrun()\n")


def run(args: list[str], env: dict[str, str], cwd: Path, python_args: list[str] | None = None
        ) -> subprocess.CompletedProcess:
    cmd = [sys.executable, *(python_args or ["-m", "envdoctor"]), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, cwd=cwd,
                          check=False)


def base_env(tmp: Path, plant_env: bool = True) -> dict[str, str]:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    home_files(home)
    site = site_packages(tmp)
    tools = fake_tools(tmp)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR")}
    env.update(HOME=str(home), NO_COLOR="1", XDG_STATE_HOME=str(home / ".state"),
               XDG_CACHE_HOME=str(home / ".cache"),
               PATH=f"{tools}:{env.get('PATH', '/usr/bin:/bin')}",
               PYTHONPATH=f"{ROOT}:{site}")
    if plant_env:
        env.update(environ(tmp))
    return env


FORMATS = ("text", "json", "markdown", "junit", "sarif", "github")


def outputs(tmp: Path, redact: bool = True) -> dict[str, str]:
    """Every output of every command, by name: stdout + stderr + files written."""
    env = base_env(tmp)
    clean = base_env(tmp, plant_env=False)  # a pasted text comes from another machine
    nr = [] if redact else ["--no-redact"]
    out: dict[str, str] = {}
    files = tmp / ("red" if redact else "raw")
    files.mkdir(exist_ok=True)
    paste = tmp / "paste.txt"
    paste.write_text(pasted_report())
    err = tmp / "error.txt"
    err.write_text(error_text())
    snap = snapshot(tmp)
    nodes = tmp / "nodes"
    nodes.mkdir(exist_ok=True)
    snapshot(nodes, "a", "node-a")
    snapshot(nodes, "b", "node-b")

    def go(name: str, args: list[str], reports: bool = False, pasted: bool = False,
           **kw) -> None:
        slug = re.sub(r"\W+", "-", name)
        extra: list[str] = []
        if reports:
            for f in FORMATS:
                extra += ["--report", f"{f}:{files}/{slug}.{f}"]
        p = run([*args, *extra], clean if pasted else env, tmp, **kw)
        text = p.stdout + p.stderr
        for f in sorted(files.glob(f"{slug}.*")):
            text += f.read_text(errors="replace")
        m = re.search(r"details in ([^)\s]+)", p.stderr)
        if m and os.path.isfile(m.group(1)):
            text += Path(m.group(1)).read_text(errors="replace")
        out[name] = text

    go("check --static", ["check", "--static", "--format", "json", "-v", *nr], reports=True)
    go("check (live, fake torch)", ["check", "--framework", "torch", "--no-smoke", "--format",
                                    "json", "-v", *nr, "-o", f"{files}/check-live-fake-torch-.out"])
    go("check --from", ["check", "--from", str(paste), "--format", "json", "-v", *nr],
       reports=True, pasted=True)
    go("check --facts", ["check", "--facts", str(snap), "-v", *nr], reports=True, pasted=True)
    for fmt in ("markdown", "json"):
        go(f"report --static {fmt}", ["report", "--static", "--format", fmt, *nr])
        go(f"report --facts {fmt}", ["report", "--facts", str(snap), "--format", fmt, *nr], pasted=True)
    go("facts", ["facts", *nr])
    for fmt in ("text", "markdown", "json"):
        go(f"explain {fmt}", ["explain", str(err), "--no-facts", "--format", fmt, *nr], pasted=True)
    # explain quotes the lines it recognises: each secret line, as the message of one
    lines = [x for x in error_text().splitlines() if leaked(x) and x != S["openssh key body"]]
    for i, line in enumerate(lines):
        one = tmp / f"line{i}.txt"
        one.write_text("Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>"
                       f"\nRuntimeError: CUDA error: out of memory (while running: {line})\n")
        go(f"explain line {i}", ["explain", str(one), "--no-facts", *nr], pasted=True)
    go("explain pasted report", ["explain", str(paste), "--format", "json", *nr], pasted=True)
    for fmt in ("text", "json"):
        go(f"diff {fmt}", ["diff", str(snap), str(SNAPSHOT), "--format", fmt, *nr], pasted=True)
        go(f"fleet compare {fmt}", ["fleet", "compare", str(nodes), "--format", fmt, *nr], pasted=True)
    go("suggest", ["suggest", "torch", "-v"])
    go("suggest --facts", ["suggest", "--facts", str(snap), "-v"], pasted=True)
    go("suggest --from", ["suggest", "--from", str(paste), "--format", "json"], pasted=True)
    go("bad input: a path", ["check", "--facts", f"{tmp}/{S['hf token in a path']}/none.json"])
    go("bad input: a flag", ["check", "--policy", f"/etc/--password={S['--password in command']}"])
    go("crash log", ["check", "--static", "-o",
                     f"{files}/out-{S['db pass']}-{S['hf token']}.txt"],
       python_args=["-c", CRASH])
    return out


def leaked(text: str) -> list[str]:
    """Kinds whose value, or its first 8 characters, is in ``text``."""
    return [k for k, v in S.items() if v in text or v[:8] in text]


def table(tmp: Path) -> list[tuple[str, int, int]]:
    red, raw = outputs(tmp, True), outputs(tmp, False)
    rows = []
    for name, text in red.items():
        reach = set(leaked(raw.get(name, ""))) | set(leaked(text))
        rows.append((name, len(reach), len(leaked(text))))
    return rows


if __name__ == "__main__":
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        t = Path(d)
        red, raw = outputs(t, True), outputs(t, False)
        total_leaks = set()
        for name, text in red.items():
            reach = set(leaked(raw.get(name, ""))) | set(leaked(text))
            bad = leaked(text)
            total_leaks |= set(bad)
            lost = [k for k in KEEP if k in raw.get(name, "") and k not in text]
            print(f"{name:28} reach {len(reach):2}/{len(S)}  leaked {len(bad):2}  "
                  f"{', '.join(bad)}" + (f"  LOST {lost}" if lost else ""))
        print(f"kinds leaked somewhere: {len(total_leaks)}/{len(S)}: {sorted(total_leaks)}")
