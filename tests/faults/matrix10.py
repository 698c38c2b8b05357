"""Tenth fault matrix: faults no earlier matrix (1-9), tests/test_hostile_inputs.py, the
tests/test_adv*_boundaries.py files nor tests/fleet list, on the commands earlier rounds touched
least.

Usage (from the repository root):
  python tests/faults/matrix10.py --root "$PWD" [--out results.json] [--only ID,...]
tests/faults/test_faults10.py runs it under pytest (``-m boundary``); MATRIX10.md holds the table.

Classes: ``fleet`` (the launcher's variables hostile: MASTER_ADDR holding escapes and a token, a
Slurm node list of 64 kB of brackets or whose first host holds an escape, WORLD_SIZE 2^31-1,
service tokens in a rank's environment), ``snapshots`` (`diff` and `report` of snapshots whose
paths hold tokens and escapes, `diff` of a snapshot on a pipe cut mid-document), ``suggest``
(a package index listing hostile wheel names, one that drips a byte at a time), ``gate`` (an
ignore reason holding escapes and a token, a policy on a pipe cut mid-string), ``streams``
(`explain` of a slow writer, a pipe closed mid-line by a killed writer, an invalid UTF-16 file,
20 MB of NULs), ``sinks`` (`-o` a file nobody may write, `-o` a FIFO whose reader leaves),
``signals`` (SIGTERM while an index drips) and ``secrets`` (tokens in a pasted pip config and
install log, a Hugging Face token on an error line).

Every fault is judged by ``matrix3.universal``, matrix 8's ``no_secret8``/``no_invisible``,
matrix 9's ``no_secret9`` and ``no_secret10`` here.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.faults import matrix as m
    from tests.faults import matrix3 as m3
    from tests.faults import matrix4 as m4
    from tests.faults import matrix7 as m7
    from tests.faults import matrix8 as m8
    from tests.faults import matrix9 as m9
else:
    from . import matrix as m
    from . import matrix3 as m3
    from . import matrix4 as m4
    from . import matrix7 as m7
    from . import matrix8 as m8
    from . import matrix9 as m9

FAULTS: dict[str, tuple[str, str, object]] = {}


def fault(fid: str, category: str, title: str):
    def deco(fn):
        FAULTS[fid] = (category, title, fn)
        return fn
    return deco


GHP10 = "ghp_PLANTED10githubTokenZyXwVuTsRqPoNm"
HF10 = "hf_PLANTED10hfTokenZyXwVuTsRqPoNmLkJi"
WANDB10 = "PLANTED10wandb0123456789abcdef012345678"
PW10 = "PLANTED10pipPw"
SECRETS10 = [GHP10, HF10, WANDB10, PW10]
TITLE = "\x1b]0;PWNED10TITLE\x07"
BIDI = "\u202e"
ANY = {0, 1}
TWO = {2}
all_of = m3.all_of
shows = m7.shows
no_title = m9.no_title
PY = sys.executable
ED = f"{PY} -m envdoctor"
# a fixture server: not envdoctor's child (no fault marker, its own session); it ends itself
SERVE = f"env -u EDFAULT_MARKER setsid {PY}"


def no_secret10(out, err, d):
    text = out + err + m3.written(d)
    leaked = [s[:15] for s in SECRETS10 if s in text]
    return f"leaked {leaked}" if leaked else ""


def _fleet_env(**extra: str) -> dict:
    env = {"GLOO_SOCKET_IFNAME": "lo", "OMP_NUM_THREADS": "1", "NO_COLOR": "1"}
    env.update(extra)
    return env


FLEET = ["fleet", "--static", "--timeout", "2", "--format", "json"]


# --------------------------------------------------------------------------- fleet
@fault("10N01", "fleet", "MASTER_ADDR holding a title escape, bidi and a token: exit 2, one line")
def _(d):
    env = _fleet_env(RANK="0", WORLD_SIZE="1", MASTER_PORT=str(m8._free_port()),
                     MASTER_ADDR=f"node{TITLE}{BIDI}-{GHP10}")
    return dict(args=FLEET, env=env, rc=TWO, bound=15, check=no_title)


@fault("10N02", "fleet", "srun: SLURM_JOB_NODELIST of 64 kB of '[' and no MASTER_ADDR")
def _(d):
    env = _fleet_env(SLURM_PROCID="0", SLURM_NTASKS="1", SLURM_JOB_ID="77",
                     SLURM_JOB_NODELIST="[" * 65536)
    return dict(args=FLEET, env=env, rc=TWO, bound=6)


@fault("10N03", "fleet", "srun: the node list's first host holds a title escape and a token")
def _(d):
    env = _fleet_env(SLURM_PROCID="0", SLURM_NTASKS="1", SLURM_JOB_ID="78",
                     SLURM_JOB_NODELIST=f"gpu{TITLE}{GHP10}[001-004],cpu1")
    return dict(args=FLEET, env=env, rc=TWO, bound=15, check=no_title)


@fault("10N04", "fleet", "WORLD_SIZE=2147483647 (one rank of 2^31-1): bounded, exit 2")
def _(d):
    env = _fleet_env(RANK="0", WORLD_SIZE="2147483647", MASTER_ADDR="127.0.0.1",
                     MASTER_PORT=str(m8._free_port()))
    return dict(args=FLEET, env=env, rc=TWO, bound=15)


@fault("10N05", "fleet", "HF/W&B/GitHub tokens and an index password in a rank's env, -o + out-dir")
def _(d):
    env = _fleet_env(RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1",
                     MASTER_PORT=str(m8._free_port()), HF_TOKEN=HF10, WANDB_API_KEY=WANDB10,
                     GH_TOKEN=GHP10, PIP_INDEX_URL=f"https://ci:{PW10}@pypi.corp/simple",
                     NCCL_SOCKET_IFNAME=f"lo,{GHP10}")
    return dict(args=[*FLEET, "-o", str(d / "out-report.json"), "--out-dir", str(d / "out-ranks")],
                env=env, rc=ANY, bound=60, check=_out_dir_clean)


def _out_dir_clean(out, err, d):
    text = "".join(p.read_text(errors="replace") for p in (d / "out-ranks").glob("*")
                   if p.is_file()) if (d / "out-ranks").is_dir() else ""
    leaked = [s[:15] for s in SECRETS10 if s in text]
    if leaked:
        return f"leaked {leaked} in a rank's snapshot"
    return "" if text else "no rank snapshot written (channel not exercised)"


# --------------------------------------------------------------------------- snapshots
def _snapshot(tag: str) -> dict:
    data = m3.snapshot()
    where = f"/opt/{tag}{TITLE}{BIDI}/{GHP10}/{HF10}"
    data["host"]["python_executable"] = f"{where}/bin/python"
    data["cuda"] = {"probe": {"status": "ok"}, "nvcc_path": f"{where}/cuda/bin/nvcc",
                    "toolkits": [{"version": "12.1", "path": f"{where}/cuda"}]}
    data["env"]["vars"]["PYTHONPATH"] = f"{where}/lib"
    data["env"]["vars"]["PIP_EXTRA_INDEX_URL"] = f"https://ci:{PW10}@{tag}.corp/simple"
    data["frameworks"]["torch"]["version"] = "2.3.1+cu121" if tag == "a" else "2.4.0+cu121"
    return data


@fault("10D01", "snapshots", "diff: snapshot paths holding tokens and a title, an index password in env")
def _(d):
    a = m3.write_json(d / "a.json", _snapshot("a"))
    b = m3.write_json(d / "b.json", _snapshot("b"))
    return dict(shell=["sh", "-c", f'{ED} diff {a} {b} && exec {ED} diff --format json {a} {b}'],
                rc={0}, bound=15, check=all_of(no_title, shows("2.4.0")))


@fault("10D02", "snapshots", "report --facts: the same paths, markdown to a file and text")
def _(d):
    a = m3.write_json(d / "a.json", _snapshot("a"))
    return dict(shell=["sh", "-c", f'{ED} report --facts {a} -o {d}/out.md && '
                       f'exec {ED} check --facts {a} -v'], rc=ANY, bound=20, check=no_title)


@fault("10D03", "snapshots", "diff A /dev/stdin: a writer that stops mid-document and is killed")
def _(d):
    a = m3.write_json(d / "a.json", m3.snapshot())
    text = json.dumps(m3.snapshot())
    feed = ["sh", "-c", f"printf '%s' '{text[:len(text) // 2]}'; sleep 1; kill -KILL $$"]
    return dict(args=["diff", str(a), "/dev/stdin"], stdin=("cmd", feed), rc=TWO, bound=10)


# --------------------------------------------------------------------------- suggest
def _serve(d: Path, script: str) -> str:
    """A local index on a free port, started by the fault's shell, gone when the shell ends."""
    port = m8._free_port()
    (d / "srv.py").write_text(script)
    return (f'{SERVE} {d}/srv.py {port} & '
            f'for i in 1 2 3 4 5 6 7 8 9 10; do [ -e {d}/up ] && break; sleep 0.2; done; '
            f'{ED} suggest torch --online --online-timeout 3 '
            f'--index-url http://127.0.0.1:{port}/simple '
            f'--torch-index-url http://127.0.0.1:{port}/whl; rc=$?; exit $rc')


