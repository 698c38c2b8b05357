"""Third fault matrix: the boundaries (DESIGN.md section 5), attacked by class.

Usage (from the repository root):
  python tests/faults/matrix3.py [--root SRC] [--out results.json] [--only ID,...]
  python tests/faults/matrix3.py --table BEFORE.json AFTER.json
tests/faults/test_faults3.py runs the same faults under pytest; MATRIX3.md holds the figures.

Each class sends hostile data through a different channel and a different command than the
first two matrices: signals at every phase (a hung tool, a live worker, a stdin that never ends,
a fleet compare), control and escape sequences, workflow commands and HTML coming in through a
fake nvidia-smi, dist-info names, environment names and values, pasted reports, snapshots,
tracebacks and rule files, reads that never end or never stop growing, numbers and types a
schema does not expect, writes that cannot happen or race, the process's own surroundings
(deleted cwd, unusable HOME and XDG dirs, ascii locale, stdin closed or a directory), credential
shapes the planted sets of matrix.py do not hold, a forged rule cache and a rule whose regex
backtracks forever.

Besides each fault's own ``check``, every run is judged by the boundary rules that hold for
every command (``universal``): never exit 3 or a traceback; exit 2 comes with exactly one line
on stderr; no raw C0/C1 control character (``\\n`` and ``\\t`` aside) in stdout, stderr or any
file written under the fault's folder; none of ``SECRETS3`` anywhere in them; bounded time; no
process carrying the fault's marker left behind.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.faults import matrix as m
    from tests.faults import matrix2 as m2
else:
    from . import matrix as m
    from . import matrix2 as m2

FAULTS: dict[str, tuple[str, str, object]] = {}
REPO = Path(__file__).resolve().parents[2]


def fault(fid: str, category: str, title: str):
    def deco(fn):
        FAULTS[fid] = (category, title, fn)
        return fn
    return deco


# --------------------------------------------------------------------------- planted data
# Credential shapes absent from matrix.SECRET_TOKENS; each is unique so a leak is unambiguous.
SLACK_HOOK = "https://hooks.slack.com/services/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"
DISCORD_HOOK = ("https://discord.com/api/webhooks/1182734559012345678/"
                "PlantedDiscordHook_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z")
TEAMS_HOOK = ("https://contoso.webhook.office.com/webhookb2/0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b@"
              "72f988bf-86f1-41af-91ab-2d7cd011db47/IncomingWebhook/PlantedTeamsHook9c8b7a6f5e4d/"
              "5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d")
TELEGRAM = "5829304718:AAPlantedTelegramBot_x7Yq2Wm9Kd4Lp6Rs"
DATABRICKS = "dapi0f1e2d3c4b5a69788a9b0c1d2e3f4a5b"
SCHEMELESS = "PlantedPassw0rdXq"          # appears as svc-train:PlantedPassw0rdXq@host
GITLAB = "glpat-PlantedGitLab9xQ2wE4r"
STRIPE = "sk_live_PlantedStripe51Hx3kQ9mZ2vT7"
NPM = "npm_PlantedNpmToken0123456789abcdefghij"
GOOGLE = "AIzaSyPlantedGoogleKey-0123456789abcde"
SENDGRID = "SG.PlantedSendGrid0123.PlantedSendGridSecretPart0123456789abcdefgh"
DOCKER = "dckr_pat_PlantedDockerHub0123456789"
BASIC = "c3ZjLXRyYWluOlBsYW50ZWRCYXNpY1B3"   # base64("svc-train:PlantedBasicPw")
SECRETS3 = [SLACK_HOOK.rsplit("/", 1)[1], DISCORD_HOOK.rsplit("/", 1)[1], "PlantedTeamsHook9c8b7a6f5e4d",
            TELEGRAM.split(":")[1], DATABRICKS, SCHEMELESS, GITLAB, STRIPE, NPM, GOOGLE,
            "PlantedSendGridSecretPart0123456789abcdefgh", DOCKER, BASIC]

# Hostile text: terminal escapes (CSI, OSC 8 hyperlink, OSC 52 clipboard write), a C1 CSI,
# bidi overrides, GitHub workflow commands and HTML.
ESC_CSI = "\x1b[2J\x1b[31m"
OSC8 = "\x1b]8;;https://evil.example/x\x1b\\click\x1b]8;;\x1b\\"
OSC52 = "\x1b]52;c;ZWNobyBwd25lZA==\x07"
C1 = "\x9b31m\x9d0;title\x9c"
BIDI = "\u202eexe.txt\u202c\u2066x\u2069"
WF = "::error title=PWNED3::injected"
WF2 = "##[warning]PWNED3"
WF3 = "::add-mask::PWNED3"
HTML = "<script>alert('PWNED3')</script><img src=x onerror=alert(1)>"
HOSTILE = f"H100{ESC_CSI}{OSC8}{OSC52}{C1}{BIDI}"
HOSTILE_WF = f"H100 {WF} {WF2}"
BIDI_CHARS = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")
CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

STATIC = ["check", "--static"]
JSON = ["--format", "json"]


# --------------------------------------------------------------------------- builders
def smi_gpu(d: Path, name: str, driver: str = "550.54.15") -> dict:
    """A fake nvidia-smi that answers the probe's --query-gpu with one GPU named ``name``."""
    table = m2.H100_TABLE.replace("565.57.01", driver)
    return m2.smi(d, query=m2.csv_row(0, name=name, driver=driver) + "\n", table=table)


def hung_smi(d: Path) -> dict:
    """nvidia-smi that says it started (``d/started``), then hangs in a child."""
    return m.smi(d, f"touch {d}/started; exec sleep 1000")


def snapshot() -> dict:
    """A facts snapshot of a GPU machine (the shape `envdoctor facts` writes)."""
    return {"schema_version": 1,
            "nvidia": {"probe": {"status": "ok"}, "driver_version": "470.82.01",
                       "cuda_driver_version": "11.4",
                       "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 3090", "cc": "8.6",
                                 "memory_total_mib": 24576}]},
            "frameworks": {"probe": {"status": "ok"},
                           "torch": {"version": "2.3.1+cu121", "cuda": "12.1"}},
            "host": {"probe": {"status": "ok"}, "os": "Linux", "hostname": "node-a"},
            "env": {"probe": {"status": "ok"}, "vars": {"CUDA_VISIBLE_DEVICES": "0"}}}


def write_json(p: Path, data) -> Path:
    p.write_text(json.dumps(data))
    return p


def sparse(p: Path, head: bytes, size: int) -> Path:
    with open(p, "wb") as fh:
        fh.write(head)
        fh.truncate(size)
    return p


def rules_copy(d: Path) -> Path:
    dst = d / "rules"
    shutil.copytree(REPO / "rules", dst)
    return dst


def fake_dist(d: Path, dirname: str, metadata: str) -> dict:
    di = d / "sp" / dirname
    di.mkdir(parents=True)
    (di / "METADATA").write_text(metadata, errors="surrogateescape")
    return {"PYTHONPATH": str(d / "sp")}


def meta(name: str, version: str) -> str:
    return f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n"


def tb(*lines: str) -> str:
    return ("Traceback (most recent call last):\n  File \"train.py\", line 7, in <module>\n"
            "    model.cuda()\n" + "".join(x + "\n" for x in lines))


# --------------------------------------------------------------------------- checks
def all_of(*checks):
    def check(out, err, d):
        return "; ".join(p for p in (c(out, err, d) for c in checks) if p)
    return check


def no_bidi(out, err, d):
    hit = sorted({c for c in out + err + written(d) if c in BIDI_CHARS})
    return f"raw bidi control {[hex(ord(c)) for c in hit]}" if hit else ""


def no_workflow(out, err, d):
    """No GitHub workflow command that came from the input: anywhere in a line (the runner
    reads ``::cmd::`` at a line's start, and a renderer that prefixes lines moves it there)."""
    text = out + err + written(d)
    hit = [w for w in ("::error title=PWNED3", "##[warning]PWNED3", "::add-mask::PWNED3")
           if w in text]
    return f"workflow command passed through: {hit}" if hit else ""


def no_html(out, err, d):
    text = out + written(d)
    hit = [w for w in ("<script", "<img src") if w in text]
    return f"raw HTML in output: {hit}" if hit else ""


def junit_ok(path_name: str | None = None):
    def check(out, err, d):
        text = (d / path_name).read_text(encoding="utf-8") if path_name else out
        try:
            ET.fromstring(text.encode("utf-8"))
        except (ET.ParseError, UnicodeError) as exc:
            return f"JUnit XML does not parse: {exc}"
        return ""
    return check


def json_ok(out, err, d):
    try:
        json.loads(out)
    except ValueError as exc:
        return f"stdout is not JSON: {exc}"
    return ""


def codes_include(*codes: str):
    def check(out, err, d):
        found = {f.get("code") for f in m.json_facts(out).get("findings", [])}
        missing = [c for c in codes if c not in found]
        return f"missing {missing} (got {sorted(c for c in found if c)})" if missing else ""
    return check


def no_file(name: str):
    def check(out, err, d):
        return f"created a file named {name!r}" if (d / name).exists() else ""
    return check


def stderr_lines(most: int):
    def check(out, err, d):
        n = len([x for x in err.splitlines() if x.strip()])
        return f"{n} stderr lines (want <= {most})" if n > most else ""
    return check


def written(d: Path) -> str:
    """Every report file a fault wrote under its folder (``out*``)."""
    text = ""
    for f in sorted(d.glob("out*")):
        if f.is_file() and not f.is_symlink():
            with open(f, "rb") as fh:
                text += fh.read(4_000_000).decode("utf-8", "replace")
    return text


