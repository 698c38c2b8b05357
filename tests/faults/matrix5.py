"""Fifth fault matrix: faults no earlier matrix, tests/test_hostile_inputs.py or
tests/test_adv_boundaries.py lists.

Usage (from the repository root):
  python tests/faults/matrix5.py [--root SRC] [--out results.json] [--only ID,...]
tests/faults/test_faults5.py runs it under pytest (``-m boundary``); MATRIX5.md holds the table.

Classes: ``root`` (device nodes, UTF-16 and giant-line files, sparse toolkit files, directory
symlink loops, a hostile --root path under ``check --static --root``), ``tools`` (a tool that
forks a daemon, writes half a row and hangs, stops itself, ignores SIGTERM, drips forever,
floods stderr, reads stdin, prints bidi/OSC 8 through amd-smi, is a directory or a FIFO on
PATH), ``env`` (invalid UTF-8 in a variable's name, PATH loops of 10 000 entries, absurd
COLUMNS), ``paste`` (binary, UTF-16 without a BOM, a 1 GB stream on a pipe, CRLF, ANSI colour
logs, NUL-interleaved text), ``writes`` (--report to a directory, a FIFO, a symlink, a name too
long, an undecodable name), ``signals`` (signals whose default action ends a process but that
no handler names, twice in a row, during an index read, during a report write), ``index``
(`suggest --online` against a 127.0.0.1 server that is slow, loops, redirects to file:, floods,
gzip-bombs, lies about its type, closes mid-body, names releases with escapes, or redirects to a
URL holding a token), ``secrets`` (pip.conf under HOME, process names in an nvidia-smi table,
CUDA paths, host names, every kind of paste, JSON keys, paths echoed in error lines) and
``fleet`` (node files whose names are hostile, a folder of 30 000 files).

Every fault is also judged by ``matrix3.universal`` (no exit 3 or traceback, exit 2 with one
stderr line, no raw C0/C1 control character, none of matrix3's planted credentials, bounded
time, nothing left running); secrets here add ``SECRETS5``.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.faults import matrix as m
    from tests.faults import matrix2 as m2
    from tests.faults import matrix3 as m3
    from tests.faults import matrix4 as m4
else:
    from . import matrix as m
    from . import matrix2 as m2
    from . import matrix3 as m3
    from . import matrix4 as m4

FAULTS: dict[str, tuple[str, str, object]] = {}


def fault(fid: str, category: str, title: str):
    def deco(fn):
        FAULTS[fid] = (category, title, fn)
        return fn
    return deco


# --------------------------------------------------------------------------- planted data
HF5 = "hf_PLANTED5hfTokenZyXwVuTsRqPoNmLk"
GHP5 = "ghp_PLANTED5githubTokenZyXwVuTsRqPoNmLkJi"
PIPPW5 = "PLANTED5pipConfPw"
REDIR5 = "PLANTED5redirectTok"
ARGV5 = "PLANTED5argvSecret99"
HOSTPW5 = "PLANTED5hostPw"
GLPAT5 = "glpat-PLANTED5gitlabTokXyZ12"  # 20+ after the prefix, as GitLab issues
CONDA5 = "PLANTED5condaTok-abc123"
SECRETS5 = [HF5, GHP5, PIPPW5, REDIR5, ARGV5, HOSTPW5, GLPAT5, CONDA5]
OSC8 = "\x1b]8;;https://evil.example/x\x1b\\click\x1b]8;;\x1b\\"
BIDI = "\u202eexe.txt\u202c\u2066x\u2069"
FORGED = m4.FORGED
STATIC_JSON = m4.STATIC_JSON
ANY = {0, 1}
TB = m4.TB
tool = m4.tool
image = m4.image
snap = m4.snap


def no_secret5(out, err, d):
    text = out + err + m3.written(d)
    leaked = [s[:14] for s in SECRETS5 if s in text]
    return f"leaked {leaked}" if leaked else ""


def shows(*needles: str):
    """The channel is exercised: each needle (a canary next to the planted data) shows."""
    def check(out, err, d):
        text = out + err + m3.written(d)
        missing = [n for n in needles if n not in text]
        return f"canary {missing} missing (channel not exercised)" if missing else ""
    return check


def explained(out, err, d):
    return "" if "no kernel image" in out or "ECUDA" in out or "CUDA" in out else \
        "the error was not read"


def gpus_from_paste(n: int):
    def check(out, err, d):
        gpus = (m4.facts_of(out).get("nvidia") or {}).get("gpus") or []
        return "" if len(gpus) == n else f"{len(gpus)} GPUs read from the paste (want {n})"
    return check


def no_forged_line(out, err, d):
    bad = [ln for ln in (out + m3.written(d)).splitlines() if ln.lstrip().startswith(FORGED)]
    return f"forged lines {bad[:3]}" if bad else ""


def no_bidi(out, err, d):
    return m3.no_bidi(out, err, d)


# --------------------------------------------------------------------------- root
@fault("5R01", "root", "--root: etc/os-release is a character device (mknod 1,5: zero)")
def _(d):
    root = image(d)
    os.mknod(root / "etc/os-release", 0o644 | 0o020000, os.makedev(1, 5))
    return dict(args=[*STATIC_JSON, "--root", str(root)], rc=ANY, bound=8, rss_mb=300,
                check=m3.json_ok)


@fault("5R02", "root", "--root: /proc/driver/nvidia/version is a char device (urandom 1,9)")
def _(d):
    root = image(d)
    os.mknod(root / "proc/driver/nvidia/version", 0o644 | 0o020000, os.makedev(1, 9))
    return dict(args=[*STATIC_JSON, "--root", str(root)], rc=ANY, bound=8, rss_mb=300,
                check=m3.json_ok)


@fault("5R03", "root", "--root: etc/os-release in UTF-16 with a BOM")
def _(d):
    root = image(d)
    (root / "etc/os-release").write_bytes('PRETTY_NAME="UTF16-DISTRO"\nID=x\n'.encode("utf-16"))
    return dict(args=[*STATIC_JSON, "--root", str(root)], rc=ANY, bound=8, check=m3.json_ok)


@fault("5R04", "root", "--root: etc/os-release is one 40 MB line (regular file, no newline)")
def _(d):
    root = image(d)
    with open(root / "etc/os-release", "wb") as fh:
        fh.write(b'PRETTY_NAME="' + b"A" * (40 << 20))
    return dict(args=[*STATIC_JSON, "--root", str(root)], rc=ANY, bound=8, rss_mb=300,
                check=m3.json_ok)


@fault("5R05", "root", "--root: usr/local/cuda/version.json is a 4 GB sparse file")
def _(d):
    root = image(d)
    (root / "usr/local/cuda/bin").mkdir(parents=True)
    m3.sparse(root / "usr/local/cuda/version.json", b'{"cuda": {"version": "12.4.1"', 4 << 30)
    return dict(args=[*STATIC_JSON, "--root", str(root)], rc=ANY, bound=8, rss_mb=300,
                check=m3.json_ok, env={"PATH": "/usr/bin:/bin"})


@fault("5R06", "root", "--root: usr/local/cuda/version.json nested 100 000 deep, NULs, bad UTF-8")
def _(d):
    root = image(d)
    (root / "usr/local/cuda").mkdir(parents=True)
    (root / "usr/local/cuda/version.json").write_bytes(b'{"cuda\x00\xff": ' + b"[" * 100000)
    return dict(args=[*STATIC_JSON, "--root", str(root)], rc=ANY, bound=8, check=m3.json_ok,
                env={"PATH": "/usr/bin:/bin"})


@fault("5R07", "root", "--root: usr/local -> /usr and usr/lib64 -> . (directory symlink loops)")
def _(d):
    root = image(d)
    (root / "usr/local").symlink_to("/usr")
    (root / "usr/lib64").symlink_to(".")
    (root / "usr/lib/x86_64-linux-gnu").symlink_to("/usr/lib")
    return dict(args=[*STATIC_JSON, "--root", str(root)], rc=ANY, bound=8, check=m3.json_ok,
                env={"PATH": "/usr/bin:/bin"})


@fault("5R08", "root", "--root: 3000 NVIDIA PCI functions under sys/bus/pci/devices")
def _(d):
    root = image(d)
    base = root / "sys/bus/pci/devices"
    for i in range(3000):
        dev = base / f"0000:{i >> 8:02x}:{i & 0xff:02x}.0"
        dev.mkdir()
        (dev / "vendor").write_text("0x10de\n")
        (dev / "class").write_text("0x030200\n")
        (dev / "device").write_text("0x2330\n")
    return dict(args=[*STATIC_JSON, "--root", str(root)], rc=ANY, bound=10, check=m3.json_ok)


@fault("5R09", "root", "--root: sys/bus/pci/devices is a regular file, proc/driver/nvidia/gpus "
                       "a FIFO")
def _(d):
    root = image(d)
    (root / "sys/bus/pci/devices").rmdir()
    (root / "sys/bus/pci/devices").write_text("not a folder\n")
    os.mkfifo(root / "proc/driver/nvidia/gpus")
    return dict(args=[*STATIC_JSON, "--root", str(root)], rc=ANY, bound=8, check=m3.json_ok)


@fault("5R10", "root", "--root PATH whose name holds a newline, a forged line, OSC 0 and bidi")
def _(d):
    root = d / f"img\n{FORGED}\n\x1b]0;title\x07\u202e"
    root.mkdir()
    return dict(args=["check", "--static", "--root", str(root), "-v"], rc={0, 1, 2}, bound=8,
                check=no_forged_line)


@fault("5R11", "root", "--root: a regular file (not a folder)")
def _(d):
    (d / "file").write_text("x")
    return dict(args=["check", "--static", "--root", str(d / "file")], rc=m.ONE_LINE_2, bound=6)


# --------------------------------------------------------------------------- tools
@fault("5T01", "tools", "nvidia-smi forks a daemon (setsid, fds closed) and exits 0 answering")
def _(d):
    env = m4.query_smi(d, "setsid sh -c 'exec sleep 300' </dev/null >/dev/null 2>&1 &")
    return dict(args=STATIC_JSON, env=env, rc=ANY, bound=8, check=m4.gpus_named(1))


@fault("5T02", "tools", "nvidia-smi writes half a CSV row, then hangs")
def _(d):
    env = tool(d, "nvidia-smi", 'printf "0, NVIDIA H1"; exec sleep 1000')
    return dict(args=STATIC_JSON, env=env, rc=ANY, bound=16, check=m3.json_ok)


@fault("5T03", "tools", "nvidia-smi stops itself (SIGSTOP) mid-answer")
def _(d):
    env = tool(d, "nvidia-smi", 'printf "0, NVIDIA"; kill -STOP $$; echo never')
    return dict(args=STATIC_JSON, env=env, rc=ANY, bound=16, check=m3.json_ok)


@fault("5T04", "tools", "nvidia-smi ignores SIGTERM and SIGINT, then hangs")
def _(d):
    env = tool(d, "nvidia-smi", "trap '' TERM INT HUP; while :; do sleep 1; done")
    return dict(args=STATIC_JSON, env=env, rc=ANY, bound=16, check=m3.json_ok)


@fault("5T05", "tools", "nvidia-smi drips one line a second forever")
def _(d):
    env = tool(d, "nvidia-smi", "while :; do echo 'GPU 0: NVIDIA H100 (UUID: GPU-x)'; "
                                "sleep 0.5; done")
    return dict(args=STATIC_JSON, env=env, rc=ANY, bound=16, check=m3.json_ok)


@fault("5T06", "tools", "nvidia-smi floods 200 MB to stderr while stdout answers")
def _(d):
    env = m4.query_smi(d, "head -c 200000000 /dev/zero | tr '\\0' E >&2")
    return dict(args=STATIC_JSON, env=env, rc=ANY, bound=12, rss_mb=400, check=m3.json_ok)


@fault("5T07", "tools", "nvidia-smi reads its stdin to the end (the caller's stdin never closes)")
def _(d):
    env = tool(d, "nvidia-smi", "cat >/dev/null; echo done")
    return dict(args=STATIC_JSON, env=env, stdin=("cmd", ["sleep", "1000"]), rc=ANY, bound=8,
                check=m3.json_ok)


@fault("5T08", "tools", "amd-smi JSON: a GPU name with OSC 8, bidi and a forged line, text -v")
def _(d):
    doc = [{"gpu": 0, "asic": {"market_name": f"MI300X{OSC8}{BIDI}\n{FORGED}",
                               "target_graphics_version": "gfx942"}}]
    (d / "amd.json").write_text(json.dumps(doc))
    env = tool(d, "amd-smi", f'cat "{d}/amd.json"')
    return dict(args=["check", "--static", "-v"], env=env, rc=ANY, bound=10,
                check=m3.all_of(no_bidi, no_forged_line))


@fault("5T09", "tools", "nvidia-smi on PATH is a directory, then a FIFO with the exec bit")
def _(d):
    (d / "bin1/nvidia-smi").mkdir(parents=True)
    (d / "bin2").mkdir()
    os.mkfifo(d / "bin2/nvidia-smi")
    os.chmod(d / "bin2/nvidia-smi", 0o755)
    return dict(args=STATIC_JSON, env={"PATH": f"{d}/bin1:{d}/bin2:" + os.environ["PATH"]},
                rc=ANY, bound=8, check=m3.json_ok)


@fault("5T10", "tools", "ldconfig -p floods 30 MB of library lines")
def _(d):
    env = tool(d, "ldconfig", "yes '\tlibcudart.so.12 (libc6,x86-64) => /usr/lib/libcudart.so.12'"
                              " | head -c 30000000")
    return dict(args=STATIC_JSON, env=env, rc=ANY, bound=10, rss_mb=400, check=m3.json_ok)


@fault("5T11", "tools", "nvcc kills its parent's process group (kill 0) after answering")
def _(d):
    env = tool(d, "nvcc", 'echo "Cuda compilation tools, release 12.4, V12.4.131"; kill -TERM 0')
    return dict(args=STATIC_JSON, env=env, rc=ANY, bound=10, check=m3.json_ok)


# --------------------------------------------------------------------------- env
@fault("5E01", "env", "a variable NAME with invalid UTF-8 bytes (NCCL_\\xff\\xfe), check -v")
def _(d):
    return dict(args=["check", "--static", "-v"], env={"NCCL_\udcff\udcfe": "1",
                                                       "CUDA_\udcc3(": "\udcff"},
                rc=ANY, bound=8)


@fault("5E02", "env", "PATH of 2400 entries: loops, FIFOs, missing folders")
def _(d):
    (d / "loop").symlink_to(d / "loop")
    os.mkfifo(d / "fifo")
    parts = [str(d / "loop"), str(d / "fifo"), "/nonexistent", ""] * 600  # < MAX_ARG_STRLEN
    return dict(args=STATIC_JSON, env={"PATH": ":".join(parts) + ":" + os.environ["PATH"]},
                rc=ANY, bound=10, check=m3.json_ok)


@fault("5E03", "env", "COLUMNS=99999999999999999999 and LINES=-5, text output")
def _(d):
    return dict(args=["check", "--static", "-v"], env={"COLUMNS": "9" * 20, "LINES": "-5"},
                rc=ANY, bound=8)


@fault("5E04", "env", "CUDA_HOME a 100 kB path, LD_LIBRARY_PATH entries 4096 chars each")
def _(d):
    return dict(args=STATIC_JSON, env={"CUDA_HOME": "/opt/" + "c/" * 50000,
                                       "LD_LIBRARY_PATH": ":".join(["/x" * 2048] * 20)},
                rc=ANY, bound=8, check=m3.json_ok)


# --------------------------------------------------------------------------- paste
@fault("5P01", "paste", "explain a file of random binary (NULs, C1, invalid UTF-8)")
def _(d):
    (d / "b.bin").write_bytes(os.urandom(200000) + bytes(range(256)) * 40)
    return dict(args=["explain", str(d / "b.bin"), "--no-facts"], rc={0, 1, 2}, bound=6)


@fault("5P02", "paste", "explain - of a 1 GB stream on a pipe (no file to stat)")
def _(d):
    feeder = ["sh", "-c", "head -c 1000000000 /dev/zero | tr '\\0' 'a'"]
    return dict(args=["explain", "-", "--no-facts"], stdin=("cmd", feeder), rc={0, 1, 2},
                bound=10, rss_mb=300)


@fault("5P03", "paste", "check --from an nvidia-smi table with CRLF line ends (Windows paste)")
def _(d):
    (d / "p.txt").write_bytes(m2.H100_TABLE.replace("\n", "\r\n").encode())
    return dict(args=["check", "--from", str(d / "p.txt"), "--format", "json"], rc=ANY, bound=6,
                check=m3.all_of(m3.json_ok, _paste_gpus_at_least(1)))


def _paste_gpus_at_least(n: int):
    def check(out, err, d):
        gpus = (m4.facts_of(out).get("nvidia") or {}).get("gpus") or []
        return "" if len(gpus) >= n else f"{len(gpus)} GPUs read from the paste (want >= {n})"
    return check


@fault("5P04", "paste", "explain an ANSI-coloured log (SGR around every word, rich-style)")
def _(d):
    colour = "\n".join(" ".join(f"\x1b[1;31m{w}\x1b[0m" for w in ln.split(" "))
                       for ln in TB.splitlines()) + "\n"
    (d / "tb.txt").write_text(colour)
    return dict(args=["explain", str(d / "tb.txt"), "--no-facts"], rc={0, 1}, bound=6,
                check=explained)


@fault("5P05", "paste", "check --from a UTF-16-LE nvidia-smi table without a BOM")
def _(d):
    (d / "p.txt").write_bytes(m2.H100_TABLE.encode("utf-16-le"))
    return dict(args=["check", "--from", str(d / "p.txt"), "--format", "json"], rc={0, 1, 2},
                bound=6)


@fault("5P06", "paste", "explain a traceback with a UTF-8 BOM and CRLF")
def _(d):
    (d / "tb.txt").write_bytes(b"\xef\xbb\xbf" + TB.replace("\n", "\r\n").encode())
    return dict(args=["explain", str(d / "tb.txt"), "--no-facts"], rc={0, 1}, bound=6,
                check=explained)


@fault("5P07", "paste", "suggest --from a file of random binary")
def _(d):
    (d / "b.bin").write_bytes(os.urandom(100000))
    return dict(args=["suggest", "--from", str(d / "b.bin")], rc={0, 1, 2}, bound=8)


@fault("5P08", "paste", "explain - of a stdin that is closed after a partial UTF-8 sequence")
def _(d):
    (d / "tb.txt").write_bytes(TB.encode() + "é".encode()[:1])
    return dict(args=["explain", "-", "--no-facts"], stdin=str(d / "tb.txt"), rc={0, 1},
                bound=6, check=explained)


# --------------------------------------------------------------------------- writes
@fault("5W01", "writes", "check --report sarif:DIR where DIR is a directory")
def _(d):
    (d / "outdir").mkdir()
    return dict(args=["check", "--static", "--report", f"sarif:{d}/outdir"], rc=m.ONE_LINE_2,
                bound=8)


@fault("5W02", "writes", "check --report json:FIFO nobody reads")
def _(d):
    os.mkfifo(d / "out.fifo")
    return dict(args=["check", "--static", "--report", f"json:{d}/out.fifo"], rc=m.ONE_LINE_2,
                bound=10)


@fault("5W03", "writes", "-o a symlink to a victim file: the victim is left or replaced whole")
def _(d):
    (d / "victim.txt").write_text("VICTIM-INTACT\n")
    (d / "outlink").symlink_to(d / "victim.txt")

    def check(out, err, d):
        text = (d / "victim.txt").read_text(errors="replace")
        return "" if text == "VICTIM-INTACT\n" or text.lstrip().startswith("{") and \
            text.rstrip().endswith("}") else f"victim half-written: {text[:60]!r}"
    return dict(args=["check", "--static", "--format", "json", "-o", str(d / "outlink")],
                rc=ANY, bound=8, check=check)


@fault("5W04", "writes", "-o a path of 5000 characters (ENAMETOOLONG)")
def _(d):
    return dict(args=["check", "--static", "-o", str(d / ("n" * 5000))], rc=m.ONE_LINE_2, bound=6)


@fault("5W05", "writes", "-o into a missing folder whose name is invalid UTF-8 and an escape")
def _(d):
    return dict(args=["check", "--static", "-o", f"{d}/\udcff\udcfe\x1b[2J/x"],
                rc=m.ONE_LINE_2, bound=6)


@fault("5W06", "writes", "--report json:/dev/stdout while stdout is closed")
def _(d):
    return dict(args=["check", "--static", "--report", "json:/dev/stdout"], stdout="closed",
                rc=m.ONE_LINE_2, bound=8)


# --------------------------------------------------------------------------- signals
def _hung_signal(signum: int):
    def build(d):
        env = m3.hung_smi(d)
        return dict(args=STATIC_JSON, env=env, bound=8, rc={128 + signum, -signum},
                    signal=(signum, "started", False))
    return build


fault("5G01", "signals", "SIGUSR1 (default: terminate) while nvidia-smi hangs: no orphan")(
    _hung_signal(signal.SIGUSR1))
fault("5G02", "signals", "SIGALRM (default: terminate) while nvidia-smi hangs: no orphan")(
    _hung_signal(signal.SIGALRM))
fault("5G03", "signals", "SIGUSR2 (default: terminate) while nvidia-smi hangs: no orphan")(
    _hung_signal(signal.SIGUSR2))


@fault("5G04", "signals", "SIGTERM twice, 50 ms apart, while nvidia-smi hangs")
def _(d):
    env = m3.hung_smi(d)
    py = sys.executable
    script = (f'"{py}" -m envdoctor check --static & p=$!; while [ ! -e "{d}/started" ]; do '
              f'sleep 0.05; done; sleep 0.3; kill -TERM $p; sleep 0.05; '
              f'kill -TERM $p 2>/dev/null; wait $p')
    return dict(shell=["sh", "-c", script], env=env, bound=8, rc={143}, check=m.one_line)


@fault("5G05", "signals", "SIGTERM during `suggest --online` against a server that never answers")
def _(d):
    port = serve(d, "silent")
    return dict(args=["suggest", "--online", *index_args(port), "--online-timeout", "30"],
                bound=6, rc={143, -15}, signal=(signal.SIGTERM, 2.0, False), check=m.one_line)


@fault("5G06", "signals", "SIGTERM during a cold `explain` (rule cache being built): a rerun works")
def _(d):
    # a log over explain.CHOOSE_BYTES (1 MiB): a cold run then builds the signatures and chooses
    # the scanner's anchors (seconds), so the signal lands while the cache is being built; a
    # one-traceback input is explained cold in about a second and would end before it
    (d / "tb.txt").write_text("epoch 1 step 100 loss 0.4312 lr 0.0003\n" * 30_000 + TB)
    cache = {"XDG_CACHE_HOME": str(d / "cache"), "XDG_STATE_HOME": str(d / "state")}

    def check(out, err, d):
        import subprocess
        env = dict(os.environ, HOME=str(d / "home"), **cache)
        if m.ROOT:
            env["PYTHONPATH"] = m.ROOT
        again = subprocess.run([sys.executable, "-m", "envdoctor", "explain", str(d / "tb.txt"),
                                "--no-facts"], capture_output=True, text=True, env=env,
                               timeout=90, cwd=d)
        if again.returncode not in (0, 1):
            return f"rerun after the signal: exit {again.returncode} {again.stderr[-200:]!r}"
        return explained(again.stdout, again.stderr, d)
    return dict(args=["explain", str(d / "tb.txt"), "--no-facts"], env=cache, bound=8,
                rc={143, -15}, signal=(signal.SIGTERM, 1.0, False),
                check=m3.all_of(m.one_line, check))


# --------------------------------------------------------------------------- index
class _Handler(BaseHTTPRequestHandler):
    mode = "ok"
    port = 0

    def log_message(self, *a):  # quiet
        pass

    def _page(self) -> bytes:
        return json.dumps({"meta": {"api-version": "1.0"}, "name": "torch", "files": []}).encode()

    def do_GET(self):  # noqa: C901 - one branch per hostile server
        mode = self.mode
        try:
            if mode == "silent":
                time.sleep(60)
                return
            if mode == "slowloris":
                self.send_response(200)
                self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
                self.end_headers()
                for _ in range(120):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.5)
                return
            if mode == "loop":
                self.send_response(302)
                self.send_header("Location", self.path)
                self.end_headers()
                return
            if mode == "file":
                self.send_response(302)
                self.send_header("Location", "file:///etc/passwd")
                self.end_headers()
                return
            if mode == "token_redirect":
                if "/ok/" in self.path:
                    self.send_response(500, f"boom {REDIR5}")
                    self.end_headers()
                    return
                self.send_response(302)
                self.send_header("Location",
                                 f"http://svc:{REDIR5}@127.0.0.1:{self.port}/ok{self.path}")
                self.end_headers()
                return
            if mode == "huge":
                self.send_response(200)
                self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
                self.end_headers()
                self.wfile.write(b'{"name": "torch", "files": [')
                chunk = b'{"filename": "x.whl", "url": "x"},' * 1000
                for _ in range(2000):   # ~70 MB
                    self.wfile.write(chunk)
                return
            if mode == "gzip":
                body = gzip.compress(b"[" * (64 << 20), 9)
                self.send_response(200)
                self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if mode == "wrong_type":
                body = self._page()
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(b"\x89PNG\r\n\x1a\n" + body)
                return
            if mode == "midbody":
                self.send_response(200)
                self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
                self.send_header("Content-Length", "100000")
                self.end_headers()
                self.wfile.write(b'{"name": "torch", "files": [{"filename": "tor')
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if mode == "hostile_names":
                bad = f"9.9.9{OSC8}\n{FORGED}\u202e"
                files = [{"filename": f"{n}-{bad}-cp311-cp311-manylinux_2_28_x86_64.whl",
                          "url": f"{n}-{bad}.whl", "hashes": {}}
                         for n in ("torch", "jax", "jaxlib", "tensorflow")]
                body = json.dumps({"meta": {"api-version": "1.0"}, "name": "torch",
                                   "files": files}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if mode == "status_escape":
                self.send_response(503, f"down \x1b]52;c;eA==\x07 {GHP5}")
                self.end_headers()
                return
        except (OSError, ValueError):
            return


def serve(d: Path, mode: str) -> int:
    """A hostile index on 127.0.0.1 in this process (a daemon thread); its port."""
    handler = type("H", (_Handler,), {"mode": mode})
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    srv.daemon_threads = True
    handler.port = srv.server_address[1]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv.server_address[1]


def index_args(port: int, user: str = "") -> list[str]:
    return ["--index-url", f"http://{user}127.0.0.1:{port}/simple",
            "--torch-index-url", f"http://{user}127.0.0.1:{port}/whl"]


def _index(mode: str, timeout: str = "3", bound: float = 8, user: str = "", check=None,
           fmt: str = "text"):
    def build(d):
        port = serve(d, mode)
        return dict(args=["suggest", "--online", *index_args(port, user), "--online-timeout",
                          timeout, "--format", fmt], rc={0, 1}, bound=bound,
                    check=check or (lambda o, e, d: ""))
    return build


fault("5N01", "index", "suggest --online: a slowloris index (a byte each 0.5 s, forever)")(
    _index("slowloris"))
fault("5N02", "index", "suggest --online: a redirect loop (302 to itself)")(_index("loop"))
fault("5N03", "index", "suggest --online: a redirect to file:///etc/passwd")(
    _index("file", check=lambda o, e, d: "read /etc/passwd" if "root:x:0" in o + e else ""))
fault("5N04", "index", "suggest --online: a 70 MB page with no Content-Length")(_index("huge"))
fault("5N05", "index", "suggest --online: a gzip bomb (64 MB of '[' in 64 kB, Content-Encoding)")(
    _index("gzip"))
fault("5N06", "index", "suggest --online: JSON served as image/png with a PNG header")(
    _index("wrong_type"))
fault("5N07", "index", "suggest --online: the server closes mid-body (Content-Length unmet)")(
    _index("midbody"))
fault("5N08", "index", "suggest --online: release names with OSC 8, a forged line and bidi, -v")(
    _index("hostile_names", check=lambda o, e, d: no_forged_line(o, e, d) or no_bidi(o, e, d)))
fault("5N09", "index", "suggest --online: a redirect to a URL holding a password, then HTTP 500")(
    _index("token_redirect", check=lambda o, e, d: no_secret5(o, e, d)))
fault("5N10", "index", "suggest --online --format json: HTTP 503 whose reason holds OSC 52 and "
                       "a token")(
    _index("status_escape", fmt="json",
           check=lambda o, e, d: no_secret5(o, e, d) or m3.json_ok(o, e, d)))


# --------------------------------------------------------------------------- secrets
@fault("5K01", "secrets", "pip.conf under HOME with user:password@ index, the index is down")
def _(d):
    conf = d / "home/.config/pip"
    conf.mkdir(parents=True)
    (conf / "pip.conf").write_text(f"[global]\nindex-url = http://svc:{PIPPW5}@127.0.0.1:9/simple"
                                   "\n")
    return dict(args=["suggest", "--online", "-v", "--online-timeout", "2",
                      "--torch-index-url", "http://127.0.0.1:9/whl"], rc={0, 1}, bound=8,
                check=m3.all_of(no_secret5, shows("127.0.0.1")))


@fault("5K02", "secrets", "check --from: nvidia-smi table whose process names hold tokens")
def _(d):
    table = m2.H100_TABLE + (
        "\n+-----------------------------------------------------------------------------+\n"
        "| Processes:                                                                  |\n"
        "|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |\n"
        f"|    0   N/A  N/A     12345      C   python train.py --hf-token {HF5} --gh {GHP5}"
        "   1024MiB |\n")
    (d / "p.txt").write_text(table)
    py = sys.executable
    runs = "; ".join(f'"{py}" -m envdoctor check --from "{d}/p.txt" -v --format {f} '
                     f'> "{d}/out_{f}"' for f in ("text", "json", "markdown", "github"))
    return dict(shell=["sh", "-c", runs + "; exit 0"], rc={0}, bound=16, check=no_secret5)


@fault("5K03", "secrets", "tokens in CUDA paths (CUDA_HOME, LD_LIBRARY_PATH), check -v json")
def _(d):
    cuda = d / f"opt/{HF5}/cuda"
    (cuda / "bin").mkdir(parents=True)
    m.sh(cuda / "bin/nvcc", 'echo "Cuda compilation tools, release 12.4, V12.4.131"')
    env = {"CUDA_HOME": str(cuda), "LD_LIBRARY_PATH": f"/opt/{GHP5}/lib:{cuda}/lib64",
           "PATH": f"{cuda}/bin:" + os.environ["PATH"]}
    return dict(args=["check", "--static", "-v", "--format", "json"], env=env, rc=ANY, bound=8,
                check=m3.all_of(no_secret5, shows("/cuda")))


@fault("5K04", "secrets", "snapshot host name user:password@node and a token, every format")
def _(d):
    s = snap(d, host__hostname=f"svc:{HOSTPW5}@node-{GHP5}")
    py = sys.executable
    runs = "; ".join(f'"{py}" -m envdoctor check --facts "{s}" -v --format {f} > "{d}/out_{f}"'
                     for f in ("text", "json", "markdown", "junit", "sarif"))
    runs += f'; "{py}" -m envdoctor report --facts "{s}" > "{d}/out_report"'
    return dict(shell=["sh", "-c", runs + "; exit 0"], rc={0}, bound=25, check=no_secret5)


@fault("5K05", "secrets", "pastes of every kind: pip log, condarc, git clone URL, env dump")
def _(d):
    text = (TB + f"Looking in indexes: https://svc:{PIPPW5}@pypi.corp/simple\n"
            f"channels:\n  - https://conda.anaconda.org/t/{CONDA5}/corp\n"
            f"fatal: could not read from https://oauth2:{GLPAT5}@gitlab.corp/x.git\n"
            f"HUGGING_FACE_HUB_TOKEN={HF5}\n")
    (d / "p.txt").write_text(text)
    py = sys.executable
    runs = "; ".join([f'"{py}" -m envdoctor explain "{d}/p.txt" --no-facts > "{d}/out_e"',
                      f'"{py}" -m envdoctor explain "{d}/p.txt" --no-facts --format json '
                      f'> "{d}/out_ej"',
                      f'"{py}" -m envdoctor check --from "{d}/p.txt" -v > "{d}/out_c"',
                      f'"{py}" -m envdoctor check --from "{d}/p.txt" --format json '
                      f'> "{d}/out_cj"',
                      f'"{py}" -m envdoctor suggest --from "{d}/p.txt" -v > "{d}/out_s"'])
    return dict(shell=["sh", "-c", runs + "; exit 0"], rc={0}, bound=25, check=no_secret5)


@fault("5K06", "secrets", "snapshot env whose KEYS are tokens, check -v json and diff")
def _(d):
    a = snap(d, "a.json")
    b = snap(d, "b.json", env__vars={GHP5: "1", HF5: "2", "CUDA_VISIBLE_DEVICES": "0"})
    py = sys.executable
    runs = (f'"{py}" -m envdoctor check --facts "{b}" -v --format json > "{d}/out_c"; '
            f'"{py}" -m envdoctor diff "{a}" "{b}" > "{d}/out_d"; '
            f'"{py}" -m envdoctor diff "{a}" "{b}" --format json > "{d}/out_dj"; exit 0')
    return dict(shell=["sh", "-c", runs], rc={0}, bound=16, check=no_secret5)


@fault("5K07", "secrets", "a token in a missing --from path is echoed in the error line")
def _(d):
    return dict(args=["check", "--from", f"{d}/{GLPAT5}/{HF5}.txt"], rc=m.ONE_LINE_2, bound=6,
                check=no_secret5)


@fault("5K08", "secrets", "a token in an unwritable -o path is echoed in the error line")
def _(d):
    return dict(args=["check", "--static", "-o", f"{d}/nope/{GHP5}/out.json"], rc=m.ONE_LINE_2,
                bound=6, check=no_secret5)


@fault("5K09", "secrets", "a --index-url with user:password@ that cannot be reached, json")
def _(d):
    return dict(args=["suggest", "--online", "--format", "json", "--online-timeout", "2",
                      "--index-url", f"http://svc:{PIPPW5}@127.0.0.1:9/simple",
                      "--torch-index-url", f"http://u:{ARGV5}@127.0.0.1:9/whl"],
                rc={0, 1}, bound=8, check=m3.all_of(no_secret5, m3.json_ok))


# --------------------------------------------------------------------------- fleet
@fault("5F01", "fleet", "fleet compare: node files named with a newline, a forged line and OSC")
def _(d):
    nodes = d / "nodes"
    nodes.mkdir()
    snap(nodes, "a.json")
    snap(nodes, f"b\n{FORGED}\x1b]0;x\x07.json", host__hostname="node-b")
    return dict(args=["fleet", "compare", str(nodes), "--show-hosts"], rc={0, 1, 2}, bound=8,
                check=no_forged_line)


@fault("5F02", "fleet", "fleet compare: a folder of 30 000 empty files")
def _(d):
    nodes = d / "nodes"
    nodes.mkdir()
    for i in range(30000):
        (nodes / f"n{i}.json").touch()
    return dict(args=["fleet", "compare", str(nodes)], rc={0, 1, 2}, bound=10)


@fault("5F03", "fleet", "fleet compare: node snapshots holding a host user:password@ and tokens")
def _(d):
    nodes = d / "nodes"
    nodes.mkdir()
    snap(nodes, "a.json")
    snap(nodes, "b.json", host__hostname=f"svc:{HOSTPW5}@node-b",
         env__vars={"CUDA_VISIBLE_DEVICES": f"0 {HF5}"})
    py = sys.executable
    runs = "; ".join(f'"{py}" -m envdoctor fleet compare "{nodes}" --show-hosts --format {f} '
                     f'> "{d}/out_{f}"' for f in ("text", "json", "junit"))
    return dict(shell=["sh", "-c", runs + "; exit 0"], rc={0}, bound=16, check=no_secret5)


def run_fault(fid: str, python: str = sys.executable, slack: float = 1.0, keep: bool = False
              ) -> dict:
    spec_build = FAULTS[fid][2]

    def build(d):
        spec = spec_build(d)
        spec.setdefault("rc", ANY)
        env = spec.setdefault("env", {})
        env.setdefault("XDG_CACHE_HOME", str(m4._cache_dir() / "cache"))
        env.setdefault("XDG_STATE_HOME", str(m4._cache_dir() / "state"))
        return spec
    faults = {fid: (FAULTS[fid][0], FAULTS[fid][1], build)}
    result = m3.run_fault(fid, python, slack, keep, faults=faults)
    return result


def main() -> None:
    m3.run_cli(FAULTS, run_fault, "fault5-results.json")


if __name__ == "__main__":
    main()