_HOSTILE_INDEX = r'''
import http.server, os, sys, pathlib, threading
WHL = "-cp311-cp311-manylinux_2_28_x86_64.whl"
names = ["torch-2.98.0%2Bcpu" + WHL,
         "torch-2.99.0%2Bcpu\x1b]0;PWNED10TITLE\x07\u202e" + WHL,
         "torch-2." + "9" * 5000 + ".0%2Bcpu" + WHL]
names += ["torch-1.%d.0%%2Bcpu%s" % (i, WHL) for i in range(20000)]
page = "<html><body>" + "".join(
    '<a href="%s">%s</a>\n' % (n, n.replace("%2B", "+")) for n in names) + "</body></html>"
body = page.encode("utf-8", "surrogatepass")
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
threading.Timer(40, os._exit, (0,)).start()
s = http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H)
pathlib.Path(sys.argv[0]).with_name("up").touch()
s.serve_forever()
'''

_DRIP = r'''
import os, socket, sys, time, threading, pathlib
threading.Timer(40, os._exit, (0,)).start()
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16)
pathlib.Path(sys.argv[0]).with_name("up").touch()
def drip(c):
    try:
        c.recv(4096)
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n")
        pathlib.Path(sys.argv[0]).with_name("dripping").touch()
        while True:
            c.sendall(b"<")
            time.sleep(0.3)
    except OSError:
        pass
while True:
    c, _ = s.accept()
    threading.Thread(target=drip, args=(c,), daemon=True).start()
'''