# --------------------------------------------------------------------------- signals
def _sig(signum: int, trigger, group: bool = False) -> dict:
    return {"signal": (signum, trigger, group), "rc": {128 + signum, -signum},
            "check": m.one_line}


@fault("SG01", "signals", "SIGTERM while a static probe waits on a hung nvidia-smi")
def _(d):
    return dict(args=STATIC, env=hung_smi(d), bound=6, **_sig(signal.SIGTERM, "started"))


@fault("SG02", "signals", "SIGHUP (terminal closed) during `report --static` on a hung nvidia-smi")
def _(d):
    return dict(args=["report", "--static"], env=hung_smi(d), bound=6,
                **_sig(signal.SIGHUP, "started"))


@fault("SG03", "signals", "SIGINT to the process group (Ctrl-C) during `facts` on a hung nvidia-smi")
def _(d):
    return dict(args=["facts"], env=hung_smi(d), bound=6,
                **_sig(signal.SIGINT, "started", group=True))


@fault("SG04", "signals", "SIGTERM while a live torch worker hangs at import")
def _(d):
    env = m.shadow(d, f"import time\nopen({str(d / 'started')!r}, 'w').close()\ntime.sleep(1000)\n")
    return dict(args=["check", "--framework", "torch", "--no-smoke", "--timeout", "60"], env=env,
                bound=12, **_sig(signal.SIGTERM, "started"))


@fault("SG05", "signals", "SIGHUP while a live torch worker's own child hangs")
def _(d):
    env = m.shadow(d, "import subprocess, time\n"
                      f"subprocess.Popen(['sh', '-c', 'touch {d}/started; exec sleep 1000'])\n"
                      "time.sleep(1000)\n")
    return dict(args=["report", "--no-smoke"], env=env, bound=15,
                **_sig(signal.SIGHUP, "started"))


@fault("SG06", "signals", "SIGTERM during `explain -` of a stdin that never ends")
def _(d):
    return dict(args=["explain", "-", "--no-facts"], stdin=("cmd", ["yes", "RuntimeError: CUDA "
                "error: an illegal memory access was encountered"]), bound=10,
                **_sig(signal.SIGTERM, 1.5))


@fault("SG07", "signals", "SIGINT (pid) during `check --from -` of a stdin that never ends")
def _(d):
    return dict(args=["check", "--from", "-"], stdin=("cmd", ["yes", "torch==2.1.0"]), bound=6,
                **_sig(signal.SIGINT, 1.5))


@fault("SG08", "signals", "SIGTERM during `fleet compare` of 10000 node snapshots")
def _(d):
    # enough snapshots that the compare is still reading at 0.9 s on a quiet machine (1500
    # took 0.8 s once the reader got faster, so the signal came after the exit)
    nodes = d / "nodes"
    nodes.mkdir()
    one = write_json(d / "node.json", snapshot())
    for i in range(10000):
        os.link(one, nodes / f"node{i:05d}.json")
    return dict(args=["fleet", "compare", str(nodes), "--format", "json"], bound=8,
                **_sig(signal.SIGTERM, 0.9))


@fault("SG09", "signals", "SIGQUIT while a static probe waits on a hung nvidia-smi (no orphan)")
def _(d):
    spec = dict(args=STATIC, env=hung_smi(d), bound=6, **_sig(signal.SIGQUIT, "started"))
    spec["check"] = lambda o, e, dd: ""  # SIGQUIT may dump core quietly; the orphan is the test
    return spec


@fault("SG10", "signals", "SIGTERM during `suggest` on a hung nvidia-smi")
def _(d):
    return dict(args=["suggest"], env=hung_smi(d), bound=6, **_sig(signal.SIGTERM, "started"))


# --------------------------------------------------------------------------- stdout sinks
@fault("SO01", "stdout", "`rules list | head -1` (reader leaves after one line)")
def _(d):
    return dict(args=["rules", "list"], stdout="head1", rc={0, 141}, bound=6,
                check=stderr_lines(0))


@fault("SO02", "stdout", "`explain CODE | head -1`")
def _(d):
    return dict(args=["explain", "DRV001"], stdout="head1", rc={0, 141}, bound=10,
                check=stderr_lines(0))


@fault("SO03", "stdout", "`fleet compare DIR | head -1` (300 nodes)")
def _(d):
    nodes = d / "nodes"
    nodes.mkdir()
    one = write_json(d / "node.json", snapshot())
    for i in range(300):
        os.link(one, nodes / f"n{i}.json")
    return dict(args=["fleet", "compare", str(nodes)], stdout="head1", rc={0, 1, 141}, bound=15,
                check=stderr_lines(0))


@fault("SO04", "stdout", "`suggest` with stdout closed")
def _(d):
    return dict(args=["suggest"], stdout="closed", rc={2}, bound=6, check=m.one_line)


@fault("SO05", "stdout", "`diff A B` with stdout closed")
def _(d):
    a = write_json(d / "a.json", snapshot())
    s = snapshot()
    s["nvidia"]["driver_version"] = "550.54.15"
    b = write_json(d / "b.json", s)
    return dict(args=["diff", str(a), str(b)], stdout="closed", rc={2}, bound=6, check=m.one_line)


@fault("SO06", "stdout", "`rules show DRV001` to /dev/full")
def _(d):
    return dict(args=["rules", "show", "DRV001"], stdout="full", rc={2}, bound=6,
                check=m.one_line)


@fault("SO07", "stdout", "`check --facts S --format junit` to /dev/full")
def _(d):
    s = write_json(d / "s.json", snapshot())
    return dict(args=["check", "--facts", str(s), "--format", "junit"], stdout="full", rc={2},
                bound=6, check=m.one_line)


@fault("SO08", "stdout", "`explain - | head -1` of a 20 MB traceback on stdin")
def _(d):
    p = d / "big.txt"
    p.write_text(tb(*(["  File \"x.py\", line 1, in f"] * 400000),
                    "RuntimeError: CUDA error: out of memory"))
    return dict(args=["explain", "-", "--no-facts"], stdin=p, stdout="head1", rc={0, 141},
                bound=10, check=stderr_lines(0))


EVERY = ("import json, subprocess, sys\n"
         "mode, cmds = sys.argv[1], json.loads(sys.argv[2])\n"
         "base = [sys.executable, '-m', 'envdoctor']\n"
         "for argv in cmds:\n"
         "    want = subprocess.run(base + argv, capture_output=True).returncode\n"
         "    if mode == 'head':\n"
         "        p = subprocess.Popen(base + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
         "        p.stdout.readline(); p.stdout.close()\n"
         "        err = p.stderr.read(); rc = p.wait()\n"
         "    else:\n"
         "        pre = ['sh', '-c', 'exec \"$@\" >&-', 'sh'] if mode == 'closed' else []\n"
         "        out = subprocess.DEVNULL if mode == 'closed' else open('/dev/full', 'wb')\n"
         "        p = subprocess.run(pre + base + argv, stdout=out, stderr=subprocess.PIPE)\n"
         "        err, rc = p.stderr, p.returncode\n"
         "    lines = [x for x in err.decode(errors='replace').splitlines() if x.strip()]\n"
         "    print(json.dumps({'argv': argv[:2], 'rc': rc, 'want': want, 'lines': lines[-3:],\n"
         "                      'n': len(lines)}))\n")


def every_command(d: Path) -> list[list[str]]:
    """One offline invocation of every command and output kind."""
    s = write_json(d / "s.json", snapshot())
    s2 = snapshot()
    s2["nvidia"]["driver_version"] = "550.54.15"
    s2 = write_json(d / "s2.json", s2)
    nodes = d / "nodes"
    nodes.mkdir()
    for i in range(3):
        os.link(s if i else s2, nodes / f"n{i}.json")
    (d / "r.txt").write_text(m.NVIDIA_SMI_REPORT)
    (d / "t.txt").write_text(tb("RuntimeError: CUDA error: out of memory"))
    return [["check", "--facts", str(s), "-v"], ["check", "--from", str(d / "r.txt"), "-v"],
            ["check", "--static", "--format", "junit"], ["explain", str(d / "t.txt"), "--no-facts"],
            ["explain", "TORCH001"], ["report", "--facts", str(s)], ["diff", str(s), str(s2)],
            ["rules", "list"], ["rules", "show", "DRV001"], ["facts"],
            ["fleet", "compare", str(nodes), "--format", "markdown"],
            ["suggest", "--facts", str(s), "-v"]]


def every_check(mode: str):
    def check(out, err, d):
        probs = []
        for line in out.splitlines():
            r = json.loads(line)
            what = " ".join(r["argv"])
            if mode == "head":
                if r["rc"] not in (r["want"], 141, -13) or r["n"]:
                    probs.append(f"{what}: exit {r['rc']} (alone {r['want']}), {r['n']} stderr "
                                 f"lines {r['lines'][-1:]}")
            elif r["rc"] != 2 or r["n"] != 1:
                probs.append(f"{what}: exit {r['rc']}, {r['n']} stderr lines {r['lines'][-1:]}")
        return "; ".join(probs) if out.strip() else "the driver printed nothing"
    return check


def _every(d: Path, mode: str) -> dict:
    return dict(cmd=["-c", EVERY, mode, json.dumps(every_command(d))], rc={0}, bound=90,
                check=every_check(mode))


@fault("SO09", "stdout", "every command `| head -1`: its verdict code (or SIGPIPE), nothing on stderr")
def _(d):
    return _every(d, "head")


@fault("SO10", "stdout", "every command with stdout closed: exit 2, one line")
def _(d):
    return _every(d, "closed")


@fault("SO11", "stdout", "every command with stdout on /dev/full: exit 2, one line")
def _(d):
    return _every(d, "full")


