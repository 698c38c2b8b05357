"""Eighth fault matrix: faults no earlier matrix (1-7), tests/test_hostile_inputs.py,
tests/test_adv_boundaries.py, tests/test_adv7_boundaries.py or the fleet rounds list.

Usage (from the repository root):
  python tests/faults/matrix8.py [--root SRC] [--out results.json] [--only ID,...]
tests/faults/test_faults8.py runs it under pytest (``-m boundary``); MATRIX8.md holds the table.

Classes: ``unicode`` (invisible format characters beyond the bidi controls: zero-width space,
joiner, word joiner, BOM, soft hyphen, Arabic letter mark, Unicode tag characters, line and
paragraph separators, XML non-characters; from snapshots, fake tools, pastes, env values,
``--root`` files and package metadata), ``markup`` (output-kind escaping nobody tried: a
Prometheus label ending in a backslash, an HTML comment and an image in Markdown, ``%`` in a
GitHub workflow command), ``secrets`` (a token cut by escapes or zero-width characters, a URL
password holding ``@`` or ``/``, a token as the argument of explain, a token on a tool's
stderr, OpenAI/Anthropic key shapes, a token in a node file name), ``files`` (raw invalid UTF-8
in a snapshot, UTF-32, a policy with NUL bytes, invalid UTF-8 or a TOML date, a read that fails
with EIO, a node file that is a symlink loop, a UTF-16-LE paste without a BOM, top-level
scalars), ``dispositions`` (signals the caller ignored: nohup's SIGHUP, a background job's
SIGINT), ``signals`` (live workers whose grandchildren ignore SIGTERM, a signal mid-scan of a
big file, two different signals), ``tools`` (a tool that kills itself with SIGKILL, a symlink
loop on PATH, a missing interpreter, a torch whose version and import error carry escapes and
tokens), ``limits`` (RLIMIT_FSIZE, RLIMIT_NOFILE) and ``fleet`` (a rank's payload with hostile
strings, a rank 0 cancelled while a rank never joins).

Every fault is also judged by ``matrix3.universal`` (no exit 3 or traceback, exit 2 with one
stderr line, no raw C0/C1 control character, none of matrix3's planted credentials, bounded
time, nothing left running) plus ``no_secret8`` and ``no_invisible`` here.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from tests.faults import matrix as m
    from tests.faults import matrix2 as m2
    from tests.faults import matrix3 as m3
    from tests.faults import matrix4 as m4
    from tests.faults import matrix7 as m7
else:
    from . import matrix as m
    from . import matrix2 as m2
    from . import matrix3 as m3
    from . import matrix4 as m4
    from . import matrix7 as m7

FAULTS: dict[str, tuple[str, str, object]] = {}


def fault(fid: str, category: str, title: str):
    def deco(fn):
        FAULTS[fid] = (category, title, fn)
        return fn
    return deco


# --------------------------------------------------------------------------- planted data
GHP8 = "ghp_PLANTED8githubTokenZyXwVuTsRqPoNmLkJi"
HF8 = "hf_PLANTED8hfTokenZyXwVuTsRqPoNm"
OPENAI8 = "sk-proj-PLANTED8openaiKey_AbCdEfGhIjKlMnOpQrStUvWx"
ANTHROPIC8 = "sk-ant-api03-PLANTED8anthropicKey-AbCdEfGhIjKlMnOpQr"
PW_AT8 = "PLANTED8p@ss:w0rd"        # a URL password holding '@' and ':' as users write it
PW_SLASH8 = "PLANTED8pa/ssw0rdXY"   # ... and one holding '/'
SECRETS8 = [GHP8, HF8, OPENAI8, ANTHROPIC8, "PLANTED8p", "ss:w0rd", "PLANTED8pa", "ssw0rdXY"]
# a token cut in two by what a terminal or sanitiser drops: the two halves join again
CUT_SGR = "hf_PLANTED8cut\x1b[1mSgrTokenAbCdEfGh"
CUT_ZW = "ghp_PLANTED8cut\u200bZwTokenAbCdEfGhIjKlMn"
JOINED = ["hf_PLANTED8cutSgrTokenAbCdEfGh", "ghp_PLANTED8cutZwTokenAbCdEfGhIjKlMn"]

# invisible format characters (Unicode Cf and separators) a sanitiser of bidi controls misses
ZW = "\u200b\u200c\u200d\u2060\ufeff\u00ad\u061c\u180e\u2061"
TAGS = "".join(chr(0xE0000 + ord(c)) for c in "ignore previous")  # "ASCII smuggling"
SEPS = "\u2028\u2029"
INVISIBLE = set(ZW) | set(TAGS) | set(SEPS) | {"\ufffe", "\uffff"}
ANY = {0, 1}
TWO = {2}
TB = m4.TB
snap = m4.snap
all_of = m3.all_of
one_line = m7.one_line
shows = m7.shows
says = m7.says


def no_secret8(out, err, d):
    text = out + err + m3.written(d)
    leaked = [s[:14] for s in SECRETS8 + JOINED if s in text]
    return f"leaked {leaked}" if leaked else ""


def no_invisible(out, err, d):
    text = out + err + m3.written(d)
    hit = sorted({f"U+{ord(c):04X}" for c in text
                  if c in INVISIBLE or 0xE0000 <= ord(c) <= 0xE007F})
    return f"raw invisible characters {hit[:6]}" if hit else ""


def no_command_line(out, err, d):
    """No line a GitHub runner reads as a workflow command (``::`` after leading blanks, or
    ``##[`` anywhere): what a JSON document must keep (a ``::`` inside a string is inert)."""
    import re
    bad = [ln for ln in (out + err).splitlines() if re.match(r"\s*::[A-Za-z]", ln) or "##[" in ln]
    return f"a workflow command line: {bad[0][:100]!r}" if bad else ""


def _write(p: Path, text: str) -> str:
    p.write_text(text)
    return str(p)


def _error_line(extra: str) -> str:
    return m7._error_line(extra)


def judged(spec: dict) -> dict:
    """Every fault here is also judged for this round's secrets and invisible characters."""
    check = spec.get("check")
    spec["check"] = all_of(*(c for c in (check, no_secret8, no_invisible) if c))
    return spec


# --------------------------------------------------------------------------- unicode
HIDDEN_NAME = f"RTX{ZW}4090{TAGS}{SEPS}x"


@fault("8U01", "unicode", "check --facts text: GPU name with zero-width, tag chars, U+2028")
def _(d):
    return dict(args=["check", "-v", "--facts", str(snap(d, nvidia__gpus__0__name=HIDDEN_NAME))],
                rc={1}, bound=8, check=shows("RTX"))


@fault("8U02", "unicode", "explain markdown: an error line with tag characters and U+061C")
def _(d):
    (d / "tb.txt").write_text(_error_line(f"note{TAGS}\u061c{ZW}"))
    return dict(args=["explain", "--format", "markdown", str(d / "tb.txt")], rc=ANY, bound=10,
                check=shows("no kernel image"))


@fault("8U03", "unicode", "nvidia-smi GPU name with zero-width and tag chars, facts")
def _(d):
    return dict(args=["facts"], env=m3.smi_gpu(d, f"RTX{ZW}4090{TAGS}"), rc=ANY,
                bound=15, check=shows("RTX"))


@fault("8U04", "unicode", "an env value (NCCL_SOCKET_IFNAME) with zero-width/tags, markdown")
def _(d):
    return dict(args=["report", "--static"], rc=ANY, bound=20,
                env={"NCCL_SOCKET_IFNAME": f"eth0{ZW}{TAGS}"}, check=shows("NCCL_SOCKET_IFNAME"))


@fault("8U05", "unicode", "--root: os-release PRETTY_NAME with zero-width, tags and U+2029")
def _(d):
    root = m4.image(d)
    (root / "etc/os-release").write_text(f'PRETTY_NAME="Ubuntu{ZW}{TAGS}{SEPS} 22.04"\nID=ubuntu\n')
    return dict(args=["check", "--static", "--root", str(root), "--format", "json", "-v"],
                rc=ANY, bound=15, check=shows("Ubuntu"))


@fault("8U06", "unicode", "junit: a GPU name holding U+FFFE/U+FFFF (XML non-characters)")
def _(d):
    p = snap(d, nvidia__gpus__0__name="RTX\ufffe\uffff3090")
    return dict(args=["check", "-v", "--facts", str(p), "--format", "junit"], rc={1}, bound=8,
                check=m3.junit_ok())


@fault("8U07", "unicode", "dist-info METADATA Name/Version with zero-width and tags, suggest")
def _(d):
    env = m3.fake_dist(d, "torch-2.3.1.dist-info", m3.meta(f"torch{ZW}", f"2.3.1{TAGS}"))
    return dict(args=["check", "--static", "-v"], env=env, rc=ANY, bound=15)


@fault("8U08", "unicode", "diff: a GPU name with zero-width chars and U+2028 on one side")
def _(d):
    a = snap(d, "a.json")
    b = snap(d, "b.json", nvidia__gpus__0__name=f"RTX{ZW}{SEPS}-b")
    return dict(args=["diff", str(a), str(b)], rc=ANY, bound=8, check=shows("RTX"))


@fault("8U09", "unicode", "nvidia-smi row whose GPU name holds U+2028: the row is read whole")
def _(d):
    return dict(args=["facts"], env=m3.smi_gpu(d, "RTX\u2028A6000"), rc=ANY, bound=15,
                check=m4.gpus_named(1))


# --------------------------------------------------------------------------- markup
@fault("8M01", "markup", "prometheus: a host name and GPU name ending in a backslash")
def _(d):
    p = snap(d, nvidia__gpus__0__name="RTX\\", host__hostname="node\\")
    return dict(args=["check", "-v", "--facts", str(p), "--format", "prometheus"], rc={1},
                bound=8, check=m7.prometheus_ok)


def _prose(out: str) -> str:
    prose, inside = [], False
    for ln in out.splitlines():
        if ln.lstrip().startswith("```"):
            inside = not inside
        elif not inside:
            prose.append(ln)
    return "\n".join(prose)


def md_clean(out, err, d):
    import re
    text = _prose(out + m3.written(d))
    bad = [t for t in (r"<!--", r"(?<!\\)!\[[^\]]*\]\(https?://", r"<details><summary>ok",
                       r"<style")
           if re.search(t, text)]
    return f"live markup {bad}" if bad else ""


EVIL_MD = ("A100 <!-- everything after this is hidden --> ![px](https://evil.example/t.png) "
           "<details><summary>ok</summary>")


@fault("8M02", "markup", "report markdown: a GPU name opening an HTML comment and an image")
def _(d):
    return dict(args=["report", "--facts", str(snap(d, nvidia__gpus__0__name=EVIL_MD))],
                rc={0, 1}, bound=10, check=md_clean)


@fault("8M03", "markup", "check --format markdown: an env value opening an HTML comment")
def _(d):
    p = snap(d, env__vars={"CUDA_VISIBLE_DEVICES": "0", "NCCL_DEBUG": EVIL_MD})
    return dict(args=["check", "-v", "--facts", str(p), "--format", "markdown"], rc={1},
                bound=8, check=md_clean)


def wf_percent(out, err, d):
    """GitHub unescapes %0A, %0D and %25 in a workflow command's data: a '%' from the input
    must be written %25, else '%0A::error::' becomes a forged line in the annotation."""
    bad = [ln for ln in out.splitlines() if ln.startswith("::") and "%0A::" in ln]
    return f"unescaped % in a workflow command: {bad[0][:120]!r}" if bad else ""


@fault("8M04", "markup", "--format github: a GPU name holding %0A::error:: (percent-encoded)")
def _(d):
    p = snap(d, nvidia__gpus__0__name="RTX%0A::error title=PWNED8::forged%0D")
    return dict(args=["check", "-v", "--facts", str(p), "--format", "github"], rc={1}, bound=8,
                check=wf_percent)


@fault("8M05", "markup", "sarif: a GPU name with markdown and {0} placeholders stays JSON")
def _(d):
    p = snap(d, nvidia__gpus__0__name="RTX {0} [x](javascript:alert(1)) \u2028")
    return dict(args=["check", "-v", "--facts", str(p), "--format", "sarif"], rc={1}, bound=8,
                check=m3.json_ok)


# --------------------------------------------------------------------------- secrets
@fault("8K01", "secrets", "explain text: a token cut by an SGR escape on the error line")
def _(d):
    (d / "tb.txt").write_text(_error_line(f"token {CUT_SGR}"))
    return dict(args=["explain", str(d / "tb.txt")], rc=ANY, bound=10,
                check=shows("no kernel image"))


@fault("8K02", "secrets", "explain json: a token cut by a zero-width space on the error line")
def _(d):
    (d / "tb.txt").write_text(_error_line(f"login {CUT_ZW}"))
    return dict(args=["explain", "--format", "json", str(d / "tb.txt")], rc=ANY, bound=10,
                check=shows("no kernel image"))


@fault("8K03", "secrets", "explain: URL passwords holding '@' and '/' (written raw)")
def _(d):
    (d / "tb.txt").write_text(_error_line(
        f"pip install --index-url https://ci:{PW_AT8}@pkgs.example.com/simple "
        f"--extra-index-url https://ci:{PW_SLASH8}@mirror.example.com/simple"))
    return dict(args=["explain", str(d / "tb.txt")], rc=ANY, bound=10,
                check=shows("example.com"))


@fault("8K04", "secrets", "explain ARG: a token that is neither a file nor a rule code")
def _(d):
    return dict(args=["explain", HF8], rc=TWO, bound=8, check=one_line)


@fault("8K05", "secrets", "nvidia-smi fails with a token and a URL password on its stderr")
def _(d):
    env = m4.tool(d, "nvidia-smi", f"echo 'auth failed for {GHP8} at "
                                   f"https://ci:{PW_SLASH8}@mirror.example.com' >&2; exit 9")
    return dict(args=["check", "--static", "-v", "--format", "json"], env=env, rc=ANY,
                bound=15)


@fault("8K06", "secrets", "explain json: OpenAI sk-proj and Anthropic sk-ant keys on the error")
def _(d):
    (d / "tb.txt").write_text(_error_line(f"Incorrect API key provided: {OPENAI8} / {ANTHROPIC8}"))
    return dict(args=["explain", "--format", "json", str(d / "tb.txt")], rc=ANY, bound=10,
                check=shows("no kernel image"))


@fault("8K07", "secrets", "fleet compare: a node file named after a token, not JSON")
def _(d):
    nodes = d / "nodes"
    nodes.mkdir()
    snap(nodes, "a.json")
    snap(nodes, "b.json", host__hostname="node-b")
    (nodes / f"{HF8}.json").write_text("{not json")
    return dict(args=["fleet", "compare", str(nodes)], rc={0, 1, 2}, bound=10)


@fault("8K08", "secrets", "check --from: a pasted env dump with a token cut by an SGR escape")
def _(d):
    (d / "p.txt").write_text(f"$ env\nHF_HOME=/data\nTOKEN_HINT={CUT_SGR}\n" + TB)
    return dict(args=["check", "--from", str(d / "p.txt"), "--format", "json"], rc=ANY,
                bound=10)


@fault("8K09", "secrets", "check -v json: a torch import error quoting a token and an escape")
def _(d):
    env = m.shadow(d, f"raise ImportError('libcudnn missing; token=\\x1b[0m{GHP8} "
                      f"url https://ci:{PW_SLASH8}@mirror.example.com')\n")
    return dict(args=["check", "--framework", "torch", "--no-smoke", "--timeout", "20",
                      "--format", "json", "-v"], env=env, rc=ANY, bound=40,
                check=m.want_torch_failed)


# --------------------------------------------------------------------------- files
@fault("8F01", "files", "check --facts: raw invalid UTF-8 bytes inside a JSON string")
def _(d):
    p = snap(d)
    p.write_bytes(p.read_bytes().replace(b"node-a", b"node-\xff\xfe\xc0"))
    return dict(args=["check", "--facts", str(p)], rc={1, 2}, bound=8)


@fault("8F02", "files", "check --facts: a snapshot in UTF-32 with a BOM")
def _(d):
    p = snap(d)
    p.write_bytes(p.read_text().encode("utf-32"))
    return dict(args=["check", "--facts", str(p)], rc={1, 2}, bound=8)


@fault("8F03", "files", "--policy with a NUL byte in a string")
def _(d):
    return m7._gate(d, b'require = ["gpus>=1\x00"]\n')


@fault("8F04", "files", "--policy with invalid UTF-8 bytes")
def _(d):
    return m7._gate(d, b'# \xff\xfe\nrequire = ["gpus>=1"]\n')


@fault("8F05", "files", "--policy: expect is a TOML date, fail_on a table")
def _(d):
    return m7._gate(d, 'expect = 1979-05-27T07:32:00Z\n[fail_on]\nx = 1\n')


@fault("8F06", "files", "explain /proc/self/mem (every read fails with EIO)")
def _(d):
    return dict(args=["explain", "/proc/self/mem", "--no-facts"], rc=TWO, bound=8,
                check=one_line)


@fault("8F07", "files", "fleet compare: a node file that is a symlink loop and one to /proc")
def _(d):
    nodes = d / "nodes"
    nodes.mkdir()
    snap(nodes, "a.json")
    snap(nodes, "b.json", host__hostname="node-b")
    (nodes / "c.json").symlink_to(nodes / "c.json")
    (nodes / "d.json").symlink_to("/proc/self/mem")
    return dict(args=["fleet", "compare", str(nodes)], rc={0, 1, 2}, bound=10)


@fault("8F08", "files", "explain a UTF-16-LE traceback without a BOM: one line, as check --from")
def _(d):
    (d / "tb.txt").write_bytes(TB.encode("utf-16-le"))
    return dict(args=["explain", "--format", "json", str(d / "tb.txt")], rc=TWO, bound=10,
                check=one_line)


@fault("8F09", "files", "diff: one side is the JSON scalar 1e999, the other null")
def _(d):
    (d / "a.json").write_text("1e999")
    (d / "b.json").write_text("null")
    return dict(args=["diff", str(d / "a.json"), str(d / "b.json")], rc=TWO, bound=8,
                check=one_line)


@fault("8F10", "files", "check --facts: two JSON documents back to back (a .jsonl)")
def _(d):
    p = snap(d)
    p.write_text(p.read_text() + "\n" + p.read_text())
    return dict(args=["check", "--facts", str(p)], rc=TWO, bound=8, check=one_line)


@fault("8F11", "files", "--root: PCI device files (vendor, class) are FIFOs and /dev/zero links")
def _(d):
    root = m4.image(d)
    dev = root / "sys/bus/pci/devices/0000:01:00.0"
    dev.mkdir(parents=True)
    os.mkfifo(dev / "vendor")
    (dev / "class").symlink_to("/dev/zero")
    (dev / "device").write_text("0x2330\n")
    return dict(args=["check", "--static", "--root", str(root), "--format", "json"], rc=ANY,
                bound=15)


# --------------------------------------------------------------------------- dispositions
def _ignored(sig: str, args: list[str], d: Path, env: dict, send: int) -> dict:
    """The caller ignored ``sig`` (nohup, a background job of a non-interactive shell): a
    signal the caller ignores must not end the run."""
    return dict(shell=["sh", "-c", f'trap "" {sig}; exec "$@"', "sh", sys.executable, "-m",
                       "envdoctor", *args],
                env=env, rc=ANY, bound=25, signal=(send, "started", False))


@fault("8D01", "dispositions", "nohup: SIGHUP ignored by the caller, sent during a slow probe")
def _(d):
    env = m4.tool(d, "nvidia-smi", f"touch {d}/started; sleep 3; exit 9")
    return _ignored("HUP", ["check", "--static"], d, env, signal.SIGHUP)


@fault("8D02", "dispositions", "a background job: SIGINT ignored, sent during a slow probe")
def _(d):
    env = m4.tool(d, "nvidia-smi", f"touch {d}/started; sleep 3; exit 9")
    return _ignored("INT", ["check", "--static"], d, env, signal.SIGINT)


@fault("8D03", "dispositions", "nohup: SIGHUP ignored, sent while a live worker imports")
def _(d):
    env = m.shadow(d, f"import time\nopen({str(d / 'started')!r}, 'w').close()\ntime.sleep(3)\n"
                      "raise ImportError('slow torch')\n")
    return _ignored("HUP", ["check", "--framework", "torch", "--no-smoke", "--timeout", "30"],
                    d, env, signal.SIGHUP)


# --------------------------------------------------------------------------- signals
_STUBBORN = ("import os, signal, subprocess, sys, time\n"
             "subprocess.Popen([sys.executable, '-c', 'import signal, time; "
             "signal.signal(signal.SIGTERM, signal.SIG_IGN); "
             "signal.signal(signal.SIGINT, signal.SIG_IGN); "
             "signal.signal(signal.SIGHUP, signal.SIG_IGN); time.sleep(1000)'], {kw})\n"
             "open({started!r}, 'w').close()\ntime.sleep(1000)\n")


@fault("8G01", "signals", "SIGTERM: the torch worker's grandchild ignores SIGTERM (same group)")
def _(d):
    env = m.shadow(d, _STUBBORN.format(kw="", started=str(d / "started")))
    return dict(args=["check", "--framework", "torch", "--no-smoke", "--timeout", "60"], env=env,
                bound=15, **m3._sig(signal.SIGTERM, "started"))


@fault("8G02", "signals", "SIGINT: report's torch worker grandchild setsid and ignoring signals")
def _(d):
    env = m.shadow(d, _STUBBORN.format(kw="start_new_session=True", started=str(d / "started")))
    return dict(args=["report", "--no-smoke"], env=env, bound=15,
                **m3._sig(signal.SIGINT, "started"))


@fault("8G03", "signals", "SIGHUP while report's smoke waits on a torch that hangs at import")
def _(d):
    env = m.shadow(d, _STUBBORN.format(kw="", started=str(d / "started")))
    return dict(args=["report"], env=env, bound=15,
                **m3._sig(signal.SIGHUP, "started"))


@fault("8G04", "signals", "SIGTERM then SIGINT 100 ms later during a hung live worker")
def _(d):
    env = m.shadow(d, f"import time\nopen({str(d / 'started')!r}, 'w').close()\ntime.sleep(1000)\n")
    spec = dict(args=["check", "--framework", "torch", "--no-smoke", "--timeout", "60"], env=env,
                bound=15, **m3._sig(signal.SIGTERM, "started"))
    spec["signal2"] = (signal.SIGINT, 0.1)
    spec["rc"] = {143, -15, 130, -2}
    return spec


@fault("8G05", "signals", "SIGTERM during `check --from` of a 300 MB log (regular file)")
def _(d):
    p = d / "big.log"
    with open(p, "wb") as fh:
        line = b"| 0 NVIDIA H100 80GB HBM3   On | 00000000:18:00.0 Off | 0 |\n"
        fh.write(line * (300_000_000 // len(line)))
    return dict(args=["check", "--from", str(p)], bound=10, **m3._sig(signal.SIGTERM, 1.5))


# --------------------------------------------------------------------------- tools
@fault("8T01", "tools", "nvidia-smi prints half a row, then kills itself with SIGKILL")
def _(d):
    env = m4.tool(d, "nvidia-smi", 'printf "0, NVIDIA H1"; kill -KILL $$')
    return dict(args=["check", "--static", "--format", "json"], env=env, rc=ANY, bound=15,
                check=m4.probe_ok("host"))


@fault("8T02", "tools", "nvidia-smi on PATH is a symlink loop")
def _(d):
    (d / "bin").mkdir()
    (d / "bin/nvidia-smi").symlink_to(d / "bin/nvidia-smi")
    return dict(args=["check", "--static", "--format", "json"], rc=ANY, bound=15,
                env={"PATH": f"{d}/bin:" + os.environ["PATH"]})


@fault("8T03", "tools", "nvcc is a script whose interpreter does not exist (ENOENT at exec)")
def _(d):
    (d / "bin").mkdir()
    p = d / "bin/nvcc"
    p.write_text("#!/nonexistent/interp\n")
    p.chmod(0o755)
    return dict(args=["check", "--static", "--format", "json"], rc=ANY, bound=15,
                env={"PATH": f"{d}/bin:" + os.environ["PATH"]})


@fault("8T04", "tools", "nvidia-smi forks a same-group grandchild ignoring TERM/HUP, exits 0")
def _(d):
    body = ("( trap '' TERM HUP INT; exec sleep 1000 ) &\n"
            'case "$*" in *--query-gpu*) echo "0, NVIDIA H100 80GB HBM3";; esac\nexit 0')
    env = m4.tool(d, "nvidia-smi", body)
    return dict(args=["check", "--static", "--format", "json"], env=env, rc=ANY, bound=20)


@fault("8T05", "tools", "torch whose __version__ holds OSC 52, a token and tag characters")
def _(d):
    env = m.shadow(d, f"__version__ = '2.3.1\\x1b]52;c;cHduZWQ=\\x07{GHP8}{TAGS}'\n"
                      "class cuda:\n    @staticmethod\n    def is_available(): return False\n"
                      "    @staticmethod\n    def device_count(): return 0\n")
    return dict(args=["check", "--framework", "torch", "--no-smoke", "--timeout", "20", "-v"],
                env=env, rc=ANY, bound=40)


@fault("8T06", "tools", "torch import prints 20 MB of escapes and tokens to stderr, then fails")
def _(d):
    env = m.shadow(d, "import sys\nfor _ in range(200000):\n"
                      f"    sys.stderr.write('\\x1b[31m{HF8} \\x9b2J warning\\n')\n"
                      "raise ImportError('broken')\n")
    return dict(args=["check", "--framework", "torch", "--no-smoke", "--timeout", "30",
                      "--format", "json", "-v"], env=env, rc=ANY, bound=40,
                check=m.want_torch_failed)


# --------------------------------------------------------------------------- limits
def _ulimit(opt: str, value: str, args: list[str]) -> list[str]:
    return ["sh", "-c", f'ulimit {opt} {value} && exec "$@"', "sh", sys.executable, "-m",
            "envdoctor", *args]


@fault("8L01", "limits", "RLIMIT_FSIZE 1 kB: report -o FILE cannot be written whole")
def _(d):
    (d / "out.md").write_text("OLD\n")

    def check(out, err, d):
        left = sorted(p.name for p in d.iterdir() if p.name.endswith(".tmp"))
        if left:
            return f"temporary files left: {left}"
        return "" if (d / "out.md").read_text() == "OLD\n" else "out.md was torn"
    return dict(shell=_ulimit("-f", "1", ["report", "--facts", str(snap(d)), "-o",
                                          str(d / "out.md")]),
                rc=TWO, bound=10, check=all_of(one_line, check))


@fault("8L02", "limits", "RLIMIT_FSIZE 1 kB: check --format json to a file on stdout")
def _(d):
    return dict(shell=["sh", "-c", f'ulimit -f 1 && exec "$@" > {d}/out.json', "sh",
                       sys.executable, "-m", "envdoctor", "check", "-v", "--facts",
                       str(snap(d)), "--format", "json"],
                rc=TWO, bound=10, check=one_line)


@fault("8L03", "limits", "RLIMIT_NOFILE 12: a live check cannot open its workers' pipes")
def _(d):
    return dict(shell=_ulimit("-n", "12", ["check", "--framework", "torch", "--no-smoke",
                                           "--timeout", "20"]),
                rc={0, 1, 2}, bound=40)


# --------------------------------------------------------------------------- fleet
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _fleet(d: Path, rank1_site: str | None, start1: bool = True) -> dict:
    """Rank 0 in the foreground, rank 1 (if started) in the background, both --static."""
    port = _free_port()
    base = (f"MASTER_ADDR=127.0.0.1 MASTER_PORT={port} WORLD_SIZE=2 GLOO_SOCKET_IFNAME=lo "
            "OMP_NUM_THREADS=1 NO_COLOR=1")
    cmd = f"{sys.executable} -m envdoctor fleet --static --timeout 6 --format json"
    script = ""
    if start1:
        pp = f"PYTHONPATH={d / 'site1'}:${{PYTHONPATH:-}} " if rank1_site else ""
        if rank1_site:
            (d / "site1").mkdir()
            (d / "site1/sitecustomize.py").write_text(rank1_site)
        script += f"env {base} RANK=1 LOCAL_RANK=0 NODE_RANK=1 {pp}{cmd} >/dev/null 2>&1 &\n"
    rank0 = f"env {base} RANK=0 LOCAL_RANK=0 NODE_RANK=0 {cmd}"
    if start1:
        script += f"touch {d}/started; {rank0}\nrc=$?; wait; exit $rc\n"
    else:  # rank 0 is the process the fault signals
        script += f"touch {d}/started; exec {rank0}\n"
    return dict(shell=["sh", "-c", script], rc={0, 1}, bound=60)


_HOSTILE_PAYLOAD = (
    "import json, envdoctor.fleet.collective as c\n_o = c.gather\n"
    "def _g(store, layout, out, payload, go):\n"
    "    doc = json.loads(payload)\n"
    "    def walk(x):\n"
    "        if isinstance(x, dict):\n"
    "            return {k: walk(v) for k, v in x.items()}\n"
    "        if isinstance(x, list):\n"
    "            return [walk(v) for v in x]\n"
    "        if isinstance(x, str) and x and not x[0].isdigit() and len(x) > 3:\n"
    "            return x + "
    + repr("\x1b]52;c;cHduZWQ=\x07" + GHP8 + TAGS + " ::error title=PWNED3::x") + "\n"
    "        return x\n"
    "    _o(store, layout, out, json.dumps(walk(doc)).encode(), go)\n"
    "c.gather = _g\n")


@fault("8N01", "fleet", "a rank's payload: every string gains OSC 52, a token, tags, ::error")
def _(d):
    spec = _fleet(d, _HOSTILE_PAYLOAD)
    spec["check"] = no_command_line
    return spec


@fault("8N02", "fleet", "SIGTERM to rank 0 while rank 1 never joins: 143, nothing left")
def _(d):
    spec = _fleet(d, None, start1=False)
    spec.update(rc={143, -15}, bound=25, signal=(signal.SIGTERM, 8.0, False),
                check=m3.stderr_lines(2))
    return spec


# --------------------------------------------------------------------------- runner
def run_fault(fid: str, python: str = sys.executable, slack: float = 1.0, keep: bool = False
              ) -> dict:
    spec_build = FAULTS[fid][2]
    m7.warm(python)

    def build(d):
        spec = judged(spec_build(d))
        spec.setdefault("rc", ANY)
        env = spec.setdefault("env", {})
        env.setdefault("XDG_CACHE_HOME", str(m4._cache_dir() / "cache"))
        env.setdefault("XDG_STATE_HOME", str(m4._cache_dir() / "state"))
        if "signal2" in spec:  # a second signal shortly after the first
            sig2, after = spec.pop("signal2")
            sig1, trigger, group = spec["signal"]
            spec["signal"] = (sig1, trigger, group)
            _SECOND[fid] = (sig2, after)
        return spec
    faults = {fid: (FAULTS[fid][0], FAULTS[fid][1], build)}
    if fid in _TWICE:
        return _run_twice(fid, python, slack, keep, faults)
    return m3.run_fault(fid, python, slack, keep, faults=faults)


_SECOND: dict[str, tuple[int, float]] = {}
_TWICE = {"8G04"}


def _run_twice(fid, python, slack, keep, faults):
    """As m3.run_fault, with a second signal sent ``after`` seconds past the first."""
    import threading
    import time
    real_kill = os.kill

    def kill(pid, sig):
        real_kill(pid, sig)
        if fid in _SECOND:
            sig2, after = _SECOND.pop(fid)

            def later():
                time.sleep(after)
                try:
                    real_kill(pid, sig2)
                except OSError:
                    pass
            threading.Thread(target=later, daemon=True).start()
    os.kill = kill
    try:
        return m3.run_fault(fid, python, slack, keep, faults=faults)
    finally:
        os.kill = real_kill


def main() -> None:
    m3.run_cli(FAULTS, run_fault, "fault8-results.json")


if __name__ == "__main__":
    main()