@fault("10S01", "suggest", "an index listing wheel names with a title, bidi, a 5000-digit version")
def _(d):
    return dict(shell=["sh", "-c", _serve(d, _HOSTILE_INDEX)], rc=ANY, bound=30,
                check=all_of(no_title, shows("torch")))


@fault("10S02", "suggest", "an index that drips one byte every 0.3 s (--online-timeout 3)")
def _(d):
    return dict(shell=["sh", "-c", _serve(d, _DRIP)], rc=ANY, bound=15,
                check=shows("torch"))


# --------------------------------------------------------------------------- gate
@fault("10P01", "gate", "policy ignore reason holding a title, bidi and a token: github, markdown")
def _(d):
    reason = f"ours{TITLE}{BIDI} ::error title=PWNED3::x {GHP10}"
    (d / "p.toml").write_text('require = ["python>=3.0"]\nignore = { HOST001 = %s, '
                              'ENV001 = %s }\n' % (json.dumps(reason), json.dumps(reason)))
    return dict(shell=["sh", "-c", f'{ED} check --static --policy {d}/p.toml --format github; '
                       f'exec {ED} report --static --policy {d}/p.toml -o {d}/out.md'],
                rc=ANY, bound=40, check=all_of(no_title, m3.no_workflow))


@fault("10P02", "gate", "--policy /dev/stdin: a writer cut mid-string, then killed")
def _(d):
    feed = ["sh", "-c", "printf 'require = [\"torch>=2.'; sleep 1; kill -KILL $$"]
    return dict(args=["check", "--static", "--policy", "/dev/stdin"], stdin=("cmd", feed),
                rc=TWO, bound=20)