# --------------------------------------------------------------------------- output injection
@fault("IN01", "injection", "GPU name from nvidia-smi with CSI/OSC 8/OSC 52/C1/bidi, text output")
def _(d):
    return dict(args=[*STATIC, "-v"], env=smi_gpu(d, HOSTILE), rc={0, 1}, bound=10, check=no_bidi)


@fault("IN02", "injection", "GPU name from nvidia-smi with workflow commands, --format github")
def _(d):
    env = {**smi_gpu(d, HOSTILE_WF), "GITHUB_ACTIONS": "true"}
    return dict(args=["check", "--static", "--expect", "gpu", "--format", "github"], env=env,
                rc={0, 1}, bound=10, check=no_workflow)


@fault("IN03", "injection", "GPU name from nvidia-smi with HTML, `report --static` markdown")
def _(d):
    return dict(args=["report", "--static"], env=smi_gpu(d, f"H100 {HTML}"), rc={0, 1},
                bound=10, check=no_html)


@fault("IN04", "injection", "GPU name from nvidia-smi with XML-invalid chars, --report junit:FILE")
def _(d):
    env = smi_gpu(d, "H100\x01\x0b\ufffe\uffff<&>")
    return dict(args=["check", "--static", "--expect", "gpu", "--report",
                      f"junit:{d}/out.xml"], env=env, rc={0, 1}, bound=10,
                check=junit_ok("out.xml"))


@fault("IN05", "injection", "dist-info directory name with escapes (`check --static -v`)")
def _(d):
    env = fake_dist(d, f"torch{ESC_CSI}-2.3.1.dist-info", meta(f"torch{OSC52}", f"2.3.1{OSC8}"))
    return dict(args=[*STATIC, "-v"], env=env, rc={0, 1}, bound=8)


@fault("IN06", "injection", "METADATA Version with workflow commands, `suggest` text")
def _(d):
    env = fake_dist(d, "torch-2.3.1.dist-info", meta("torch", f"2.3.1 {WF}\n{WF3}"))
    return dict(args=["suggest", "torch"], env=env, rc={0, 1, 2}, bound=8, check=no_workflow)


@fault("IN07", "injection", "environment variable NAME with an escape sequence (report markdown)")
def _(d):
    return dict(args=["report", "--static"], env={f"NCCL_{ESC_CSI}X": "1",
                "TORCH_\x1b]0;title\x07Y": "2", "JAX_\x9b31mZ": "3"}, rc={0, 1}, bound=10)


@fault("IN08", "injection", "environment value with OSC 52 + workflow command, github format")
def _(d):
    env = {"NCCL_DEBUG": f"INFO{OSC52}\n{WF}", "TORCH_LOGS": f"{WF2}", "GITHUB_ACTIONS": "true"}
    return dict(args=["check", "--static", "-v", "--format", "github"], env=env, rc={0, 1},
                bound=8, check=no_workflow)


@fault("IN09", "injection", "pasted nvidia-smi table, GPU name with OSC 8 + bidi (`check --from`)")
def _(d):
    rep = m.NVIDIA_SMI_REPORT.replace("Tesla V100-SXM2...", f"Tesla{OSC8}{BIDI}")
    (d / "r.txt").write_text(rep)
    return dict(args=["check", "--from", str(d / "r.txt"), "-v"], rc={0, 1}, bound=6,
                check=no_bidi)


@fault("IN10", "injection", "pasted report with HTML and workflow commands, --format markdown")
def _(d):
    (d / "r.txt").write_text(m.NVIDIA_SMI_REPORT + f"torch==2.1.0{HTML}\n{WF}\n"
                             "PyTorch version: 2.1.0+cu121 " + HTML + "\n")
    return dict(args=["check", "--from", str(d / "r.txt"), "--format", "markdown"], rc={0, 1},
                bound=6, check=all_of(no_html, no_workflow))


@fault("IN11", "injection", "snapshot GPU name with CSI + C1 (`check --facts`, text)")
def _(d):
    s = snapshot()
    s["nvidia"]["gpus"][0]["name"] = HOSTILE
    return dict(args=["check", "--facts", str(write_json(d / "s.json", s)), "-v"], rc={0, 1},
                bound=6, check=no_bidi)


@fault("IN12", "injection", "snapshot with a lone surrogate, `check --facts --format json`")
def _(d):
    (d / "s.json").write_text(json.dumps(snapshot()).replace("node-a", "node-\\ud800a")
                              .replace("RTX 3090", "RTX \\udfff3090"))
    return dict(args=["check", "--facts", str(d / "s.json"), *JSON], rc={0, 1, 2}, bound=6,
                check=lambda o, e, dd: "" if not o else json_ok(o, e, dd))


@fault("IN13", "injection", "snapshot with XML-invalid chars, `fleet compare --format junit`")
def _(d):
    nodes = d / "nodes"
    nodes.mkdir()
    for i, name in enumerate(("H100\x02\ufffe", "A100\x1b[0m")):
        s = snapshot()
        s["nvidia"]["gpus"][0]["name"] = name
        s["host"]["hostname"] = f"node-{i}\x07"
        write_json(nodes / f"n{i}.json", s)
    return dict(args=["fleet", "compare", str(nodes), "--format", "junit"], rc={0, 1}, bound=6,
                check=junit_ok())


@fault("IN14", "injection", "snapshot values with HTML/workflow commands, `diff` text")
def _(d):
    a = snapshot()
    b = snapshot()
    b["host"]["hostname"] = f"node-b {WF}"
    b["nvidia"]["gpus"][0]["name"] = f"{HOSTILE} {WF2}"
    return dict(args=["diff", str(write_json(d / "a.json", a)), str(write_json(d / "b.json", b)),
                      "--no-redact"], rc={0}, bound=6, check=all_of(no_workflow, no_bidi))


@fault("IN20", "injection", "a snapshot value rejected by the schema: the one stderr line is clean")
def _(d):
    s = snapshot()
    s["nvidia"]["driver_version"] = f"550.54.15 {WF} {ESC_CSI}{BIDI}"
    return dict(args=["check", "--facts", str(write_json(d / "s.json", s))], rc={2}, bound=6,
                check=all_of(no_workflow, no_bidi))


@fault("IN15", "injection", "traceback with OSC 52/CSI/C1/bidi, `explain` text")
def _(d):
    (d / "t.txt").write_text(tb(f"RuntimeError: CUDA error: out of memory {HOSTILE}"))
    return dict(args=["explain", str(d / "t.txt"), "--no-facts"], rc={0}, bound=10, check=no_bidi)


@fault("IN16", "injection", "traceback with HTML and `##[`/`::` commands, explain --format markdown")
def _(d):
    (d / "t.txt").write_text(tb(f"{WF2}", f"RuntimeError: CUDA error: out of memory {HTML}",
                                f"  {WF}"))
    return dict(args=["explain", str(d / "t.txt"), "--no-facts", "--format", "markdown"],
                rc={0}, bound=10, check=all_of(no_html, no_workflow))


@fault("IN17", "injection", "rule file (ENVDOCTOR_RULES copy) whose title holds escapes: rules list")
def _(d):
    r = rules_copy(d)
    f = r / "checks/driver/DRV001.toml"
    f.write_text(f.read_text().replace('title = "NVIDIA driver',
                                       'title = "\\u001b]52;c;cHduZWQ=\\u0007NVIDIA driver', 1))
    return dict(args=["rules", "list"], env={"ENVDOCTOR_RULES": str(r)}, rc={0, 2}, bound=8)


@fault("IN18", "injection", "rule file whose fix holds a workflow command: rules show, github env")
def _(d):
    r = rules_copy(d)
    f = r / "checks/driver/DRV001.toml"
    f.write_text(f.read_text().replace("{fix}\n", "{fix}\n::error title=PWNED3::injected\n", 1))
    return dict(args=["rules", "show", "DRV001"], env={"ENVDOCTOR_RULES": str(r),
                "GITHUB_ACTIONS": "true"}, rc={0, 2}, bound=8, check=no_workflow)


@fault("IN19", "injection", "TERM=xterm-256color, snapshot GPU name with CSI, report markdown")
def _(d):
    s = snapshot()
    s["nvidia"]["gpus"][0]["name"] = f"H100{ESC_CSI}"
    return dict(args=["report", "--facts", str(write_json(d / "s.json", s))],
                env={"TERM": "xterm-256color", "COLORTERM": "truecolor"}, rc={0, 1}, bound=6)


# --------------------------------------------------------------------------- unbounded reads
@fault("UB01", "unbounded", "`diff` on a FIFO nobody writes to")
def _(d):
    os.mkfifo(d / "fifo")
    a = write_json(d / "a.json", snapshot())
    return dict(args=["diff", str(a), str(d / "fifo")], rc={2}, bound=15, check=m.one_line)


@fault("UB02", "unbounded", "`suggest --facts` a symlink to /dev/zero")
def _(d):
    (d / "z.json").symlink_to("/dev/zero")
    return dict(args=["suggest", "--facts", str(d / "z.json")], rc={2}, bound=6, rss_mb=250,
                check=m.one_line)


@fault("UB03", "unbounded", "`fleet compare DIR` holding a FIFO and a /dev/zero symlink")
def _(d):
    nodes = d / "nodes"
    nodes.mkdir()
    write_json(nodes / "a.json", snapshot())
    os.mkfifo(nodes / "b.json")
    (nodes / "c.json").symlink_to("/dev/zero")
    return dict(args=["fleet", "compare", str(nodes)], rc={0, 1, 2}, bound=15, rss_mb=250)


@fault("UB04", "unbounded", "`report --facts` a 4 GB sparse file")
def _(d):
    p = sparse(d / "s.json", b'{"schema_version": 1, "host": {"os": "', 4_000_000_000)
    return dict(args=["report", "--facts", str(p)], rc={2}, bound=6, rss_mb=250,
                check=m.one_line)


@fault("UB05", "unbounded", "./pyproject.toml (implicit policy) is a symlink to /dev/zero")
def _(d):
    (d / "pyproject.toml").symlink_to("/dev/zero")
    return dict(args=STATIC, rc={2}, bound=6, rss_mb=250, check=m.one_line)


@fault("UB06", "unbounded", "./envdoctor.toml (implicit policy) is a FIFO, `report --static`")
def _(d):
    os.mkfifo(d / "envdoctor.toml")
    return dict(args=["report", "--static"], rc={2}, bound=15, check=m.one_line)


@fault("UB07", "unbounded", "ENVDOCTOR_RULES copy with a check file that is a FIFO")
def _(d):
    r = rules_copy(d)
    os.mkfifo(r / "checks/driver/DRV999.toml")
    return dict(args=STATIC, env={"ENVDOCTOR_RULES": str(r)}, rc={2}, bound=15, check=m.one_line)


@fault("UB08", "unbounded", "ENVDOCTOR_RULES copy with a 2 GB sparse signature file")
def _(d):
    r = rules_copy(d)
    sparse(r / "signatures/cuda/ECUDA999.toml", b'code = "ECUDA999"\n', 2_000_000_000)
    (d / "t.txt").write_text(tb("RuntimeError: CUDA error: out of memory"))
    return dict(args=["explain", str(d / "t.txt"), "--no-facts"], env={"ENVDOCTOR_RULES": str(r)},
                rc={2}, bound=10, rss_mb=250, check=m.one_line)


@fault("UB09", "unbounded", "rule cache entries replaced by FIFOs")
def _(d):
    cache = populate_cache(d)
    for f in cache.glob("*.json"):
        f.unlink()
        os.mkfifo(f)
    return dict(args=STATIC, env={"ENVDOCTOR_CACHE_DIR": str(cache)}, rc={0, 1}, bound=8)


@fault("UB10", "unbounded", "rule cache entries replaced by /dev/zero symlinks")
def _(d):
    cache = populate_cache(d)
    for f in cache.glob("*.json"):
        f.unlink()
        f.symlink_to("/dev/zero")
    return dict(args=STATIC, env={"ENVDOCTOR_CACHE_DIR": str(cache)}, rc={0, 1}, bound=8,
                rss_mb=250)


@fault("UB11", "unbounded", "`check --from` 3 million short lines")
def _(d):
    (d / "l.txt").write_text("ok\n" * 3_000_000)
    return dict(args=["check", "--from", str(d / "l.txt")], rc={0, 1, 2}, bound=6, rss_mb=400)


@fault("UB12", "unbounded", "`explain` on 60 000 chained exceptions (deep text nesting)")
def _(d):
    chain = ("RuntimeError: CUDA error: out of memory\n\nDuring handling of the above exception, "
             "another exception occurred:\n\n" + tb()) * 60000
    (d / "t.txt").write_text(tb() + chain + "RuntimeError: CUDA error: out of memory\n")
    return dict(args=["explain", str(d / "t.txt"), "--no-facts"], rc={0, 2}, bound=10)


@fault("UB13", "unbounded", "--policy with 50 000-deep inline tables")
def _(d):
    (d / "p.toml").write_text("x = " + "{a = " * 50000 + "1" + "}" * 50000 + "\n")
    return dict(args=[*STATIC, "--policy", str(d / "p.toml")], rc={2}, bound=6, check=m.one_line)


@fault("UB14", "unbounded", "`check --facts` 200 000-deep objects")
def _(d):
    (d / "s.json").write_text('{"a":' * 200000 + "1" + "}" * 200000)
    return dict(args=["check", "--facts", str(d / "s.json")], rc={2}, bound=6, check=m.one_line)


@fault("UB15", "unbounded", "`suggest --from` 30 MB single line")
def _(d):
    (d / "l.txt").write_text("nvidia-smi " * 3_000_000)
    return dict(args=["suggest", "--from", str(d / "l.txt")], rc={0, 1, 2}, bound=6)


@fault("UB16", "unbounded", "`rules test PATH` where PATH is a FIFO")
def _(d):
    os.mkfifo(d / "fifo.toml")
    return dict(args=["rules", "test", str(d / "fifo.toml")], rc={1, 2}, bound=15)


@fault("UB17", "unbounded", "`explain --facts` FIFO")
def _(d):
    os.mkfifo(d / "fifo")
    (d / "t.txt").write_text(tb("RuntimeError: CUDA error: out of memory"))
    return dict(args=["explain", str(d / "t.txt"), "--facts", str(d / "fifo")], rc={2}, bound=15,
                check=m.one_line)


PARALLEL = ("import json, subprocess, sys, time\n"
            "limit, cmds = float(sys.argv[1]), json.loads(sys.argv[2])\n"
            "base = [sys.executable, '-m', 'envdoctor']\n"
            "ps = [(a, time.monotonic(), subprocess.Popen(base + a, stdout=subprocess.DEVNULL,\n"
            "       stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)) for a in cmds]\n"
            "for argv, t0, p in ps:\n"
            "    try:\n"
            "        err = p.communicate(timeout=max(0.1, limit - (time.monotonic() - t0)))[1]\n"
            "        rc = p.returncode\n"
            "    except subprocess.TimeoutExpired:\n"
            "        p.kill(); err = p.communicate()[1]; rc = 'hung'\n"
            "    lines = [x for x in err.decode(errors='replace').splitlines() if x.strip()]\n"
            "    print(json.dumps({'argv': argv, 'rc': rc, 'n': len(lines), 'last': lines[-1:],\n"
            "                      's': round(time.monotonic() - t0, 1)}))\n")


def file_options(d: Path, x: str, dirs: bool = True) -> list[list[str]]:
    """Every option that reads a file the user names, pointed at ``x``."""
    s = str(write_json(d / "s.json", snapshot()))
    (d / "t.txt").write_text(tb("RuntimeError: CUDA error: out of memory"))
    t = str(d / "t.txt")
    cmds = [["check", "--facts", x], ["check", "--from", x], ["report", "--facts", x],
            ["diff", x, s], ["diff", s, x], ["explain", x, "--no-facts"],
            ["explain", t, "--facts", x], ["suggest", "--facts", x], ["suggest", "--from", x],
            ["check", "--facts", s, "--policy", x], ["report", "--facts", s, "--policy", x]]
    if dirs:
        cmds += [["fleet", "compare", x], ["fleet", "compare", s, "--policy", x],
                 ["rules", "test", x]]
    return cmds


def every_file_check(logs: set[str] = frozenset()):
    """Each run: exit 2 with one line; a run that reads logs (``check --from``, ``explain``)
    may instead give a verdict on what it could read (``logs``)."""
    def check(out, err, d):
        probs = []
        for line in out.splitlines():
            r = json.loads(line)
            what = " ".join(a if not a.startswith("/") else Path(a).name for a in r["argv"])
            lenient = any(w in what for w in logs)
            if r["rc"] == "hung":
                probs.append(f"{what}: hung")
            elif (r["rc"] != 2 and not (lenient and r["rc"] in (0, 1))) or \
                    (r["rc"] == 2 and r["n"] != 1):
                probs.append(f"{what}: exit {r['rc']}, {r['n']} stderr lines {r['last']}")
        return "; ".join(probs) if out.strip() else "the driver printed nothing"
    return check


def _every_file(d: Path, x: str, logs=frozenset(), dirs=True, limit=30.0) -> dict:
    return dict(cmd=["-c", PARALLEL, str(limit), json.dumps(file_options(d, x, dirs))], rc={0},
                bound=limit + 30, check=every_file_check(set(logs)))


@fault("UB18", "unbounded", "every file option pointed at a FIFO nobody writes to")
def _(d):
    os.mkfifo(d / "fifo")
    return _every_file(d, str(d / "fifo"))


@fault("UB19", "unbounded", "every file option pointed at a symlink to /dev/zero")
def _(d):
    (d / "zero").symlink_to("/dev/zero")
    return _every_file(d, str(d / "zero"))


@fault("UB20", "unbounded", "every file option pointed at a 3 GB sparse file")
def _(d):
    sparse(d / "big", b'{"schema_version": 1, "x": "', 3_000_000_000)
    return _every_file(d, str(d / "big"), logs={"--from", "explain big"})


@fault("UB21", "unbounded", "every file option pointed at a directory")
def _(d):
    (d / "adir").mkdir()
    return _every_file(d, str(d / "adir"), dirs=False)


@fault("UB22", "unbounded", "every file option pointed at a file with no read permission (/proc/1/environ-like)")
def _(d):
    return _every_file(d, "/proc/1/mem", dirs=False)


# --------------------------------------------------------------------------- numbers and types
def facts_with(d: Path, mutate) -> str:
    s = snapshot()
    mutate(s)
    return str(write_json(d / "s.json", s))


def _set(path: str, value):
    def mutate(s):
        node = s
        keys = path.split(".")
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        last = keys[-1]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return mutate


@fault("NU01", "numbers", "snapshot gpu memory 1e400 (inf) and NaN temperature")
def _(d):
    s = snapshot()
    s["nvidia"]["gpus"][0]["memory_total_mib"] = 1e999
    s["nvidia"]["gpus"][0]["temperature_c"] = float("nan")
    (d / "s.json").write_text(json.dumps(s).replace("Infinity", "1e400"))
    return dict(args=["check", "--facts", str(d / "s.json"), "--require", "gpu_memory_gb>=80",
                      *JSON], rc={0, 1, 2}, bound=6, check=lambda o, e, dd: json_ok(o, e, dd)
                if o else "")