# --------------------------------------------------------------------------- streams
LINE = "RuntimeError: CUDA error: no kernel image is available for execution on the device"


@fault("10I01", "streams", "explain - of a slow writer that splits a UTF-8 character and the line")
def _(d):
    raw = (m4.TB.replace("train.py", "tr\u00e4in.py") + "done\n").encode()
    cut = raw.index("\u00e4".encode()) + 1
    half = raw.index(b"no kernel")
    parts = [raw[:cut], raw[cut:half], raw[half:]]
    script = "; sleep 0.7; ".join(f"printf '%b' '{_octal(p)}'" for p in parts)
    return dict(args=["explain", "-"], stdin=("cmd", ["sh", "-c", script]), rc={0}, bound=15,
                check=shows("ECUDA003"))


def _octal(b: bytes) -> str:
    return "".join(f"\\0{c:o}" if c < 32 or c > 126 or chr(c) in "'\\%" else chr(c) for c in b)


@fault("10I02", "streams", "explain - : the writer is killed mid-line right after the error line")
def _(d):
    feed = ["sh", "-c", f"printf 'log start\\n{LINE}\\nepoch 3 los'; sleep 0.5; kill -KILL $$"]
    return dict(args=["explain", "-"], stdin=("cmd", feed), rc={0}, bound=10,
                check=shows("ECUDA003"))


@fault("10I03", "streams", "explain a UTF-16-LE file: BOM, odd byte count, lone surrogates")
def _(d):
    body = (b"\xff\xfe" + ("start\n" + LINE + "\n").encode("utf-16-le") + b"\x00\xd8\x41\x00"
            + b"\x00\xdc" * 3 + b"\x41")
    (d / "e.txt").write_bytes(body)
    return dict(args=["explain", str(d / "e.txt")], rc={0, 1}, bound=10)


@fault("10I04", "streams", "explain a crashed log: text, a 10 MB hole of NULs, the error, NULs")
def _(d):
    # what a file system leaves in a log written before a power loss (a hole of zeros where
    # the lost write was), then the run after the restart
    with open(d / "nul.log", "wb") as fh:
        fh.write(b"epoch 1 loss 0.5\n" * 600 + b"\x00" * 10_000_000 + b"restarted\n"
                 + LINE.encode() + b"\n" + b"\x00" * 10_000_000)
    return dict(args=["explain", str(d / "nul.log")], rc={0}, bound=25, check=shows("ECUDA003"))


# --------------------------------------------------------------------------- sinks
@fault("10W01", "sinks", "-o /proc/version (a file even root cannot write): exit 2, one line")
def _(d):
    def says_why(out, err, d):  # the file is there: "No such file" alone is not the reason
        return "" if "/proc" in err.replace("/proc/version", "") else f"reason {err.strip()!r}"
    return dict(args=["explain", "ECUDA003", "-o", "/proc/version"], rc=TWO, bound=10,
                check=says_why)