@fault("NU02", "numbers", "snapshot with a 5000-digit integer (int max-str-digits)")
def _(d):
    (d / "s.json").write_text(json.dumps(snapshot()).replace('"memory_total_mib": 24576',
                              '"memory_total_mib": ' + "9" * 5000))
    return dict(args=["check", "--facts", str(d / "s.json"), "--require", "gpu_memory_gb>=80"],
                rc={0, 1, 2}, bound=6)


@fault("NU03", "numbers", "torch version 2.1.0+cu121 with a 5000-digit part (`check --facts`)")
def _(d):
    return dict(args=["check", "--facts", facts_with(d, _set("frameworks.torch.version",
                "2." + "1" * 5000 + ".0+cu121"))], rc={0, 1, 2}, bound=6)


@fault("NU04", "numbers", "METADATA Version with Arabic-Indic digits (٢.٣.١)")
def _(d):
    env = fake_dist(d, "torch-2.3.1.dist-info", meta("torch", "\u0662.\u0663.\u0661"))
    return dict(args=[*STATIC, *JSON], env=env, rc={0, 1}, bound=8, check=json_ok)


@fault("NU05", "numbers", "METADATA Version with a 5000-digit release part, `suggest`")
def _(d):
    env = fake_dist(d, "torch-2.3.1.dist-info", meta("torch", "2." + "7" * 5000 + ".1"))
    return dict(args=["suggest", "torch"], env=env, rc={0, 1, 2}, bound=8)


@fault("NU06", "numbers", "nvidia-smi driver version 5000 digits long")
def _(d):
    return dict(args=[*STATIC, *JSON], env=smi_gpu(d, "NVIDIA H100", driver="5" * 5000 + ".1"),
                rc={0, 1}, bound=8, check=json_ok)


@fault("NU07", "numbers", "--require gpus>= a 5000-digit number")
def _(d):
    s = facts_with(d, lambda s: None)
    return dict(args=["check", "--facts", s, "--require", "gpus>=" + "9" * 5000], rc={1, 2},
                bound=6)


@fault("NU08", "numbers", "--require torch>=٣.٠ (unicode digits)")
def _(d):
    s = facts_with(d, lambda s: None)
    return dict(args=["check", "--facts", s, "--require", "torch>=\u0663.\u0660"], rc={1, 2},
                bound=6)


@fault("NU09", "numbers", "snapshot: gpus is a dict, frameworks a list, a count negative")
def _(d):
    s = snapshot()
    s["nvidia"]["gpus"] = {"0": {"name": "x"}}
    s["frameworks"] = ["torch"]
    s["nvidia"]["pci_devices"] = -5
    return dict(args=["check", "--facts", str(write_json(d / "s.json", s))], rc={0, 1, 2},
                bound=6)


@fault("NU10", "numbers", "snapshot: bools and strings where numbers go, cc = -0.0")
def _(d):
    s = snapshot()
    g = s["nvidia"]["gpus"][0]
    g.update(memory_total_mib=True, cc=-0.0, index="zero", temperature_c=[1])
    s["schema_version"] = True
    return dict(args=["report", "--facts", str(write_json(d / "s.json", s)), "--require",
                      "gpus>=1", "--require", "gpu_memory_gb>=40"], rc={0, 1, 2}, bound=6)


@fault("NU11", "numbers", "policy: fail_on a list, expect a number, ignore a string")
def _(d):
    (d / "pyproject.toml").write_text('[tool.envdoctor]\nfail_on = ["error"]\nexpect = 1e400\n'
                                      'ignore = "HOST001"\nrequire = "torch"\n')
    return dict(args=STATIC, rc={2}, bound=6, check=m.one_line)


@fault("NU12", "numbers", "policy requirement gpu_memory_gb>=nan and driver>=٥٥٠")
def _(d):
    (d / "p.toml").write_text('require = ["gpu_memory_gb>=nan", "driver>=\u0665\u0665\u0660"]\n')
    s = facts_with(d, lambda s: None)
    return dict(args=["check", "--facts", s, "--policy", str(d / "p.toml")], rc={1, 2}, bound=6)


@fault("NU13", "numbers", "fleet compare: node snapshots whose numbers are huge/negative/strings")
def _(d):
    nodes = d / "nodes"
    nodes.mkdir()
    for i, v in enumerate((10 ** 30, -1, "80GB", None, 1e308)):
        s = snapshot()
        s["nvidia"]["gpus"][0]["memory_total_mib"] = v
        s["host"]["hostname"] = f"n{i}"
        write_json(nodes / f"n{i}.json", s)
    (nodes / "n9.json").write_text(json.dumps(snapshot()).replace('"memory_total_mib": 24576',
                                   '"memory_total_mib": ' + "1" * 5000))
    return dict(args=["fleet", "compare", str(nodes)], rc={0, 1, 2}, bound=8)


@fault("NU14", "numbers", "`check --from` with Driver Version of 5000 digits and CUDA 1e400")
def _(d):
    rep = m.NVIDIA_SMI_REPORT.replace("470.82.01", "4" * 5000 + ".82", 1).replace(
        "CUDA Version: 11.4", "CUDA Version: 1e400")
    (d / "r.txt").write_text(rep)
    return dict(args=["check", "--from", str(d / "r.txt")], rc={0, 1, 2}, bound=6)


# --------------------------------------------------------------------------- writes
CONCURRENT = ("import subprocess, sys\nargv = [sys.executable, '-m', 'envdoctor'] + sys.argv[1:]\n"
              "ps = [subprocess.Popen(argv) for _ in range(4)]\n"
              "sys.exit(max(p.wait() for p in ps))\n")


@fault("WR01", "writes", "four concurrent `facts -o` to the same file: the file is whole")
def _(d):
    def check(out, err, dd):
        try:
            json.loads((dd / "out.json").read_text())
        except (OSError, ValueError) as exc:
            return f"out.json is not one whole JSON document: {exc}"
        return ""
    return dict(cmd=["-c", CONCURRENT, "facts", "-o", str(d / "out.json")], rc={0}, bound=12,
                check=check)


@fault("WR02", "writes", "`report -o` a FIFO nobody reads")
def _(d):
    os.mkfifo(d / "out.fifo")
    return dict(args=["report", "--static", "-o", str(d / "out.fifo")], rc={2}, bound=15,
                check=m.one_line)


@fault("WR03", "writes", "`explain -o` a directory")
def _(d):
    (d / "t.txt").write_text(tb("RuntimeError: CUDA error: out of memory"))
    (d / "outdir").mkdir()
    return dict(args=["explain", str(d / "t.txt"), "--no-facts", "-o", str(d / "outdir")],
                rc={2}, bound=10, check=m.one_line)


@fault("WR04", "writes", "`fleet compare --report junit:/dev/full`")
def _(d):
    nodes = d / "nodes"
    nodes.mkdir()
    write_json(nodes / "a.json", snapshot())
    return dict(args=["fleet", "compare", str(nodes), "--report", "junit:/dev/full"], rc={2},
                bound=6, check=m.one_line)


@fault("WR05", "writes", "`diff -o` into a directory no one can create files in (/proc/1)")
def _(d):
    a = write_json(d / "a.json", snapshot())
    return dict(args=["diff", str(a), str(a), "-o", "/proc/1/out.txt"], rc={2}, bound=6,
                check=m.one_line)


@fault("WR06", "writes", "`check -o -` writes to stdout, not a file named '-'")
def _(d):
    s = write_json(d / "s.json", snapshot())
    return dict(args=["check", "--facts", str(s), "-o", "-", *JSON], rc={0, 1, 2}, bound=6,
                check=all_of(no_file("-"), lambda o, e, dd: "" if o.strip() or "envdoctor:" in e
                             else "nothing on stdout"))


@fault("WR07", "writes", "`suggest -o -` and `--report json:-` never create a file named '-'")
def _(d):
    s = write_json(d / "s.json", snapshot())
    return dict(cmd=["-c", "import subprocess, sys\nb=[sys.executable,'-m','envdoctor']\n"
                     f"r1=subprocess.call(b+['suggest','--facts',{str(s)!r},'-o','-'])\n"
                     f"r2=subprocess.call(b+['fleet','compare',{str(s)!r},'--report','json:-'])\n"
                     "sys.exit(max(r1, r2))\n"], rc={0, 1, 2}, bound=10, check=no_file("-"))


@fault("WR08", "writes", "bad input with -o naming an existing file: the old file is kept whole")
def _(d):
    (d / "out.txt").write_text("precious\n")
    (d / "bad.json").write_text('{"schema_version": 1, "nvidia": ')

    def check(out, err, dd):
        return "" if (dd / "out.txt").read_text() == "precious\n" else \
            "the old output was truncated or replaced by a failed run"
    return dict(args=["check", "--facts", str(d / "bad.json"), "-o", str(d / "out.txt")],
                rc={2}, bound=6, check=all_of(m.one_line, check))


@fault("WR09", "writes", "`explain -o /dev/full` and `facts -o` under a regular file (ENOTDIR)")
def _(d):
    (d / "t.txt").write_text(tb("RuntimeError: CUDA error: out of memory"))
    (d / "plain").write_text("x")
    return dict(cmd=["-c", "import subprocess, sys\nb=[sys.executable,'-m','envdoctor']\n"
                     f"r1=subprocess.call(b+['explain',{str(d / 't.txt')!r},'--no-facts','-o',"
                     "'/dev/full'])\n"
                     f"r2=subprocess.call(b+['facts','-o',{str(d / 'plain/out.json')!r}])\n"
                     "sys.exit(0 if r1 == r2 == 2 else 1)\n"], rc={0}, bound=10,
                check=lambda o, e, dd: "" if len([x for x in e.splitlines() if x.strip()]) == 2
                else f"{len(e.splitlines())} stderr lines for two failed writes (want 2)")


# --------------------------------------------------------------------------- the process itself
DELETED_CWD = ["sh", "-c", 'mkdir "$1/gone" && cd "$1/gone" && rmdir "$1/gone" && shift && '
               'exec "$@"', "sh"]


@fault("PR01", "process", "cwd deleted before start, `explain CODE`")
def _(d):
    return dict(shell=[*DELETED_CWD, str(d), sys.executable, "-m", "envdoctor", "explain",
                       "TORCH001"], rc={0, 2}, bound=10)


@fault("PR02", "process", "cwd deleted before start, `check --static` (policy lookup in cwd)")
def _(d):
    return dict(shell=[*DELETED_CWD, str(d), sys.executable, "-m", "envdoctor", *STATIC],
                rc={0, 1, 2}, bound=6)


@fault("PR03", "process", "HOME=/proc/self (unwritable), XDG_STATE_HOME a file, live check")
def _(d):
    (d / "statefile").write_text("x")
    return dict(args=["check", "--framework", "torch", "--no-smoke", "--timeout", "30"],
                env={"HOME": "/proc/self", "XDG_STATE_HOME": str(d / "statefile"),
                     "XDG_CACHE_HOME": str(d / "statefile")}, rc={0, 1}, bound=40)


@fault("PR04", "process", "HOME unset, `rules test`")
def _(d):
    return dict(args=["rules", "test"], env={"HOME": None}, rc={0}, bound=40)


@fault("PR05", "process", "XDG_CONFIG_HOME and XDG_CACHE_HOME point to files, `suggest`")
def _(d):
    (d / "f").write_text("x")
    return dict(args=["suggest"], env={"XDG_CONFIG_HOME": str(d / "f"),
                                       "XDG_CACHE_HOME": str(d / "f")}, rc={0, 1}, bound=8)


@fault("PR06", "process", "PWD/OLDPWD and the cwd path hold credentials, `report --static`")
def _(d):
    cwd = d / f"proj-{GITLAB}"
    cwd.mkdir()
    return dict(args=["report", "--static"], cwd=cwd,
                env={"PWD": str(cwd), "OLDPWD": f"/srv/{STRIPE}/x"}, rc={0, 1}, bound=10)


@fault("PR07", "process", "LC_ALL=C without locale coercion, explain of non-ASCII text")
def _(d):
    (d / "t.txt").write_text(tb("RuntimeError: CUDA error: out of memory (显存不足, mémoire ✗)"))
    return dict(args=["explain", str(d / "t.txt"), "--no-facts"],
                env={"LANG": "C", "LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"},
                rc={0}, bound=10)


@fault("PR08", "process", "LC_ALL=POSIX, fleet compare of nodes with non-ASCII host names")
def _(d):
    nodes = d / "nodes"
    nodes.mkdir()
    for i, host in enumerate(("节点-α", "nœud-β")):
        s = snapshot()
        s["host"]["hostname"] = host
        s["nvidia"]["driver_version"] = ("470.82.01", "550.54.15")[i]
        write_json(nodes / f"n{i}.json", s)
    return dict(args=["fleet", "compare", str(nodes), "--no-redact"],
                env={"LANG": "C", "LC_ALL": "POSIX", "PYTHONCOERCECLOCALE": "0",
                     "PYTHONUTF8": "0"}, rc={0, 1}, bound=6)


@fault("PR09", "process", "stdin closed, `explain` (reads stdin by default)")
def _(d):
    return dict(args=["explain", "--no-facts"], stdin="closed", rc={2}, bound=10, check=m.one_line)


@fault("PR10", "process", "stdin open write-only (reads fail with EBADF), `check --from -`")
def _(d):
    (d / "w").write_text("")
    return dict(args=["check", "--from", "-"], stdin="wronly", rc={2}, bound=6, check=m.one_line)


@fault("PR11", "process", "TERM=dumb vs TERM=xterm: the same bytes on a pipe")
def _(d):
    s = write_json(d / "s.json", snapshot())

    def check(out, err, dd):
        env = {**os.environ, "TERM": "dumb", "PYTHONPATH": m.ROOT or os.environ.get("PYTHONPATH", "")}
        other = subprocess.run([sys.executable, "-m", "envdoctor", "check", "--facts", str(s)],
                               capture_output=True, text=True, env=env, timeout=30, cwd=dd).stdout
        return "" if other == out else "output differs between TERM=dumb and TERM=xterm"
    return dict(args=["check", "--facts", str(s)], env={"TERM": "xterm-256color"}, rc={0, 1},
                bound=6, check=check)


# --------------------------------------------------------------------------- secrets
@fault("SE11", "secrets", "webhook URLs (Slack/Discord/Teams) in allowlisted env values")
def _(d):
    env = {"TORCH_DISTRIBUTED_DEBUG_WEBHOOK": SLACK_HOOK,
           "NCCL_DEBUG_SUBSYS": f"INIT,{DISCORD_HOOK}",
           "TF_CONFIG": json.dumps({"cluster": {"worker": ["w0:2222"]}, "notify": TEAMS_HOOK})}
    return dict(args=["report", "--static"], env=env, rc={0, 1}, bound=10)


@fault("SE12", "secrets", "scheme-less user:pass@host in MASTER_ADDR / JAX coordinator, facts")
def _(d):
    env = {"MASTER_ADDR": f"svc-train:{SCHEMELESS}@10.0.0.7",
           "JAX_COORDINATOR_ADDRESS": f"svc-train:{SCHEMELESS}@10.0.0.7:1234"}
    return dict(args=["facts"], env=env, rc={0}, bound=10)


@fault("SE13", "secrets", "Telegram/Databricks/GitLab/Stripe tokens in env values, check json")
def _(d):
    env = {"NCCL_SOCKET_IFNAME": f"eth0 {TELEGRAM}", "PYTORCH_ALERT": DATABRICKS,
           "XLA_FLAGS": f"--xla_dump_to=/tmp --x={GITLAB}", "JAX_PLATFORMS": f"cuda,{STRIPE}"}
    return dict(args=[*STATIC, *JSON, "-v"], env=env, rc={0, 1}, bound=10)


def echoed(canary: str):
    """The channel is exercised: the text next to the planted credential reaches the output
    (else "no leak" would hold because nothing is shown at all)."""
    def check(out, err, d):
        return "" if canary in out + written(d) else f"{canary!r} not in the output: the " \
            "fault's channel is not exercised"
    return check


OOM = "RuntimeError: CUDA error: out of memory"


@fault("SE14", "secrets", "scheme-less index URL with a password on the quoted error line (explain)")
def _(d):
    (d / "t.txt").write_text(tb(
        f"{OOM} (wheel from svc-train:{SCHEMELESS}@pypi.internal.example/simple, "
        f"mirror https://__token__:{GITLAB}@gitlab.example.com/api/v4/projects/7/packages/pypi)"))
    return dict(args=["explain", str(d / "t.txt"), "--no-facts"], rc={0}, bound=10,
                check=echoed("pypi.internal.example"))


@fault("SE15", "secrets", "webhook, Telegram, SendGrid and Basic auth on the error line (explain json)")
def _(d):
    (d / "t.txt").write_text(tb(
        f"{OOM} (alerting {SLACK_HOOK} via bot {TELEGRAM}, mail key {SENDGRID}, "
        f"header Authorization: Basic {BASIC})"))
    return dict(args=["explain", str(d / "t.txt"), "--no-facts", *JSON], rc={0}, bound=10,
                check=echoed("alerting"))


@fault("SE16", "secrets", "snapshot env values with Google/Docker/scheme-less tokens, fleet compare json")
def _(d):
    nodes = d / "nodes"
    nodes.mkdir()
    for i, tok in enumerate((GOOGLE, DOCKER, DATABRICKS)):
        s = snapshot()
        s["host"]["hostname"] = f"n{i}"
        s["env"]["vars"] = {"NCCL_IB_HCA": f"mlx5_{i}", "TORCH_HOME": f"/x/{tok}",
                            "MASTER_ADDR": f"svc:{SCHEMELESS}@10.0.0.{i}",
                            "NCCL_DEBUG": f"INFO_CANARY{i}"}
        write_json(nodes / f"n{i}.json", s)
    return dict(args=["fleet", "compare", str(nodes), "--format", "json"], rc={0, 1},
                bound=6, check=echoed("INFO_CANARY1"))


@fault("SE17", "secrets", "snapshot values with webhook and sk_live, `diff --format json`")
def _(d):
    a = snapshot()
    b = snapshot()
    b["env"]["vars"] = {"TF_CONFIG": json.dumps({"hook": DISCORD_HOOK}), "NCCL_DEBUG": "WARN_CANARY3",
                        "PYTORCH_KEY": STRIPE, "CUDA_HOME": f"/opt/{GITLAB}/cuda"}
    return dict(args=["diff", str(write_json(d / "a.json", a)), str(write_json(d / "b.json", b)),
                      *JSON], rc={0}, bound=6, check=echoed("WARN_CANARY3"))


@fault("SE18", "secrets", "token-bearing paths in allowlisted env values (check --static -v json)")
def _(d):
    env = {"CUDA_HOME": f"/opt/{GITLAB}/cuda", "TORCH_HOME": f"/data/{DOCKER}",
           "NCCL_DEBUG": "INFO_CANARY3", "PYTORCH_CUDA_ALLOC_CONF": f"expandable_segments:True,{NPM}"}
    return dict(args=[*STATIC, "-v", *JSON], env=env, rc={0, 1}, bound=10,
                check=echoed("INFO_CANARY3"))


@fault("SE19", "secrets", "Teams webhook and dapi token on a torch OOM line (explain text)")
def _(d):
    (d / "t.txt").write_text(tb(
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB "
        f"(job notify {TEAMS_HOOK}, workspace token {DATABRICKS})"))
    return dict(args=["explain", str(d / "t.txt"), "--no-facts"], rc={0}, bound=10,
                check=echoed("job notify"))