@fault("10W02", "sinks", "-o /dev/stdout into a pipe whose reader takes 16 bytes of 700 kB")
def _(d):
    data = m3.snapshot()
    data["nvidia"]["gpus"] = [dict(data["nvidia"]["gpus"][0], index=i) for i in range(1000)]
    s = m3.write_json(d / "s.json", data)
    return dict(shell=["bash", "-c", f'{ED} check --facts {s} --format json -o /dev/stdout '
                       '| head -c 16 >/dev/null; exit ${PIPESTATUS[0]}'],
                rc={0, 1, 141, -13}, bound=25, check=m3.stderr_lines(0))


# --------------------------------------------------------------------------- signals
@fault("10G01", "signals", "SIGTERM to suggest --online while the index drips: 143, nothing left")
def _(d):
    port = m8._free_port()
    (d / "srv.py").write_text(_DRIP)
    script = (f'{SERVE} {d}/srv.py {port} & '
              f'for i in 1 2 3 4 5 6 7 8 9 10; do [ -e {d}/up ] && break; sleep 0.2; done; '
              f'exec {ED} suggest torch --online --online-timeout 30 '
              f'--index-url http://127.0.0.1:{port}/simple '
              f'--torch-index-url http://127.0.0.1:{port}/whl')
    return dict(shell=["sh", "-c", script], rc={143, -15}, bound=15,
                signal=(signal.SIGTERM, "dripping", False), check=m3.stderr_lines(1))


# --------------------------------------------------------------------------- secrets
@fault("10K01", "secrets", "check --from: pip config list and an install log with index tokens")
def _(d):
    (d / "p.txt").write_text(
        "$ pip config list\n"
        f"global.index-url='https://__token__:{PW10}@pypi.corp/simple'\n"
        f"global.extra-index-url='https://{GHP10}@pkgs.corp/simple https://x:{PW10}@y/simple'\n"
        f"$ pip install -i https://user:{PW10}@pypi.corp/simple torch==2.3.1\n"
        f"Looking in indexes: https://user:{PW10}@pypi.corp/simple, https://{HF10}@hf.corp/\n"
        "ERROR: Could not find a version that satisfies the requirement torch==2.3.1\n"
        "torch                 2.3.1+cu121\n")
    return dict(shell=["sh", "-c", f'{ED} check --from {d}/p.txt -v --format json; '
                       f'exec {ED} check --from {d}/p.txt --format markdown'],
                rc=ANY, bound=20)


@fault("10K02", "secrets", "explain: a Hugging Face 401 quoting hf_ tokens in a URL and a header")
def _(d):
    (d / "e.log").write_text(
        "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
        "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: "
        f"https://huggingface.co/api/models/x?token={HF10} (token {HF10}, "
        f"Authorization: Bearer {HF10})\n" + LINE + "\n")
    return dict(shell=["sh", "-c", f'{ED} explain {d}/e.log; '
                       f'exec {ED} explain --format json {d}/e.log'], rc=ANY, bound=20,
                check=shows("ECUDA003"))


# --------------------------------------------------------------------------- runner
def run_fault(fid: str, python: str = sys.executable, slack: float = 1.0, keep: bool = False
              ) -> dict:
    spec_build = FAULTS[fid][2]
    m7.warm(python)

    def build(d):
        spec = m8.judged(spec_build(d))
        spec["check"] = all_of(spec["check"], m9.no_secret9, no_secret10)
        env = spec.setdefault("env", {})
        env.setdefault("XDG_CACHE_HOME", str(m4._cache_dir() / "cache"))
        env.setdefault("XDG_STATE_HOME", str(m4._cache_dir() / "state"))
        return spec
    faults = {fid: (FAULTS[fid][0], FAULTS[fid][1], build)}
    return m3.run_fault(fid, python, slack, keep, faults=faults)


def main() -> None:
    m3.run_cli(FAULTS, run_fault, "fault10-results.json")


if __name__ == "__main__":
    main()