@fault("SE20", "secrets", "traceback on stdin: GitLab/Stripe/npm tokens on the quoted error line (explain -)")
def _(d):
    p = d / "t.txt"
    p.write_text(tb(f"RuntimeError: CUDA error: out of memory (while uploading with PRIVATE-TOKEN: "
                    f"{GITLAB}; billing key {STRIPE}; registry token {NPM})"))
    return dict(args=["explain", "-", "--no-facts", "--format", "markdown"], stdin=p, rc={0},
                bound=10)


@fault("SE21", "secrets", "NCCL log: scheme-less user:pass@host and a bot token on matched lines")
def _(d):
    (d / "t.txt").write_text(
        f"node1:123:456 [0] NCCL INFO NET/Socket : Using [0]eth0:svc-train:{SCHEMELESS}@10.0.0.7<0>\n"
        f"node1:123:456 [0] NCCL WARN NET/Socket : Connect to svc-train:{SCHEMELESS}@10.0.0.7<1234> "
        "failed : Connection refused\n" + tb(
            "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1275, "
            f"unhandled system error, NCCL version 2.18.1 (notify bot {TELEGRAM}, {DISCORD_HOOK})"))
    return dict(args=["explain", str(d / "t.txt"), "--no-facts", "--format", "json"], rc={0},
                bound=10)


@fault("SE22", "secrets", "snapshot env values with webhooks and tokens, `report --facts` markdown")
def _(d):
    s = snapshot()
    s["env"]["vars"] = {"NCCL_DEBUG_FILE": f"/x/{DOCKER}/nccl.log", "TORCH_HOME": SLACK_HOOK,
                        "XLA_FLAGS": f"--xla_gpu_autotune_level=0 --key {GOOGLE}",
                        "TF_CONFIG": json.dumps({"task": {"type": "worker"}, "bot": TELEGRAM}),
                        "NCCL_DEBUG": "INFO_CANARY3"}
    return dict(args=["report", "--facts", str(write_json(d / "s.json", s))], rc={0, 1},
                bound=6, check=lambda o, e, dd: "" if "INFO_CANARY3" in o else
                "the report shows no env values (the channel is not exercised)")


# --------------------------------------------------------------------------- cache trust, rules
def populate_cache(d: Path) -> Path:
    """A rule cache filled by a real run (every kind the checks and explain load)."""
    cache = d / "cache"
    env = {**os.environ, "ENVDOCTOR_CACHE_DIR": str(cache), "HOME": str(d / "home")}
    if m.ROOT:
        env["PYTHONPATH"] = m.ROOT
    s = write_json(d / "seed.json", snapshot())
    subprocess.run([sys.executable, "-m", "envdoctor", "check", "--facts", str(s)], env=env,
                   capture_output=True, timeout=60, cwd=d)
    return cache


def forge(entry: Path, drop_code: str, target: Path | None = None) -> bool:
    """Rewrite one cache entry without the rule ``drop_code`` and seal it again the way the
    seal is computed without a secret (blake2b-128 over key and value): what anyone who can
    write the cache folder can do. -> whether the entry held that rule."""
    head, _, value_text = entry.read_text().partition("\n")
    stored = json.loads(head)
    value = json.loads(value_text)
    if drop_code not in value_text:
        return False

    def keep(item) -> bool:
        data = item[1] if isinstance(item, list) and len(item) == 2 else item
        return not (isinstance(data, dict) and data.get("code") == drop_code)
    if isinstance(value, list):
        value = [x for x in value if keep(x)]
    new_text = json.dumps(value)
    seal = hashlib.blake2b(f"{json.dumps(stored['key'])}\n{new_text}".encode(),
                           digest_size=16).hexdigest()
    stored["seal"] = seal
    (target or entry).write_text(f"{json.dumps(stored)}\n{new_text}")
    return True


def forged_env(d: Path, via_symlink: bool) -> dict:
    cache = populate_cache(d)
    hit = False
    for entry in cache.glob("*.json"):
        if via_symlink:
            elsewhere = d / f"planted-{entry.name}"
            if forge(entry, "INTENT001", elsewhere):
                entry.unlink()
                entry.symlink_to(elsewhere)
                hit = True
        else:
            hit = forge(entry, "INTENT001") or hit
    if not hit:
        raise RuntimeError("no cache entry held INTENT001")
    return {"ENVDOCTOR_CACHE_DIR": str(cache)}


@fault("CT01", "cache trust", "forged rule cache (resealed without INTENT001) silences the rule")
def _(d):
    env = forged_env(d, via_symlink=False)
    s = write_json(d / "s.json", {"schema_version": 1, "nvidia": {"probe": {"status": "not_found"}}})
    return dict(args=["check", "--facts", str(s), "--expect", "gpu", *JSON], env=env, rc={1},
                bound=8, check=codes_include("INTENT001"))


@fault("CT02", "cache trust", "rule cache entry is a symlink to a forged file elsewhere")
def _(d):
    env = forged_env(d, via_symlink=True)
    s = write_json(d / "s.json", {"schema_version": 1, "nvidia": {"probe": {"status": "not_found"}}})
    return dict(args=["check", "--facts", str(s), "--expect", "gpu", *JSON], env=env, rc={1},
                bound=8, check=codes_include("INTENT001"))


@fault("CT03", "cache trust", "a forged cache in the default place ($XDG_CACHE_HOME/envdoctor)")
def _(d):
    env = forged_env(d, via_symlink=False)
    xdg = d / "xdg"
    xdg.mkdir()
    shutil.move(env["ENVDOCTOR_CACHE_DIR"], xdg / "envdoctor")
    s = write_json(d / "s.json", {"schema_version": 1, "nvidia": {"probe": {"status": "not_found"}}})
    return dict(args=["report", "--facts", str(s), "--expect", "gpu", "--format", "json"],
                env={"XDG_CACHE_HOME": str(xdg)}, rc={0, 1}, bound=8,
                check=codes_include("INTENT001"))


@fault("CT04", "cache trust", "rule cache entry a symlink to a victim file: rebuilding keeps it intact")
def _(d):
    cache = populate_cache(d)
    victim = d / "victim.txt"
    victim.write_text("precious\n")
    for entry in cache.glob("*.json"):
        entry.unlink()
        entry.symlink_to(victim)
    r = rules_copy(d)  # a different rules folder: every entry is rebuilt and rewritten
    return dict(args=STATIC, env={"ENVDOCTOR_CACHE_DIR": str(cache), "ENVDOCTOR_RULES": str(r)},
                rc={0, 1}, bound=10, check=lambda o, e, dd: "" if victim.read_text() ==
                "precious\n" else "the rule cache wrote through a symlink into another file")


EVIL = ('code = "ECUDA998"\nid = "evil-backtracking"\ntitle = "x"\ncategory = "environment"\n'
        'confidence = "high"\nroot_cause_rank = 1\npatterns = ["PATTERN"]\nanti_patterns = []\n'
        'why = "x"\nfix = "x"\nreferences = ["https://example.com/x"]\n\n'
        '[[examples]]\nmatches = true\nsource = "https://example.com/x"\n'
        "text = '''\nYES\n'''\n\n"
        '[[examples]]\nmatches = false\nsource = "https://example.com/x"\n'
        "text = '''\nNO\n'''\n")


def evil_rules(d: Path, pattern: str, yes: str, no: str) -> Path:
    """A rules copy with one more signature, valid in every field but its regex."""
    r = rules_copy(d)
    text = EVIL.replace("PATTERN", pattern).replace("YES", yes).replace("NO", no)
    (r / "signatures/cuda/ECUDA998.toml").write_text(text)
    return r


@fault("RH01", "rules hang", "`rules test` on a copy with a catastrophic regex ((a+)+$) rejects it")
def _(d):
    r = evil_rules(d, "CUDA error: (a+)+$", "CUDA error: aaa", "CUDA error: " + "a" * 40 + "!")
    return dict(args=["rules", "test", str(r)], rc={1, 2}, bound=20,
                check=lambda o, e, dd: "" if "ECUDA998" in o + e else
                "the backtracking signature is not named")


@fault("RH02", "rules hang", "`explain` with ENVDOCTOR_RULES holding (\\w|\\d)+x does not hang")
def _(d):
    r = evil_rules(d, "CUDA error: (\\\\w|\\\\d)+x", "CUDA error: a1x", "CUDA error: b")
    (d / "t.txt").write_text(tb("RuntimeError: CUDA error: " + "1" * 40))
    return dict(args=["explain", str(d / "t.txt"), "--no-facts"], env={"ENVDOCTOR_RULES": str(r)},
                rc={0, 2}, bound=10)


@fault("RH03", "rules hang", "`check --from` with ENVDOCTOR_RULES holding (x+x+)+y does not hang")
def _(d):
    r = evil_rules(d, "CUDA error: (x+x+)+y", "CUDA error: xxy", "CUDA error: b")
    (d / "r.txt").write_text(m.NVIDIA_SMI_REPORT + "RuntimeError: CUDA error: " + "x" * 5000 + "\n")
    return dict(args=["check", "--from", str(d / "r.txt")], env={"ENVDOCTOR_RULES": str(r)},
                rc={0, 1, 2}, bound=8)


# --------------------------------------------------------------------------- runner
def universal(rc: int, out: str, err: str, d: Path, want_rc: set[int]) -> list[str]:
    """What every command owes at every boundary, whatever the fault."""
    probs = []
    if rc == 3 and 3 not in want_rc:
        probs.append("internal error (exit 3)")
    if rc == 2 and 2 in want_rc:
        lines = [x for x in err.splitlines() if x.strip()]
        if len(lines) != 1:
            probs.append(f"exit 2 with {len(lines)} stderr lines")
    text = {"stdout": out, "stderr": err, "files": written(d)}
    for where, t in text.items():
        hit = CTRL.findall(t)
        if hit:
            probs.append(f"raw control chars in {where}: {sorted({hex(ord(c)) for c in hit})[:6]}")
    leaked = [s[:12] for s in SECRETS3 if any(s in t for t in text.values())]
    if leaked:
        probs.append(f"leaked {leaked}")
    return probs


def _wait_trigger(proc, trigger, d: Path, start: float, limit: float = 20.0) -> bool:
    while time.monotonic() - start < limit:
        if proc.poll() is not None:
            return False
        if isinstance(trigger, (int, float)):
            if time.monotonic() - start >= trigger:
                return True
        elif (d / trigger).exists():
            time.sleep(0.3)
            return True
        time.sleep(0.02)
    return True


# A fault that names where its cache lives (or its HOME) keeps it; every other fault runs on one
# rule cache built before the timed run, as matrices 1 and 4 do: a fresh HOME would otherwise
# pay the cold signature and anchor build (~8 s on a quiet 2-core machine) inside each bound.
_CACHE_KEYS = {"HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "ENVDOCTOR_CACHE_DIR"}


def run_fault(fid: str, python: str = sys.executable, slack: float = 1.0, keep: bool = False,
              faults: dict | None = None) -> dict:
    """Run one fault through the real CLI (as matrix.run_fault, plus stdin, cwd, a signal at a
    phase and the universal boundary checks); ``faults`` is another matrix's registry."""
    category, title, build = (FAULTS if faults is None else faults)[fid]
    d = Path(tempfile.mkdtemp(prefix=f"edfault3-{fid}-"))
    (d / "home").mkdir()
    marker = f"EDFAULT_{fid}_{uuid.uuid4().hex[:8]}"
    try:
        spec = build(d)
    except Exception as exc:  # noqa: BLE001
        shutil.rmtree(d, ignore_errors=True)
        return dict(id=fid, category=category, title=title, error=f"setup failed: {exc!r}")
    env = {"PATH": os.environ["PATH"], "HOME": str(d / "home"), "LANG": "C.UTF-8",
           "EDFAULT_MARKER": marker, "TMPDIR": str(d)}
    if not _CACHE_KEYS & set(spec.get("env") or {}):
        env.update(m.warm_rule_cache(m.ROOT))  # the fault's own cost, not a cold rule build
    for k, v in (spec.get("env") or {}).items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    if m.ROOT and not env.pop("EDFAULT_NO_ROOT", None):
        env["PYTHONPATH"] = (env["PYTHONPATH"] + ":" if env.get("PYTHONPATH") else "") + m.ROOT
    if "shell" in spec:
        argv = list(spec["shell"])
    else:
        argv = [python, *(spec["cmd"] if "cmd" in spec else ["-m", "envdoctor", *spec["args"]])]
    mode = spec.get("stdout", "pipe")
    out_path, err_path = d / "stdout.txt", d / "stderr.txt"
    stdout = None
    if mode == "closed":
        argv = ["sh", "-c", 'exec "$@" >&-', "sh", *argv]
    elif mode == "full":
        stdout = open("/dev/full", "wb")
    elif mode == "head1":
        argv = ["bash", "-c", "\"$@\" | head -1 >/dev/null; exit ${PIPESTATUS[0]}", "sh", *argv]
    else:
        stdout = open(out_path, "wb")
    stdin_spec = spec.get("stdin")
    feeder = None
    stdin = subprocess.DEVNULL
    if stdin_spec == "closed":
        argv = ["sh", "-c", 'exec "$@" <&-', "sh", *argv]
        stdin = None
    elif stdin_spec == "wronly":
        stdin = os.open(str(d / "w"), os.O_WRONLY)
    elif isinstance(stdin_spec, tuple) and stdin_spec[0] == "cmd":
        feeder = subprocess.Popen(stdin_spec[1], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        stdin = feeder.stdout
    elif stdin_spec is not None:
        stdin = open(stdin_spec, "rb")
    stderr = open(err_path, "wb")
    cwd = spec.get("cwd", d)
    start = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdout=stdout, stderr=stderr, stdin=stdin, env=env,
                                cwd=cwd, start_new_session=True)
    except (OSError, ValueError) as exc:
        return dict(id=fid, category=category, title=title, error=f"could not start: {exc}")
    finally:
        if isinstance(stdin, int) and stdin > 2:
            os.close(stdin)
        elif hasattr(stdin, "close"):
            stdin.close()
    problems = []
    # a hang is judged a little past its bound, not at matrix.CAP: each of the known hangs
    # would otherwise cost a minute of every CI run
    cap = min(m.CAP, spec["bound"] * slack + 5)
    sig = spec.get("signal")
    if sig:
        signum, trigger, group = sig
        if _wait_trigger(proc, trigger, d, start):
            (os.killpg if group else os.kill)(proc.pid, signum)
        else:
            problems.append("exited before the signal could be sent")
    killed = False
    hwm = 0
    rc: int | None = None
    while True:
        hwm = max(hwm, m._hwm(proc.pid))
        if proc.returncode is not None:  # already reaped by Popen.poll (_wait_trigger)
            rc = proc.returncode
            break
        try:
            pid, status, _ = os.wait4(proc.pid, os.WNOHANG)
        except ChildProcessError:  # reaped by Popen between the check and the call
            rc = proc.wait()
            break
        if pid:
            rc = os.waitstatus_to_exitcode(status)
            break
        if time.monotonic() - start > cap:
            os.killpg(proc.pid, signal.SIGKILL)
            killed = True
            rc = proc.wait()
            break
        time.sleep(0.02)
    seconds = time.monotonic() - start
    if feeder:
        feeder.kill()
        feeder.wait()
    for f in (stdout, stderr):
        if f:
            f.close()
    time.sleep(0.3)
    left = m.orphans(marker)
    out = out_path.read_bytes().decode("utf-8", "replace") if out_path.exists() else ""
    err = err_path.read_bytes().decode("utf-8", "replace")
    if killed:
        problems.append(f"hung: killed after {cap:g}s")
    elif rc not in spec["rc"]:
        problems.append(f"exit {rc} (want {sorted(spec['rc'])})")
    if m.TRACE in err or (m.TRACE in out and not out.lstrip().startswith(("{", "["))):
        problems.append("traceback")
    if seconds > spec["bound"] * slack and not killed:
        problems.append(f"{seconds:.1f}s > {spec['bound'] * slack:g}s")
    if left:
        problems.append(f"{len(left)} process(es) left behind")
    rss = hwm / 1024
    if spec.get("rss_mb") and rss > spec["rss_mb"]:
        problems.append(f"peak RSS {rss:.0f} MB > {spec['rss_mb']} MB")
    if not killed:
        problems += universal(rc, out, err, d, spec["rc"])
        if spec.get("check"):
            try:
                p = spec["check"](out, err, d)
            except Exception as exc:  # noqa: BLE001
                p = f"check failed: {exc!r}"
            if p:
                problems.append(p)
    last_err = next((x for x in reversed(err.strip().splitlines()) if x.strip()), "")
    result = dict(id=fid, category=category, title=title, rc=rc, seconds=round(seconds, 2),
                  rss_mb=round(rss), orphans=left, problems=problems, ok=not problems,
                  stderr_tail=ascii(last_err[:200]))
    if not keep:
        shutil.rmtree(d, ignore_errors=True)
    return result


def per_class(results: list[dict]) -> dict[str, tuple[int, int]]:
    """category -> (handled, total)."""
    out: dict[str, list[int]] = {}
    for r in results:
        c = out.setdefault(r["category"], [0, 0])
        c[0] += bool(r.get("ok"))
        c[1] += 1
    return {k: (v[0], v[1]) for k, v in out.items()}


def run_cli(faults: dict, run_fault, out_default: str, table: bool = False) -> None:
    """The command line every fault matrix shares: run all faults (or ``--only``) against
    ``--root``'s tree, print a line each, write the results as JSON after each, then the
    per-class tally; ``table``: also ``--table BEFORE.json AFTER.json``."""
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default=sys.executable)
    if table:
        ap.add_argument("--table", nargs=2, metavar=("BEFORE.json", "AFTER.json"))
    ap.add_argument("--out", default=out_default)
    ap.add_argument("--only", default="")
    ap.add_argument("--root", default="", help="run envdoctor from this source tree")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    if table and args.table:
        before = json.loads(Path(args.table[0]).read_text())
        after = json.loads(Path(args.table[1]).read_text())
        print(m.table(before, after, faults))
        b, a = per_class(before), per_class(after)
        for c in sorted(set(b) | set(a)):
            print(f"{c}: before {b.get(c, (0, 0))[0]}/{b.get(c, (0, 0))[1]}, "
                  f"after {a.get(c, (0, 0))[0]}/{a.get(c, (0, 0))[1]}")
        return
    m.ROOT = args.root
    ids = [i for i in faults if not args.only or i in args.only.split(",")]
    results = []
    for fid in ids:
        r = run_fault(fid, args.python, keep=args.keep)
        results.append(r)
        mark = "ok " if r.get("ok") else "BAD"
        print(f"{mark} {fid} rc={r.get('rc')} {r.get('seconds')}s "
              f"{'; '.join(r.get('problems', [])) or r.get('error', '')} | {r.get('stderr_tail')}",
              flush=True)
        Path(args.out).write_text(json.dumps(results, indent=1))
    for c, (ok, n) in per_class(results).items():
        print(f"{c}: {ok}/{n}")
    print(f"{sum(1 for r in results if r.get('ok'))}/{len(results)} handled")


def main() -> None:
    run_cli(FAULTS, run_fault, "fault3-results.json", table=True)


if __name__ == "__main__":
    main()
